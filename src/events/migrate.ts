/**
 * v1/v2 → v3, in the pure layer, without touching the input.
 *
 * Mirrors Pi's migrateSessionEntries step for step (v1 → v2: linear parent chain and
 * firstKeptEntryIndex → firstKeptEntryId; v2 → v3: role hookMessage → custom), except
 * that v1 ids come from ids.ts instead of randomUUID.
 */

import type { EntryLinks, EntryRecord, OpaqueJson, RawEntry } from "./entries.ts";
import { deterministicId } from "./ids.ts";
import type { FileEntryJson } from "./schemas.ts";
import { isRecord } from "./validate.ts";

export const CURRENT_VERSION = 3;

export interface MigrationInput {
	header?: { id: string };
	sourceVersion: number;
	entries: readonly RawEntry[];
}

/** What seeds a file's v1 ids: its session id, or for a headerless tail its first entry. */
function idSeed(input: MigrationInput): string {
	if (input.header !== undefined) return `session:${input.header.id}`;
	const first = input.entries[0];
	if (first === undefined) return "empty";
	try {
		return `headerless:${JSON.stringify(first.entry)}`;
	} catch {
		// JSON.parse accepts nesting deeper than JSON.stringify can recurse; the top level still tells files apart.
		return `headerless-shallow:${Object.entries(first.entry)
			.map(([key, value]) => `${key}=${typeof value === "object" && value !== null ? "{}" : String(value)}`)
			.join("&")}`;
	}
}

type Body = FileEntryJson | OpaqueJson;

/**
 * Pi resolves the index while it assigns ids in file order: a target at or before the
 * compaction has its new id, a later one has none yet (→ undefined), and the header or
 * a line Pi kept but we did not resolves to nothing.
 */
function convertFirstKept<T extends Body>(entry: T, ownIndex: number, idAtIndex: ReadonlyMap<number, string>): T {
	if (entry.type !== "compaction" || !("firstKeptEntryIndex" in entry)) return entry;
	const { firstKeptEntryIndex, ...rest } = entry;
	if (typeof firstKeptEntryIndex !== "number") return entry;
	const target = firstKeptEntryIndex <= ownIndex ? idAtIndex.get(firstKeptEntryIndex) : undefined;
	// `rest` is T minus one optional field; putting it back under T is what Pi's `delete` does.
	return (target === undefined ? rest : { ...rest, firstKeptEntryId: target }) as T;
}

function renameHookMessage<T extends Body>(entry: T): T {
	if (entry.type !== "message") return entry;
	const message: unknown = entry.message;
	if (!isRecord(message) || message.role !== "hookMessage") return entry;
	return { ...entry, message: { ...message, role: "custom" } };
}

function linked(
	raw: RawEntry,
	id: string,
	parentId: string | null,
	version: number,
	idAtIndex: ReadonlyMap<number, string>,
): EntryRecord {
	const step = <T extends Body>(entry: T): T & EntryLinks => {
		const v2 = version < 2 ? convertFirstKept(entry, raw.index, idAtIndex) : entry;
		const v3 = version < CURRENT_VERSION ? renameHookMessage(v2) : v2;
		// An entry already in v3 shape is used as it is, not copied: a long session is held once.
		const own = v3 as Partial<EntryLinks>;
		if (v3 === entry && own.id === id && own.parentId === parentId) return v3 as T & EntryLinks;
		return { ...v3, id, parentId };
	};
	return raw.kind === "known"
		? { kind: "known", id, parentId, line: raw.line, entry: step(raw.entry) }
		: { kind: "opaque", id, parentId, line: raw.line, reason: raw.reason, entry: step(raw.entry) };
}

export function migrateEntries(input: MigrationInput): EntryRecord[] {
	const version = input.sourceVersion;
	const records: EntryRecord[] = [];
	if (version < 2) {
		const seed = idSeed(input);
		const idAtIndex = new Map<number, string>();
		let parentId: string | null = null;
		input.entries.forEach((raw, position) => {
			const id = deterministicId(seed, position);
			idAtIndex.set(raw.index, id);
			records.push(linked(raw, id, parentId, version, idAtIndex));
			parentId = id;
		});
		return records;
	}
	for (const raw of input.entries) {
		// The reader rejects v2+ entries without links; this only narrows the types.
		const { id, parentId } = raw.entry;
		if (typeof id !== "string") continue;
		records.push(linked(raw, id, typeof parentId === "string" ? parentId : null, version, new Map()));
	}
	return records;
}
