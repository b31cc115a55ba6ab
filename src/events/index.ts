/**
 * The events layer's public API: a session file or a live branch → LedgerEvents.
 *
 * Nothing here throws on content. Every problem becomes a Diagnostic and the rest of
 * the session is still read.
 */

import type { EntryRecord } from "./entries.ts";
import { parseSessionText, type ReadStats, type SessionHeaderInfo } from "./jsonl.ts";
import { selectBranch } from "./leaf-path.ts";
import { migrateEntries } from "./migrate.ts";
import { type NormalizeOptions, normalizeBranch } from "./normalize.ts";
import type { Diagnostic, LedgerEvent } from "./types.ts";
import { classifyEntry, DEEP_NESTING_MESSAGE, isRecord } from "./validate.ts";

export type { EntryRecord } from "./entries.ts";
export { sumFields, zeroFields } from "./field-sums.ts";
export { BOM, type ParsedSession, parseSessionText, type SessionLineParser, sessionLineParser } from "./jsonl.ts";
// What the other layers use, by name; the layer's own tests import the module files.
export { listLeaves, selectBranch, selectBranches } from "./leaf-path.ts";
export { migrateEntries } from "./migrate.ts";
export { assertNever } from "./never.ts";
export { type NormalizeOptions, normalizeBranch, privacyKey } from "./normalize.ts";
export { partitionPoint, sharedPrefixLength } from "./partition.ts";
export {
	ADVISOR_TOOL_NAME,
	type AdvisorDetails,
	type AttemptRecord,
	type ContextTrim,
	CUSTOM_TYPES,
	type EnvelopeEstimate,
	parseAdvisorDetails,
	parseTrimAnchorRecord,
	parseUsageRecordData,
	parseWatchMessageDetails,
	REVIEW_OUTCOMES,
	type RequestRecord,
	type ReviewMessageDetails,
	type ReviewOutcome,
	SEVERITIES,
	type Severity,
	type ToolCallSummary,
	type TrimAnchorRecord,
	type UsageRecordData,
	WATCH_DELIVERIES,
	WATCH_SIGNALS,
	type WatchDelivery,
	type WatchMessageDetails,
	type WatchSignal,
} from "./records.ts";
export {
	countMarks,
	createDenyMatcher,
	DEFAULT_DENY_PATTERNS,
	DEFAULT_PRIVACY,
	type DenyMatcher,
	markFor,
	normalisePattern,
	type PrivacyFile,
	PrivacySchema,
	type PrivacySettings,
	pathArgument,
	privacyFingerprint,
	READING_TOOLS,
	type ResolvedPrivacy,
	redactText,
	redactValue,
	resolvePrivacy,
	WITHHELD_READ_TEXT,
} from "./redact/index.ts";
export type {
	AssistantEvent,
	ContentPart,
	ContextEditEvent,
	ContextReplacement,
	CustomMessageEvent,
	Diagnostic,
	DiagnosticReason,
	HiddenUserWords,
	LedgerEvent,
	SystemEvent,
	SystemPrompt,
	ToolCallInfo,
	ToolResultEvent,
	UsageEvent,
} from "./types.ts";
export { isRecord } from "./validate.ts";

/** What decides an event's bytes besides its entry: redaction and the deny list (normalize.ts). */
export type PrivacyOptions = Pick<NormalizeOptions, "privacy" | "denyPatterns">;

export interface ReadOptions extends PrivacyOptions {
	/** The leaf to read the branch up to; default the last entry in file order, null = empty branch. */
	leafId?: string | null;
}

export interface SessionRead {
	header?: SessionHeaderInfo;
	/** The version the file was written in (inferred when it has no header). */
	sourceVersion: number;
	versionInferred: boolean;
	/** Every kept entry, migrated to v3, in file order. */
	entries: EntryRecord[];
	/** Root → leaf. */
	path: EntryRecord[];
	leafId: string | undefined;
	/** One per path entry, in path order. */
	events: LedgerEvent[];
	/** Reader diagnostics (by line), then branch diagnostics. */
	diagnostics: Diagnostic[];
	stats: ReadStats;
}

export function readSession(text: string, options: ReadOptions = {}): SessionRead {
	const parsed = parseSessionText(text);
	const entries = migrateEntries(parsed);
	const branch = selectBranch(entries, options.leafId);
	const read: SessionRead = {
		sourceVersion: parsed.sourceVersion,
		versionInferred: parsed.versionInferred,
		entries,
		path: branch.path,
		leafId: branch.leafId,
		events: normalizeBranch(branch.path, entries, {
			...privacyOptions(options),
			...(parsed.header?.cwd !== undefined ? { cwd: parsed.header.cwd } : {}),
		}),
		diagnostics: [...parsed.diagnostics, ...branch.diagnostics],
		stats: parsed.stats,
	};
	if (parsed.header !== undefined) read.header = parsed.header;
	return read;
}

