/** The cost estimate of one request: one describe per rule. */

import { type Api, type AssistantMessage, getModel, type Model, type ToolResultMessage } from "@mariozechner/pi-ai";
import { beforeEach, describe, expect, it } from "vitest";
import {
	type CachingModel,
	cachingModelFor,
	coldPromptTokens,
	type EstimateInput,
	envelopeEstimate,
	estimateRequest,
	expectedOutput,
	fingerprintOf,
} from "../../../src/policy/budget/request-estimate.ts";
import type { RequestFingerprint } from "../../../src/reducers/index.ts";
import { buildContext, extendRequest, unitCount, zeroUsage } from "../../../src/render/index.ts";
import { resetParents } from "../../support/events.ts";
import { allUnits } from "../../support/requests.ts";
import { fingerprint, GPT, render, roundsSession, SONNET, syntheticRequest } from "./helpers.ts";

beforeEach(() => resetParents());

const BREAKPOINTS: CachingModel = { kind: "breakpoints", minTokens: 1024, lookbackBlocks: 20, stableBreakpoint: true };
const TOKEN_PREFIX: CachingModel = { kind: "token-prefix", minTokens: 1024, granularity: 128 };
const NOW = 1_000_000 + 600_000; // ten minutes after the fingerprint's timestamp

/** 60 units; the previous request's stable portion (30 units) is a prefix; stable end at unit 39. */
const REQUEST = syntheticRequest({ units: 60, tokens: 100_000, stableUnits: 40, stableTokens: 90_000 });

function input(over: Partial<EstimateInput> = {}): EstimateInput {
	return {
		request: REQUEST,
		model: "anthropic:claude-sonnet-4-5",
		effort: "high",
		routingKey: "advisor:s1",
		pricing: SONNET,
		caching: BREAKPOINTS,
		previous: fingerprint(),
		outputSamples: [800, 1200, 0, 1500, 900, 1100, 2000],
		nowMs: NOW,
		warmWindowSec: 1800,
		...over,
	};
}

describe("hand-computed example", () => {
	/*
	 * Claude Sonnet 4.5-like prices per million tokens: input $3, output $15, cache read $0.30,
	 * cache write $3.75. The request is 100,000 tokens by chars/4; the previous request (same model,
	 * effort, routing key and system prompt, ten minutes ago) was 84,000 by chars/4 and billed
	 * 77,700 prompt tokens; its stable portion (30 units, 80,000 chars/4 tokens) is this one's prefix.
	 *
	 * prompt  = max(77,700 + 100,000 − 84,000, ⌈100,000 × 77,700/84,000⌉)
	 *         = max(93,700, ⌈100,000 × 0.925⌉ = 92,500)                 = 93,700
	 * reads   (breakpoints: the previous request wrote one at its stable end, unit 29; this one has
	 *          its own at unit 39, 10 ≤ 20 blocks later) = round(80,000 × 0.925) = 74,000
	 * writes  = 93,700 − 74,000 = 19,700 (everything uncached is written: pi-ai marks the last user message)
	 * output  = mean of the last five positive counts of [800, 1200, 0, 1500, 900, 1100, 2000]
	 *         = (1200 + 1500 + 900 + 1100 + 2000) / 5 = 1,340
	 * cost    = (74,000 × 0.30 + 19,700 × 3.75 + 1,340 × 15) / 1e6
	 *         = (22,200 + 73,875 + 20,100) / 1e6 = $0.116175
	 * cold    = (93,700 × 3.75 + 1,340 × 15) / 1e6 = (351,375 + 20,100) / 1e6 = $0.371475
	 *
	 * The same request on a GPT-5-like token-prefix API (input $1.25, cache read $0.125, output $10,
	 * no write price): reads in 128-token steps = ⌊74,000 / 128⌋ × 128 = 73,984; uncached = 19,716;
	 * cost = (19,716 × 1.25 + 73,984 × 0.125 + 1,340 × 10) / 1e6 = (24,645 + 9,248 + 13,400) / 1e6
	 *      = $0.047293; cold = (93,700 × 1.25 + 13,400) / 1e6 = $0.130525.
	 */
	it("breakpoints (Anthropic-style)", () => {
		const e = estimateRequest(input());
		expect(e).toMatchObject({
			promptTokens: 93_700,
			cacheReadTokens: 74_000,
			cacheWriteTokens: 19_700,
			outputTokens: 1_340,
			outputKnown: true,
			promptBasis: "previous-actual",
			cacheMatch: "stable",
			cold: false,
		});
		expect(e.costUsd).toBeCloseTo(0.116175, 9);
		expect(e.coldCostUsd).toBeCloseTo(0.371475, 9);
	});

	it("token prefix (OpenAI-style)", () => {
		const e = estimateRequest(
			input({
				pricing: GPT,
				caching: TOKEN_PREFIX,
				model: "openai:gpt-5",
				previous: fingerprint({ model: "openai:gpt-5" }),
			}),
		);
		expect(e).toMatchObject({ promptTokens: 93_700, cacheReadTokens: 73_984, cacheWriteTokens: 0 });
		expect(e.costUsd).toBeCloseTo(0.047293, 9);
		expect(e.coldCostUsd).toBeCloseTo(0.130525, 9);
	});

	it("envelope shape: sessionUsd is what is left of the branch budget", () => {
		expect(envelopeEstimate(estimateRequest(input()), 12.5)).toEqual({
			promptTokens: 93_700,
			cacheReadTokens: 74_000,
			outputTokens: 1_340,
			costUsd: expect.closeTo(0.116175, 9),
			coldCostUsd: expect.closeTo(0.371475, 9),
			sessionUsd: 12.5,
		});
	});
});

