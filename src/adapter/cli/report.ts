/**
 * The replay report: per-point measurements, per-session and total aggregates. The JSON form
 * (`replay --json`) is this object as is; README documents every field, and the names are stable.
 */

import type { DiagnosticReason } from "../../events/index.ts";

export const REPORT_VERSION = 1;

export interface TokenStats {
	total: number;
	p50: number;
	p90: number;
	max: number;
}

export interface ShareStats {
	/** Median over consecutive pairs of consultations (null when there is no pair). */
	p50: number | null;
	mean: number | null;
}

export interface CacheShare {
	/** Consecutive pairs measured. */
	pairs: number;
	tokenPrefix: ShareStats;
	breakpoint: ShareStats;
}

/** Real billed usage of an advisor call, from its result's `details.usage` (all attempts and rounds). */
export interface Billed {
	/** input + cacheRead + cacheWrite. */
	prompt: number;
	input: number;
	cacheRead: number;
	cacheWrite: number;
	output: number;
}

export interface PointReport {
	/** The request is what a consultation dispatched right after this entry sends. */
	atEntryId: string;
	kind: "advisor" | "simulated";
	/** The in-flight advisor call, for real points. */
	callId?: string;
	baseline: number;
	ledger: number;
	/** Tokens of the ledger request's stable portion. */
	ledgerStable: number;
	/** Tokens of each request a prompt cache holds from the previous point (token-prefix model; 0 on the first). */
	baselineCached: number;
	ledgerCached: number;
	/** Shares of the previous point's ledger request reused by this one (absent on a session's first point). */
	cacheShare?: { tokenPrefix: number; breakpoint: number };
	billed?: Billed;
	/** Fold (new events only) + render, ms. */
	incrementalMs: number;
	/** Fold from scratch + render with a fresh memo, ms (a sample of points, never a branch's first). */
	scratchMs?: number;
}

export interface LargerThanBaseline {
	file: string;
	leafId: string | null;
	atEntryId: string;
	kind: "advisor" | "simulated";
	baseline: number;
	ledger: number;
}

export interface MissingUserMessage {
	file: string;
	leafId: string | null;
	entryId: string;
	/** The first point whose request lacked it. */
	atEntryId: string;
}

export interface UserMessages {
	/** User messages on the path that at least one point's request had to carry. */
	total: number;
	missing: number;
	missingMessages: MissingUserMessage[];
}

export interface Timing {
	/** Sum over points of incremental fold + render. */
	incrementalMs: number;
	/** Sum over the scratch-measured points of fold from scratch + render. */
	scratchMs: number;
	/** Points measured both ways. */
	scratchPoints: number;
	/** Incremental / scratch over the points measured both ways (null when none). */
	ratio: number | null;
	/** Points where the incremental and the from-scratch request differed (must be 0). */
	mismatches: number;
}

export interface Diagnostics {
	/** Lines not kept: invalid JSON, truncated last line, not an object, schema mismatch, duplicate id. */
	badLines: number;
	/** Entries kept but not understood (unknown entry type, known type with a bad body). */
	unknownEntries: number;
	/** Branch walks cut short: a parent that is missing, a cycle in parentId, an unknown leaf. */
	brokenParents: number;
	byReason: Partial<Record<DiagnosticReason, number>>;
	unknownEntryTypes: Record<string, number>;
	/** The first diagnostics, for reading: `file:line: reason: message`. */
	messages: string[];
}

export interface BilledTotals {
	/** Points whose result carries billed usage. */
	points: number;
	prompt: number;
	output: number;
	/** The ledger estimate summed over the same points. */
	ledgerEstimate: number;
}

export interface SessionReport {
	file: string;
	sessionId: string | null;
	leafId: string | null;
	/** Entries on the replayed path. */
	pathEntries: number;
	pointKind: "advisor" | "simulated" | "none";
	points: PointReport[];
	tokens: { baseline: TokenStats; ledger: TokenStats; ratio: number | null };
	effective: EffectiveCost;
	billed: BilledTotals;
	largerThanBaseline: LargerThanBaseline[];
	userMessages: UserMessages;
	cacheShare: CacheShare;
	timing: Timing;
	diagnostics: Diagnostics;
}

