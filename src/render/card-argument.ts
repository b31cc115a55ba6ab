/**
 * The argument a card shows: whatever makes the one line say what happened, in as few chars as
 * stay readable (docs/request-format.md). A path for file tools, the command for bash, pattern and
 * folder for searches, the files and line counts of an edit or a patch.
 *
 * Paths are shown relative to the session's cwd (absolute when outside it) and are never clipped:
 * a path is what the advisor reads or expands next. Everything else is clipped at ARGUMENT_MAX.
 */

import { sharedPrefixLength, type ToolCallInfo } from "../events/index.ts";
import { relativePath as relativeToCwd, shellCommand, splitCd } from "../reducers/index.ts";
import { SAME_PATH } from "./model-text.ts";
import { neutralise } from "./neutralise.ts";
import { clip, oneLine } from "./text-shape.ts";

/** Non-path arguments (patterns, queries) are clipped here. */
export const ARGUMENT_MAX = 60;
/** A command keeps this much of its first line: what was run is a fact the advisor needs whole. */
export const COMMAND_MAX = 120;

/** How a card presents a call: its argument, and whether the result's size says anything. */
export interface CardArgument {
	text: string;
	/** False where the result is boilerplate (edit, write, patch): the line counts say it all. */
	resultSize: boolean;
}

type Args = Record<string, unknown>;

function str(args: Args, ...keys: string[]): string | undefined {
	for (const key of keys) {
		const value = args[key];
		if (typeof value === "string") return value;
	}
	return undefined;
}

/** The first string value, in the order the executor wrote the arguments. */
function firstString(args: Args): string | undefined {
	for (const value of Object.values(args)) {
		if (typeof value === "string") return value;
	}
	return undefined;
}

/** A path as the session sees it: relative to `cwd` when inside it, unchanged otherwise. */
export function relativePath(path: string, cwd: string | undefined): string {
	return relativeToCwd(path, cwd);
}

/** One line, fenced like all executor text; a path is never clipped. */
function shownPath(path: string, cwd: string | undefined): string {
	return oneLine(neutralise(relativePath(path, cwd))) || "?";
}

function shownText(text: string): string {
	return clip(oneLine(neutralise(text)), ARGUMENT_MAX);
}

/** `+a −b` with zero sides left out, so `+0 −0` never appears; "" for no change. */
export function lineCounts(added: number, removed: number): string {
	const parts: string[] = [];
	if (added > 0) parts.push(`+${added}`);
	if (removed > 0) parts.push(`−${removed}`);
	return parts.join(" ");
}

function lines(text: string): string[] {
	if (text.length === 0) return [];
	const all = text.split("\n");
	// A trailing newline ends the last line; it does not start another.
	if (all[all.length - 1] === "") all.pop();
	return all;
}

interface FileChange {
	path: string;
	added: number;
	removed: number;
	deleted: boolean;
}

/** Lines removed and added by one replacement, not counting unchanged lines at either end. */
function replacementSize(oldText: string, newText: string): { added: number; removed: number } {
	const before = lines(oldText);
	const after = lines(newText);
	const start = sharedPrefixLength(before, after);
	let end = 0;
	while (
		end < before.length - start &&
		end < after.length - start &&
		before[before.length - 1 - end] === after[after.length - 1 - end]
	) {
		end++;
	}
	return { added: after.length - start - end, removed: before.length - start - end };
}

function addChange(changes: FileChange[], path: string, added: number, removed: number, deleted = false): void {
	const known = changes.find((c) => c.path === path);
	if (known === undefined) {
		changes.push({ path, added, removed, deleted });
		return;
	}
	known.added += added;
	known.removed += removed;
	known.deleted ||= deleted;
}

/** Models sometimes send `edits` as a JSON string; Pi parses it, so the card does too. */
function editList(value: unknown): unknown[] {
	if (Array.isArray(value)) return value;
	if (typeof value !== "string") return [];
	try {
		const parsed: unknown = JSON.parse(value);
		return Array.isArray(parsed) ? parsed : [];
	} catch {
		return [];
	}
}

