/**
 * Reading a file a user or another program controls (the config, a session log) without letting
 * it hang or exhaust the process: only a regular file is read, never more than a cap.
 *
 * The open is non-blocking, so a FIFO without a writer returns at once instead of waiting for one;
 * the type and size are then checked on the opened descriptor (not on the path, which could be
 * swapped in between), so a FIFO, a socket or a device such as /dev/zero is refused before a
 * single byte is read. A file that grows past the cap while it is read is refused too.
 */

import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";

export type RegularFileRead =
	| { kind: "ok"; text: string; bytes: number }
	| { kind: "missing" }
	/** `reason` is one clean phrase ("is a FIFO (named pipe), not a regular file"), no path, no error code. */
	| { kind: "refused"; reason: string };

/** Platforms without the flags (Windows) get 0: the fstat check still applies. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

const CHUNK_BYTES = 1024 * 1024;
/** Pieces a file read by lines is decoded in: small enough that each piece's text dies young. */
const LINE_CHUNK_BYTES = 64 * 1024;

/** A read that gave no text: why. */
type NotRead = Exclude<RegularFileRead, { kind: "ok" }>;

function notRegular(stats: Stats): NotRead {
	let kind = "";
	if (stats.isDirectory()) kind = "a folder, ";
	else if (stats.isFIFO()) kind = "a FIFO (named pipe), ";
	else if (stats.isCharacterDevice()) kind = "a character device, ";
	else if (stats.isBlockDevice()) kind = "a block device, ";
	else if (stats.isSocket()) kind = "a socket, ";
	return { kind: "refused", reason: `is ${kind}not a regular file` };
}

function openError(error: unknown): NotRead {
	return (error as NodeJS.ErrnoException).code === "ENOENT"
		? { kind: "missing" }
		: { kind: "refused", reason: errnoReason(error) };
}

/** `1.5 MB`, `300 MB`: sizes in messages. */
export function formatBytes(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	const units = ["KB", "MB", "GB", "TB"];
	let value = bytes / 1024;
	let unit = 0;
	while (value >= 1024 && unit < units.length - 1) {
		value /= 1024;
		unit++;
	}
	return `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10} ${units[unit]}`;
}

/**
 * Node's errno messages repeat the code and the path ("ENOENT: no such file or directory, open
 * '/x'"); a report already names the file, so only the description is kept.
 */
export function errnoReason(error: unknown): string {
	if (!(error instanceof Error)) return String(error);
	const code = (error as NodeJS.ErrnoException).code;
	const match = /^[A-Z][A-Z0-9_]*: (.*?)(?:, [a-z_]+(?: '.*')?)?$/s.exec(error.message);
	if (match?.[1] !== undefined && match[1] !== "") return match[1];
	return code !== undefined && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}

function tooLarge(bytes: number, maxBytes: number): NotRead {
	const [size, limit] = [formatBytes(bytes), formatBytes(maxBytes)];
	// "1 MB, larger than the 1 MB limit" would read as a contradiction: then exact bytes.
	return {
		kind: "refused",
		reason:
			size === limit
				? `is ${bytes} bytes, larger than the ${maxBytes}-byte limit`
				: `is ${size}, larger than the ${limit} limit`,
	};
}

/**
 * Reads a regular file chunk by chunk, up to `maxBytes`; `take` gets each chunk as it is read (the
 * buffer is reused for the next one). Never blocks on a FIFO or a device.
 */
function readChunks(
	path: string,
	maxBytes: number,
	take: (chunk: Buffer) => void,
	chunkBytes: number = CHUNK_BYTES,
): { kind: "ok"; bytes: number } | NotRead {
	// A device is not even opened when the path already shows what it is (opening some has effects).
	try {
		const stats = statSync(path);
		if (!stats.isFile()) return notRegular(stats);
	} catch (error) {
		return openError(error);
	}
	let fd: number;
	try {
		fd = openSync(path, OPEN_FLAGS);
	} catch (error) {
		return openError(error);
	}
	try {
		const stats = fstatSync(fd);
		if (!stats.isFile()) return notRegular(stats);
		if (stats.size > maxBytes) return tooLarge(stats.size, maxBytes);
		// The size is a hint, not a promise (a session may still be written): read to the end, one
		// byte past the cap at most, so growth beyond it is seen and refused.
		const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(chunkBytes, maxBytes + 1)));
		let total = 0;
		for (;;) {
			const want = Math.min(buffer.length, maxBytes + 1 - total);
			if (want <= 0) return tooLarge(total, maxBytes);
			const read = readSync(fd, buffer, 0, want, null);
			if (read === 0) break;
			take(buffer.subarray(0, read));
			total += read;
		}
		return { kind: "ok", bytes: total };
	} catch (error) {
		return { kind: "refused", reason: errnoReason(error) };
	} finally {
		closeSync(fd);
	}
}

/** Reads a whole regular file as UTF-8, up to `maxBytes`. Never blocks on a FIFO or a device. */
export function readRegularFile(path: string, maxBytes: number): RegularFileRead {
	const chunks: Buffer[] = [];
	const read = readChunks(path, maxBytes, (chunk) => chunks.push(Buffer.from(chunk)));
	return read.kind === "ok"
		? { kind: "ok", text: Buffer.concat(chunks, read.bytes).toString("utf8"), bytes: read.bytes }
		: read;
}

export type RegularLinesRead = { kind: "ok"; bytes: number; endsWithNewline: boolean } | NotRead;

/**
 * Reads a regular file as UTF-8 lines, up to `maxBytes`, without holding it whole: `line` gets each
 * line, its newline and the file's byte-order mark left out, as `text.split("\n")` gives them (a
 * newline at the end starts no line). A long session is parsed as it is read (docs/decisions.md).
 */
export function readRegularLines(
	path: string,
	maxBytes: number,
	line: (text: string) => void,
	chunkBytes: number = LINE_CHUNK_BYTES,
): RegularLinesRead {
	const decoder = new StringDecoder("utf8");
	let rest = "";
	let started = false;
	let sawNewline = false;
	// The unfinished line of the previous pieces is joined to its end only: a piece is never copied whole.
	const split = (decoded: string) => {
		let text = decoded;
		if (!started && text.length > 0) {
			started = true;
			if (text.startsWith("\uFEFF")) text = text.slice(1);
		}
		let at = 0;
		for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", at)) {
			sawNewline = true;
			const piece = text.slice(at, nl);
			line(rest.length === 0 ? piece : rest + piece);
			rest = "";
			at = nl + 1;
		}
		rest += text.slice(at);
	};
	const read = readChunks(path, maxBytes, (chunk) => split(decoder.write(chunk)), chunkBytes);
	if (read.kind !== "ok") return read;
	split(decoder.end());
	if (rest.length > 0) line(rest);
	return { kind: "ok", bytes: read.bytes, endsWithNewline: rest.length === 0 && sawNewline };
}