export interface BranchEvents {
	events: LedgerEvent[];
	diagnostics: Diagnostic[];
}

/**
 * Live sessions: Pi hands over v3 entries already migrated (its own random ids), so only
 * validation is left. Invalid branch entries are skipped and reported; invalid entries of
 * `allEntries` are dropped silently, because each one is either on the branch (reported
 * there) or only matters as a place to look for abandoned user words.
 */
export function eventsFromBranch(
	branch: readonly unknown[],
	allEntries?: readonly unknown[],
	options: BranchEventsOptions = {},
): BranchEvents {
	const diagnostics: Diagnostic[] = [];
	const normalize: NormalizeOptions = {
		...privacyOptions(options),
		...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
	};
	const from = Math.max(0, Math.min(options.from ?? 0, branch.length));
	if (from === 0) {
		const path = toRecords(branch, diagnostics);
		const all = allEntries === undefined ? path : () => toRecords(allEntries, undefined);
		return { events: normalizeBranch(path, all, normalize), diagnostics };
	}
	// Incremental: the first `from` entries were validated and normalised by an earlier call.
	const before: string[] = [];
	for (let i = 0; i < from; i++) {
		const value = branch[i];
		if (isRecord(value) && typeof value.id === "string") before.push(value.id);
	}
	const path = toRecords(branch.slice(from), diagnostics, new Set(before));
	const all = () => toRecords(allEntries ?? branch, undefined);
	return { events: normalizeBranch(path, all, { ...normalize, pathBefore: before }), diagnostics };
}

function privacyOptions(options: PrivacyOptions): PrivacyOptions {
	const out: PrivacyOptions = {};
	if (options.privacy !== undefined) out.privacy = options.privacy;
	if (options.denyPatterns !== undefined) out.denyPatterns = options.denyPatterns;
	return out;
}

export interface BranchEventsOptions extends PrivacyOptions {
	/** The session's working directory (the deny list judges reads relative to it). */
	cwd?: string;
	/**
	 * Normalise only `branch[from…]`: the entries before were read by an earlier call on a
	 * branch this one extends. Events depend only on their entry and what precedes it, so the
	 * result equals the tail of a full read.
	 */
	from?: number;
}

/**
 * Live entries (Pi's own, already v3) as records, the way `eventsFromBranch` validates them; the
 * invalid ones are left out silently. For consumers that walk entries themselves (the full-context
 * baseline of `/advisor stats`).
 */
export function entryRecords(values: readonly unknown[]): EntryRecord[] {
	return toRecords(values, undefined);
}

function toRecords(
	values: readonly unknown[],
	diagnostics: Diagnostic[] | undefined,
	seen: Set<string> = new Set(),
): EntryRecord[] {
	const records: EntryRecord[] = [];
	values.forEach((value, position) => {
		const where = `entry ${position} of the branch`;
		const rawId = isRecord(value) && typeof value.id === "string" ? value.id : undefined;
		const report = (reason: Diagnostic["reason"], message: string): void => {
			diagnostics?.push(
				rawId === undefined
					? { reason, message: `${where}: ${message}` }
					: { reason, entryId: rawId, message: `${where}: ${message}` },
			);
		};
		const classified = classifyEntry(value, true);
		if (classified.kind === "rejected") {
			report(classified.reason, classified.message);
			return;
		}
		const { id, parentId } = classified.entry;
		// classifyEntry(…, true) guarantees both; this narrows the types.
		if (typeof id !== "string" || (typeof parentId !== "string" && parentId !== null)) return;
		if (seen.has(id)) {
			report("duplicate-id", `id ${id} already used by an earlier entry; this one is skipped`);
			return;
		}
		seen.add(id);
		if (classified.clipped) report("deep-nesting", DEEP_NESTING_MESSAGE);
		if (classified.kind === "known") {
			records.push({ kind: "known", id, parentId, line: undefined, entry: { ...classified.entry, id, parentId } });
		} else {
			report(classified.reason, classified.message);
			records.push({
				kind: "opaque",
				id,
				parentId,
				line: undefined,
				reason: classified.reason,
				entry: { ...classified.entry, id, parentId },
			});
		}
	});
	return records;
}
