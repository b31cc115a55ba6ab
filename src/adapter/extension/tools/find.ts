/**
 * find: Pi's own find tool, with its `glob` operation supplied by us.
 *
 * Supplying `glob` is what the hook is for, and it buys three things Pi's built-in fd path
 * does not give: no `ensureTool` download attempt (we run the fd we found, or fail), a
 * deadline on the fd process (Pi's hook is not handed the signal), and a listing filtered by
 * the path policy before Pi formats it. Pi keeps the argument handling, relativising,
 * result limit and 50KB truncation.
 *
 * fd runs with Pi's own flags (`--glob --hidden`, `.gitignore` respected, symlinks not
 * followed), plus `--exclude` for Pi's ignore list and each deny pattern so denied folders
 * are not even walked, and `--print0` so results are read structurally; the filter after it
 * is what is relied on, since fd's exclude globs are case-sensitive and ours are not.
 */

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { createFindTool, type FindOperations } from "@mariozechner/pi-coding-agent";
import { assertNever } from "../../../events/index.ts";
import { TOOL_TEXT } from "../../../render/index.ts";
import { escapeControlChars } from "../pi/control-chars.ts";
import { findBinary } from "./binaries.ts";
import { fail, numberArg, stringArg, type ToolArgs, type ToolOutcome } from "./result.ts";
import type { RunContext } from "./run-context.ts";
import { runFile } from "./run-file.ts";
import { allowedPath, insideRelative, refusalText } from "./workspace.ts";

/** Hard ceiling on fd results whatever `limit` the advisor asks for; Pi caps output at 50KB anyway. */
const FIND_MAX_RESULTS = 5000;
/** Enough for FIND_MAX_RESULTS long paths. */
const FD_MAX_BYTES = 4 * 1024 * 1024;

export async function runFind(args: ToolArgs, ctx: RunContext): Promise<ToolOutcome> {
	const ws = ctx.workspace;
	const fd = findBinary("fd");
	if (fd === undefined) return fail(TOOL_TEXT.missingBinary("find", "fd"));
	const rawPath = stringArg(args, "path") ?? ".";
	const verdict = await ws.resolveArgument(rawPath);
	if (verdict.kind !== "ok") return fail(refusalText(verdict, rawPath));
	const requireGitFlag = await supportsNoRequireGit(fd);

	const operations: FindOperations = {
		exists: async (p) => existsSync(await allowedPath(ws, p)),
		glob: async (pattern, searchPath, options) => {
			const root = await allowedPath(ws, searchPath);
			const fdArgs = [
				"--glob",
				"--color=never",
				// NUL-separated: a name with a newline in it stays one name.
				"--print0",
				"--hidden",
				...(requireGitFlag ? ["--no-require-git"] : []),
				"--max-results",
				String(Math.max(1, Math.min(options.limit, FIND_MAX_RESULTS))),
				...options.ignore.map((g) => `--exclude=${g}`),
				...ws.denyPatterns.map((g) => `--exclude=${g}`),
			];
			// As Pi does: fd matches basenames unless --full-path, which matches absolute paths.
			let effective = pattern;
			if (pattern.includes("/")) {
				fdArgs.push("--full-path");
				if (!pattern.startsWith("/") && !pattern.startsWith("**/") && pattern !== "**") effective = `**/${pattern}`;
			}
			fdArgs.push("--", effective, root);
			const run = await runFile(fd, fdArgs, {
				cwd: root,
				timeoutMs: ctx.timeoutMs,
				maxBytes: FD_MAX_BYTES,
				signal: ctx.signal,
			});
			switch (run.kind) {
				case "ok":
					return keepAllowed(run.stdout, root, ws);
				case "exit":
					throw new Error(run.stderr.trim() || `fd exited with code ${run.code}`);
				case "timeout":
				case "aborted":
					// The caller maps these through the call's signal; this message is a fallback.
					throw new Error(TOOL_TEXT.timedOut("find", ctx.timeoutMs / 1000));
				case "spawn-error":
					throw new Error(run.message);
				default:
					return assertNever(run, "fd run outcome");
			}
		},
	};

	const tool = createFindTool(ws.cwd, { operations });
	const limit = numberArg(args, "limit");
	const params = {
		pattern: stringArg(args, "pattern") ?? "",
		path: verdict.absolute,
		// Clamped here too, so Pi's "limit reached" notice names the limit that applied.
		...(limit === undefined ? {} : { limit: Math.min(limit, FIND_MAX_RESULTS) }),
	};
	const result = await tool.execute(ctx.callId, params, ctx.signal);
	return { kind: "ok", content: result.content };
}

/**
 * fd's NUL-separated results → paths for Pi to relativise: only those inside the workspace
 * and not denied, judged by the full path policy (real path too, so a folder swapped for a
 * symlink while fd walked cannot slip a name from outside in). The part below the search root
 * has its control characters escaped: Pi joins results with newlines.
 */
async function keepAllowed(stdout: string, root: string, ws: RunContext["workspace"]): Promise<string[]> {
	const judged = await Promise.all(
		stdout.split("\0").map(async (entry): Promise<string | undefined> => {
			if (entry === "") return undefined;
			// fd prints absolute paths under the absolute root it was given (folders end in `/`).
			const abs = isAbsolute(entry) ? entry : resolve(root, entry);
			const rel = insideRelative(ws.realCwd, abs);
			if (rel === undefined || ws.deniedBy(rel) !== undefined) return undefined;
			if ((await ws.checkAbsolute(abs)).kind !== "ok") return undefined;
			const below = insideRelative(root, abs);
			if (below === undefined || below === "") return abs;
			return `${root}/${escapeControlChars(below)}${entry.endsWith("/") ? "/" : ""}`;
		}),
	);
	return judged.filter((p): p is string => p !== undefined);
}

/** fd ≥ 8.7 has `--no-require-git` (Pi passes it); Debian's fdfind 8.6 rejects it as unknown. */
const noRequireGitCache = new Map<string, Promise<boolean>>();

function supportsNoRequireGit(fd: string): Promise<boolean> {
	let cached = noRequireGitCache.get(fd);
	if (cached === undefined) {
		cached = new Promise((done) => {
			execFile(fd, ["--help"], { timeout: 5000, maxBuffer: 1024 * 1024 }, (error, stdout) =>
				done(!error && String(stdout).includes("--no-require-git")),
			);
		});
		noRequireGitCache.set(fd, cached);
	}
	return cached;
}
