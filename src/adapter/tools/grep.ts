/**
 * grep: Pi's own grep tool (ripgrep underneath), fenced in three layers.
 *
 * 1. Argument: the search path is judged by the path policy and handed to Pi as a real
 *    absolute path. rg is looked up first (binaries.ts) so Pi never tries to download it.
 * 2. Operations hook: Pi stats the search path and reads files for context lines through
 *    `operations`; each of those paths is judged again, and reads are bounded.
 * 3. Output filter: the rg process itself is not hookable, and it traverses folders, so a
 *    `.env` under the search path would show up in the matches. Every output line names its
 *    file first (`path:12: text`, `path-11- text` for context); lines whose file the path
 *    policy refuses, and lines that cannot be attributed to a file at all, are dropped.
 *
 * rg does not follow symlinks while traversing (Pi passes no `--follow`), so a link to a file
 * outside the workspace is not searched. Its regex engine is linear-time (no backtracking;
 * backreferences and look-around are rejected as errors), and the per-call deadline aborts
 * the search through the signal anyway.
 */

import { stat } from "node:fs/promises";
import { join } from "node:path";
import { createGrepTool, type GrepOperations } from "@mariozechner/pi-coding-agent";
import { TOOL_REFUSAL, TOOL_TEXT } from "../../render/index.ts";
import { findBinary } from "./binaries.ts";
import { readTextFile } from "./file-bytes.ts";
import { booleanArg, fail, numberArg, stringArg, type ToolArgs, type ToolContent, type ToolOutcome } from "./result.ts";
import type { RunContext } from "./run-context.ts";
import { allowedPath, refusalText, shownPath } from "./workspace.ts";

/**
 * Pi collects every match up to `limit` in memory before formatting, then keeps 50KB; beyond
 * this many the advisor gains nothing and a huge file could cost seconds and memory.
 */
const GREP_MAX_LIMIT = 1000;

/** Pi's answer when nothing matched; reused when our filter removes every match. */
const NO_MATCHES = "No matches found";

export async function runGrep(args: ToolArgs, ctx: RunContext): Promise<ToolOutcome> {
	const ws = ctx.workspace;
	if (findBinary("rg") === undefined) return fail(TOOL_TEXT.missingBinary("grep", "ripgrep (rg)"));
	const rawPath = stringArg(args, "path") ?? ".";
	const verdict = await ws.resolveArgument(rawPath);
	if (verdict.kind !== "ok") return fail(refusalText(verdict, rawPath));

	// rg skips FIFOs and devices while walking a folder, but opens one named directly and blocks.
	const kind = await stat(verdict.absolute).then(
		(s) => (s.isDirectory() ? "dir" : s.isFile() ? "file" : "special"),
		() => "missing",
	);
	if (kind === "special") return fail(TOOL_REFUSAL.notRegularFile(rawPath));

	let searchIsDir = false;
	const operations: GrepOperations = {
		isDirectory: async (p) => {
			const real = await allowedPath(ws, p);
			searchIsDir = (await stat(real)).isDirectory();
			return searchIsDir;
		},
		readFile: async (p) => {
			const real = await allowedPath(ws, p);
			const file = await readTextFile(real);
			switch (file.kind) {
				case "whole":
				case "prefix":
					return file.bytes.toString("utf8");
				case "binary":
					return "";
				case "not-a-file":
					throw new Error(TOOL_REFUSAL.notRegularFile(shownPath(ws, real)));
				default:
					return assertNever(file);
			}
		},
	};

	const tool = createGrepTool(ws.cwd, { operations });
	const params = {
		pattern: stringArg(args, "pattern") ?? "",
		path: verdict.absolute,
		...optional("glob", stringArg(args, "glob")),
		...optional("ignoreCase", booleanArg(args, "ignoreCase") || undefined),
		...optional("literal", booleanArg(args, "literal") || undefined),
		...optional("context", numberArg(args, "context")),
		...optional("limit", clampLimit(numberArg(args, "limit"), GREP_MAX_LIMIT)),
	};
	const result = await tool.execute(ctx.callId, params, ctx.signal);
	// Pi formats paths relative to a searched folder, and as a bare basename for a searched file.
	const base = searchIsDir ? verdict.relative : parentOf(verdict.relative);
	const allowed = async (rel: string) => (await ws.checkAbsolute(join(ws.realCwd, rel))).kind === "ok";
	const content: ToolContent[] = [];
	for (const part of result.content) {
		content.push(part.type === "text" ? { ...part, text: await filterGrepOutput(part.text, base, allowed) } : part);
	}
	return { kind: "ok", content };
}

/**
 * Drops output lines that name a file the policy refuses. A line is `<file>:<n>: <text>`
 * (match) or `<file>-<n>- <text>` (context), and a file name may itself contain `:12:`, so
 * every possible split is judged and the line goes if any candidate file is refused — a false
 * drop costs one line, a false keep leaks a secret. Each candidate is judged by the full path
 * policy, not only the deny list: a user's RIPGREP_CONFIG_PATH can add `--follow`, and then rg
 * would walk through symlinks out of the workspace. Lines naming no file at all go too;
 * blank lines and Pi's `[…]` notices stay.
 */
export async function filterGrepOutput(
	text: string,
	base: string,
	allowed: (relativePath: string) => Promise<boolean>,
): Promise<string> {
	if (text === NO_MATCHES) return text;
	const verdicts = new Map<string, Promise<boolean>>();
	const judge = (file: string) => {
		const rel = joinPosix(base, file);
		let v = verdicts.get(rel);
		if (v === undefined) {
			v = allowed(rel);
			verdicts.set(rel, v);
		}
		return v;
	};
	const kept: string[] = [];
	let matchesKept = 0;
	for (const line of text.split("\n")) {
		const files = candidateFiles(line);
		if (files.length === 0) {
			// Only now may a line pass as a notice: a file named `[x` cannot dodge the check.
			if (line === "" || (line.startsWith("[") && line.endsWith("]"))) kept.push(line);
			continue;
		}
		const judged = await Promise.all(files.map(judge));
		if (judged.includes(false)) continue;
		kept.push(line);
		matchesKept++;
	}
	if (matchesKept === 0) return NO_MATCHES;
	return kept.join("\n").replace(/^\n+/, "");
}

const LINE_PREFIX = /([:-])\d+\1 /y;

function candidateFiles(line: string): string[] {
	const files: string[] = [];
	for (let i = 1; i < line.length; i++) {
		const c = line[i];
		if (c !== ":" && c !== "-") continue;
		LINE_PREFIX.lastIndex = i;
		if (LINE_PREFIX.test(line)) files.push(line.slice(0, i));
	}
	return files;
}

function clampLimit(limit: number | undefined, max: number): number | undefined {
	return limit === undefined ? undefined : Math.min(limit, max);
}

function joinPosix(base: string, rel: string): string {
	return base === "" ? rel : `${base}/${rel}`;
}

function parentOf(relative: string): string {
	const slash = relative.lastIndexOf("/");
	return slash < 0 ? "" : relative.slice(0, slash);
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
	return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function assertNever(x: never): never {
	throw new Error(`unexpected file read ${JSON.stringify(x)}`);
}
