/**
 * The argument a card shows: whatever makes the one line say what happened. A path for file
 * tools, the command for bash, pattern and folder for searches, the size of an edit.
 */

import type { ToolCallInfo } from "../events/index.ts";

function str(args: Record<string, unknown>, ...keys: string[]): string | undefined {
	for (const key of keys) {
		const value = args[key];
		if (typeof value === "string") return value;
	}
	return undefined;
}

/** The first string value, in the order the executor wrote the arguments. */
function firstString(args: Record<string, unknown>): string | undefined {
	for (const value of Object.values(args)) {
		if (typeof value === "string") return value;
	}
	return undefined;
}

function lines(text: string): string[] {
	return text.length === 0 ? [] : text.split("\n");
}

/** Lines removed and added by one replacement, not counting unchanged lines at either end. */
function replacementSize(oldText: string, newText: string): { added: number; removed: number } {
	const before = lines(oldText);
	const after = lines(newText);
	let start = 0;
	while (start < before.length && start < after.length && before[start] === after[start]) start++;
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

/** Pi's edit tool takes `edits: [{oldText, newText}]`; older sessions carry one top-level pair. */
function editSize(args: Record<string, unknown>): { added: number; removed: number } {
	const pairs: { oldText: string; newText: string }[] = [];
	if (Array.isArray(args.edits)) {
		for (const edit of args.edits) {
			if (typeof edit !== "object" || edit === null) continue;
			const e = edit as Record<string, unknown>;
			pairs.push({
				oldText: typeof e.oldText === "string" ? e.oldText : "",
				newText: typeof e.newText === "string" ? e.newText : "",
			});
		}
	}
	const oldText = str(args, "oldText", "old_string");
	const newText = str(args, "newText", "new_string");
	if (oldText !== undefined || newText !== undefined) pairs.push({ oldText: oldText ?? "", newText: newText ?? "" });
	let added = 0;
	let removed = 0;
	for (const pair of pairs) {
		const size = replacementSize(pair.oldText, pair.newText);
		added += size.added;
		removed += size.removed;
	}
	return { added, removed };
}

export function cardArgument(call: ToolCallInfo): string {
	const args = call.arguments;
	switch (call.name) {
		case "read":
		case "write":
			return str(args, "path", "file_path") ?? firstString(args) ?? "";
		case "ls":
			return str(args, "path") ?? ".";
		case "edit": {
			const { added, removed } = editSize(args);
			return `${str(args, "path", "file_path") ?? ""} +${added} −${removed}`;
		}
		case "bash":
			return str(args, "command") ?? firstString(args) ?? "";
		case "grep":
		case "find":
			return `${str(args, "pattern") ?? ""} in ${str(args, "path") ?? "."}`;
		default:
			return firstString(args) ?? "";
	}
}

/** The path an image result came from, so the advisor can read it itself. */
export function imagePath(call: ToolCallInfo): string | undefined {
	return str(call.arguments, "path", "file_path");
}
