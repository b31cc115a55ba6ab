/**
 * The replay report's cache figures: how much of the previous consultation's request each one
 * repeats (share statistics), both sides' prompt tokens split by what a prompt cache would do in
 * each caching model, and those splits priced (docs/cli.md explains the report; the arithmetic of
 * one request: baseline/cache-split.ts).
 */

import {
	addSplits,
	type CacheSplit,
	cachedPrefix,
	EMPTY_SPLIT,
	effectiveTokens,
	priceSplit,
	priceUncached,
	splitPrompt,
} from "../../extension/baseline/cache-split.ts";
import { round, roundOrNull } from "./numbers.ts";
import type {
	CacheShare,
	CacheTotals,
	PointReport,
	PointShares,
	PriceModel,
	PriceReport,
	ShareStats,
	SideCache,
	UsdPair,
} from "./replay-report.ts";

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

/**
 * The shares of the previous request each point repeats (its reuse, `PointShares`), over a session's
 * points: median and mean per caching model. Not what a provider read from its cache: that is a
 * bill's `cacheReadShare`.
 */
export function reuseShareStats(
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

/**
 * One session's points in order: each reads from the cache what it repeats of the one before, where
 * both reach `minTokens`, the price model's minimum cacheable prompt.
 */
export function cacheOf(points: readonly PointReport[], minTokens: number): CacheTotals {
	const sides = {} as Record<Side, SideCache>;
	for (const side of SIDES) {
		const splits = emptySplits();
		points.forEach((p, i) => {
			const previous = points[i - 1] === undefined ? undefined : sideOfPoint(points[i - 1]!, side).tokens;
			const { tokens, share } = sideOfPoint(p, side);
			for (const model of CACHE_MODELS) {
				const cached = cachedPrefix(previous, share?.[model], tokens);
				splits[model] = addSplits(splits[model], splitPrompt(SPLIT_KIND[model], tokens, cached, minTokens));
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
