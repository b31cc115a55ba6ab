/**
 * The path policy: every path the advisor names, and every path Pi's tools touch on its
 * behalf, must resolve inside the session cwd and must not be denied by `tools.denyPatterns`.
 *
 * Resolution goes through the real path of the deepest existing ancestor, following dangling
 * symlinks by hand, so a link cannot smuggle a path out even when its target does not exist
 * yet (`ln -s /etc/new x` then `x`), nor can a symlinked folder with a new leaf beneath it.
 */

import { realpathSync } from "node:fs";
import { lstat, readlink, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { assertNever } from "../../../events/index.ts";
import { TOOL_REFUSAL } from "../../../render/index.ts";
import { createDenyMatcher, type DenyMatcher } from "./git-exclude.ts";

export type PathVerdict =
	/** `absolute` is the real path Pi's tool is handed; `relative` is it from the workspace root, posix, "" for the root. */
	| { kind: "ok"; absolute: string; relative: string }
	| { kind: "outside" }
	| { kind: "denied"; pattern: string }
	| { kind: "unresolvable" }
	| { kind: "invalid" };

export interface Workspace {
	/** The session cwd as given. */
	readonly cwd: string;
	/** Its real path: the fence every resolved path is compared against. */
	readonly realCwd: string;
	/** The deny pattern matching a workspace-relative posix path, or undefined. */
	readonly deniedBy: DenyMatcher;
	/** `tools.denyPatterns` as configured, for enforcers that speak glob themselves (fd, git). */
	readonly denyPatterns: readonly string[];
	/** A path argument from the advisor, interpreted the way Pi's tools would interpret it. */
	resolveArgument(raw: string): Promise<PathVerdict>;
	/** An absolute path one of Pi's tools is about to touch (the operations-hook check). */
	checkAbsolute(absolute: string): Promise<PathVerdict>;
}

/** Symlink hops followed by hand before giving up, as the kernel's ELOOP limit does. */
const MAX_LINK_HOPS = 40;

/** Pi's path-utils treats these as spaces; a path must mean the same to us as to Pi. */
const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

export function createWorkspace(cwd: string, denyPatterns: readonly string[]): Workspace {
	const absCwd = resolve(cwd);
	const realCwd = realpathOr(absCwd);
	const deniedBy = createDenyMatcher(denyPatterns);

	const judge = async (lexical: string): Promise<PathVerdict> => {
		const real = await resolveReal(lexical, 0);
		if (real === undefined) return { kind: "unresolvable" };
		const rel = insideRelative(realCwd, real);
		if (rel === undefined) return { kind: "outside" };
		// Deny on the real name AND on the name the advisor used: a link `notes -> .env` is
		// caught by the first, a link `.env -> notes.txt` by the second.
		const lexicalRel = insideRelative(absCwd, lexical) ?? insideRelative(realCwd, lexical);
		const pattern = deniedBy(rel) ?? (lexicalRel === undefined ? undefined : deniedBy(lexicalRel));
		if (pattern !== undefined) return { kind: "denied", pattern };
		return { kind: "ok", absolute: real, relative: rel };
	};

	return {
		cwd: absCwd,
		realCwd,
		deniedBy,
		denyPatterns: Object.freeze([...denyPatterns]),
		async resolveArgument(raw) {
			if (raw.includes("\0")) return { kind: "invalid" };
			const expanded = expandLikePi(raw);
			return judge(isAbsolute(expanded) ? resolve(expanded) : resolve(absCwd, expanded));
		},
		async checkAbsolute(absolute) {
			if (absolute.includes("\0") || !isAbsolute(absolute)) return { kind: "invalid" };
			return judge(resolve(absolute));
		},
	};
}

/** The text the advisor reads for a refused path. */
export function refusalText(verdict: Exclude<PathVerdict, { kind: "ok" }>, shown: string): string {
	switch (verdict.kind) {
		case "outside":
			return TOOL_REFUSAL.outside(shown);
		case "denied":
			return TOOL_REFUSAL.denied(shown);
		case "unresolvable":
			return TOOL_REFUSAL.unresolvable(shown);
		case "invalid":
			return TOOL_REFUSAL.invalidPath(shown);
		default:
			return assertNever(verdict, "path verdict");
	}
}

export function toPosix(path: string): string {
	return sep === "/" ? path : path.split(sep).join("/");
}

/** Pi's expandPath: strip one leading `@`, fold unicode spaces, expand `~`. */
function expandLikePi(raw: string): string {
	const p = (raw.startsWith("@") ? raw.slice(1) : raw).replace(UNICODE_SPACES, " ");
	if (p === "~") return homedir();
	if (p.startsWith("~/")) return homedir() + p.slice(1);
	return p === "" ? "." : p;
}

/** `path` relative to `root` (posix), or undefined when it is not root or beneath it. */
export function insideRelative(root: string, path: string): string | undefined {
	const rel = relative(root, path);
	if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
	return toPosix(rel);
}

/**
 * The real path `path` denotes, existing or not: realpath when it exists; for a dangling
 * symlink, its target resolved in turn; for a missing leaf, the real parent plus the leaf.
 * undefined when it cannot be decided (loop, permission denied).
 */
async function resolveReal(path: string, hops: number): Promise<string | undefined> {
	try {
		return await realpath(path);
	} catch (e) {
		if (!isMissing(e)) return undefined;
	}
	let link: Awaited<ReturnType<typeof lstat>> | undefined;
	try {
		link = await lstat(path);
	} catch (e) {
		if (!isMissing(e)) return undefined;
	}
	if (link?.isSymbolicLink()) {
		if (hops >= MAX_LINK_HOPS) return undefined;
		try {
			return await resolveReal(resolve(dirname(path), await readlink(path)), hops + 1);
		} catch {
			return undefined;
		}
	}
	// It exists (lstat found it) yet realpath failed for a missing reason: give up rather than guess.
	if (link !== undefined) return undefined;
	const parent = dirname(path);
	if (parent === path) return path;
	const realParent = await resolveReal(parent, hops);
	return realParent === undefined ? undefined : join(realParent, basename(path));
}

function isMissing(e: unknown): boolean {
	const code = (e as NodeJS.ErrnoException | undefined)?.code;
	return code === "ENOENT" || code === "ENOTDIR";
}

function realpathOr(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/** How a path Pi's tool touched is named back to the advisor: workspace-relative when possible. */
export function shownPath(workspace: Workspace, absolute: string): string {
	return insideRelative(workspace.realCwd, absolute) || (absolute === workspace.realCwd ? "." : absolute);
}

/**
 * The operations-hook check: Pi's tools may derive paths of their own (read tries macOS
 * spelling variants, grep reads context lines, ls stats every entry), so each one is judged
 * again right where the file system is touched. Returns the real path to use.
 */
export async function allowedPath(workspace: Workspace, absolute: string): Promise<string> {
	const verdict = await workspace.checkAbsolute(absolute);
	// Thrown inside Pi's operations hook, so Pi's own error path carries the refusal text.
	if (verdict.kind !== "ok") throw new Error(refusalText(verdict, shownPath(workspace, absolute)));
	return verdict.absolute;
}
