/**
 * grep: ripgrep, run by us, answering in the format of Pi's grep tool.
 *
 * Pi's grep cannot be fenced from outside: it runs rg itself and hands back formatted text, so
 * a filter after it would have to split that text into lines and guess which file each line
 * names — and a file name may hold a newline, and a matched line may hold `:12: `. So, as
 * find does with fd, we run rg ourselves with `--json` and read its events structurally:
 *
 * 1. Argument: the search path is judged by the path policy; rg is looked up first
 *    (binaries.ts), never downloaded.
 * 2. Every match names its file as a JSON string: a file the deny list refuses (or outside
 *    the workspace, or a name that is not UTF-8 and so cannot be judged) contributes nothing
 *    and does not count toward the match limit.
 * 3. Every file that did match is then opened through a verified descriptor
 *    (verified-open.ts) and each matched line is compared, byte for byte, with what sits at
 *    that offset in the opened file. rg opens files by path while it walks, so a folder
 *    swapped for a symlink mid-walk could make it read outside; a line that is not in the
 *    verified file is dropped. Context lines come from the verified file as well.
 *
 * `--no-config`: a user's RIPGREP_CONFIG_PATH must not change what rg reads (`--follow`) or
 * the shape of its output. rg does not follow symlinks while walking, its regex engine is
 * linear-time (backreferences and look-around are errors), and the per-call deadline stops it.
 *
 * The output is Pi's, byte for byte: `path:12: text` for a match, `path-11- text` for context,
 * paths relative to a searched folder (a bare name for a searched file), long lines cut by
 * Pi's truncateLine, the whole cut at Pi's 50KB, and Pi's closing notices. File names are
 * shown with control characters escaped, so one match is always one line.
 */

import { type FileHandle, stat } from "node:fs/promises";
import { basename, relative } from "node:path";
import { DEFAULT_MAX_BYTES, formatSize, truncateHead, truncateLine } from "@mariozechner/pi-coding-agent";
import { assertNever, isRecord } from "../../../events/index.ts";
import { TOOL_REFUSAL, TOOL_TEXT } from "../../../render/index.ts";
import { escapeControlChars } from "../pi/control-chars.ts";
import { findBinary } from "./binaries.ts";
import { readAt, readTextFile } from "./file-bytes.ts";
import { booleanArg, fail, numberArg, ok, stringArg, type ToolArgs, type ToolOutcome } from "./result.ts";
import type { RunContext } from "./run-context.ts";
import { type StreamOutcome, streamLines } from "./run-file.ts";
import { openVerified } from "./verified-open.ts";
import { insideRelative, refusalText, toPosix, type Workspace } from "./workspace.ts";

/** Pi's default match limit. */
const DEFAULT_LIMIT = 100;
/**
 * Pi collects every match up to `limit` before formatting, then keeps 50KB; beyond this many
 * the advisor gains nothing and a huge file could cost seconds and memory.
 */
const GREP_MAX_LIMIT = 1000;
/** Pi's truncateLine cut (GREP_MAX_LINE_LENGTH, not exported by Pi), named in its notice. */
const LINE_MAX_CHARS = 500;
/** Bytes of a matched line compared with the verified file: far more than LINE_MAX_CHARS can show. */
const VERIFY_MAX_BYTES = 64 * 1024;
/** How much of rg's stderr a failure shows. */
const STDERR_EXCERPT_CHARS = 400;

/** Pi's texts, reproduced so the advisor reads what Pi's grep would have said. */
const PI_TEXT = {
	noMatches: "No matches found",
	matchLimit: (limit: number) => `${limit} matches limit reached. Use limit=${limit * 2} for more, or refine pattern`,
	byteLimit: (size: string) => `${size} limit reached`,
	linesCut: (max: number) => `Some lines truncated to ${max} chars. Use read tool to see full lines`,
	rgExit: (code: number | null) => `ripgrep exited with code ${code}`,
} as const;

/** One match event of `rg --json`, reduced to what the formatting and the check need. */
interface RgMatch {
	/** Absolute path, as rg printed it under the absolute search path. */
	path: string;
	lineNumber: number;
	/** Byte offset of the line's start in the file. */
	offset: number;
	/** The line's bytes, as rg read them (terminator included). */
	bytes: Buffer;
}

