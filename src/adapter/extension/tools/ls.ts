/**
 * ls: Pi's own ls tool, fenced entirely through its `operations` hook — every file-system
 * touch of ls goes through it, so no output filter is needed.
 *
 * - exists/stat on the listed folder: judged by the path policy (the argument was judged
 *   before Pi saw it; this catches anything Pi derives on its own).
 * - readdir: the folder is opened and the descriptor verified (verified-open.ts), and on
 *   Linux exactly that descriptor is listed, so a folder swapped for a symlink to outside
 *   between the check and the listing cannot show outside names. Denied names are removed
 *   before Pi sorts and formats them.
 * - Names are handed to Pi with control characters escaped (Pi joins entries with newlines,
 *   so a name holding one would read as two); Pi's stat of an escaped name is mapped back to
 *   the real one.
 * - stat on each entry: an entry the policy refuses (a symlink leading outside) throws, and
 *   Pi skips entries it cannot stat, so it is left out rather than described.
 * Names that are not valid UTF-8 come back from readdir with U+FFFD in them; stat then fails
 * on the altered name and Pi skips the entry. Nothing throws.
 */

import { existsSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { createLsTool, type LsOperations } from "@mariozechner/pi-coding-agent";
import { TOOL_REFUSAL } from "../../../render/index.ts";
import { escapeControlChars } from "../pi/control-chars.ts";
import { fail, numberArg, stringArg, type ToolArgs, type ToolOutcome } from "./result.ts";
import type { RunContext } from "./run-context.ts";
import { descriptorPath, openVerified } from "./verified-open.ts";
import { allowedPath, insideRelative, refusalText, shownPath, type Workspace } from "./workspace.ts";

export async function runLs(args: ToolArgs, ctx: RunContext): Promise<ToolOutcome> {
	const ws = ctx.workspace;
	const rawPath = stringArg(args, "path") ?? ".";
	const verdict = await ws.resolveArgument(rawPath);
	if (verdict.kind !== "ok") return fail(refusalText(verdict, rawPath));

	/** Escaped name → real name, per listed folder (Pi stats `join(folder, shownName)`). */
	const realNames = new Map<string, string>();
	const operations: LsOperations = {
		exists: async (p) => existsSync(await allowedPath(ws, p)),
		stat: async (p) => {
			const real = realNames.get(p);
			return stat(await allowedPath(ws, real ?? p));
		},
		readdir: async (p) => {
			const names = await listVerified(ws, p);
			const rel = insideRelative(ws.realCwd, await allowedPath(ws, p)) ?? "";
			const shown: string[] = [];
			for (const name of names) {
				if (ws.deniedBy(rel === "" ? name : `${rel}/${name}`) !== undefined) continue;
				const escaped = escapeControlChars(name);
				if (escaped !== name) realNames.set(join(p, escaped), join(p, name));
				shown.push(escaped);
			}
			return shown;
		},
	};

	const tool = createLsTool(ws.cwd, { operations });
	const limit = numberArg(args, "limit");
	const result = await tool.execute(
		ctx.callId,
		{ path: verdict.absolute, ...(limit === undefined ? {} : { limit }) },
		ctx.signal,
	);
	return { kind: "ok", content: result.content };
}

/**
 * The names in folder `p`, read from a verified descriptor. Without a descriptor path to list
 * (not Linux), the folder is listed by path and the listing kept only if the path still names
 * the opened folder afterwards.
 */
async function listVerified(ws: Workspace, p: string): Promise<string[]> {
	const dir = await openVerified(ws, p, "directory");
	try {
		const byDescriptor = descriptorPath(dir.handle);
		if (byDescriptor !== undefined) return await readdir(byDescriptor);
		const names = await readdir(dir.real);
		const [opened, named] = await Promise.all([dir.handle.stat({ bigint: true }), stat(dir.real, { bigint: true })]);
		if (opened.dev !== named.dev || opened.ino !== named.ino) {
			throw new Error(TOOL_REFUSAL.outside(shownPath(ws, dir.real)));
		}
		return names;
	} finally {
		await dir.handle.close();
	}
}