describe("prompt tokens", () => {
	it("chars/4 with 20% headroom when nothing is known", () => {
		const e = estimateRequest(input({ previous: undefined }));
		expect(e.promptTokens).toBe(120_000);
		expect(e.promptBasis).toBe("chars-headroom");
		expect(coldPromptTokens({ tokens: 1001 })).toBe(1202);
	});
	it("chars/4 with headroom when the previous stable prefix is not this request's", () => {
		const e = estimateRequest(input({ previous: fingerprint({ stableHash: "other" }) }));
		expect(e.promptTokens).toBe(120_000);
		expect(e.cacheReadTokens).toBe(1850); // the head still matches: round(8000/4 × 0.925)
	});
	it("chars/4 with headroom when the previous request was another model (another tokenizer) or not billed", () => {
		expect(estimateRequest(input({ previous: fingerprint({ model: "openai:gpt-5" }) })).promptTokens).toBe(120_000);
		expect(estimateRequest(input({ previous: fingerprint({ promptTokens: undefined }) })).promptTokens).toBe(120_000);
	});
	it("never below chars/4 scaled by the previous actual/estimate ratio", () => {
		// A previous request with a huge volatile tail: 77,700 + 100,000 − 200,000 < 0.
		const e = estimateRequest(input({ previous: fingerprint({ estimatedTokens: 200_000, promptTokens: 77_700 }) }));
		expect(e.promptTokens).toBe(Math.ceil((100_000 * 77_700) / 200_000));
	});
	it("a retry of the very same request is estimated at exactly the previous bill, all of it read", () => {
		const prev = fingerprint({ hash: "h59", unitCount: 60, estimatedTokens: 100_000, promptTokens: 95_000 });
		const e = estimateRequest(input({ previous: prev }));
		expect(e).toMatchObject({
			promptTokens: 95_000,
			cacheReadTokens: 95_000,
			cacheWriteTokens: 0,
			cacheMatch: "full",
		});
	});
});

describe("cache reads only with the same model, effort, routing key and system prompt, within the warm window", () => {
	const cases: [string, Partial<EstimateInput>][] = [
		["another effort", { effort: "low" }],
		["no effort", { effort: undefined }],
		["another routing key", { routingKey: "advisor:s2" }],
		["past the warm window", { nowMs: 1_000_000 + 1_800_001 }],
		["a clock that went back", { nowMs: 999_999 }],
		["no caching model", { caching: { kind: "none" } }],
	];
	it.each(cases)("%s → no reads, cold", (_, over) => {
		const e = estimateRequest(input(over));
		expect(e.cacheReadTokens).toBe(0);
		expect(e.cacheMatch).toBe("none");
		expect(e.cold).toBe(true);
		expect(e.costUsd).toBeCloseTo(e.coldCostUsd, 12);
	});
	it("another model → no reads", () => {
		expect(estimateRequest(input({ model: "anthropic:claude-opus-4-1" })).cacheReadTokens).toBe(0);
	});
	it("another system prompt → no reads, even if a later hash collided", () => {
		const e = estimateRequest(input({ previous: fingerprint({ systemHash: "other" }) }));
		expect(e.cacheReadTokens).toBe(0);
	});
	it("exactly at the end of the warm window still reads", () => {
		expect(estimateRequest(input({ nowMs: 1_000_000 + 1_800_000 })).cacheReadTokens).toBe(74_000);
	});
});