/** Price of a cached prompt token relative to a fresh one, the same on both sides. */
export const CACHED_TOKEN_PRICE = 0.1;

/** Fresh tokens + CACHED_TOKEN_PRICE × cached prefix tokens, summed over points. */
export interface EffectiveCost {
	baseline: number;
	ledger: number;
	ratio: number | null;
}

export interface UnreadableInput {
	path: string;
	error: string;
}

export interface ReplayReport {
	version: number;
	sessions: SessionReport[];
	/** Consultation points over all sessions. */
	points: number;
	tokens: { baseline: TokenStats; ledger: TokenStats; ratio: number | null };
	effective: EffectiveCost;
	billed: BilledTotals;
	largerThanBaseline: LargerThanBaseline[];
	userMessages: UserMessages;
	cacheShare: CacheShare;
	timing: Timing;
	diagnostics: Diagnostics & {
		/** Session files read (each counted once, whatever --all-leaves). */
		files: number;
		/** Files with no consultation point (empty, header only, nothing readable). */
		filesWithoutPoints: string[];
		unreadable: UnreadableInput[];
	};
	options: { every: number; allLeaves: boolean; inputs: string[] };
}

/** Nearest-rank percentile of a list (0 for an empty one). */
export function percentile(values: readonly number[], p: number): number {
	if (values.length === 0) return 0;
	const sorted = [...values].sort((a, b) => a - b);
	const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
	return sorted[rank - 1]!;
}

export function tokenStats(values: readonly number[]): TokenStats {
	let total = 0;
	let max = 0;
	for (const v of values) {
		total += v;
		if (v > max) max = v;
	}
	return { total, p50: percentile(values, 50), p90: percentile(values, 90), max };
}

