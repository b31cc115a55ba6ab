/**
 * Session text → header, raw entries and diagnostics. Never throws on content: a replay
 * over thousands of recorded files must not stop at one bad line, and a live file may
 * be read while Pi is still writing its last line.
 */

import type { RawEntry } from "./entries.ts";
import { isJsonObjectPrefix } from "./json-prefix.ts";
import { assertNever } from "./never.ts";
import type { Diagnostic, DiagnosticReason } from "./types.ts";
import { checkHeader, classifyEntry, DEEP_NESTING_MESSAGE, isRecord } from "./validate.ts";

export interface SessionHeaderInfo {
	id: string;
	/** As written; absent means v1. */
	version: number | undefined;
	timestamp: string | undefined;
	cwd: string | undefined;
	parentSession: string | undefined;
	/** v1 headers name the starting model and thinking level. */
	provider: string | undefined;
	modelId: string | undefined;
	thinkingLevel: string | undefined;
	line: number;
}

export interface ReadStats {
	/** Lines in the file (a final newline does not start another one). */
	lines: number;
	blankLines: number;
	/** Entries kept, header excluded (opaque ones included). */
	entries: number;
	/** Lines not kept, by reason. */
	skipped: Partial<Record<DiagnosticReason, number>>;
	/** Entries kept although not understood, by reason (their events are `other`). */
	opaque: Partial<Record<"unknown-entry-type" | "schema-mismatch", number>>;
	/** Entry type → count, for types this version does not know. */
	unknownEntryTypes: Record<string, number>;
	/** e.g. "message.foo" or "message/assistant/toolCall.partialJson" → count. */
	unknownFields: Record<string, number>;
}

export interface ParsedSession {
	header?: SessionHeaderInfo;
	/** The version migration starts from: the header's, or inferred for a file with no header. */
	sourceVersion: number;
	versionInferred: boolean;
	/** Kept entries in file order, not migrated. */
	entries: RawEntry[];
	diagnostics: Diagnostic[];
	stats: ReadStats;
}

interface ParsedLine {
	line: number;
	index: number;
	value: unknown;
}

