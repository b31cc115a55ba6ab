/**
 * read: Pi's own read tool, fenced through its `operations` hook.
 *
 * Layers: the argument is judged by the path policy before Pi sees it and handed over as a
 * real absolute path; every file-system touch in the hook is judged again (Pi may try
 * spelling variants of a missing name). The hook also reads only regular files, at most
 * READ_MAX_BYTES of them, and turns binary content into a marker. Pi then does what it does
 * best: line/byte truncation (2000 lines or 50KB), offset/limit, image resizing.
 */

import { access, constants, readFile } from "node:fs/promises";
import { createReadTool, formatSize, type ReadOperations } from "@mariozechner/pi-coding-agent";
import { TOOL_REFUSAL, TOOL_TEXT } from "../../render/index.ts";
import { IMAGE_MAX_BYTES, READ_MAX_BYTES, readTextFile, regularFileSize, sniffImage } from "./file-bytes.ts";
import { fail, numberArg, stringArg, type ToolArgs, type ToolContent, type ToolOutcome } from "./result.ts";
import type { RunContext } from "./run-context.ts";
import { allowedPath, refusalText, shownPath } from "./workspace.ts";

export async function runRead(args: ToolArgs, ctx: RunContext): Promise<ToolOutcome> {
	const ws = ctx.workspace;
	const path = stringArg(args, "path") ?? "";
	const verdict = await ws.resolveArgument(path);
	if (verdict.kind !== "ok") return fail(refusalText(verdict, path));

	const notes: string[] = [];
	const images = new Map<string, string>();
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
			const real = await allowedPath(ws, p);
			const mime = await sniffImage(real);
			if (mime === undefined) return null;
			const size = (await regularFileSize(real)) ?? 0;
			// Not an image to Pi, so it reads text — and our readFile answers with a marker.
			if (size > IMAGE_MAX_BYTES) {
				oversizedImages.set(real, size);
				return null;
			}
			images.set(real, mime);
			return mime;
		},
		readFile: async (p) => {
			const real = await allowedPath(ws, p);
			const oversized = oversizedImages.get(real);
			if (oversized !== undefined) return Buffer.from(TOOL_TEXT.imageTooLarge(formatSize(oversized)));
			if (images.has(real)) return readFile(real);
			const file = await readTextFile(real);
			switch (file.kind) {
				case "whole":
					return file.bytes;
				case "prefix":
					notes.push(TOOL_TEXT.readPrefixOnly(formatSize(READ_MAX_BYTES), formatSize(file.size)));
					return file.bytes;
				case "binary":
					return Buffer.from(TOOL_TEXT.binaryFile(formatSize(file.size)));
				case "not-a-file":
					throw new Error(TOOL_REFUSAL.notRegularFile(shownPath(ws, real)));
				default:
					return assertNever(file);
			}
		},
	};

	// Without image input, skip Pi's resize: the image part is replaced by a marker anyway.
	const tool = createReadTool(ws.cwd, { operations, autoResizeImages: ctx.modelAcceptsImages });
	const offset = numberArg(args, "offset");
	const limit = numberArg(args, "limit");
	const result = await tool.execute(
		ctx.callId,
		{
			path: verdict.absolute,
			...(offset === undefined ? {} : { offset }),
			...(limit === undefined ? {} : { limit }),
		},
		ctx.signal,
	);
	const content: ToolContent[] = [...result.content, ...notes.map((text) => ({ type: "text" as const, text }))];
	return { kind: "ok", content };
}

function assertNever(x: never): never {
	throw new Error(`unexpected file read ${JSON.stringify(x)}`);
}
