/** The consultation as the unit of cost: its history, its expected and at-most cost, the guard before each request. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	CALL_OVERHEAD_TOKENS,
	type ConsultationEstimateInput,
	consultationHistory,
	estimateConsultation,
	followUpUsd,
	guardRequest,
	PRIOR,
} from "../../../src/policy/budget/consultation-estimate.ts";
import type { CachingModel, RequestEstimate } from "../../../src/policy/budget/request-estimate.ts";
import { spendOf } from "../../../src/reducers/spend.ts";
import { advisorResult, SONNET, USAGE, usageRecord } from "./helpers.ts";

const NONE: CachingModel = { kind: "none" };
const BREAKPOINTS: CachingModel = { kind: "breakpoints", minTokens: 1024, lookbackBlocks: 20, stableBreakpoint: true };
const PRICES = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

function first(promptTokens: number, outputTokens = 0, caching: CachingModel = NONE): RequestEstimate {
	const writes = caching.kind === "breakpoints" ? promptTokens : 0;
	const promptCostUsd = ((promptTokens - writes) * 3 + writes * 3.75) / 1e6;
	return {
		promptTokens,
		cacheReadTokens: 0,
		cacheWriteTokens: writes,
		outputTokens,
		outputKnown: outputTokens > 0,
		costUsd: promptCostUsd + (outputTokens * 15) / 1e6,
		promptCostUsd,
		coldCostUsd: promptCostUsd + (outputTokens * 15) / 1e6,
		promptBasis: "chars-headroom",
		cacheMatch: "none",
		cold: true,
	};
}

const input = (over: Partial<ConsultationEstimateInput> = {}): ConsultationEstimateInput => ({
	first: first(10_000),
	pricing: PRICES,
	caching: NONE,
	history: [],
	maxCalls: 3,
	outputCap: 1_000,
	callTokens: 3_000,
	...over,
});

/** An advisor result of the model with one attempt per [input, output, cacheRead] triple. */
function consulted(id: string, attempts: [number, number, number][], details: Record<string, unknown> = {}) {
	const usages = attempts.map(([i, o, r]) => USAGE(i, o, r, 0, 0.001));
	return advisorResult(id, `c-${id}`, "Severity: none\nok", {
		advisorModel: "anthropic:claude-sonnet-4-5",
		effort: "high",
		usage: USAGE(0, 0, 0, 0, 0),
		attempts: usages.map((usage) => ({ usage, stopReason: "stop" })),
		...details,
	});
}

describe("the history: this session's consultations of the same model and effort", () => {
	it("each request's billed prompt and output, oldest first, the newest five; failed, skipped, other models, efforts and warming left out", () => {
		const events = [
			consulted("a", [[100, 10, 0]]),
			consulted("b", [
				[200, 20, 0],
				[50, 5, 250],
			]),
			consulted("x", [[999, 9, 0]], { advisorModel: "openai:gpt-5" }),
			consulted("y", [[999, 9, 0]], { effort: "low" }),
			consulted("z", [[999, 9, 0]], { errorMessage: "boom", stopReason: "error" }),
			consulted("s", [], { skipped: true, errorMessage: "over" }),
			usageRecord("w", {
				kind: "warming",
				model: "anthropic:claude-sonnet-4-5",
				effort: "high",
				usage: USAGE(0, 1, 300, 0),
				timestampMs: 0,
			}),
			usageRecord("r", {
				kind: "review",
				model: "anthropic:claude-sonnet-4-5",
				effort: "high",
				usage: USAGE(300, 30, 0, 0),
				attempts: [{ usage: USAGE(300, 30, 0, 0), stopReason: "stop" }],
				timestampMs: 0,
			}),
			consulted("c", [[1, 1, 0]]),
			consulted("d", [[2, 2, 0]]),
			consulted("e", [[3, 3, 0]]),
		];
		expect(consultationHistory(spendOf(events), "anthropic:claude-sonnet-4-5", "high")).toEqual([
			{ prompts: [200, 300], outputs: [20, 5] },
			{ prompts: [300], outputs: [30] },
			{ prompts: [1], outputs: [1] },
			{ prompts: [2], outputs: [2] },
			{ prompts: [3], outputs: [3] },
		]);
	});
});

