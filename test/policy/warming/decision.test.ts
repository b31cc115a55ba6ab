/** Cache warming economics and schedule: one describe per rule of warmingDecision. */
import { beforeEach, describe, expect, it } from "vitest";
import { CUSTOM_TYPES, type LedgerEvent } from "../../../src/events/index.ts";
import { cachingModelFor, requestRecord } from "../../../src/policy/budget/request-estimate.ts";
import {
	type CacheModelInfo,
	estimateRefresh,
	knownCacheTtlSec,
	refreshOutcome,
	refreshRequest,
	resolveCacheRetention,
	type WarmingInput,
	type WarmingSettings,
	warmingDecision,
	warmingTtlSec,
	warmingUsageRecord,
} from "../../../src/policy/warming/decision.ts";
import { previousRequest } from "../../../src/reducers/index.ts";
import { spendOf } from "../../../src/reducers/spend.ts";
import { buildContext } from "../../../src/render/index.ts";
import { resetParents } from "../../support/events.ts";
import { allUnits } from "../../support/requests.ts";
import { render, roundsSession, syntheticRequest } from "../budget/helpers.ts";

beforeEach(() => resetParents());

/** advisor.json defaults. */
const DEFAULTS: WarmingSettings = {
	enabled: true,
	ttlSec: 0,
	minPromptTokens: 100_000,
	continueProbability: 0.2,
	minSavingsUsd: 0.05,
	maxDurationSec: 3600,
};

// Registry prices (USD per million tokens) of pi-ai 0.73.1.
const OPUS_45: CacheModelInfo = {
	api: "anthropic-messages",
	provider: "anthropic",
	id: "claude-opus-4-5",
	baseUrl: "https://api.anthropic.com",
	cost: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
};
const SONNET_45: CacheModelInfo = {
	...OPUS_45,
	id: "claude-sonnet-4-5",
	cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
};
const GPT_5: CacheModelInfo = {
	api: "openai-responses",
	provider: "openai",
	id: "gpt-5",
	baseUrl: "https://api.openai.com/v1",
	cost: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
};

/** A first request whose chars/4 estimate is a third of its billed prompt (ratio exactly 3). */
const FIRST = syntheticRequest({ units: 12, tokens: 50_000, stableUnits: 10, stableTokens: 45_000 });
const T0 = 1_700_000_000_000;

function input(over: Partial<WarmingInput> = {}): WarmingInput {
	return {
		config: DEFAULTS,
		model: OPUS_45,
		cacheRetention: "short",
		first: FIRST,
		promptTokens: 150_000,
		spentUsd: 2,
		budget: { perCallHardUsd: 3, sessionUsd: 20 },
		consultationMs: T0,
		lastTouchMs: T0,
		nowMs: T0 + 1000,
		...over,
	};
}

