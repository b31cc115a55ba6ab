// Prompt-cache pricing of the replay report: the arithmetic (baseline/cache-split.ts), the per-session cache
// tally and its prices (report/cache-totals.ts), the baseline's prefix shares (baseline/baseline-reuse.ts) and the
// model lookup in pi-ai's registry. Worked examples are computed by hand in the comments.

import type { Message } from "@mariozechner/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { baselineRequest, baselineShares } from "../../../../src/adapter/extension/baseline/baseline-reuse.ts";
import {
	addSplits,
	cachedPrefix,
	EMPTY_SPLIT,
	effectiveTokens,
	priceSplit,
	priceUncached,
	splitPrompt,
} from "../../../../src/adapter/extension/baseline/cache-split.ts";
import { viewMessages } from "../../../../src/adapter/extension/baseline/view.ts";
import { emptyCounts } from "../../../../src/adapter/lab/audit/index.ts";
import { addCacheTotals, cacheOf, priceReport } from "../../../../src/adapter/lab/report/cache-totals.ts";
import { DEFAULT_PRICE_MODEL, resolvePriceModel } from "../../../../src/adapter/lab/report/price-lookup.ts";
import type { PointReport } from "../../../../src/adapter/lab/report/replay-report.ts";
import { formatUsdFixed, usdDigits } from "../../../../src/adapter/lab/report/text-report.ts";

/** Claude Sonnet 4.5 in pi-ai 0.73.1: $3 input, $0.30 cache read, $3.75 cache write per million tokens. */
const SONNET = { input: 3, cacheRead: 0.3, cacheWrite: 3.75 };
/** Sonnet 4.5's minimum cacheable prompt, and Opus 4.5's (docs/configuration.md, "Minimum cacheable lengths"). */
const SONNET_MIN = 1024;
const OPUS_45_MIN = 4096;

describe("one request", () => {
	it("10,000 prompt tokens, 8,000 of them a cached prefix, at Sonnet 4.5 prices", () => {
		const prefix = splitPrompt("token-prefix", 10_000, 8_000, SONNET_MIN);
		const breakpoint = splitPrompt("breakpoint", 10_000, 8_000, SONNET_MIN);
		expect(prefix).toEqual({ prompt: 10_000, read: 8_000, write: 0, uncached: 2_000 });
		expect(breakpoint).toEqual({ prompt: 10_000, read: 8_000, write: 2_000, uncached: 0 });
		// 2,000 × $3 + 8,000 × $0.30 = $6,000 + $2,400 per million = $0.0084
		expect(priceSplit(prefix, SONNET)).toBeCloseTo(0.0084, 12);
		// 8,000 × $0.30 + 2,000 × $3.75 = $2,400 + $7,500 per million = $0.0099
		expect(priceSplit(breakpoint, SONNET)).toBeCloseTo(0.0099, 12);
		// 10,000 × $3 per million = $0.03
		expect(priceUncached(10_000, SONNET)).toBeCloseTo(0.03, 12);
		// 2,000 + 0.1 × 8,000 = 2,800
		expect(effectiveTokens(prefix)).toBe(2_800);
	});

	it("below the model's minimum nothing is read or written", () => {
		expect(splitPrompt("breakpoint", 900, 900, SONNET_MIN)).toEqual({
			prompt: 900,
			read: 0,
			write: 0,
			uncached: 900,
		});
		expect(splitPrompt("token-prefix", 5_000, 1_000, SONNET_MIN)).toEqual({
			prompt: 5_000,
			read: 0,
			write: 0,
			uncached: 5_000,
		});
		expect(splitPrompt("breakpoint", 5_000, 1_000, SONNET_MIN)).toEqual({
			prompt: 5_000,
			read: 0,
			write: 5_000,
			uncached: 0,
		});
	});

	it("a 3,000-token prefix caches at a 1,024 minimum and not at 4,096", () => {
		expect(splitPrompt("breakpoint", 3_500, 3_000, SONNET_MIN)).toEqual({
			prompt: 3_500,
			read: 3_000,
			write: 500,
			uncached: 0,
		});
		expect(splitPrompt("breakpoint", 3_500, 3_000, OPUS_45_MIN)).toEqual({
			prompt: 3_500,
			read: 0,
			write: 0,
			uncached: 3_500,
		});
		expect(splitPrompt("token-prefix", 3_500, 3_000, OPUS_45_MIN)).toEqual({
			prompt: 3_500,
			read: 0,
			write: 0,
			uncached: 3_500,
		});
		// A longer prompt is written, but a 3,000-token prefix still is not read.
		expect(splitPrompt("breakpoint", 5_000, 3_000, OPUS_45_MIN)).toEqual({
			prompt: 5_000,
			read: 0,
			write: 5_000,
			uncached: 0,
		});
	});

	it("the cached prefix is the previous request times the share it repeats, never more than this one", () => {
		expect(cachedPrefix(undefined, undefined, 5_000)).toBe(0);
		expect(cachedPrefix(20_000, 1, 30_000)).toBe(20_000);
		expect(cachedPrefix(30_000, 0.1, 12_000)).toBe(3_000);
		expect(cachedPrefix(30_000, 1, 12_000)).toBe(12_000);
	});

	it("a model without a listed cache price pays input for cached tokens (no discount assumed)", () => {
		const split = { prompt: 3_000, read: 2_000, write: 1_000, uncached: 0 };
		expect(priceSplit(split, { input: 2, cacheRead: 0, cacheWrite: 0 })).toBeCloseTo(0.006, 12);
	});

	it("properties: the split adds up, caching never costs more than the effective measure says", () => {
		fc.assert(
			fc.property(
				fc.constantFrom("token-prefix" as const, "breakpoint" as const),
				fc.integer({ min: 0, max: 500_000 }),
				fc.integer({ min: 0, max: 500_000 }),
				fc.constantFrom(1024, 2048, 4096),
				(model, prompt, cached, minTokens) => {
					const s = splitPrompt(model, prompt, cached, minTokens);
					// Nothing under the minimum is read, nor written.
					if (cached < minTokens) expect(s.read).toBe(0);
					if (prompt < minTokens) expect(s.uncached).toBe(prompt);
					expect(s.read + s.write + s.uncached).toBe(prompt);
					expect(s.read).toBeLessThanOrEqual(Math.min(prompt, cached));
					expect(effectiveTokens(s)).toBeLessThanOrEqual(prompt);
					// Token prefix at Sonnet prices: exactly the effective measure at $3 per token-million.
					if (model === "token-prefix")
						expect(priceSplit(s, SONNET)).toBeCloseTo((effectiveTokens(s) * SONNET.input) / 1e6, 9);
					expect(addSplits(EMPTY_SPLIT, s)).toEqual(s);
				},
			),
		);
	});
});

