/**
 * Finding entries off the path being normalised (docs/architecture.md, "Layers"): by id and file
 * position, built once per array of entries; the user message an entry holds; where an abandoned
 * branch ended; the call a result answers.
 */

import type { EntryRecord } from "./entries.ts";
import type { UserMessageJson } from "./schemas.ts";
import type { ToolCallInfo } from "./types.ts";
import { isRecord } from "./validate.ts";

export function toolArguments(value: unknown): Record<string, unknown> {
	if (value === undefined) return {};
	return isRecord(value) ? value : { value };
}

export function userMessage(record: EntryRecord): UserMessageJson | undefined {
	if (record.kind !== "known" || record.entry.type !== "message") return undefined;
	return record.entry.message.role === "user" ? record.entry.message : undefined;
}

export interface Lookup {
	byId: ReadonlyMap<string, EntryRecord>;
	/** Position in file order. */
	position: ReadonlyMap<string, number>;
	all: readonly EntryRecord[];
}

/**
 * Where the abandoned branch ended. The summary's `fromId` when it names an entry off the
 * path (what Pi's docs describe); Pi 0.73 actually writes the navigation target there,
 * which is on the path, so then the entry written just before the summary: Pi appends
 * the summary right after leaving that leaf.
 */
export function abandonedLeaf(
	summary: EntryRecord,
	fromId: string | undefined,
	onPath: ReadonlySet<string>,
	lookup: Lookup,
) {
	const from = fromId === undefined ? undefined : lookup.byId.get(fromId);
	if (from !== undefined && !onPath.has(from.id)) return from;
	const at = lookup.position.get(summary.id);
	const previous = at === undefined ? undefined : lookup.all[at - 1];
	return previous !== undefined && !onPath.has(previous.id) ? previous : undefined;
}

export const lookups = new WeakMap<readonly EntryRecord[], Lookup>();

export function buildLookup(entries: readonly EntryRecord[]): Lookup {
	const byId = new Map<string, EntryRecord>();
	const position = new Map<string, number>();
	entries.forEach((record, i) => {
		if (byId.has(record.id)) return;
		byId.set(record.id, record);
		position.set(record.id, i);
	});
	return { byId, position, all: entries };
}

/** Pi writes a message's results right after it: the first assistant message above a result holds its call. */
export function callAbove(parentId: string | null, callId: string, lookup: Lookup): ToolCallInfo | undefined {
	let current = parentId === null ? undefined : lookup.byId.get(parentId);
	const seen = new Set<string>();
	while (current !== undefined && !seen.has(current.id)) {
		seen.add(current.id);
		if (current.kind === "known" && current.entry.type === "message" && current.entry.message.role === "assistant") {
			const part = current.entry.message.content.find((p) => p.type === "toolCall" && p.id === callId);
			return part?.type === "toolCall"
				? { id: part.id, name: part.name, arguments: toolArguments(part.arguments) }
				: undefined;
		}
		current = current.parentId === null ? undefined : lookup.byId.get(current.parentId);
	}
	return undefined;
}
