/**
 * The cache arithmetic of the replay report and the stats' full-context comparison: how a request's
 * prompt tokens split into cache reads, cache writes and uncached tokens under the two caching
 * models, what that costs at a model's prices, and the model-free "effective" size (uncached + 0.1 ×
 * cached). Pure; the model's prices and its minimum cacheable prompt come in as numbers (docs/cli.md
 * explains the report; the minimums: docs/configuration.md, "Minimum cacheable lengths").
 */

import { assertNever, sumFields, zeroFields } from "../../../events/index.ts";
import type { ModelPricing } from "../../../policy/index.ts";

/** A cache read costs this fraction of an uncached token in the effective measure (the common provider discount). */
export const CACHE_READ_WEIGHT = 0.1;

/** USD per million tokens (pi-ai's `Model.cost` without output: the answer is the same on both sides). */
export type PromptPrices = Omit<ModelPricing, "output">;

/**
 * token-prefix: the longest prefix shared with the previous request is read (OpenAI, Google);
 *   nothing is written at a premium.
 * breakpoint: only a prefix that ends where the previous request wrote a breakpoint is read
 *   (Anthropic); everything after it is written to the cache at the cache-write price.
 */
export type CacheSplitModel = "token-prefix" | "breakpoint";

/** Prompt tokens of one request or a sum of requests: prompt = read + write + uncached. */
export interface CacheSplit {
	prompt: number;
	read: number;
	write: number;
	uncached: number;
}

/** A split's keys, in the order the replay report writes them. */
const CACHE_SPLIT_FIELDS = ["prompt", "read", "write", "uncached"] as const;

export const EMPTY_SPLIT: Readonly<CacheSplit> = Object.freeze(zeroFields(CACHE_SPLIT_FIELDS));

/**
 * Tokens of this request found in the cache: the previous request's tokens times the share of it
 * this one repeats, never more than this request holds. 0 for a session's first request.
 */
export function cachedPrefix(previousPrompt: number | undefined, share: number | undefined, prompt: number): number {
	if (previousPrompt === undefined || share === undefined) return 0;
	return Math.max(0, Math.min(prompt, Math.round(previousPrompt * share)));
}

/**
 * One request's split. A prompt below the model's minimum (`minTokens`: policy's minCachedTokens)
 * is neither read nor written; a shared prefix below it is not read.
 */
export function splitPrompt(model: CacheSplitModel, prompt: number, cached: number, minTokens: number): CacheSplit {
	if (prompt < minTokens) return { prompt, read: 0, write: 0, uncached: prompt };
	const read = cached >= minTokens ? Math.min(cached, prompt) : 0;
	switch (model) {
		case "token-prefix":
			return { prompt, read, write: 0, uncached: prompt - read };
		case "breakpoint":
			return { prompt, read, write: prompt - read, uncached: 0 };
		default:
			return assertNever(model, "caching model");
	}
}

export function addSplits(a: CacheSplit, b: CacheSplit): CacheSplit {
	return sumFields(CACHE_SPLIT_FIELDS, a, b);
}

/** Uncached (and written) tokens at full weight, reads at CACHE_READ_WEIGHT. */
export function effectiveTokens(split: CacheSplit): number {
	return split.uncached + split.write + CACHE_READ_WEIGHT * split.read;
}

/**
 * A registry entry without a cache price (0) lists no discount: its cached tokens are priced as
 * input rather than as free.
 */
function listedOrInput(prices: PromptPrices): PromptPrices {
	return {
		input: prices.input,
		cacheRead: prices.cacheRead > 0 ? prices.cacheRead : prices.input,
		cacheWrite: prices.cacheWrite > 0 ? prices.cacheWrite : prices.input,
	};
}

/** USD for a split at the given prices (per million tokens). */
export function priceSplit(split: CacheSplit, prices: PromptPrices): number {
	const p = listedOrInput(prices);
	return (split.uncached * p.input + split.read * p.cacheRead + split.write * p.cacheWrite) / 1e6;
}

/** USD for the same prompt tokens with no cache at all. */
export function priceUncached(prompt: number, prices: PromptPrices): number {
	return (prompt * prices.input) / 1e6;
}