export async function runGrep(args: ToolArgs, ctx: RunContext): Promise<ToolOutcome> {
	const ws = ctx.workspace;
	const rg = findBinary("rg");
	if (rg === undefined) return fail(TOOL_TEXT.missingBinary("grep", "ripgrep (rg)"));
	const rawPath = stringArg(args, "path") ?? ".";
	const verdict = await ws.resolveArgument(rawPath);
	if (verdict.kind !== "ok") return fail(refusalText(verdict, rawPath));

	// rg skips FIFOs and devices while walking a folder, but opens one named directly and blocks.
	const kind = await stat(verdict.absolute).then(
		(s) => (s.isDirectory() ? "dir" : s.isFile() ? "file" : "special"),
		() => "missing",
	);
	if (kind === "missing") return fail(TOOL_REFUSAL.notFound(rawPath));
	if (kind === "special") return fail(TOOL_REFUSAL.notRegularFile(rawPath));

	const limit = Math.max(1, Math.min(numberArg(args, "limit") ?? DEFAULT_LIMIT, GREP_MAX_LIMIT));
	const contextArg = numberArg(args, "context") ?? 0;
	const context = contextArg > 0 ? Math.floor(contextArg) : 0;
	const glob = stringArg(args, "glob");
	const rgArgs = [
		"--json",
		"--line-number",
		"--color=never",
		"--hidden",
		"--no-config",
		...(booleanArg(args, "ignoreCase") ? ["--ignore-case"] : []),
		...(booleanArg(args, "literal") ? ["--fixed-strings"] : []),
		...(glob ? ["--glob", glob] : []),
		"--",
		stringArg(args, "pattern") ?? "",
		verdict.absolute,
	];

	const matches: RgMatch[] = [];
	const run = await streamLines(
		rg,
		rgArgs,
		{ cwd: ws.realCwd, timeoutMs: ctx.timeoutMs, signal: ctx.signal },
		(line) => {
			const match = parseMatch(line);
			if (match === undefined || !admissible(ws, match.path)) return true;
			matches.push(match);
			return matches.length < limit;
		},
	);
	const failed = runFailure(run, ctx);
	if (failed !== undefined) return failed;

	const formatPath = (file: string): string => {
		const rel = kind === "dir" ? relative(verdict.absolute, file) : "";
		const shown = rel !== "" && !rel.startsWith("..") ? toPosix(rel) : basename(file);
		return escapeControlChars(shown);
	};
	const rendered = await renderVerified(ws, matches, context, formatPath);
	if (rendered.lines.length === 0) return ok(PI_TEXT.noMatches);

	const truncation = truncateHead(rendered.lines.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
	const notices: string[] = [];
	if (matches.length >= limit) notices.push(PI_TEXT.matchLimit(limit));
	if (truncation.truncated) notices.push(PI_TEXT.byteLimit(formatSize(DEFAULT_MAX_BYTES)));
	if (rendered.linesCut) notices.push(PI_TEXT.linesCut(LINE_MAX_CHARS));
	return ok(notices.length === 0 ? truncation.content : `${truncation.content}\n\n[${notices.join(". ")}]`);
}

/** A match event from one line of `rg --json`; undefined for every other event or a non-UTF-8 path. */
function parseMatch(line: string): RgMatch | undefined {
	let event: unknown;
	try {
		event = JSON.parse(line);
	} catch {
		return undefined;
	}
	if (!isRecord(event) || event.type !== "match" || !isRecord(event.data)) return undefined;
	const { path, lines, line_number: lineNumber, absolute_offset: offset } = event.data;
	// A path rg could only give as bytes is not valid UTF-8: no string names it, so it cannot be judged.
	if (!isRecord(path) || typeof path.text !== "string") return undefined;
	if (typeof lineNumber !== "number" || typeof offset !== "number" || !isRecord(lines)) return undefined;
	const bytes =
		typeof lines.text === "string"
			? Buffer.from(lines.text, "utf8")
			: typeof lines.bytes === "string"
				? Buffer.from(lines.bytes, "base64")
				: undefined;
	if (bytes === undefined) return undefined;
	return { path: path.text, lineNumber, offset, bytes };
}

/** The cheap, synchronous part of the path policy: inside the workspace's real path, not denied. */
function admissible(ws: Workspace, absolute: string): boolean {
	const rel = insideRelative(ws.realCwd, absolute);
	return rel !== undefined && ws.deniedBy(rel) === undefined;
}

/**
 * Output lines for the matches, in rg's order, from verified descriptors only. A file that
 * cannot be opened and verified, and a line the verified file does not hold at that offset,
 * contribute nothing. Stops building once the text passes Pi's byte cap (truncateHead would
 * cut it there anyway), so a huge `context` cannot blow up memory.
 */
async function renderVerified(
	ws: Workspace,
	matches: readonly RgMatch[],
	context: number,
	formatPath: (file: string) => string,
): Promise<{ lines: string[]; linesCut: boolean }> {
	const out: string[] = [];
	let bytes = 0;
	let linesCut = false;
	const push = (line: string) => {
		out.push(line);
		bytes += Buffer.byteLength(line, "utf8") + 1;
	};
	const cut = (text: string) => {
		const t = truncateLine(text);
		if (t.wasTruncated) linesCut = true;
		return t.text;
	};
	for (const group of groupByFile(matches)) {
		if (bytes > DEFAULT_MAX_BYTES) break;
		const file = await openVerified(ws, group.path, "file").catch(() => undefined);
		if (file === undefined) continue;
		try {
			const shown = formatPath(group.path);
			let fileLines: string[] | undefined;
			for (const m of group.matches) {
				if (bytes > DEFAULT_MAX_BYTES) break;
				const verifyLen = Math.min(m.bytes.length, VERIFY_MAX_BYTES);
				const actual = await readAt(file.handle, m.offset, verifyLen);
				if (!actual.equals(m.bytes.subarray(0, verifyLen))) continue;
				const matchText = cut(lineText(m.bytes.toString("utf8")));
				if (context === 0) {
					push(`${shown}:${m.lineNumber}: ${matchText}`);
					continue;
				}
				fileLines ??= await verifiedLines(file.handle, file.size);
				// As Pi: the block ends at the file's last line (a trailing newline counts as an empty one).
				const start = Math.max(1, m.lineNumber - context);
				const end = Math.max(m.lineNumber, Math.min(fileLines.length, m.lineNumber + context));
				for (let n = start; n <= end; n++) {
					if (n === m.lineNumber) push(`${shown}:${n}: ${matchText}`);
					else if (n <= fileLines.length)
						push(`${shown}-${n}- ${cut((fileLines[n - 1] ?? "").replace(/\r/g, ""))}`);
				}
			}
		} finally {
			await file.handle.close();
		}
	}
	return { lines: out, linesCut };
}

/** Pi's clean-up of a matched line: no CR, no trailing line break. */
function lineText(raw: string): string {
	return raw.replace(/\r\n/g, "\n").replace(/\r/g, "").replace(/\n$/, "");
}

/** The verified file's lines as Pi splits them; none for a binary file (there is no text to show). */
async function verifiedLines(handle: FileHandle, size: number): Promise<string[]> {
	const file = await readTextFile(handle, size);
	if (file.kind === "binary") return [];
	return file.bytes.toString("utf8").replace(/\r\n/g, "\n").replace(/\r/g, "\n").split("\n");
}

/** Consecutive matches of one file together (rg prints each file's matches as one run). */
function groupByFile(matches: readonly RgMatch[]): { path: string; matches: RgMatch[] }[] {
	const groups: { path: string; matches: RgMatch[] }[] = [];
	for (const m of matches) {
		const last = groups.at(-1);
		if (last?.path === m.path) last.matches.push(m);
		else groups.push({ path: m.path, matches: [m] });
	}
	return groups;
}

/** undefined when rg ran to completion (exit 0 or 1) or was stopped at the limit. */
function runFailure(run: StreamOutcome, ctx: RunContext): ToolOutcome | undefined {
	switch (run.kind) {
		case "done":
			if (run.stopped || run.code === 0 || run.code === 1) return undefined;
			return fail(TOOL_TEXT.failed("grep", excerpt(run.stderr) || PI_TEXT.rgExit(run.code)));
		case "timeout":
			return fail(TOOL_TEXT.timedOut("grep", ctx.timeoutMs / 1000));
		case "aborted":
			// The caller maps this through the call's signal (deadline or cancel); a fallback.
			return fail(TOOL_TEXT.cancelled("grep"));
		case "spawn-error":
			return fail(TOOL_TEXT.failed("grep", run.message));
		default:
			return assertNever(run, "rg run outcome");
	}
}

function excerpt(stderr: string): string {
	const s = stderr.trim();
	return s.length <= STDERR_EXCERPT_CHARS ? s : `${s.slice(0, STDERR_EXCERPT_CHARS)}…`;
}
