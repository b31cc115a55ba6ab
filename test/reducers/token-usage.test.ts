// The one shape of billed usage (reducers/token-usage.ts): pi-ai's Usage read once, leniently, and the
// prompt and cache-read share every reader takes from it.

import type { Usage } from "@mariozechner/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cacheReadShare, NO_USAGE, parseUsage, promptTokensOf } from "../../src/reducers/token-usage.ts";

function piAiUsage(tokens: { input: number; output: number; cacheRead: number; cacheWrite: number }): Usage {
	const cost = { input: tokens.input * 3e-6, output: tokens.output * 15e-6, cacheRead: 0, cacheWrite: 0 };
	return {
		...tokens,
		totalTokens: tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite,
		cost: { ...cost, total: cost.input + cost.output },
	};
}

describe("parseUsage", () => {
	it("a provider's usage: its four counts, cost.total as the dollars and cost.output as the answer's part", () => {
		const usage: Usage = {
			input: 1200,
			output: 300,
			cacheRead: 8000,
			cacheWrite: 500,
			totalTokens: 10_000,
			cost: { input: 0.0036, output: 0.0045, cacheRead: 0.0024, cacheWrite: 0.001875, total: 0.012375 },
		};
		expect(parseUsage(usage)).toEqual({
			input: 1200,
			output: 300,
			cacheRead: 8000,
			cacheWrite: 500,
			usd: 0.012375,
			outputUsd: 0.0045,
		});
	});

	it("without cost.total the dollars are the sum of the parts; a negative total is no bill", () => {
		expect(parseUsage({ input: 10, cost: { input: 0.25, output: 0.5, cacheRead: 0.125, cacheWrite: 0 } })?.usd).toBe(
			0.875,
		);
		expect(parseUsage({ input: 10, cost: { total: -1, output: 2 } })).toEqual({
			...NO_USAGE,
			input: 10,
			outputUsd: 2,
		});
	});

	it("a malformed field reads as 0, never as a negative, infinite or text count", () => {
		expect(parseUsage({ input: -5, output: "12", cacheRead: Number.NaN, cacheWrite: Infinity })).toEqual(NO_USAGE);
	});

	it("what is not a usage at all is undefined; a bare cost record is a usage of nothing", () => {
		for (const value of [undefined, null, "usage", 12, [], {}, { totalTokens: 5 }, { cost: 3 }])
			expect(parseUsage(value), JSON.stringify(value)).toBeUndefined();
		expect(parseUsage({ cost: {} })).toEqual(NO_USAGE);
	});

	it("round-trips any provider's counts and dollars", () => {
		const count = fc.integer({ min: 0, max: 2_000_000 });
		fc.assert(
			fc.property(fc.record({ input: count, output: count, cacheRead: count, cacheWrite: count }), (tokens) => {
				const usage = piAiUsage(tokens);
				expect(parseUsage(usage)).toEqual({ ...tokens, usd: usage.cost.total, outputUsd: usage.cost.output });
			}),
		);
	});
});

describe("promptTokensOf and cacheReadShare", () => {
	it("the prompt is what the provider read, from the cache or not; the share is the part read from it", () => {
		const usage = { input: 100, cacheRead: 300, cacheWrite: 100 };
		expect(promptTokensOf(usage)).toBe(500);
		expect(cacheReadShare(usage)).toBe(0.6);
		expect(cacheReadShare({ input: 0, cacheRead: 0, cacheWrite: 0 })).toBeNull();
	});

	it("a share is null exactly when there is no prompt, and else within 0…1", () => {
		const count = fc.integer({ min: 0, max: 1_000_000 });
		fc.assert(
			fc.property(fc.record({ input: count, cacheRead: count, cacheWrite: count }), (usage) => {
				const share = cacheReadShare(usage);
				if (promptTokensOf(usage) === 0) expect(share).toBeNull();
				else {
					expect(share).toBeGreaterThanOrEqual(0);
					expect(share).toBeLessThanOrEqual(1);
				}
			}),
		);
	});
});
