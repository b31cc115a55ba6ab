/**
 * The replay report: per-point measurements, per-session and total aggregates. The JSON form
 * (`replay --json`) is this object as is; README documents every field, and the names are stable.
 */

import type { DiagnosticReason } from "../../../events/index.ts";
import { LOOKBACK_BLOCKS, MAX_BREAKPOINTS } from "../../../policy/index.ts";
import { addCounts, emptyCounts, type FactCounts } from "../../../render/index.ts";
import {
	addSplits,
	type CacheSplit,
	cachedPrefix,
	EMPTY_SPLIT,
	effectiveTokens,
	type PromptPrices,
	priceSplit,
	priceUncached,
	splitPrompt,
} from "../../baseline/cache-cost.ts";
import {
	type Billed,
	type BilledTotals,
	billedTotalsOf,
	type EstimatesByKind,
	estimatesOf,
	type PointEstimate,
} from "./billed.ts";
import { ratio, round, roundOrNull } from "./numbers.ts";

export type { Billed, BilledTotals, PointEstimate } from "./billed.ts";
export { ratio, round } from "./numbers.ts";

/**
 * 2: the breakpoint figures apply Anthropic's 20-block lookback; the figures without bridges are added.
 * 3: whole consultations: `billed` splits first requests from follow-ups and is priced, beside the
 * extension's estimate (`points[].estimate`, `estimate`).
 */
export const REPORT_VERSION = 3;

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
	/** Breakpoints with the lookback and the marks the extension sets, bridges included. */
	breakpoint: ShareStats;
	/** The same without bridges (the baselines have none: equal to `breakpoint`). */
	breakpointNoBridges: ShareStats;
}

/** Shares of the previous request reused by this one, in each caching model. */
export interface PointShares {
	tokenPrefix: number;
	breakpoint: number;
	breakpointNoBridges: number;
}

export interface PointReport {
	/** The request is what a consultation dispatched right after this entry sends. */
	atEntryId: string;
	kind: "advisor" | "simulated";
	/** The in-flight advisor call, for real points. */
	callId?: string;
	baseline: number;
	/**
	 * The baseline with observation masking (tool results older than the newest 10 assistant turns
	 * replaced by one line, baseline/masked.ts): the research baseline, for comparison.
	 */
	masked: number;
	ledger: number;
	/** Tokens of the ledger request's stable portion. */
	ledgerStable: number;
	/** Shares of the previous point's ledger request reused by this one (absent on a session's first point). */
	cacheShare?: PointShares;
	/** The same for the baseline: shares of the previous point's baseline request reused by this one. */
	baselineCacheShare?: PointShares;
	/** The same for the masked baseline. */
	maskedCacheShare?: PointShares;
	/** What the result recorded the consultation was billed, when it did (advisor points). */
	billed?: Billed;
	/** The extension's estimate of the consultation here, at the report's price model. */
	estimate?: PointEstimate;
	/** Fold (new events only) + render, ms. */
	incrementalMs: number;
	/** Fold from scratch + render with a fresh memo, ms (a sample of points, never a branch's first). */
	scratchMs?: number;
	/** The fact audit at this point: of the facts the branch holds, how many each request carries, by category. */
	facts: PointFacts;
}

export interface PointFacts {
	ledger: FactCounts;
	/** Pi's own context at the same point (what rpiv-advisor sends). */
	baseline: FactCounts;
}

/**
 * The fact audit summed over points (docs/request-format.md#the-fact-audit): a fact counts once at
 * every point whose branch holds it. Shares are carried / total over all categories.
 */
