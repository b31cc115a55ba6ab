/**
 * Bounded, policy-free file reading for the operations hooks of Pi's read and grep: only
 * regular files (a FIFO or device would block forever), never more than a fixed prefix of a
 * huge file, and a sniff for images and binary content.
 */

import { open, stat } from "node:fs/promises";

/** read and grep's context lines see at most this much of one file. */
export const READ_MAX_BYTES = 8 * 1024 * 1024;
/** Larger images are not sent at all; Pi's resize would have to decode them first. */
export const IMAGE_MAX_BYTES = 20 * 1024 * 1024;
/** git's heuristic: a NUL byte in the first 8000 bytes means binary. */
const BINARY_SNIFF_BYTES = 8000;

export type ImageMime = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export type FileBytes =
	| { kind: "whole"; bytes: Buffer; size: number }
	/** A prefix ending at a line break: the file was larger than READ_MAX_BYTES. */
	| { kind: "prefix"; bytes: Buffer; size: number }
	| { kind: "binary"; size: number }
	| { kind: "not-a-file" };

/** Size of a regular file, undefined for anything else (folder, FIFO, socket, device, missing). */
export async function regularFileSize(path: string): Promise<number | undefined> {
	try {
		const s = await stat(path);
		return s.isFile() ? s.size : undefined;
	} catch {
		return undefined;
	}
}

export async function readHead(path: string, max: number): Promise<Buffer> {
	const handle = await open(path, "r");
	try {
		const buffer = Buffer.alloc(max);
		let filled = 0;
		while (filled < max) {
			const { bytesRead } = await handle.read(buffer, filled, max - filled, filled);
			if (bytesRead === 0) break;
			filled += bytesRead;
		}
		return buffer.subarray(0, filled);
	} finally {
		await handle.close();
	}
}

export async function readTextFile(path: string): Promise<FileBytes> {
	const size = await regularFileSize(path);
	if (size === undefined) return { kind: "not-a-file" };
	const head = await readHead(path, Math.min(size, READ_MAX_BYTES));
	if (head.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { kind: "binary", size };
	if (size <= READ_MAX_BYTES && head.length === size) return { kind: "whole", bytes: head, size };
	// Cut at the last line break so no line (or UTF-8 sequence) is half shown.
	const lastBreak = head.lastIndexOf(0x0a);
	return { kind: "prefix", bytes: lastBreak > 0 ? head.subarray(0, lastBreak + 1) : head, size };
}

/** The image types Pi's read sends as attachments, by magic number. */
export async function sniffImage(path: string): Promise<ImageMime | undefined> {
	const size = await regularFileSize(path);
	if (size === undefined || size < 12) return undefined;
	const b = await readHead(path, 12);
	if (b[0] === 0x89 && b.toString("latin1", 1, 4) === "PNG") return "image/png";
	if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
	const ascii = b.toString("latin1", 0, 6);
	if (ascii === "GIF87a" || ascii === "GIF89a") return "image/gif";
	if (b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") return "image/webp";
	return undefined;
}
