/**
 * The replay report's schema: what `replay --json` prints, this object as is — per-point
 * measurements, each session's totals and the whole report's. README documents every field, and the
 * names are stable. What fills it: replay/branch-report.ts per session, report-totals.ts overall.
 */

import type { DiagnosticReason } from "../../../events/index.ts";
import { LOOKBACK_BLOCKS, MAX_BREAKPOINTS, type RequestEstimate } from "../../../policy/index.ts";
import type { TokenCounts, TokenUsage } from "../../../reducers/index.ts";
import type { CacheSplit, PromptPrices } from "../../extension/baseline/cache-split.ts";
import type { FactCounts, FactTally } from "../audit/index.ts";
import type { UnreadableInput } from "../cli/inputs.ts";
import type { JsonLayout } from "./json-stream.ts";
import type { PointShares } from "./point-shares.ts";
import type { ReplayWatch, SessionWatch } from "./watch-report.ts";

/**
 * 2: the breakpoint figures apply Anthropic's 20-block lookback; the figures without bridges are added.
 * 3: whole consultations: `billed` splits first requests from follow-ups and is priced, beside the
 * extension's estimate (`points[].estimate`, `estimate`).
 * 4: the cache figures apply the price model's minimum cacheable prompt (`cacheRule.minTokens`).
 */
export const REPORT_VERSION = 4;

/**
 * How `replay --json` lays the report out: indented by two, as `JSON.stringify(report, null, 2)`,
 * but each `points[]` item (and with `--watch` each `watch.reviewed[]` item) on one line, so a report of tens of thousands of points stays a file
 * one can page through (docs/cli.md, "replay --json"). The layout is not the format: parsed, it is
 * the same object.
 */
export const REPORT_LAYOUT: JsonLayout = { rowsUnder: new Set(["points", "reviewed"]) };

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

export type { PointShares };

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
	billed?: ConsultationBilled;
	/** The extension's estimate of the consultation here, at the report's price model. */
	estimate?: PointEstimate;
	/** Fold (new events only) + render, ms. */
	incrementalMs: number;
	/** Fold from scratch + render with a fresh memo, ms (a sample of points, never a branch's first). */
	scratchMs?: number;
	/** The fact audit at this point: of the facts the branch holds, how many each request carries, by category. */
	facts: PointFacts;
	/** Oldest log entries the ledger request leaves out behind its stand-in (absent: none). */
	leftOut?: number;
}

export interface PointFacts {
	ledger: FactCounts;
	/** Pi's own context at the same point (what rpiv-advisor sends). */
	baseline: FactCounts;
	/**
	 * The facts the executor lost at its newest horizon (docs/request-format.md, "The executor's
	 * horizon"): how many each request carries. Absent before the branch's first compaction.
	 */
	lost?: { ledger: FactTally; baseline: FactTally };
}

/**
 * The fact audit summed over points (docs/request-format.md#the-fact-audit): a fact counts once at
 * every point whose branch holds it. Shares are carried / total over all categories.
 */
