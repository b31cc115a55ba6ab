/**
 * Entries as the events layer keeps them, before and after migration.
 *
 * An entry the reader cannot interpret (unknown type, or a known type whose body does
 * not match its schema) is still kept as an opaque record when its tree links are
 * usable: dropping it would orphan every descendant and cut the branch there, which
 * loses far more of the session than the one entry.
 */

import type { FileEntryJson } from "./schemas.ts";

/** Tree links every entry has once migrated. */
export interface EntryLinks {
	id: string;
	parentId: string | null;
}

/** A known entry after migration: Pi's v3 shape. */
export type KnownEntry = FileEntryJson & EntryLinks;

/** An object with a string `type` that the reader could not interpret; kept whole. */
export interface OpaqueJson {
	type: string;
	[key: string]: unknown;
}

export type OpaqueEntry = OpaqueJson & EntryLinks;

export type OpaqueReason = "unknown-entry-type" | "schema-mismatch";

interface RawBase {
	/** 1-based line in the file. */
	line: number;
	/**
	 * Position among the file's JSON-parseable lines, header included: the numbering v1
	 * `firstKeptEntryIndex` uses (Pi's parseSessionEntries output).
	 */
	index: number;
}

/** What the reader kept from one line, before migration. */
export type RawEntry =
	| (RawBase & { kind: "known"; entry: FileEntryJson })
	| (RawBase & { kind: "opaque"; reason: OpaqueReason; entry: OpaqueJson });

interface RecordBase extends EntryLinks {
	/** 1-based line in the file; undefined for entries handed over by a live session. */
	line: number | undefined;
}

export interface KnownRecord extends RecordBase {
	kind: "known";
	entry: KnownEntry;
}

export interface OpaqueRecord extends RecordBase {
	kind: "opaque";
	reason: OpaqueReason;
	entry: OpaqueEntry;
}

/** One migrated session entry (file order), with its links lifted out for the tree walk. */
export type EntryRecord = KnownRecord | OpaqueRecord;