export interface FactSurvival extends PointFacts {
	ledgerShare: number | null;
	baselineShare: number | null;
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

/** One side's prompt tokens over a set of consultations, split by what a prompt cache would do. */
export interface SideCache {
	tokenPrefix: CacheSplit;
	breakpoint: CacheSplit;
	breakpointNoBridges: CacheSplit;
	/** Token-prefix model: uncached + 0.1 × read. */
	effective: number;
	/** Breakpoint model (lookback, bridges): uncached + written + 0.1 × read. */
	effectiveBreakpoint: number;
	/** The same without bridges. */
	effectiveNoBridges: number;
}

/**
 * Both sides cached the same way: each consultation reads what it repeats of the previous one
 * (the session's first reads nothing), in both caching models.
 */
export interface CacheTotals {
	baseline: SideCache;
	ledger: SideCache;
	/** The masked baseline, cached the same way. */
	masked: SideCache;
	/** Ledger / baseline effective tokens (null when the baseline is empty). */
	effectiveRatio: number | null;
	/** Masked / baseline effective tokens (null when the baseline is empty). */
	maskedEffectiveRatio: number | null;
	/** Ledger / baseline in the breakpoint model, and without bridges. */
	effectiveRatioBreakpoint: number | null;
	effectiveRatioNoBridges: number | null;
}

export interface UsdPair {
	baseline: number;
	ledger: number;
	ratio: number | null;
	masked: number;
	/** Masked / baseline. */
	maskedRatio: number | null;
}

/** Tokens per consultation on every side, and the ratios to the baseline. */
export interface TokenTotals {
	baseline: TokenStats;
	ledger: TokenStats;
	masked: TokenStats;
	/** Ledger / baseline (totals). */
	ratio: number | null;
	/** Masked / baseline (totals). */
	maskedRatio: number | null;
}

/** The consultations' prompts priced with one model of pi-ai's registry (output excluded: the same answer on both sides). */
export interface PriceReport {
	/** `provider/model`. */
	model: string;
	name: string;
	/** USD per million tokens, as the registry lists them (0 = not listed: priced as input). */
	perMillion: PromptPrices;
	uncached: UsdPair;
	tokenPrefix: UsdPair;
	breakpoint: UsdPair;
	breakpointNoBridges: UsdPair;
}

/** The breakpoint rule the replay applies (docs/request-format.md §7). */
export const CACHE_RULE = { lookbackBlocks: LOOKBACK_BLOCKS, maxBreakpoints: MAX_BREAKPOINTS } as const;

export interface PriceModel {
	key: string;
	name: string;
	prices: PromptPrices;
}

export interface SessionReport {
	file: string;
	sessionId: string | null;
	leafId: string | null;
	/** Entries on the replayed path. */
	pathEntries: number;
	pointKind: "advisor" | "simulated" | "none";
	points: PointReport[];
	tokens: TokenTotals;
	billed: BilledTotals;
	/** The extension's estimates summed, advisor points and simulated ones apart. */
	estimate: EstimatesByKind;
	largerThanBaseline: LargerThanBaseline[];
	userMessages: UserMessages;
	cacheShare: CacheShare;
	/** The same over the baseline requests. */
	baselineCacheShare: CacheShare;
	/** The same over the masked baseline's requests. */
	maskedCacheShare: CacheShare;
	cache: CacheTotals;
	facts: FactSurvival;
	timing: Timing;
	diagnostics: Diagnostics;
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
	tokens: TokenTotals;
	billed: BilledTotals;
	estimate: EstimatesByKind;
	largerThanBaseline: LargerThanBaseline[];
	userMessages: UserMessages;
	cacheShare: CacheShare;
	baselineCacheShare: CacheShare;
	maskedCacheShare: CacheShare;
	cache: CacheTotals;
	/** The breakpoint model's rule: Anthropic's lookback and mark limit. */
	cacheRule: typeof CACHE_RULE;
	facts: FactSurvival;
	/** Absent when the report was built without a price model. */
	price?: PriceReport;
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

const SHARE_OF = {
	ledger: (p: PointReport) => p.cacheShare,
	baseline: (p: PointReport) => p.baselineCacheShare,
	masked: (p: PointReport) => p.maskedCacheShare,
} as const;

export function cacheShareOf(
	points: readonly PointReport[],
	side: "ledger" | "baseline" | "masked" = "ledger",
): CacheShare {
	const pairs = points.flatMap((p) => {
		const share = SHARE_OF[side](p);
		return share === undefined ? [] : [share];
	});
	const stats = (model: CacheModelKey): ShareStats => {
		const values = pairs.map((s) => s[model]);
		return { p50: roundOrNull(median(values)), mean: roundOrNull(mean(values)) };
	};
	return {
		pairs: pairs.length,
		tokenPrefix: stats("tokenPrefix"),
		breakpoint: stats("breakpoint"),
		breakpointNoBridges: stats("breakpointNoBridges"),
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

/** The three ways a side is cached in the report, and the split model each prices with. */
const CACHE_MODELS = ["tokenPrefix", "breakpoint", "breakpointNoBridges"] as const;
type CacheModelKey = (typeof CACHE_MODELS)[number];
const SPLIT_KIND: Record<CacheModelKey, "token-prefix" | "breakpoint"> = {
	tokenPrefix: "token-prefix",
	breakpoint: "breakpoint",
	breakpointNoBridges: "breakpoint",
};

type Splits = Record<CacheModelKey, CacheSplit>;

const emptySplits = (): Splits => ({
	tokenPrefix: { ...EMPTY_SPLIT },
	breakpoint: { ...EMPTY_SPLIT },
	breakpointNoBridges: { ...EMPTY_SPLIT },
});

function sideOf(splits: Splits): SideCache {
	return {
		...splits,
		effective: round(effectiveTokens(splits.tokenPrefix), 1),
		effectiveBreakpoint: round(effectiveTokens(splits.breakpoint), 1),
		effectiveNoBridges: round(effectiveTokens(splits.breakpointNoBridges), 1),
	};
}

type Side = "baseline" | "ledger" | "masked";
const SIDES: readonly Side[] = ["baseline", "ledger", "masked"];

function cacheTotalsOf(sides: Record<Side, SideCache>): CacheTotals {
	const { baseline, ledger, masked } = sides;
	const of = (l: number, b: number) => (b > 0 ? round(l / b) : null);
	return {
		baseline,
		ledger,
		masked,
		effectiveRatio: of(ledger.effective, baseline.effective),
		maskedEffectiveRatio: of(masked.effective, baseline.effective),
		effectiveRatioBreakpoint: of(ledger.effectiveBreakpoint, baseline.effectiveBreakpoint),
		effectiveRatioNoBridges: of(ledger.effectiveNoBridges, baseline.effectiveNoBridges),
	};
}

/** A point's tokens and the share of the previous point it repeats, on one side. */
function sideOfPoint(p: PointReport, side: Side): { tokens: number; share: PointShares | undefined } {
	return { tokens: p[side], share: SHARE_OF[side](p) };
}

/** One session's points in order: each reads from the cache what it repeats of the one before. */
export function cacheOf(points: readonly PointReport[]): CacheTotals {
	const sides = {} as Record<Side, SideCache>;
	for (const side of SIDES) {
		const splits = emptySplits();
		points.forEach((p, i) => {
			const previous = points[i - 1] === undefined ? undefined : sideOfPoint(points[i - 1]!, side).tokens;
			const { tokens, share } = sideOfPoint(p, side);
			for (const model of CACHE_MODELS) {
				const cached = cachedPrefix(previous, share?.[model], tokens);
				splits[model] = addSplits(splits[model], splitPrompt(SPLIT_KIND[model], tokens, cached));
			}
		});
		sides[side] = sideOf(splits);
	}
	return cacheTotalsOf(sides);
}

/** Sessions are cached independently: the totals are sums, never a cache shared across sessions. */
export function addCacheTotals(all: readonly CacheTotals[]): CacheTotals {
	const sides = {} as Record<Side, SideCache>;
	for (const side of SIDES) {
		const splits = emptySplits();
		for (const model of CACHE_MODELS) for (const c of all) splits[model] = addSplits(splits[model], c[side][model]);
		sides[side] = sideOf(splits);
	}
	return cacheTotalsOf(sides);
}

function usdPair(baseline: number, ledger: number, masked: number): UsdPair {
	return {
		baseline: round(baseline, 6),
		ledger: round(ledger, 6),
		ratio: baseline > 0 ? round(ledger / baseline) : null,
		masked: round(masked, 6),
		maskedRatio: baseline > 0 ? round(masked / baseline) : null,
	};
}

export function priceReport(cache: CacheTotals, model: PriceModel): PriceReport {
	const { prices } = model;
	return {
		model: model.key,
		name: model.name,
		perMillion: { ...prices },
		uncached: usdPair(
			priceUncached(cache.baseline.tokenPrefix.prompt, prices),
			priceUncached(cache.ledger.tokenPrefix.prompt, prices),
			priceUncached(cache.masked.tokenPrefix.prompt, prices),
		),
		tokenPrefix: usdPair(
			priceSplit(cache.baseline.tokenPrefix, prices),
			priceSplit(cache.ledger.tokenPrefix, prices),
			priceSplit(cache.masked.tokenPrefix, prices),
		),
		breakpoint: usdPair(
			priceSplit(cache.baseline.breakpoint, prices),
			priceSplit(cache.ledger.breakpoint, prices),
			priceSplit(cache.masked.breakpoint, prices),
		),
		breakpointNoBridges: usdPair(
			priceSplit(cache.baseline.breakpointNoBridges, prices),
			priceSplit(cache.ledger.breakpointNoBridges, prices),
			priceSplit(cache.masked.breakpointNoBridges, prices),
		),
	};
}

function shareOf(counts: FactCounts): number | null {
	let total = 0;
	let carried = 0;
	for (const tally of Object.values(counts)) {
		total += tally.total;
		carried += tally.carried;
	}
	return total === 0 ? null : round(carried / total);
}

export function factSurvivalOf(points: readonly PointFacts[]): FactSurvival {
	const ledger = emptyCounts();
	const baseline = emptyCounts();
	for (const p of points) {
		addCounts(ledger, p.ledger);
		addCounts(baseline, p.baseline);
	}
	return { ledger, baseline, ledgerShare: shareOf(ledger), baselineShare: shareOf(baseline) };
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

export function sessionTotals(
	points: readonly PointReport[],
): Pick<
	SessionReport,
	| "tokens"
	| "billed"
	| "estimate"
	| "cacheShare"
	| "baselineCacheShare"
	| "maskedCacheShare"
	| "cache"
	| "facts"
	| "timing"
> {
	const baseline = tokenStats(points.map((p) => p.baseline));
	const ledger = tokenStats(points.map((p) => p.ledger));
	const masked = tokenStats(points.map((p) => p.masked));
	return {
		tokens: {
			baseline,
			ledger,
			masked,
			ratio: ratio(ledger.total, baseline.total),
			maskedRatio: ratio(masked.total, baseline.total),
		},
		billed: billedTotalsOf(points),
		estimate: estimatesOf(points),
		cacheShare: cacheShareOf(points),
		baselineCacheShare: cacheShareOf(points, "baseline"),
		maskedCacheShare: cacheShareOf(points, "masked"),
		cache: cacheOf(points),
		facts: factSurvivalOf(points.map((p) => p.facts)),
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
	price?: PriceModel,
): ReplayReport {
	const points = sessions.flatMap((s) => s.points);
	const totals = sessionTotals(points);
	const cache = addCacheTotals(sessions.map((s) => s.cache));
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
		billed: totals.billed,
		estimate: totals.estimate,
		largerThanBaseline: sessions.flatMap((s) => s.largerThanBaseline),
		userMessages: {
			total: sessions.reduce((n, s) => n + s.userMessages.total, 0),
			missing: missingMessages.length,
			missingMessages,
		},
		cacheShare: totals.cacheShare,
		baselineCacheShare: totals.baselineCacheShare,
		maskedCacheShare: totals.maskedCacheShare,
		cache,
		cacheRule: CACHE_RULE,
		facts: totals.facts,
		...(price === undefined ? {} : { price: priceReport(cache, price) }),
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
