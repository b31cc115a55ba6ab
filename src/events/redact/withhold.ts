/**
 * Withholding (docs/privacy.md): the content of an executor's read of a path the deny list covers
 * is not carried by its event at all. The event keeps the fact of the read — the call, its path,
 * the size of what was read — and its text becomes one fixed line, so a card can still say what
 * happened. Pure: the path is judged as written, relative to the session's working directory.
 */

import { createDenyMatcher, type DenyMatcher } from "./deny.ts";

/**
 * The text a withheld read's result becomes. Model-facing, so it belongs with the other model texts
 * in render/model-text.ts, but events cannot import render: it lives here, next to markFor, and
 * docs/privacy.md lists it with them.
 */
export const WITHHELD_READ_TEXT = "[withheld: the deny list covers this path; its content is not sent]";

/** Tools that read a file by path: the executor's reads the deny list withholds, and the reads a card counts. */
export const READING_TOOLS: ReadonlySet<string> = new Set(["read", "read_file", "view", "view_file", "open_file"]);

/** The path argument of a file tool's call, as the executor wrote it (trimmed), when it names one. */
export function pathArgument(args: Record<string, unknown>): string | undefined {
	for (const key of ["path", "file_path", "filePath", "file"]) {
		const value = args[key];
		if (typeof value === "string" && value.trim().length > 0) return value.trim();
	}
	return undefined;
}

/** Resolves `.` and `..` segments lexically; a leading `..` of a relative path stays. */
function normalizeSegments(path: string): string {
	const absolute = path.startsWith("/");
	const out: string[] = [];
	for (const segment of path.split("/")) {
		if (segment === "" || segment === ".") continue;
		if (segment === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
		else if (segment !== ".." || !absolute) out.push(segment);
	}
	return (absolute ? "/" : "") + out.join("/");
}

/**
 * A path as the deny list judges it: posix separators, `.` and `..` resolved lexically (the read
 * may not exist any more, so nothing is resolved on disk), relative to `cwd` when inside it and
 * absolute otherwise. A relative path is taken relative to `cwd`.
 */
export function workspacePath(path: string, cwd: string | undefined): string {
	const posix = path.replace(/\\/g, "/");
	const base = cwd === undefined ? undefined : normalizeSegments(cwd.replace(/\\/g, "/"));
	const isAbsolute = posix.startsWith("/") || /^[A-Za-z]:\//.test(posix);
	if (base === undefined || !base.startsWith("/")) return normalizeSegments(posix);
	const full = normalizeSegments(isAbsolute ? posix : `${base}/${posix}`);
	if (base === "/") return full.slice(1);
	if (full === base) return ".";
	return full.startsWith(`${base}/`) ? full.slice(base.length + 1) : full;
}

const matchers = new WeakMap<readonly string[], DenyMatcher>();

/** One matcher per list (the list is the config's, kept while the config is). */
export function denyMatcherFor(patterns: readonly string[]): DenyMatcher {
	let matcher = matchers.get(patterns);
	if (matcher === undefined) {
		matcher = createDenyMatcher(patterns);
		matchers.set(patterns, matcher);
	}
	return matcher;
}

/** Whether a call is a read of a path the deny list covers. */
export function isDeniedRead(
	name: string,
	args: Record<string, unknown>,
	cwd: string | undefined,
	denied: DenyMatcher,
): boolean {
	if (!READING_TOOLS.has(name.toLowerCase())) return false;
	const path = pathArgument(args);
	return path !== undefined && denied(workspacePath(path, cwd)) !== undefined;
}