describe("the estimate", () => {
	it("without history, the prior: two rounds of 2,000 tokens and 150 output each, never more than tools.maxRounds", () => {
		const e = estimateConsultation(input());
		expect(e.basis).toBe("prior");
		expect(e.expectedRounds).toBe(PRIOR.rounds);
		const round1 = ((10_000 + 2_000) * 3 + 150 * 15) / 1e6;
		const round2 = ((12_000 + 2_000) * 3 + 150 * 15) / 1e6;
		expect(e.firstUsd).toBeCloseTo((10_000 * 3) / 1e6, 12);
		expect(e.expectedUsd).toBeCloseTo(e.firstUsd + round1 + round2, 12);
		expect(estimateConsultation(input({ maxCalls: 1 })).expectedRounds).toBe(1);
		expect(estimateConsultation(input({ maxCalls: 0 })).expectedUsd).toBe(e.firstUsd);
	});

	it("with history, its rounds, growth and outputs; a mean count weighs the last round by its fraction", () => {
		const history = [
			{ prompts: [9_000, 10_000, 12_000], outputs: [40, 60, 400] },
			{ prompts: [8_000, 9_000], outputs: [20, 300] },
		];
		const e = estimateConsultation(input({ history }));
		expect(e.basis).toBe("history");
		expect(e.expectedRounds).toBe(1.5);
		// Growth (1,000 + 2,000 + 1,000) / 3, output (60 + 400 + 300) / 3, the first request's output (40 + 20) / 2.
		const growth = 4_000 / 3;
		const output = 760 / 3;
		const firstUsd = (10_000 * 3 + 30 * 15) / 1e6;
		const r1 = ((10_000 + growth) * 3 + output * 15) / 1e6;
		const r2 = ((10_000 + 2 * growth) * 3 + output * 15) / 1e6;
		expect(e.firstUsd).toBeCloseTo(firstUsd, 12);
		expect(e.expectedUsd).toBeCloseTo(firstUsd + r1 + 0.5 * r2, 12);
	});

	it("follow-ups read the previous request from the cache where the provider caches, and write what they add", () => {
		const e = estimateConsultation(input({ caching: BREAKPOINTS, first: first(10_000, 0, BREAKPOINTS) }));
		const r1 = (10_000 * 0.3 + 2_000 * 3.75 + 150 * 15) / 1e6;
		const r2 = (12_000 * 0.3 + 2_000 * 3.75 + 150 * 15) / 1e6;
		expect(e.expectedUsd).toBeCloseTo((10_000 * 3.75) / 1e6 + r1 + r2, 12);
		// Below the cache's minimum nothing is read or written: it is priced as input.
		expect(followUpUsd(PRICES, BREAKPOINTS, 800, 100, 0)).toBeCloseTo((900 * 3) / 1e6, 12);
		// The previous request was too short to cache, the follow-up is not: all of it is written.
		expect(followUpUsd(PRICES, BREAKPOINTS, 1_000, 100, 0)).toBeCloseTo((1_100 * 3.75) / 1e6, 12);
	});

	it("the model's own minimum: a 3,000-token request is read back at a 1,024 minimum and priced as input at 4,096", () => {
		const opusLike: CachingModel = { ...BREAKPOINTS, minTokens: 4096 };
		expect(followUpUsd(PRICES, BREAKPOINTS, 3_000, 500, 0)).toBeCloseTo((3_000 * 0.3 + 500 * 3.75) / 1e6, 12);
		expect(followUpUsd(PRICES, opusLike, 3_000, 500, 0)).toBeCloseTo((3_500 * 3) / 1e6, 12);
		expect(followUpUsd(PRICES, opusLike, 3_000, 1_500, 0)).toBeCloseTo((4_500 * 3.75) / 1e6, 12);
		expect(followUpUsd(PRICES, opusLike, 5_000, 500, 0)).toBeCloseTo((5_000 * 0.3 + 500 * 3.75) / 1e6, 12);
		// Token prefix writes nothing at a premium: under the minimum all input, above it the rest input.
		const prefix: CachingModel = { kind: "token-prefix", minTokens: 4096, granularity: 1 };
		expect(followUpUsd(PRICES, prefix, 3_000, 500, 0)).toBeCloseTo((3_500 * 3) / 1e6, 12);
		expect(followUpUsd(PRICES, prefix, 5_000, 500, 0)).toBeCloseTo((5_000 * 0.3 + 500 * 3) / 1e6, 12);
	});

	it("at most: the first request and every round with a full answer and a result at its cap, and one retry of the largest", () => {
		const e = estimateConsultation(input());
		const step = 1_000 + 3_000;
		const req = (prompt: number) => (prompt * 3 + 1_000 * 15) / 1e6;
		const path = [req(10_000), req(10_000 + step), req(10_000 + 2 * step), req(10_000 + 3 * step)];
		expect(e.atMostUsd).toBeCloseTo(path.reduce((a, b) => a + b, 0) + path.at(-1)!, 12);
		expect(e.maxRounds).toBe(3);
		expect(e.outputCapUsd).toBeCloseTo((1_000 * 15) / 1e6, 12);
		// Without tools: the request and one retry of it.
		expect(estimateConsultation(input({ maxCalls: 0 })).atMostUsd).toBeCloseTo(2 * req(10_000), 12);
	});

	it("property: first ≤ expected ≤ at most, and the at most grows with the cap and the allowance", () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 0, max: 300_000 }),
				fc.integer({ min: 0, max: 6 }),
				fc.integer({ min: 1, max: 32_000 }),
				fc.array(
					fc.array(fc.tuple(fc.integer({ min: 1, max: 100_000 }), fc.nat(5_000)), { minLength: 1, maxLength: 5 }),
					{ maxLength: 5 },
				),
				fc.boolean(),
				(prompt, maxCalls, outputCap, shapes, cached) => {
					const caching = cached ? BREAKPOINTS : NONE;
					const history = shapes.map((s) => ({ prompts: s.map(([p]) => p), outputs: s.map(([, o]) => o) }));
					const base = input({ first: first(prompt, 0, caching), caching, maxCalls, outputCap, history });
					const e = estimateConsultation(base);
					expect(e.firstUsd).toBeLessThanOrEqual(e.expectedUsd + 1e-12);
					expect(e.expectedUsd).toBeLessThanOrEqual(e.atMostUsd + 1e-12);
					expect(estimateConsultation({ ...base, outputCap: outputCap + 1 }).atMostUsd).toBeGreaterThan(
						e.atMostUsd,
					);
					expect(estimateConsultation({ ...base, maxCalls: maxCalls + 1 }).atMostUsd).toBeGreaterThan(e.atMostUsd);
				},
			),
		);
	});
});

