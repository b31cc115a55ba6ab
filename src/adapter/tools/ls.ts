/**
 * ls: Pi's own ls tool, fenced entirely through its `operations` hook — every file-system
 * touch of ls goes through it, so no output filter is needed.
 *
 * - exists/stat on the listed folder: judged by the path policy (the argument was judged
 *   before Pi saw it; this catches anything Pi derives on its own).
 * - readdir: denied names are removed before Pi sorts and formats them.
 * - stat on each entry: an entry the policy refuses (a symlink leading outside) throws, and
 *   Pi skips entries it cannot stat, so it is left out rather than described.
 * Names that are not valid UTF-8 come back from readdir with U+FFFD in them; stat then fails
 * on the altered name and Pi skips the entry. Nothing throws.
 */

import { existsSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { createLsTool, type LsOperations } from "@mariozechner/pi-coding-agent";
import { fail, numberArg, stringArg, type ToolArgs, type ToolOutcome } from "./result.ts";
import type { RunContext } from "./run-context.ts";
import { allowedPath, insideRelative, refusalText } from "./workspace.ts";

export async function runLs(args: ToolArgs, ctx: RunContext): Promise<ToolOutcome> {
	const ws = ctx.workspace;
	const rawPath = stringArg(args, "path") ?? ".";
	const verdict = await ws.resolveArgument(rawPath);
	if (verdict.kind !== "ok") return fail(refusalText(verdict, rawPath));

	const operations: LsOperations = {
		exists: async (p) => existsSync(await allowedPath(ws, p)),
		stat: async (p) => stat(await allowedPath(ws, p)),
		readdir: async (p) => {
			const real = await allowedPath(ws, p);
			const rel = insideRelative(ws.realCwd, real) ?? "";
			const names = await readdir(real);
			return names.filter((name) => ws.deniedBy(rel === "" ? name : `${rel}/${name}`) === undefined);
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