type Shares = [tokenPrefix: number, breakpoint: number, breakpointNoBridges: number];
const shares = ([tokenPrefix, breakpoint, breakpointNoBridges]: Shares) => ({
	tokenPrefix,
	breakpoint,
	breakpointNoBridges,
});

function point(
	ledger: number,
	baseline: number,
	masked: number,
	ledgerShare?: Shares,
	baselineShare?: Shares,
	maskedShare?: Shares,
) {
	const p: PointReport = {
		atEntryId: "x",
		kind: "simulated",
		baseline,
		masked,
		ledger,
		ledgerStable: 0,
		incrementalMs: 0,
		facts: { ledger: emptyCounts(), baseline: emptyCounts() },
	};
	if (ledgerShare) p.cacheShare = shares(ledgerShare);
	if (baselineShare) p.baselineCacheShare = shares(baselineShare);
	if (maskedShare) p.maskedCacheShare = shares(maskedShare);
	return p;
}

describe("a session of three consultations, priced by hand", () => {
	// ledger   5,000 → 6,000 → 8,000 tokens; repeats 0.9 then 0.5 of the previous (token prefix), 0.8 then 0.5
	//          (breakpoints), 0.3 then 0.5 (breakpoints without bridges)
	// baseline 20,000 → 30,000 → 12,000 (a compaction before the third); repeats 1.0 then 0.1 (prefix), 1.0 then 0
	//          (breakpoints, with or without bridges: the baselines have none)
	// masked   10,000 → 14,000 → 9,000; repeats 0.9 then 0.2 (prefix), 0.9 then 0 (breakpoints)
	const points = [
		point(5_000, 20_000, 10_000),
		point(6_000, 30_000, 14_000, [0.9, 0.8, 0.3], [1, 1, 1], [0.9, 0.9, 0.9]),
		point(8_000, 12_000, 9_000, [0.5, 0.5, 0.5], [0.1, 0, 0], [0.2, 0, 0]),
	];
	const cache = cacheOf(points, SONNET_MIN);

	it("splits each side's prompts in both caching models", () => {
		// ledger, prefix: reads 0 + 4,500 + 3,000; uncached 5,000 + 1,500 + 5,000
		expect(cache.ledger.tokenPrefix).toEqual({ prompt: 19_000, read: 7_500, write: 0, uncached: 11_500 });
		// ledger, breakpoints: reads 0 + 4,000 + 3,000; writes 5,000 + 2,000 + 5,000
		expect(cache.ledger.breakpoint).toEqual({ prompt: 19_000, read: 7_000, write: 12_000, uncached: 0 });
		// baseline, prefix: reads 0 + 20,000 + 3,000; uncached 20,000 + 10,000 + 9,000
		expect(cache.baseline.tokenPrefix).toEqual({ prompt: 62_000, read: 23_000, write: 0, uncached: 39_000 });
		// baseline, breakpoints: reads 0 + 20,000 + 0; writes 20,000 + 10,000 + 12,000
		expect(cache.baseline.breakpoint).toEqual({ prompt: 62_000, read: 20_000, write: 42_000, uncached: 0 });
		// effective: 11,500 + 750 = 12,250 and 39,000 + 2,300 = 41,300; 12,250 / 41,300 = 0.29661…
		expect(cache.ledger.effective).toBe(12_250);
		expect(cache.baseline.effective).toBe(41_300);
		expect(cache.effectiveRatio).toBe(0.2966);
		// masked, prefix: reads 0 + 9,000 + 2,800; uncached 10,000 + 5,000 + 6,200
		expect(cache.masked.tokenPrefix).toEqual({ prompt: 33_000, read: 11_800, write: 0, uncached: 21_200 });
		// masked, breakpoints: reads 0 + 9,000 + 0; writes 10,000 + 5,000 + 9,000
		expect(cache.masked.breakpoint).toEqual({ prompt: 33_000, read: 9_000, write: 24_000, uncached: 0 });
		// effective: 21,200 + 1,180 = 22,380; 22,380 / 41,300 = 0.54189…
		expect(cache.masked.effective).toBe(22_380);
		expect(cache.maskedEffectiveRatio).toBe(0.5419);
		// ledger without bridges: reads 0 + 1,500 + 3,000; writes 5,000 + 4,500 + 5,000
		expect(cache.ledger.breakpointNoBridges).toEqual({ prompt: 19_000, read: 4_500, write: 14_500, uncached: 0 });
		expect(cache.baseline.breakpointNoBridges).toEqual(cache.baseline.breakpoint);
		expect(cache.masked.breakpointNoBridges).toEqual(cache.masked.breakpoint);
		// breakpoints: 12,000 + 700 = 12,700 against 42,000 + 2,000 = 44,000 → 0.28863…; without bridges
		// 14,500 + 450 = 14,950 → 0.33977…
		expect(cache.ledger.effectiveBreakpoint).toBe(12_700);
		expect(cache.baseline.effectiveBreakpoint).toBe(44_000);
		expect(cache.ledger.effectiveNoBridges).toBe(14_950);
		expect(cache.effectiveRatioBreakpoint).toBe(0.2886);
		expect(cache.effectiveRatioNoBridges).toBe(0.3398);
	});

	it("prices them at Sonnet 4.5", () => {
		const price = priceReport(cache, {
			key: "anthropic/claude-sonnet-4-5",
			name: "Claude Sonnet 4.5",
			prices: SONNET,
			minTokens: SONNET_MIN,
		});
		// no cache: 62,000 × $3 = $0.186; 19,000 × $3 = $0.057; 0.057 / 0.186 = 0.30645…
		// masked: 33,000 × $3 = $0.099; 0.099 / 0.186 = 0.53225…
		expect(price.uncached).toEqual({
			baseline: 0.186,
			ledger: 0.057,
			ratio: 0.3065,
			masked: 0.099,
			maskedRatio: 0.5323,
		});
		// prefix: 39,000 × 3 + 23,000 × 0.3 = 123,900 → $0.1239; 11,500 × 3 + 7,500 × 0.3 = 36,750 → $0.03675
		// masked: 21,200 × 3 + 11,800 × 0.3 = 67,140 → $0.06714
		expect(price.tokenPrefix).toEqual({
			baseline: 0.1239,
			ledger: 0.03675,
			ratio: 0.2966,
			masked: 0.06714,
			maskedRatio: 0.5419,
		});
		// breakpoints: 20,000 × 0.3 + 42,000 × 3.75 = 163,500 → $0.1635; 7,000 × 0.3 + 12,000 × 3.75 = 47,100 → $0.0471
		// masked: 9,000 × 0.3 + 24,000 × 3.75 = 92,700 → $0.0927
		expect(price.breakpoint).toEqual({
			baseline: 0.1635,
			ledger: 0.0471,
			ratio: 0.2881,
			masked: 0.0927,
			maskedRatio: 0.567,
		});
		// without bridges: 4,500 × 0.3 + 14,500 × 3.75 = 55,725 → $0.055725; / $0.1635 = 0.34082…
		expect(price.breakpointNoBridges).toEqual({
			baseline: 0.1635,
			ledger: 0.055725,
			ratio: 0.3408,
			masked: 0.0927,
			maskedRatio: 0.567,
		});
		expect(price.model).toBe("anthropic/claude-sonnet-4-5");
	});

	it("at a 4,096 minimum a prefix under it is not read, nor a prompt under it written", () => {
		const opus = cacheOf(points, OPUS_45_MIN);
		// ledger, prefix: reads 0 + 4,500 + 0 (3,000 < 4,096); uncached 5,000 + 1,500 + 8,000
		expect(opus.ledger.tokenPrefix).toEqual({ prompt: 19_000, read: 4_500, write: 0, uncached: 14_500 });
		// ledger, breakpoints: reads 0 + 0 (4,000 < 4,096) + 0; writes 5,000 + 6,000 + 8,000
		expect(opus.ledger.breakpoint).toEqual({ prompt: 19_000, read: 0, write: 19_000, uncached: 0 });
		// baseline, prefix: reads 0 + 20,000 + 0 (3,000 < 4,096); uncached 20,000 + 10,000 + 12,000
		expect(opus.baseline.tokenPrefix).toEqual({ prompt: 62_000, read: 20_000, write: 0, uncached: 42_000 });
		expect(opus.baseline.breakpoint).toEqual(cache.baseline.breakpoint);
	});

	it("sessions are cached independently: totals are sums", () => {
		const two = addCacheTotals([cache, cacheOf(points.slice(0, 1), SONNET_MIN)]);
		expect(two.ledger.tokenPrefix).toEqual({ prompt: 24_000, read: 7_500, write: 0, uncached: 16_500 });
		expect(two.baseline.breakpoint).toEqual({ prompt: 82_000, read: 20_000, write: 62_000, uncached: 0 });
	});
});