describe("the guard before every request", () => {
	const base = {
		limitUsd: 1,
		billedUsd: 0,
		promptUsd: 0.1,
		promptTokens: 20_000,
		outputCap: 1_000,
		outputCapUsd: 0.015,
		roundTokens: 2 * (3_000 + CALL_OVERHEAD_TOKENS),
		pricing: PRICES,
		caching: NONE,
	};
	const after = followUpUsd(PRICES, NONE, 20_000, 1_000 + base.roundTokens, 1_000);

	it("room for it with a full answer and for one more request after it → send", () => {
		expect(guardRequest({ ...base, limitUsd: 0.115 + after })).toBe("send");
	});
	it("room for it alone → answer now; without tools that is just send", () => {
		expect(guardRequest({ ...base, limitUsd: 0.115 + after - 1e-9 })).toBe("answer-now");
		expect(guardRequest({ ...base, limitUsd: 0.115, roundTokens: 0 })).toBe("send");
	});
	it("not even that → stop; what was billed counts", () => {
		expect(guardRequest({ ...base, limitUsd: 0.115 - 1e-9, roundTokens: 0 })).toBe("stop");
		expect(guardRequest({ ...base, limitUsd: 0.2, billedUsd: 0.1, roundTokens: 0 })).toBe("stop");
		expect(guardRequest({ ...base, promptUsd: Number.NaN })).toBe("stop");
	});
	it("property: whatever it lets through fits what is left with a full answer", () => {
		fc.assert(
			fc.property(
				fc.double({ min: 0, max: 2, noNaN: true }),
				fc.double({ min: 0, max: 2, noNaN: true }),
				(limit, billed) => {
					const g = guardRequest({ ...base, limitUsd: limit, billedUsd: billed });
					if (g !== "stop") expect(billed + base.promptUsd + base.outputCapUsd).toBeLessThanOrEqual(limit + 1e-12);
					if (g === "send")
						expect(billed + base.promptUsd + base.outputCapUsd + after).toBeLessThanOrEqual(limit + 1e-12);
				},
			),
		);
	});
});

describe("the unit's prior", () => {
	it("is what docs/configuration.md documents", () => {
		expect(PRIOR).toEqual({ rounds: 2, growthTokens: 2_000, roundOutputTokens: 150 });
		expect(SONNET).toEqual(PRICES);
	});
});