function median(values: readonly number[]): number | null {
	if (values.length === 0) return null;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function mean(values: readonly number[]): number | null {
	if (values.length === 0) return null;
	return values.reduce((a, b) => a + b, 0) / values.length;
}

export function round(value: number, digits = 4): number {
	const f = 10 ** digits;
	return Math.round(value * f) / f;
}

function roundOrNull(value: number | null, digits = 4): number | null {
	return value === null ? null : round(value, digits);
}

export function ratio(numerator: number, denominator: number): number | null {
	return denominator > 0 ? round(numerator / denominator) : null;
}

export function cacheShareOf(points: readonly PointReport[]): CacheShare {
	const pairs = points.flatMap((p) => (p.cacheShare === undefined ? [] : [p.cacheShare]));
	const prefix = pairs.map((s) => s.tokenPrefix);
	const breakpoint = pairs.map((s) => s.breakpoint);
	return {
		pairs: pairs.length,
		tokenPrefix: { p50: roundOrNull(median(prefix)), mean: roundOrNull(mean(prefix)) },
		breakpoint: { p50: roundOrNull(median(breakpoint)), mean: roundOrNull(mean(breakpoint)) },
	};
}

export function timingOf(points: readonly PointReport[]): Timing {
	let incrementalMs = 0;
	let scratchMs = 0;
	let matchedIncremental = 0;
	let scratchPoints = 0;
	for (const p of points) {
		incrementalMs += p.incrementalMs;
		if (p.scratchMs !== undefined) {
			scratchMs += p.scratchMs;
			matchedIncremental += p.incrementalMs;
			scratchPoints++;
		}
	}
	return {
		incrementalMs: round(incrementalMs, 3),
		scratchMs: round(scratchMs, 3),
		scratchPoints,
		ratio: scratchMs > 0 ? round(matchedIncremental / scratchMs) : null,
		mismatches: 0,
	};
}

export function billedOf(points: readonly PointReport[]): BilledTotals {
	const totals: BilledTotals = { points: 0, prompt: 0, output: 0, ledgerEstimate: 0 };
	for (const p of points) {
		if (p.billed === undefined) continue;
		totals.points++;
		totals.prompt += p.billed.prompt;
		totals.output += p.billed.output;
		totals.ledgerEstimate += p.ledger;
	}
	return totals;
}

export function emptyDiagnostics(): Diagnostics {
	return { badLines: 0, unknownEntries: 0, brokenParents: 0, byReason: {}, unknownEntryTypes: {}, messages: [] };
}

/** How many diagnostic messages a report keeps (counts are always complete). */
export const MAX_DIAGNOSTIC_MESSAGES = 50;

export function addDiagnostics(into: Diagnostics, from: Diagnostics): void {
	into.badLines += from.badLines;
	into.unknownEntries += from.unknownEntries;
	into.brokenParents += from.brokenParents;
	for (const [reason, n] of Object.entries(from.byReason) as [DiagnosticReason, number][]) {
		into.byReason[reason] = (into.byReason[reason] ?? 0) + n;
	}
	for (const [type, n] of Object.entries(from.unknownEntryTypes)) {
		into.unknownEntryTypes[type] = (into.unknownEntryTypes[type] ?? 0) + n;
	}
	for (const m of from.messages) if (into.messages.length < MAX_DIAGNOSTIC_MESSAGES) into.messages.push(m);
}

export function effectiveOf(points: readonly PointReport[]): EffectiveCost {
	let baseline = 0;
	let ledger = 0;
	for (const p of points) {
		baseline += p.baseline - p.baselineCached + CACHED_TOKEN_PRICE * p.baselineCached;
		ledger += p.ledger - p.ledgerCached + CACHED_TOKEN_PRICE * p.ledgerCached;
	}
	return { baseline: round(baseline, 1), ledger: round(ledger, 1), ratio: ratio(ledger, baseline) };
}

export function sessionTotals(
	points: readonly PointReport[],
): Pick<SessionReport, "tokens" | "effective" | "billed" | "cacheShare" | "timing"> {
	const baseline = tokenStats(points.map((p) => p.baseline));
	const ledger = tokenStats(points.map((p) => p.ledger));
	return {
		tokens: { baseline, ledger, ratio: ratio(ledger.total, baseline.total) },
		effective: effectiveOf(points),
		billed: billedOf(points),
		cacheShare: cacheShareOf(points),
		timing: timingOf(points),
	};
}

export interface FileDiagnostics {
	file: string;
	/** The reader's, counted once per file. */
	reader: Diagnostics;
	/** The branch walks' (one per replayed leaf). */
	branches: Diagnostics;
	hasPoints: boolean;
}

export function buildReport(
	sessions: SessionReport[],
	files: readonly FileDiagnostics[],
	unreadable: UnreadableInput[],
	options: ReplayReport["options"],
): ReplayReport {
	const points = sessions.flatMap((s) => s.points);
	const totals = sessionTotals(points);
	totals.timing.mismatches = sessions.reduce((n, s) => n + s.timing.mismatches, 0);
	const diagnostics = emptyDiagnostics();
	for (const f of files) {
		addDiagnostics(diagnostics, f.reader);
		addDiagnostics(diagnostics, f.branches);
	}
	const missingMessages = sessions.flatMap((s) => s.userMessages.missingMessages);
	return {
		version: REPORT_VERSION,
		sessions,
		points: points.length,
		tokens: totals.tokens,
		effective: totals.effective,
		billed: totals.billed,
		largerThanBaseline: sessions.flatMap((s) => s.largerThanBaseline),
		userMessages: {
			total: sessions.reduce((n, s) => n + s.userMessages.total, 0),
			missing: missingMessages.length,
			missingMessages,
		},
		cacheShare: totals.cacheShare,
		timing: totals.timing,
		diagnostics: {
			...diagnostics,
			files: files.length,
			filesWithoutPoints: files.filter((f) => !f.hasPoints).map((f) => f.file),
			unreadable,
		},
		options,
	};
}