describe("caching models", () => {
	it("breakpoints: a stable end more than 20 blocks back is read through the adapter's bridge, and only through it", () => {
		// Stable end at unit 59 and the end at 59: 59 − 29 = 30 > 20. The bridge marks unit 29.
		const far = syntheticRequest({ units: 60, tokens: 100_000, stableUnits: 60, stableTokens: 99_000 });
		const e = estimateRequest(input({ request: far }));
		expect(e.cacheMatch).toBe("stable");
		expect(e.cold).toBe(false);
		// Without the adapter's marks (no bridge): not looked up, only the head is read.
		const bare = estimateRequest(input({ request: far, caching: { ...BREAKPOINTS, stableBreakpoint: false } }));
		expect(bare.cacheMatch).toBe("tools");
		expect(bare.cacheReadTokens).toBe(1850);
		expect(bare.cold).toBe(true);
		// Token prefix has no lookback: the whole shared prefix is read.
		const t = estimateRequest(input({ request: far, caching: TOKEN_PREFIX }));
		expect(t.cacheMatch).toBe("stable");
	});
	it("breakpoints: without the adapter's stable breakpoint, only the head and the whole request are cache entries", () => {
		const e = estimateRequest(input({ caching: { ...BREAKPOINTS, stableBreakpoint: false } }));
		expect(e.cacheMatch).toBe("tools");
	});
	it("nothing under the minimum cacheable size is read", () => {
		const small = syntheticRequest({
			units: 60,
			tokens: 100_000,
			stableUnits: 40,
			stableTokens: 90_000,
			chars: (i) => 100 * (i + 1),
		});
		const e = estimateRequest(input({ request: small, previous: fingerprint({ stableHash: "nope" }) }));
		expect(e.cacheReadTokens).toBe(0);
	});
	it("a 3,000-token prefix is read on Sonnet 4.5 (minimum 1,024) and not on Opus 4.5 (4,096): that request is uncached", () => {
		// Unit i ends at 250·(i + 1) tokens: the previous request's stable portion (12 units) is 3,000 tokens, and it
		// billed 3,250 (its estimate): this 3,500-token request repeats the stable portion, not the whole request.
		const request = syntheticRequest({
			units: 14,
			tokens: 3_500,
			stableUnits: 13,
			stableTokens: 3_250,
			chars: (i) => 1000 * (i + 1),
		});
		const at = (model: Model<Api>) => {
			const key = `${model.provider}:${model.id}`;
			const previous = fingerprint({
				model: key,
				stableHash: "h11",
				stableUnits: 12,
				stableTokens: 3_000,
				hash: "elsewhere",
				unitCount: 13,
				estimatedTokens: 3_250,
				promptTokens: 3_250,
			});
			const caching = cachingModelFor(model);
			return estimateRequest(
				input({ request, model: key, pricing: model.cost, caching, previous, outputSamples: [] }),
			);
		};
		const sonnet = getModel("anthropic", "claude-sonnet-4-5");
		const opus = getModel("anthropic", "claude-opus-4-5");
		expect(cachingModelFor(sonnet)).toMatchObject({ kind: "breakpoints", minTokens: 1024 });
		expect(cachingModelFor(opus)).toMatchObject({ kind: "breakpoints", minTokens: 4096 });
		expect(opus.cost).toMatchObject({ input: 5, cacheRead: 0.5, cacheWrite: 6.25 });
		// Sonnet: 3,000 read at $0.30, the other 500 written at $3.75 → $0.002775.
		const s = at(sonnet);
		expect(s).toMatchObject({
			promptTokens: 3_500,
			cacheReadTokens: 3_000,
			cacheWriteTokens: 500,
			cacheMatch: "stable",
		});
		expect(s.costUsd).toBeCloseTo(0.002775, 12);
		// Opus 4.5: nothing read (3,000 < 4,096), nothing written (3,500 < 4,096): 3,500 at $5 → $0.0175, its cold cost.
		const o = at(opus);
		expect(o).toMatchObject({
			promptTokens: 3_500,
			cacheReadTokens: 0,
			cacheWriteTokens: 0,
			cacheMatch: "none",
			cold: true,
		});
		expect(o.costUsd).toBeCloseTo(0.0175, 12);
		expect(o.coldCostUsd).toBeCloseTo(0.0175, 12);
	});
	it("breakpoints: a prompt under the minimum writes nothing; none: no reads, no writes, input price", () => {
		const tiny = syntheticRequest({ units: 4, tokens: 500, stableUnits: 2, stableTokens: 300 });
		const e = estimateRequest(input({ request: tiny, previous: undefined, outputSamples: [] }));
		expect(e).toMatchObject({ promptTokens: 600, cacheWriteTokens: 0, outputTokens: 0, outputKnown: false });
		expect(e.costUsd).toBeCloseTo((600 * 3) / 1e6, 12);
		const n = estimateRequest(input({ caching: { kind: "none" } }));
		expect(n.cacheWriteTokens).toBe(0);
		expect(n.costUsd).toBeCloseTo((93_700 * 3 + 1340 * 15) / 1e6, 12);
	});
	it("a model without a write price is charged its input price for writes", () => {
		const e = estimateRequest(
			input({ pricing: { ...SONNET, cacheWrite: 0 }, previous: undefined, outputSamples: [] }),
		);
		expect(e.costUsd).toBeCloseTo((120_000 * 3) / 1e6, 12);
	});
	it("cachingModelFor maps APIs, compat marks and missing cache prices", () => {
		const cost = (cacheRead: number) => ({ input: 1, output: 1, cacheRead, cacheWrite: 1 });
		expect(cachingModelFor({ api: "anthropic-messages", cost: cost(0.1) })).toEqual(BREAKPOINTS);
		expect(cachingModelFor({ api: "bedrock-converse-stream", cost: cost(0.1) })).toEqual(BREAKPOINTS);
		expect(
			cachingModelFor({ api: "openai-completions", cost: cost(0.1), compat: { cacheControlFormat: "anthropic" } }),
		).toEqual(BREAKPOINTS);
		// pi-ai turns the Anthropic format on by itself for OpenRouter's anthropic/… models.
		expect(
			cachingModelFor({
				api: "openai-completions",
				provider: "openrouter",
				id: "anthropic/claude-sonnet-4.5",
				cost: cost(0.1),
			}),
		).toEqual(BREAKPOINTS);
		expect(
			cachingModelFor({ api: "openai-completions", provider: "openrouter", id: "openai/gpt-5", cost: cost(0.1) }),
		).toEqual(TOKEN_PREFIX);
		expect(cachingModelFor({ api: "openai-responses", cost: cost(0.1) })).toEqual(TOKEN_PREFIX);
		expect(cachingModelFor({ api: "google-generative-ai", cost: cost(0.1) })).toMatchObject({
			kind: "token-prefix",
			granularity: 1,
		});
		expect(cachingModelFor({ api: "anthropic-messages", cost: cost(0) })).toEqual({ kind: "none" });
		expect(cachingModelFor({ api: "some-custom-api", cost: cost(0.1) })).toEqual({ kind: "none" });
	});
});