describe("worked example", () => {
	/*
	 * Claude Opus 4.5 as the advisor: input $5/M, cache read $0.50/M, cache write $6.25/M, output $25/M.
	 * The consultation's first request billed 150,000 prompt tokens; its stable portion is 45,000 of
	 * its 50,000 estimated tokens, and the refresh sends only that (Anthropic marks: `refreshRequest`),
	 * so it keeps 150,000 × 45,000 / 50,000 = 135,000 tokens warm. Default settings
	 * (continueProbability 0.2, minSavingsUsd 0.05, short retention → TTL 300 s).
	 *
	 *   gross saving  = 0.2 × 135,000 × (5 − 0.5) / 1e6          = $0.1215
	 *   refresh cost  = 135,000 × 0.5 / 1e6  (all read from cache) = $0.0675
	 *                 +     16 × 25  / 1e6  (16-token ceiling)    = $0.0004  → $0.0679
	 *   net saving    = 0.1215 − 0.0679                           = $0.0536  > 0 and ≥ $0.05 → warm
	 *   cold cost     = 135,000 × 6.25 / 1e6 + $0.0004            = $0.84415 (a miss writes it all)
	 *                   ≤ perCallHardUsd $3 and ≤ $18 left of the $20 branch budget
	 *   refresh at    = last touch + 0.9 × 300 s                  = +270 s
	 *
	 * The same prompt with Claude Sonnet 4.5 ($3 / $0.30 / $3.75 / $15) saves 0.2 × 135,000 × 2.7 / 1e6
	 * = $0.0729 for a $0.04074 refresh: net $0.03216, below minSavingsUsd → not warmed. With GPT-5
	 * ($1.25 / $0.125, token-prefix caching in 128-token steps, the first request refreshed whole):
	 * gross $0.03375; refresh = 149,888 × 0.125 / 1e6 + 112 × 1.25 / 1e6 + 16 × 10 / 1e6 = $0.019036;
	 * net $0.014714 → not warmed.
	 */
	it("Opus 4.5, 150k prompt: warm at +270 s, net $0.0536", () => {
		const decision = warmingDecision(input());
		expect(decision.warm).toBe(true);
		if (!decision.warm) return;
		expect(decision.atMs).toBe(T0 + 270_000);
		expect(decision.ttlSec).toBe(300);
		expect(decision.grossSavingsUsd).toBeCloseTo(0.1215, 12);
		expect(decision.refreshCostUsd).toBeCloseTo(0.0679, 12);
		expect(decision.expectedSavingsUsd).toBeCloseTo(0.0536, 12);
		expect(decision.coldCostUsd).toBeCloseTo(0.84415, 12);
		expect(decision.promptTokens).toBe(135_000);
	});

	it("Sonnet 4.5, same prompt: net $0.03216 is below minSavingsUsd", () => {
		const decision = warmingDecision(input({ model: SONNET_45 }));
		expect(decision).toMatchObject({ warm: false, reason: "below-min-savings" });
		expect(decision.refreshCostUsd).toBeCloseTo(0.04074, 12);
		expect(decision.expectedSavingsUsd).toBeCloseTo(0.03216, 12);
	});

	it("GPT-5, same prompt: 128-token steps, net $0.014714; warmed once minSavingsUsd allows it", () => {
		const decision = warmingDecision(input({ model: GPT_5 }));
		expect(decision).toMatchObject({ warm: false, reason: "below-min-savings" });
		expect(decision.refreshCostUsd).toBeCloseTo(0.019036, 12);
		expect(decision.expectedSavingsUsd).toBeCloseTo(0.014714, 12);
		expect(warmingDecision(input({ model: GPT_5, config: { ...DEFAULTS, minSavingsUsd: 0.01 } }))).toMatchObject({
			warm: true,
			atMs: T0 + 270_000,
		});
	});
});

describe("the refresh is the first request, priced as a warm read with 16 output tokens", () => {
	it("breakpoints: all read, nothing written; cold: all written", () => {
		const e = estimateRefresh({
			first: FIRST,
			promptTokens: 150_000,
			pricing: OPUS_45.cost,
			caching: cachingModelFor(OPUS_45),
		});
		expect(e).toMatchObject({
			promptTokens: 150_000,
			cacheReadTokens: 150_000,
			cacheWriteTokens: 0,
			outputTokens: 16,
		});
		expect(e.cacheMatch).toBe("full");
	});

	it("token prefix: read in 128-token steps, the remainder at the input price", () => {
		const e = estimateRefresh({
			first: FIRST,
			promptTokens: 150_000,
			pricing: GPT_5.cost,
			caching: cachingModelFor(GPT_5),
		});
		expect(e).toMatchObject({ cacheReadTokens: 149_888, cacheWriteTokens: 0, outputTokens: 16 });
	});

	it("on a real rendered request too", () => {
		const first = render(roundsSession(30, 4000));
		const e = estimateRefresh({
			first,
			promptTokens: 40_000,
			pricing: OPUS_45.cost,
			caching: cachingModelFor(OPUS_45),
		});
		expect(e.cacheReadTokens).toBe(40_000);
		expect(e.costUsd).toBeCloseTo((40_000 * 0.5 + 16 * 25) / 1e6, 6);
		expect(e.coldCostUsd).toBeCloseTo((40_000 * 6.25 + 16 * 25) / 1e6, 6);
	});
});

