/**
 * read: Pi's own read tool, fenced through its `operations` hook.
 *
 * Layers: the argument is judged by the path policy before Pi sees it and handed over as a
 * real absolute path; every file-system touch in the hook is judged again (Pi may try
 * spelling variants of a missing name), and content is read only through a descriptor
 * verified after opening (verified-open.ts), so a folder swapped for a symlink between the
 * check and the open cannot redirect the read. The hook also reads only regular files, at
 * most READ_MAX_BYTES of them, and turns binary content into a marker. Pi then does what it does
 * best: line/byte truncation (2000 lines or 50KB), offset/limit, image resizing.
 */

import { access, constants } from "node:fs/promises";
import { createReadTool, formatSize, type ReadOperations } from "@mariozechner/pi-coding-agent";
import { assertNever } from "../../../events/index.ts";
import { TOOL_REFUSAL, TOOL_TEXT } from "../../../render/index.ts";
import { IMAGE_MAX_BYTES, READ_MAX_BYTES, readAt, readTextFile, sniffImage } from "./file-bytes.ts";
import { fail, numberArg, stringArg, type ToolArgs, type ToolContent, type ToolOutcome } from "./result.ts";
import type { RunContext } from "./run-context.ts";
import { openVerified, type VerifiedHandle } from "./verified-open.ts";
import { allowedPath, refusalText, shownPath } from "./workspace.ts";

export async function runRead(args: ToolArgs, ctx: RunContext): Promise<ToolOutcome> {
	const ws = ctx.workspace;
	const path = stringArg(args, "path") ?? "";
	const verdict = await ws.resolveArgument(path);
	if (verdict.kind !== "ok") return fail(refusalText(verdict, path));

	const notes: string[] = [];
	// One verified descriptor per path for the whole call: the image sniff and the read see
	// the same file, whatever happens to the path in between.
	const opened = new Map<string, Promise<VerifiedHandle>>();
	let finished = false;
	const openOnce = (p: string): Promise<VerifiedHandle> => {
		let handle = opened.get(p);
		if (handle === undefined) {
			// A hook still running after an abort must not open what nobody will close.
			if (finished) return Promise.reject(new Error(TOOL_TEXT.cancelled("read")));
			handle = openVerified(ws, p, "file");
			opened.set(p, handle);
		}
		return handle;
	};
	const images = new Set<string>();
	const oversizedImages = new Map<string, number>();
	const operations: ReadOperations = {
		access: async (p) => {
			const real = await allowedPath(ws, p);
			try {
				await access(real, constants.R_OK);
			} catch {
				throw new Error(TOOL_REFUSAL.notFound(shownPath(ws, real)));
			}
		},
		detectImageMimeType: async (p) => {
			const file = await openOnce(p);
			const mime = await sniffImage(file.handle, file.size);
			if (mime === undefined) return null;
			// Not an image to Pi, so it reads text — and our readFile answers with a marker.
			if (file.size > IMAGE_MAX_BYTES) {
				oversizedImages.set(p, file.size);
				return null;
			}
			images.add(p);
			return mime;
		},
		readFile: async (p) => {
			const oversized = oversizedImages.get(p);
			if (oversized !== undefined) return Buffer.from(TOOL_TEXT.imageTooLarge(formatSize(oversized)));
			const file = await openOnce(p);
			if (images.has(p)) return readAt(file.handle, 0, file.size);
			const text = await readTextFile(file.handle, file.size);
			switch (text.kind) {
				case "whole":
					return text.bytes;
				case "prefix":
					notes.push(TOOL_TEXT.readPrefixOnly(formatSize(READ_MAX_BYTES), formatSize(text.size)));
					return text.bytes;
				case "binary":
					return Buffer.from(TOOL_TEXT.binaryFile(formatSize(text.size)));
				default:
					return assertNever(text, "file read");
			}
		},
	};

	// Without image input, skip Pi's resize: the image part is replaced by a marker anyway.
	const tool = createReadTool(ws.cwd, { operations, autoResizeImages: ctx.modelAcceptsImages });
	const offset = numberArg(args, "offset");
	const limit = numberArg(args, "limit");
	const result = await tool
		.execute(
			ctx.callId,
			{
				path: verdict.absolute,
				...(offset === undefined ? {} : { offset }),
				...(limit === undefined ? {} : { limit }),
			},
			ctx.signal,
		)
		.finally(() => {
			finished = true;
			return closeAll(opened.values());
		});
	const content: ToolContent[] = [...result.content, ...notes.map((text) => ({ type: "text" as const, text }))];
	return { kind: "ok", content };
}

async function closeAll(handles: Iterable<Promise<VerifiedHandle>>): Promise<void> {
	await Promise.all([...handles].map((h) => h.then((f) => f.handle.close()).catch(() => undefined)));
}