/** Sorted so the stats of one text are the same object however the lines were ordered. */
function toRecord(counts: Map<string, number>): Record<string, number> {
	return Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function bump(counts: Map<string, number>, key: string): void {
	counts.set(key, (counts.get(key) ?? 0) + 1);
}

/**
 * A file without a header is a tail cut from a longer session: its entries tell the
 * version. Ids mean v2+; a `hookMessage` role means it predates v3's rename.
 */
function inferVersion(lines: readonly ParsedLine[]): number {
	let hasIds = false;
	for (const { value } of lines) {
		if (!isRecord(value) || typeof value.id !== "string") continue;
		hasIds = true;
		const message = value.message;
		if (value.type === "message" && isRecord(message) && message.role === "hookMessage") return 2;
	}
	return hasIds ? 3 : 1;
}

/** The diagnostics of one read, in the order its phases find them, and the counts its stats report. */
interface Tally {
	diagnostics: Diagnostic[];
	skipped: Map<string, number>;
	opaque: Map<string, number>;
	unknownEntryTypes: Map<string, number>;
	unknownFields: Map<string, number>;
}

function report(tally: Tally, reason: DiagnosticReason, line: number, message: string, entryId?: string): void {
	tally.diagnostics.push(entryId === undefined ? { reason, line, message } : { reason, line, entryId, message });
}

/** A line not kept: reported and counted by reason. */
function skip(tally: Tally, reason: DiagnosticReason, line: number, message: string, entryId?: string): void {
	report(tally, reason, line, message, entryId);
	bump(tally.skipped, reason);
}

interface SplitLines {
	/** Lines that parse as JSON, in file order. */
	parsed: ParsedLine[];
	lines: number;
	blankLines: number;
}

/**
 * Phase 1, a line at a time: text → JSON values by line. A bad line is skipped; an unfinished last
 * line is one still being written — which a line that does not parse can only be known to be once
 * the lines end, so its verdict waits for the next line or the end.
 */
interface LineReader {
	line(text: string): void;
	end(endsWithNewline: boolean): SplitLines;
}

function lineReader(tally: Tally): LineReader {
	let lines = 0;
	let blankLines = 0;
	const parsed: ParsedLine[] = [];
	let unparsed: { line: number; text: string; error: string } | undefined;
	const invalid = (bad: { line: number; error: string }) => skip(tally, "invalid-json", bad.line, bad.error);
	return {
		line(raw) {
			if (unparsed !== undefined) invalid(unparsed);
			unparsed = undefined;
			const line = ++lines;
			const lineText = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
			if (lineText.trim() === "") {
				blankLines++;
				return;
			}
			try {
				parsed.push({ line, index: parsed.length, value: JSON.parse(lineText) });
			} catch (error) {
				unparsed = { line, text: lineText, error: error instanceof Error ? error.message : "invalid JSON" };
			}
		},
		end(endsWithNewline) {
			if (unparsed !== undefined) {
				if (!endsWithNewline && isJsonObjectPrefix(unparsed.text)) {
					skip(tally, "truncated-last-line", unparsed.line, "last line is incomplete (file still being written?)");
				} else invalid(unparsed);
			}
			unparsed = undefined;
			return { parsed, lines, blankLines };
		},
	};
}

/** Phase 2: the header, when the first value is one; a header that does not fit is skipped. */
function readHeader(first: ParsedLine | undefined, tally: Tally): { header?: SessionHeaderInfo; present: boolean } {
	if (first === undefined || !isRecord(first.value) || first.value.type !== "session") return { present: false };
	const checked = checkHeader(first.value);
	if (!checked.ok) {
		skip(tally, "schema-mismatch", first.line, checked.message);
		return { present: true };
	}
	const h = checked.header;
	for (const field of checked.unknownFields) bump(tally.unknownFields, field);
	return {
		present: true,
		header: {
			id: h.id,
			version: h.version,
			timestamp: h.timestamp,
			cwd: h.cwd,
			parentSession: h.parentSession,
			provider: h.provider,
			modelId: h.modelId,
			thinkingLevel: h.thinkingLevel,
			line: first.line,
		},
	};
}

/**
 * Phase 3: values → entries. Rejected ones are skipped, a repeated id keeps its first entry, and an
 * entry that is not understood is kept opaque with one line saying why.
 */
function classifyLines(lines: readonly ParsedLine[], needsIds: boolean, tally: Tally): RawEntry[] {
	const entries: RawEntry[] = [];
	const seenIds = new Set<string>();
	for (const { line, index, value } of lines) {
		const classified = classifyEntry(value, needsIds);
		if (classified.kind === "rejected") {
			skip(tally, classified.reason, line, classified.message);
			continue;
		}
		const id = classified.entry.id;
		if (needsIds && typeof id === "string") {
			if (seenIds.has(id)) {
				skip(tally, "duplicate-id", line, `id ${id} already used by an earlier entry; this one is skipped`, id);
				continue;
			}
			seenIds.add(id);
		}
		const entryId = typeof id === "string" ? id : undefined;
		if (classified.clipped) report(tally, "deep-nesting", line, DEEP_NESTING_MESSAGE, entryId);
		switch (classified.kind) {
			case "known":
				for (const field of classified.unknownFields) bump(tally.unknownFields, field);
				entries.push({ kind: "known", line, index, entry: classified.entry });
				break;
			case "opaque":
				report(tally, classified.reason, line, classified.message, entryId);
				bump(tally.opaque, classified.reason);
				if (classified.reason === "unknown-entry-type") bump(tally.unknownEntryTypes, classified.entry.type);
				entries.push({ kind: "opaque", line, index, reason: classified.reason, entry: classified.entry });
				break;
			default:
				return assertNever(classified, "classified entry");
		}
	}
	return entries;
}

/**
 * A session read a line at a time (`line` for each line, without its newline, in file order, the
 * file's byte-order mark left out; `end` when the lines end): what `parseSessionText` gives for the whole text, without the text — a long
 * session's file is read in pieces and never held whole (docs/decisions.md).
 */
export interface SessionLineParser {
	line(text: string): void;
	/** `endsWithNewline`: a newline followed the last line (an unfinished last line has none). */
	end(endsWithNewline: boolean): ParsedSession;
}

export function sessionLineParser(): SessionLineParser {
	const tally: Tally = {
		diagnostics: [],
		skipped: new Map(),
		opaque: new Map(),
		unknownEntryTypes: new Map(),
		unknownFields: new Map(),
	};
	const reader = lineReader(tally);
	return {
		line: (text) => reader.line(text),
		end: (endsWithNewline) => sessionOf(reader.end(endsWithNewline), tally),
	};
}

export function parseSessionText(text: string): ParsedSession {
	const parser = sessionLineParser();
	const body = text.startsWith(BOM) ? text.slice(1) : text;
	const segments = body.split("\n");
	// "a\nb\n" splits into ["a", "b", ""]: the empty tail is not a line.
	if (segments.at(-1) === "") segments.pop();
	for (const segment of segments) parser.line(segment);
	return parser.end(body.endsWith("\n"));
}

/** A byte-order mark the file may start with: not part of its first line. */
export const BOM = "\uFEFF";

/** Phases 2 and 3: the lines' values → header, entries and the read's stats. */
function sessionOf({ parsed, lines, blankLines }: SplitLines, tally: Tally): ParsedSession {
	const { header, present } = readHeader(parsed[0], tally);
	const body = present ? parsed.slice(1) : parsed;
	const versionInferred = header === undefined;
	const sourceVersion = header !== undefined ? (header.version ?? 1) : inferVersion(body);
	const entries = classifyLines(body, sourceVersion >= 2, tally);

	const result: ParsedSession = {
		sourceVersion,
		versionInferred,
		entries,
		diagnostics: tally.diagnostics,
		stats: {
			lines,
			blankLines,
			entries: entries.length,
			skipped: toRecord(tally.skipped),
			opaque: toRecord(tally.opaque),
			unknownEntryTypes: toRecord(tally.unknownEntryTypes),
			unknownFields: toRecord(tally.unknownFields),
		},
	};
	if (header !== undefined) result.header = header;
	return result;
}