describe("output tokens", () => {
	it("the mean of the last five positive counts, rounded up; unknown → 0, stated", () => {
		expect(expectedOutput([1, 2])).toBe(2);
		expect(expectedOutput([0, -3, Number.NaN])).toBeUndefined();
		expect(expectedOutput([10, 20, 30, 40, 50, 60])).toBe(40);
		const e = estimateRequest(input({ outputSamples: [] }));
		expect(e.outputTokens).toBe(0);
		expect(e.outputKnown).toBe(false);
	});
});

describe("every request of the tool loop is re-estimated with the conversation as it has grown", () => {
	it("round 2 reads all of round 1 and pays for what the round added", () => {
		// Prose keeps the first request above the smallest cacheable prompt (1,024 tokens).
		const first = render(roundsSession(6, 3000, { prose: 400 }));
		const meta = { model: "anthropic:claude-sonnet-4-5", effort: "high", routingKey: "advisor:s1" };
		const r1 = estimateRequest(input({ request: first, previous: undefined, nowMs: 5000 }));
		const reply: AssistantMessage = {
			role: "assistant",
			content: [{ type: "toolCall", id: "t1", name: "read", arguments: { path: "src/a.ts" } }],
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude-sonnet-4-5",
			usage: zeroUsage(),
			stopReason: "toolUse",
			timestamp: 0,
		};
		const results: ToolResultMessage = {
			role: "toolResult",
			toolCallId: "t1",
			toolName: "read",
			content: [{ type: "text", text: "y".repeat(40_000) }],
			isError: false,
			timestamp: 0,
		};
		const grown = extendRequest(first, { messages: [...buildContext(first).messages, reply, results] });
		expect(allUnits(grown).slice(0, unitCount(first))).toEqual(allUnits(first));
		expect(grown.tokens).toBeGreaterThan(first.tokens + 10_000);
		expect(grown.stable).toEqual(first.stable);
		expect(grown.messageCount).toBe(first.messageCount + 2);
		const billed = Math.round(first.tokens * 0.9);
		const prev: RequestFingerprint = fingerprintOf(first, { ...meta, timestampMs: 5000, promptTokens: billed });
		const r2 = estimateRequest(input({ request: grown, previous: prev, nowMs: 9000 }));
		expect(r2.promptBasis).toBe("previous-actual");
		expect(r2.promptTokens).toBe(billed + grown.tokens - first.tokens);
		expect(r2.cacheMatch).toBe("full");
		expect(r2.cacheReadTokens).toBe(billed);
		expect(r2.promptTokens).not.toBe(r1.promptTokens);
		// Reusing round 1's estimate would miss the 10k+ tokens the round added.
		expect(r2.promptTokens - r2.cacheReadTokens).toBeGreaterThan(10_000);
	});
});