export interface FactSurvival extends Omit<PointFacts, "lost"> {
	ledgerShare: number | null;
	baselineShare: number | null;
	/**
	 * The facts the executor lost at its horizon, summed over the points that have one: how many each
	 * request carries, and the shares (null without a compaction).
	 */
	lost: { ledger: FactTally; baseline: FactTally; ledgerShare: number | null; baselineShare: number | null };
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

/** The cache rule the replay applies: Anthropic's breakpoint rule (docs/request-format.md §7), and the price model's minimum. */
export interface CacheRule {
	lookbackBlocks: number;
	maxBreakpoints: number;
	/** No cache model reads or writes a prompt shorter than this (docs/configuration.md, "Minimum cacheable lengths"). */
	minTokens: number;
}

export function cacheRule(minTokens: number): CacheRule {
	return { lookbackBlocks: LOOKBACK_BLOCKS, maxBreakpoints: MAX_BREAKPOINTS, minTokens };
}

export interface PriceModel {
	key: string;
	name: string;
	prices: PromptPrices;
	/** The model's minimum cacheable prompt: every side's cache models apply it. */
	minTokens: number;
}

/**
 * What a session's report and the whole report both hold, over their own points: the sums and
 * statistics, the lists, the diagnostics. A session's consultations are cached among themselves;
 * the whole report's cache figures add the sessions' up, never a cache shared across sessions.
 */
export interface ReportTotals {
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
	/**
	 * How often the ledger's left-out span moved between consecutive points (docs/request-format.md,
	 * "The log's size"): each time, the cached prefix after the head was rewritten.
	 */
	logCuts: number;
	timing: Timing;
	diagnostics: Diagnostics;
}

export interface SessionReport extends ReportTotals {
	file: string;
	sessionId: string | null;
	leafId: string | null;
	/** Entries on the replayed path. */
	pathEntries: number;
	pointKind: "advisor" | "simulated" | "none";
	points: PointReport[];
	/** `replay --watch` only: the watch over this branch (watch-report.ts). */
	watch?: SessionWatch;
}

export interface ReplayReport extends ReportTotals {
	version: number;
	sessions: SessionReport[];
	/** Consultation points over all sessions. */
	points: number;
	/** The breakpoint model's rule (Anthropic's lookback and mark limit) and the minimum every cache model applies. */
	cacheRule: CacheRule;
	/** Absent when the report was built without a price model. */
	price?: PriceReport;
	diagnostics: Diagnostics & {
		/** Session files read (each counted once, whatever --all-leaves). */
		files: number;
		/** Files with no consultation point (empty, header only, nothing readable). */
		filesWithoutPoints: string[];
		unreadable: UnreadableInput[];
	};
	options: { every: number; allLeaves: boolean; inputs: string[] };
	/** `replay --watch` only: every session's watch summed (watch-report.ts). */
	watch?: ReplayWatch;
}

/** Tokens of one or more requests as the provider billed them, with their prompt summed. */
export interface UsageSplit extends TokenCounts {
	/** input + cacheRead + cacheWrite. */
	prompt: number;
}

/** A usage split and its dollars: what one or more requests were billed. */
export interface BilledSplit extends UsageSplit, TokenUsage {}

/** What an advisor result recorded it was billed: every request of the consultation. */
export interface ConsultationBilled extends BilledSplit {
	/** The advisor model the result records (`provider:modelId`). */
	model?: string;
	/** These tokens at the report's price model (pi-ai's calculateCost). */
	usd: number;
	/** Requests sent; with `first`, `followUps` and `firstUsd`, only when the result recorded each (`details.attempts`). */
	requests?: number;
	first?: UsageSplit;
	/** The requests after the first, summed: investigation rounds, the request after the allowance, retries. */
	followUps?: UsageSplit;
	firstUsd?: number;
	/** The first request's tokens (chars/4) as the extension sent it then (`details.request.estimatedTokens`). */
	sentTokens?: number;
}

/**
 * The first request as the extension's estimate gives it: the policy's own names (`RequestEstimate`),
 * and its dollars with the expected answer.
 */
export interface EstimatedFirst extends Pick<RequestEstimate, "promptTokens" | "cacheReadTokens" | "cacheWriteTokens"> {
	usd: number;
}

/** What replay models the consultation at a point to cost: the extension's estimate, at the report's price model. */
export interface PointEstimate {
	/** The advisor model whose recorded consultations (and newest request) the estimate reads. */
	model: string;
	/** "history": the branch's recorded consultations of that model before the point; "prior": none. */
	basis: "history" | "prior";
	/** The first request: its prompt as estimated, and its dollars with the expected answer. */
	first: EstimatedFirst;
	/** Follow-up requests expected (a mean). */
	followUps: number;
	/** The first request and the follow-ups expected. */
	usd: number;
	/** The most the loop allows (every round, every answer at the output cap, one retry). */
	atMostUsd: number;
}

/** Estimates summed over points of one kind. */
export interface EstimateTotals {
	points: number;
	/** Points estimated from recorded consultations (the rest from the prior). */
	history: number;
	followUps: number;
	firstUsd: number;
	usd: number;
	atMostUsd: number;
}

export interface EstimatesByKind {
	advisor: EstimateTotals;
	simulated: EstimateTotals;
}

/** The points whose result recorded every request: first requests apart from follow-ups. */
export interface BilledByRequest {
	points: number;
	requests: number;
	/** The ledger request's tokens the replay renders at these points (chars/4). */
	ledger: number;
	/** The first requests' tokens (chars/4) as sent then; null unless every one of these points recorded it. */
	sentTokens: number | null;
	first: BilledSplit;
	followUps: BilledSplit;
	/** The estimate at the same points: the first request's prompt tokens and dollars, the whole consultation's dollars. */
	estimate: { firstPrompt: number; firstUsd: number; usd: number };
	/** Billed / estimated (null when the estimate is 0): first prompt tokens, first request's dollars, whole consultation's dollars. */
	ratio: { firstPrompt: number | null; first: number | null; consultation: number | null };
}

export interface BilledTotals extends BilledSplit {
	/** Points whose result records billed usage. */
	points: number;
	/** The ledger request's tokens (chars/4, no headroom) summed over the same points. */
	ledgerEstimate: number;
	/** The extension's estimate of the whole consultation over the same points, and billed / estimated. */
	estimateUsd: number;
	ratio: number | null;
	byRequest: BilledByRequest;
}

export interface FileDiagnostics {
	file: string;
	/** The reader's, counted once per file. */
	reader: Diagnostics;
	/** The branch walks' (one per replayed leaf). */
	branches: Diagnostics;
	hasPoints: boolean;
}