describe("dollar formatting", () => {
	it("one number of decimals per table, enough for the smallest amount's three digits", () => {
		expect(usdDigits([9.78, 1.934, 0.404])).toBe(3);
		expect(usdDigits([0.9785, 0.0822])).toBe(4);
		expect(usdDigits([120, 15])).toBe(2);
		expect(usdDigits([0, 0])).toBe(2);
		expect(formatUsdFixed(0.0822, 4)).toBe("$0.0822");
		expect(formatUsdFixed(9.78, 3)).toBe("$9.780");
	});
});

const text = (t: string) => ({ type: "text" as const, text: t });
const inventory: Message = { role: "user", content: [text("tools")], timestamp: 0 };
const user: Message = { role: "user", content: "hello", timestamp: 0 };
const assistant: Message = {
	role: "assistant",
	content: [text("ok"), { type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } }],
	api: "x",
	provider: "x",
	model: "x",
	usage: {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	},
	stopReason: "toolUse",
	timestamp: 0,
};
const result = (t: string, isError = false): Message => ({
	role: "toolResult",
	toolCallId: "c1",
	toolName: "read",
	content: [text(t)],
	isError,
	timestamp: 0,
});

/** The baseline's shares: no bridges, so the figure without them is the breakpoint figure. */
const bs = (tokenPrefix: number, breakpoint: number) => ({ tokenPrefix, breakpoint, breakpointNoBridges: breakpoint });