const OLD_KEYS = ["oldText", "old_string", "old_str", "oldString"];
const NEW_KEYS = ["newText", "new_string", "new_str", "newString"];
const PATH_KEYS = ["path", "file_path", "filePath", "file"];

/**
 * Replacement edits: Pi's `{path, edits: [{oldText, newText}]}`, the legacy top-level pair, and
 * multi-file shapes where each edit names its own file.
 */
function replacementChanges(args: Args): FileChange[] {
	const topPath = str(args, ...PATH_KEYS);
	const changes: FileChange[] = [];
	const pairs: { path: string | undefined; oldText: string; newText: string }[] = [];
	for (const edit of editList(args.edits)) {
		if (typeof edit !== "object" || edit === null) continue;
		const e = edit as Args;
		pairs.push({
			path: str(e, ...PATH_KEYS) ?? topPath,
			oldText: str(e, ...OLD_KEYS) ?? "",
			newText: str(e, ...NEW_KEYS) ?? "",
		});
	}
	const oldText = str(args, ...OLD_KEYS);
	const newText = str(args, ...NEW_KEYS);
	if (oldText !== undefined || newText !== undefined)
		pairs.push({ path: topPath, oldText: oldText ?? "", newText: newText ?? "" });
	for (const pair of pairs) {
		const size = replacementSize(pair.oldText, pair.newText);
		addChange(changes, pair.path ?? "?", size.added, size.removed);
	}
	if (changes.length === 0 && topPath !== undefined) addChange(changes, topPath, 0, 0);
	return changes;
}

/** Does this text look like a patch: Codex's `*** Begin Patch` envelope or a unified diff? */
export function isPatchText(text: string): boolean {
	return /^\s*\*\*\* Begin Patch/.test(text) || /^(?:diff --git |--- \S|\+\+\+ \S)/m.test(text) || /^@@ /m.test(text);
}