describe("what a refresh sends (refreshRequest)", () => {
	it("Anthropic-style marks: the first request cut after its stable portion; token prefix: the whole request", () => {
		const first = render(roundsSession(30, 400));
		const cut = refreshRequest(first, OPUS_45);
		expect(allUnits(cut)).toEqual(allUnits(first).slice(0, first.stable.unitCount));
		expect(cut.hash).toBe(first.stable.hash);
		expect(cut.tokens).toBe(first.stable.tokens);
		expect(buildContext(cut).messages).toHaveLength(first.stable.messageIndex + 1);
		expect(buildContext(cut).messages.at(-1)!.content).toEqual(
			(buildContext(first).messages[first.stable.messageIndex]!.content as unknown[]).slice(
				0,
				first.stable.partCount,
			),
		);
		expect(refreshRequest(first, { ...OPUS_45, api: "bedrock-converse-stream" }).hash).toBe(first.stable.hash);
		expect(refreshRequest(first, GPT_5)).toBe(first);
	});
});

describe("skip reasons", () => {
	it.each<[string, Partial<WarmingInput>, string]>([
		["warming.enabled false", { config: { ...DEFAULTS, enabled: false } }, "disabled"],
		["cacheRetention none", { cacheRetention: "none" }, "caching-off"],
		["no cache-read price", { model: { ...OPUS_45, cost: { ...OPUS_45.cost, cacheRead: 0 } } }, "no-cache-pricing"],
		["an API with no caching model", { model: { ...OPUS_45, api: "faux:scripted" } }, "no-cache-pricing"],
		[
			"a TTL nobody documents (Google)",
			{ model: { ...GPT_5, api: "google-generative-ai", provider: "google" } },
			"unknown-ttl",
		],
		[
			"an OpenAI-compatible host other than OpenAI",
			{ model: { ...GPT_5, api: "openai-completions", provider: "deepseek", baseUrl: "https://api.deepseek.com" } },
			"unknown-ttl",
		],
		["prompt under minPromptTokens", { promptTokens: 99_999 }, "below-min-prompt"],
		["first request never billed", { promptTokens: undefined }, "below-min-prompt"],
		["refresh due after maxDurationSec", { consultationMs: T0 - 3_400_000 }, "expired"],
		["the cache already lapsed", { nowMs: T0 + 300_000 }, "expired"],
		["savings not positive", { model: SONNET_45, config: { ...DEFAULTS, continueProbability: 0.05 } }, "no-savings"],
		["savings below minSavingsUsd", { model: SONNET_45 }, "below-min-savings"],
		["cold cost over perCallHardUsd", { budget: { perCallHardUsd: 0.8, sessionUsd: 20 } }, "over-budget"],
		["cold cost over what is left of the branch", { spentUsd: 19.5 }, "over-budget"],
	])("%s → %s", (_, over, reason) => {
		expect(warmingDecision(input(over))).toMatchObject({ warm: false, reason });
	});

	it("what the refresh keeps warm under the model's minimum cacheable prompt: nothing to keep (Opus 4.5: 4,096), but Sonnet 4.5 (1,024) warms", () => {
		// 3,000 billed prompt tokens; the refresh sends the stable portion: 3,000 × 45,000 / 50,000 = 2,700 tokens.
		const config = { ...DEFAULTS, minPromptTokens: 0, continueProbability: 1, minSavingsUsd: 0 };
		expect(warmingDecision(input({ config, promptTokens: 3_000 }))).toEqual({
			warm: false,
			reason: "below-min-cacheable",
		});
		// Sonnet: gross 2,700 × 2.7 / 1e6 = $0.00729; refresh 2,700 × 0.3 / 1e6 + 16 × 15 / 1e6 = $0.00105.
		const sonnet = warmingDecision(input({ config, promptTokens: 3_000, model: SONNET_45 }));
		expect(sonnet).toMatchObject({ warm: true, promptTokens: 2_700 });
		if (sonnet.warm) expect(sonnet.expectedSavingsUsd).toBeCloseTo(0.00624, 12);
		// Opus again, above its minimum: 5,000 billed keep 4,500 warm.
		expect(warmingDecision(input({ config, promptTokens: 5_000 }))).toMatchObject({
			warm: true,
			promptTokens: 4_500,
		});
	});

	it("a NaN price is never free", () => {
		const model = { ...OPUS_45, cost: { ...OPUS_45.cost, output: Number.NaN } };
		expect(warmingDecision(input({ model }))).toMatchObject({ warm: false, reason: "no-savings" });
	});
});