describe("the baseline's prefix shares", () => {
	// chars: "tools" 5, "hello" 5, "ok" 2, read + {"path":"a"} 4 + 12 = 16, "abc" 3 — 31 in all
	const before = baselineRequest([inventory, user, assistant, result("abc")]);

	it("counts tokens per message like the replay's estimate", () => {
		// ceil(5/4) + ceil(5/4) + ceil(18/4) + ceil(3/4) = 2 + 2 + 5 + 1
		expect(before.tokens).toBe(10);
		expect(before.chars).toBe(31);
	});

	it("a context that only grew: the whole previous request, in both models", () => {
		const after = baselineRequest([inventory, user, assistant, result("abc"), { ...user, content: "more" }]);
		expect(baselineShares(before, after)).toEqual(bs(1, 1));
	});

	it("a changed part: the prefix up to it; breakpoints fall back to the head", () => {
		const after = baselineRequest([inventory, user, assistant, result("abc", true)]);
		expect(baselineShares(before, after)).toEqual(bs(28 / 31, 5 / 31));
	});

	it("after a compaction only the tool inventory is repeated", () => {
		const after = baselineRequest([inventory, { ...user, content: "summary of the work" }]);
		expect(baselineShares(before, after)).toEqual(bs(5 / 31, 5 / 31));
		const other = baselineRequest([{ ...inventory, content: [text("other tools")] }, user]);
		expect(baselineShares(before, other)).toEqual(bs(0, 0));
	});

	it("equal copies of the messages share as much as the same objects", () => {
		const copy = (m: Message): Message => structuredClone(m);
		const grown = [inventory, user, assistant, result("abc"), { ...user, content: "more" }];
		const changed = [inventory, user, assistant, result("abc", true)];
		for (const after of [grown, changed]) {
			expect(baselineShares(before, baselineRequest(after.map(copy)))).toEqual(
				baselineShares(before, baselineRequest(after)),
			);
		}
	});

	it("a message that gained a part: the previous one is still read whole", () => {
		const after = baselineRequest([
			inventory,
			user,
			assistant,
			{ ...result("abc"), content: [text("abc"), text("d")] },
		]);
		expect(baselineShares(before, after)).toEqual(bs(1, 1));
	});

	it("breakpoints: the previous end is read only within 20 blocks of the next one's last block", () => {
		// One round = the assistant's text and call (2 blocks) and its result (1 block): 3 blocks.
		const rounds = (n: number): Message[] => Array.from({ length: n }, () => [assistant, result("abc")]).flat();
		const near = baselineRequest([
			inventory,
			user,
			assistant,
			result("abc"),
			...rounds(6),
			{ ...user, content: "q" },
		]);
		const far = baselineRequest([inventory, user, assistant, result("abc"), ...rounds(7)]);
		// 6 × 3 + 1 = 19 blocks after the previous end; 7 × 3 = 21.
		expect(baselineShares(before, near)).toEqual(bs(1, 1));
		expect(baselineShares(before, far)).toEqual(bs(1, 5 / 31));
		expect(baselineShares(before, far, 21)).toEqual(bs(1, 1));
		// Text that is only whitespace is no block on the wire; a tool result is one whatever its parts.
		const blank = { ...user, content: [text("  "), text("\n")] };
		const spread = { ...result("abc"), content: [text("a"), text("b"), text("c")] };
		expect(baselineShares(before, baselineRequest([...viewMessages(far.view).slice(0, -1), blank, blank]))).toEqual(
			bs(1, 1),
		);
		expect(baselineShares(before, baselineRequest([...viewMessages(near.view).slice(0, -1), spread]))).toEqual(
			bs(1, 1),
		);
	});
});