function diffPath(raw: string): string | undefined {
	const path = raw.trim().replace(/\t.*$/, "");
	if (path === "/dev/null" || path.length === 0) return undefined;
	return path.replace(/^[ab]\//, "");
}

/**
 * Files and line counts of a patch: Codex's `*** Add/Update/Delete File:` sections (with
 * `*** Move to:`) and unified diffs (`diff --git`, `---`/`+++` headers, `@@` hunks).
 */
export function patchChanges(patch: string): FileChange[] {
	const changes: FileChange[] = [];
	let current: string | undefined;
	let minusPath: string | undefined;
	let inHunk = false;
	const all = patch.split("\n");
	for (let i = 0; i < all.length; i++) {
		const line = all[i]!;
		const codex = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(line);
		if (codex !== null) {
			current = codex[2]!.trim();
			addChange(changes, current, 0, 0, codex[1] === "Delete");
			inHunk = codex[1] !== "Delete";
			continue;
		}
		const move = /^\*\*\* Move to: (.+)$/.exec(line);
		if (move !== null && current !== undefined) {
			const to = move[1]!.trim();
			const change = changes.find((c) => c.path === current);
			if (change !== undefined) change.path = `${current} → ${to}`;
			current = `${current} → ${to}`;
			continue;
		}
		if (line.startsWith("*** ")) continue;
		const git = /^diff --git a\/(.+) b\/(.+)$/.exec(line);
		if (git !== null) {
			current = git[2]!;
			addChange(changes, current, 0, 0);
			inHunk = false;
			continue;
		}
		// A `---` line is a file header when `+++` follows it (inside a hunk it would be a removed line).
		if (line.startsWith("--- ") && (!inHunk || all[i + 1]?.startsWith("+++ ") === true)) {
			minusPath = diffPath(line.slice(4));
			inHunk = false;
			continue;
		}
		if (line.startsWith("+++ ") && !inHunk) {
			const plus = diffPath(line.slice(4));
			const path = plus ?? minusPath;
			if (path !== undefined) {
				current = path;
				addChange(changes, path, 0, 0, plus === undefined);
			}
			continue;
		}
		if (line.startsWith("@@")) {
			inHunk = true;
			if (current === undefined) {
				current = "?";
				addChange(changes, current, 0, 0);
			}
			continue;
		}
		if (current === undefined || !inHunk) continue;
		const change = changes.find((c) => c.path === current);
		if (change === undefined) continue;
		if (line.startsWith("+")) change.added++;
		else if (line.startsWith("-")) change.removed++;
	}
	return changes;
}

function patchPathShown(path: string, cwd: string | undefined): string {
	const arrow = path.indexOf(" → ");
	if (arrow === -1) return shownPath(path, cwd);
	return `${shownPath(path.slice(0, arrow), cwd)} → ${shownPath(path.slice(arrow + 3), cwd)}`;
}

function changesText(changes: readonly FileChange[], cwd: string | undefined): string {
	return changes
		.map((c) => {
			const counts = c.deleted ? "deleted" : lineCounts(c.added, c.removed);
			const path = patchPathShown(c.path, cwd);
			return counts.length > 0 ? `${path} ${counts}` : path;
		})
		.join(", ");
}

/** The patch text among the arguments, if any: `apply_patch`'s `input`, a `patch` or `diff` key. */
function patchArgument(args: Args): string | undefined {
	for (const key of ["patch", "input", "diff"]) {
		const value = args[key];
		if (typeof value === "string" && isPatchText(value)) return value;
	}
	return undefined;
}

/**
 * How a card writes a command: a leading `cd <dir> && ` becomes `<dir>$ ` (where it ran, relative to
 * the cwd; nothing for the cwd itself), then the first line whole up to COMMAND_MAX, and ` …` when
 * more lines follow. `sameAs`: the command of the card right above; the same command in the same
 * folder is written SAME_PATH, as a repeated path is.
 */
export function commandText(command: string, cwd: string | undefined, sameAs?: string): string {
	const at = splitCd(command, cwd);
	const lines = at.command.split("\n").filter((line) => line.trim().length > 0);
	const first = lines[0] ?? "";
	const where = at.dir === undefined ? "" : `${/\s/.test(at.dir) ? JSON.stringify(at.dir) : at.dir}$ `;
	const shown = `${where}${clip(oneLine(neutralise(first)), COMMAND_MAX)}${lines.length > 1 ? " …" : ""}`;
	if (sameAs !== undefined && shown.length > SAME_PATH.length + 2 && commandText(sameAs, cwd) === shown)
		return SAME_PATH;
	return shown;
}

/** Does the card's command text show the whole command as written (one line, unclipped)? */
export function commandShownWhole(command: string, cwd: string | undefined): boolean {
	const at = splitCd(command, cwd);
	return (
		!at.command.includes("\n") && at.command.length <= COMMAND_MAX && oneLine(neutralise(at.command)) === at.command
	);
}

/** `path:from-to` for a partial read (Pi's offset is 1-based, limit counts lines). */
function readRange(args: Args): string {
	const offset = typeof args.offset === "number" && Number.isFinite(args.offset) ? Math.floor(args.offset) : undefined;
	const limit = typeof args.limit === "number" && Number.isFinite(args.limit) ? Math.floor(args.limit) : undefined;
	if (offset === undefined && limit === undefined) return "";
	const from = Math.max(1, offset ?? 1);
	return limit === undefined || limit < 1 ? `:${from}-` : `:${from}-${from + limit - 1}`;
}

/** `pattern in folder`, with the glob filter when one was given. */
function searchText(args: Args, cwd: string | undefined): string {
	const pattern = shownText(str(args, "pattern", "query", "regex") ?? "");
	const path = str(args, ...PATH_KEYS);
	const glob = str(args, "glob", "include");
	// The cwd is where a search runs anyway: `in .` would say nothing.
	const folder = path === undefined ? "." : shownPath(path, cwd);
	let text = folder === "." ? pattern : `${pattern} in ${folder}`;
	if (glob !== undefined) text += ` (${shownText(glob)})`;
	return text;
}

/** Keys that name what an unknown tool acted on, best first. */
const PRIMARY_KEYS = ["url", "uri", "query", "q", "name", "id", "command", "pattern", "prompt", "task"];
/** A leading short word (`action: "navigate"`) is the verb; it goes before the primary argument. */
const VERB = /^[A-Za-z][\w-]{0,23}$/;

function unknownText(args: Args, cwd: string | undefined): string {
	const path = str(args, ...PATH_KEYS);
	const key = PRIMARY_KEYS.find((k) => typeof args[k] === "string" && (args[k] as string).trim().length > 0);
	const first = firstString(args);
	if (path !== undefined) {
		const verb = first !== undefined && first !== path && VERB.test(first) ? `${first} ` : "";
		return `${verb}${shownPath(path, cwd)}`;
	}
	if (key === undefined) return first === undefined ? "" : shownText(first);
	const primary = args[key] as string;
	const verb = first !== undefined && first !== primary && VERB.test(first) ? `${first} ` : "";
	return shownText(`${verb}${primary}`);
}

/** `sameAs`: the command of the card right above, when it ran one (see commandText). */
export function cardArgument(call: ToolCallInfo, cwd?: string, sameAs?: string): CardArgument {
	const args = call.arguments;
	const patch = patchArgument(args);
	if (patch !== undefined) return { text: changesText(patchChanges(patch), cwd), resultSize: false };
	switch (call.name) {
		case "read": {
			const path = str(args, ...PATH_KEYS);
			return { text: path === undefined ? "" : shownPath(path, cwd) + readRange(args), resultSize: true };
		}
		case "write": {
			const path = str(args, ...PATH_KEYS);
			const content = str(args, "content", "text");
			const shown = path === undefined ? "?" : shownPath(path, cwd);
			const size = content === undefined ? "" : content.length === 0 ? " empty" : ` +${lines(content).length}`;
			return { text: shown + size, resultSize: false };
		}
		case "edit":
		case "multi_edit":
		case "multiedit":
			return { text: changesText(replacementChanges(args), cwd), resultSize: false };
		case "ls":
			return { text: shownPath(str(args, ...PATH_KEYS) ?? ".", cwd), resultSize: true };
		case "grep":
		case "find":
			return { text: searchText(args, cwd), resultSize: true };
		default: {
			// A shell run, whatever the tool is called: its arguments carry the command.
			const command = shellCommand(call) ?? (call.name === "bash" ? firstString(args) : undefined);
			if (command === undefined) return { text: unknownText(args, cwd), resultSize: true };
			// Codex-style patches arrive as `apply_patch <<'EOF' … EOF` through the shell.
			if (/\*\*\* Begin Patch/.test(command)) {
				const body = command.slice(command.indexOf("*** Begin Patch"));
				return { text: changesText(patchChanges(body), cwd), resultSize: false };
			}
			return { text: commandText(command, cwd, sameAs), resultSize: true };
		}
	}
}

/**
 * The one path a card leads with (a read, write, ls, or an edit or patch of one file), as the card
 * shows it; undefined when the card leads with something else or names several files.
 */
export function cardPath(call: ToolCallInfo, cwd?: string): string | undefined {
	const args = call.arguments;
	const patch = patchArgument(args);
	if (patch !== undefined) {
		const changes = patchChanges(patch);
		return changes.length === 1 && !changes[0]!.path.includes(" → ") ? shownPath(changes[0]!.path, cwd) : undefined;
	}
	switch (call.name) {
		case "read":
		case "write": {
			const path = str(args, ...PATH_KEYS);
			return path === undefined ? undefined : shownPath(path, cwd);
		}
		case "ls":
			return shownPath(str(args, ...PATH_KEYS) ?? ".", cwd);
		case "edit":
		case "multi_edit":
		case "multiedit": {
			const changes = replacementChanges(args);
			return changes.length === 1 && changes[0]!.path !== "?" ? shownPath(changes[0]!.path, cwd) : undefined;
		}
		default:
			return undefined;
	}
}

/** The path an image result came from, so the advisor can read it itself. */
export function imagePath(call: ToolCallInfo): string | undefined {
	return str(call.arguments, "path", "file_path");
}