describe("schedule", () => {
	it("90% of the TTL after the last touch, not after the decision", () => {
		const d = warmingDecision(input({ lastTouchMs: T0 + 60_000, nowMs: T0 + 120_000 }));
		expect(d).toMatchObject({ warm: true, atMs: T0 + 60_000 + 270_000 });
	});

	it("past the 90% mark but before the cache lapses: now", () => {
		const d = warmingDecision(input({ nowMs: T0 + 290_000 }));
		expect(d).toMatchObject({ warm: true, atMs: T0 + 290_000 });
	});

	it("warming.ttlSec overrides the table, even for a TTL we do not know", () => {
		expect(warmingDecision(input({ config: { ...DEFAULTS, ttlSec: 600 } }))).toMatchObject({
			warm: true,
			atMs: T0 + 540_000,
			ttlSec: 600,
		});
		const google = { ...GPT_5, api: "google-generative-ai", provider: "google" };
		expect(
			warmingDecision(input({ model: google, config: { ...DEFAULTS, ttlSec: 600, minSavingsUsd: 0.001 } })),
		).toMatchObject({ warm: true, atMs: T0 + 540_000 });
	});

	it("a chain stops at maxDurationSec: long retention (1 h) refreshes once at 54 min, then not again", () => {
		const first = warmingDecision(input({ cacheRetention: "long" }));
		expect(first).toMatchObject({ warm: true, atMs: T0 + 3_240_000, ttlSec: 3600 });
		const second = warmingDecision(
			input({ cacheRetention: "long", lastTouchMs: T0 + 3_240_000, nowMs: T0 + 3_241_000 }),
		);
		expect(second).toMatchObject({ warm: false, reason: "expired" });
	});

	it("short retention chains every 270 s until the hour is up", () => {
		let touch = T0;
		let refreshes = 0;
		for (;;) {
			const d = warmingDecision(input({ lastTouchMs: touch, nowMs: touch + 1000 }));
			if (!d.warm) {
				expect(d.reason).toBe("expired");
				break;
			}
			refreshes++;
			touch = d.atMs;
		}
		expect(refreshes).toBe(13); // 13 × 270 s = 3510 s ≤ 3600 s; the 14th would be at 3780 s
	});
});

describe("TTL table", () => {
	it.each<[string, CacheModelInfo, "short" | "long" | "none", number | undefined]>([
		["Anthropic short", OPUS_45, "short", 300],
		["Anthropic long", OPUS_45, "long", 3600],
		[
			"Anthropic long without long-retention support",
			{ ...OPUS_45, compat: { supportsLongCacheRetention: false } },
			"long",
			300,
		],
		["Anthropic, caching off", OPUS_45, "none", undefined],
		["Bedrock short", { ...OPUS_45, api: "bedrock-converse-stream", provider: "amazon-bedrock" }, "short", 300],
		["Bedrock long", { ...OPUS_45, api: "bedrock-converse-stream", provider: "amazon-bedrock" }, "long", 3600],
		["OpenAI Responses short", GPT_5, "short", 300],
		["OpenAI Responses long (24h retention)", GPT_5, "long", 86_400],
		[
			"OpenAI Responses long without support",
			{ ...GPT_5, compat: { supportsLongCacheRetention: false } },
			"long",
			300,
		],
		["OpenAI chat completions on api.openai.com", { ...GPT_5, api: "openai-completions" }, "short", 300],
		["OpenAI chat completions on api.openai.com, long", { ...GPT_5, api: "openai-completions" }, "long", 86_400],
		[
			"chat completions elsewhere",
			{ ...GPT_5, api: "openai-completions", baseUrl: "https://api.x.ai/v1" },
			"short",
			undefined,
		],
		[
			"OpenRouter anthropic/* (Anthropic cache marks)",
			{
				...OPUS_45,
				api: "openai-completions",
				provider: "openrouter",
				id: "anthropic/claude-opus-4.5",
				baseUrl: "https://openrouter.ai/api/v1",
			},
			"long",
			3600,
		],
		[
			"Anthropic cache marks by compat",
			{
				...GPT_5,
				api: "openai-completions",
				baseUrl: "https://proxy.local",
				compat: { cacheControlFormat: "anthropic" },
			},
			"short",
			300,
		],
		["Azure OpenAI Responses", { ...GPT_5, api: "azure-openai-responses" }, "long", 300],
		["OpenAI Codex Responses", { ...GPT_5, api: "openai-codex-responses" }, "long", 300],
		["Google", { ...GPT_5, api: "google-generative-ai" }, "short", undefined],
		["Mistral", { ...GPT_5, api: "mistral-conversations" }, "short", undefined],
	])("%s", (_, model, retention, ttl) => {
		expect(knownCacheTtlSec(model, retention)).toBe(ttl);
	});

	it("the config override, except with caching off", () => {
		expect(warmingTtlSec({ ttlSec: 120 }, OPUS_45, "short")).toBe(120);
		expect(warmingTtlSec({ ttlSec: 0 }, OPUS_45, "long")).toBe(3600);
		expect(warmingTtlSec({ ttlSec: 120 }, OPUS_45, "none")).toBeUndefined();
	});

	it("the retention in force: the option, else PI_CACHE_RETENTION=long, else short", () => {
		expect(resolveCacheRetention("none", "long")).toBe("none");
		expect(resolveCacheRetention(undefined, "long")).toBe("long");
		expect(resolveCacheRetention(undefined, undefined)).toBe("short");
		expect(resolveCacheRetention(undefined, "LONG")).toBe("short");
	});
});