describe("the price model", () => {
	it("defaults to Claude Sonnet 4.5 as pi-ai 0.73.1 lists it", () => {
		expect(DEFAULT_PRICE_MODEL).toBe("anthropic/claude-sonnet-4-5");
		expect(resolvePriceModel(DEFAULT_PRICE_MODEL)).toEqual({
			key: "anthropic/claude-sonnet-4-5",
			name: "Claude Sonnet 4.5 (latest)",
			prices: SONNET,
			minTokens: SONNET_MIN,
		});
	});

	it("carries the model's minimum cacheable prompt", () => {
		expect(resolvePriceModel("anthropic/claude-opus-4-5")?.minTokens).toBe(OPUS_45_MIN);
		expect(resolvePriceModel("anthropic/claude-3-5-haiku-latest")?.minTokens).toBe(2048);
		expect(resolvePriceModel("openai/gpt-4o-mini")?.minTokens).toBe(1024);
	});

	it("finds other providers' models, ids with slashes included, and nothing it does not know", () => {
		expect(resolvePriceModel("openai/gpt-4o-mini")?.prices).toEqual({ input: 0.15, cacheRead: 0.08, cacheWrite: 0 });
		const routed = resolvePriceModel("openrouter/anthropic/claude-sonnet-4.5");
		expect(routed?.key).toBe("openrouter/anthropic/claude-sonnet-4.5");
		for (const bad of ["anthropic", "anthropic/", "/claude-sonnet-4-5", "nope/claude-sonnet-4-5", "anthropic/nope"]) {
			expect(resolvePriceModel(bad), bad).toBeUndefined();
		}
	});
});
