/**
 * Bounded, policy-free reading of an already opened (and verified) file for the operations
 * hooks of Pi's read and grep: never more than a fixed prefix of a huge file, and a sniff for
 * images and binary content. Opening, with the checks that only a regular file inside the
 * workspace gets this far, is verified-open.ts's job.
 */

import type { FileHandle } from "node:fs/promises";

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
	| { kind: "binary"; size: number };

/** Up to `max` bytes from `position` on; fewer at the end of the file. */
export async function readAt(handle: FileHandle, position: number, max: number): Promise<Buffer> {
	const buffer = Buffer.alloc(max);
	let filled = 0;
	while (filled < max) {
		const { bytesRead } = await handle.read(buffer, filled, max - filled, position + filled);
		if (bytesRead === 0) break;
		filled += bytesRead;
	}
	return buffer.subarray(0, filled);
}

export async function readTextFile(handle: FileHandle, size: number): Promise<FileBytes> {
	const head = await readAt(handle, 0, Math.min(size, READ_MAX_BYTES));
	if (head.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { kind: "binary", size };
	if (size <= READ_MAX_BYTES && head.length === size) return { kind: "whole", bytes: head, size };
	// Cut at the last line break so no line (or UTF-8 sequence) is half shown.
	const lastBreak = head.lastIndexOf(0x0a);
	return { kind: "prefix", bytes: lastBreak > 0 ? head.subarray(0, lastBreak + 1) : head, size };
}

/** The image types Pi's read sends as attachments, by magic number. */
export async function sniffImage(handle: FileHandle, size: number): Promise<ImageMime | undefined> {
	if (size < 12) return undefined;
	const b = await readAt(handle, 0, 12);
	if (b[0] === 0x89 && b.toString("latin1", 1, 4) === "PNG") return "image/png";
	if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
	const ascii = b.toString("latin1", 0, 6);
	if (ascii === "GIF87a" || ascii === "GIF89a") return "image/gif";
	if (b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") return "image/webp";
	return undefined;
}