describe("refresh outcome", () => {
	it.each<[string, Parameters<typeof refreshOutcome>[0], string | undefined, string]>([
		["all read", { input: 0, cacheRead: 150_000, cacheWrite: 0 }, "length", "hit"],
		["token prefix remainder", { input: 112, cacheRead: 149_888, cacheWrite: 0 }, "stop", "hit"],
		["lapsed: written anew", { input: 0, cacheRead: 0, cacheWrite: 150_000 }, "length", "miss"],
		["lapsed: read as input", { input: 150_000, cacheRead: 0, cacheWrite: 0 }, "stop", "miss"],
		["mostly written", { input: 0, cacheRead: 1_000, cacheWrite: 149_000 }, "stop", "miss"],
		["provider error", { input: 0, cacheRead: 0, cacheWrite: 0 }, "error", "error"],
		["no usage", undefined, "stop", "error"],
		["aborted", { input: 0, cacheRead: 150_000, cacheWrite: 0 }, "aborted", "aborted"],
	])("%s → %s", (_, usage, stop, expected) => {
		expect(refreshOutcome(usage, stop)).toBe(expected);
	});
});

describe("the refresh's usage record", () => {
	it("counts in the branch spend and becomes the newest touch of the first request", () => {
		const first = render(roundsSession(5, 400));
		const consultation = requestRecord(first, { routingKey: "advisor:s1", timestampMs: T0, promptTokens: 4000 });
		const data = warmingUsageRecord({
			model: "anthropic:claude-opus-4-5",
			effort: "high",
			usage: { input: 0, output: 16, cacheRead: 4000, cacheWrite: 0, cost: { total: 0.0024 } },
			request: requestRecord(first, { routingKey: "advisor:s1", timestampMs: T0 + 270_000, payloadHash: "p1" }),
			timestampMs: T0 + 271_000,
		});
		const event = (id: string, d: unknown): LedgerEvent => ({
			id,
			parentId: null,
			kind: "custom",
			customType: CUSTOM_TYPES.usage,
			data: d,
		});
		const spend = spendOf([
			event("k0", {
				kind: "review",
				model: "anthropic:claude-opus-4-5",
				effort: "high",
				usage: {},
				request: consultation,
				timestampMs: T0,
			}),
			event("k1", data),
		]);
		expect(spend.totalUsd).toBeCloseTo(0.0024, 12);
		expect(spend.records.map((r) => r.source)).toEqual(["review", "warming"]);
		const newest = previousRequest(spend, "anthropic:claude-opus-4-5");
		expect(newest).toMatchObject({ stableHash: first.stable.hash, promptTokens: 4000, timestampMs: T0 + 270_000 });
	});
});
