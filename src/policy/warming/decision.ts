/**
 * The warming decision (`warmingDecision`): whether, and when, to refresh the advisor's cache, with
 * what it weighs — the cache lifetimes and the price of a refresh. After a consultation, while the
 * executor is still running, the advisor's cached prefix may be refreshed shortly before it expires,
 * so the next consultation reads it instead of paying for it again. Pure: prices, clock and spend come in.
 *
 * A refresh replays the consultation's FIRST request with a 16-token output ceiling — cut after its
 * stable portion where only marked prefixes are cached (`refreshRequest`) — and leaves only if its
 * payload hashes equal to the original's in the same form (output cap excluded:
 * policy/warming/payload-hash.ts). It is worth it when
 *     continueProbability × promptTokens × (inputPrice − cacheReadPrice) / 1e6 − refreshCost
 * (promptTokens: the first request's billed prompt, scaled to the part the refresh sends)
 * is positive and ≥ `minSavingsUsd`, where refreshCost is that replay priced as a warm read
 * (`estimateRefresh`). Decided once per arming: after the consultation, and again after each
 * refresh that hit (the reducer in policy/warming/state.ts holds the chain).
 *
 * TTL table (`knownCacheTtlSec`), retention as pi-ai resolves it (`resolveCacheRetention`):
 *
 *   API (and condition)                              short    long
 *   anthropic-messages                               300 s    3600 s  (pi-ai sends `ttl: "1h"`; 300 s when
 *                                                                     compat.supportsLongCacheRetention is false)
 *   bedrock-converse-stream                          300 s    3600 s  (pi-ai sends CacheTTL.ONE_HOUR)
 *   openai-completions with Anthropic cache marks    300 s    3600 s  (compat.cacheControlFormat "anthropic", or
 *     (OpenRouter `anthropic/…`)                                      OpenRouter anthropic/* as pi-ai detects it)
 *   openai-completions on api.openai.com             300 s    86400 s (`prompt_cache_retention: "24h"`)
 *   openai-responses                                 300 s    86400 s (idem; 300 s without long-retention support)
 *   azure-openai-responses, openai-codex-responses   300 s    300 s   (pi-ai sends no retention there)
 *   anything else (Google, Mistral, other OpenAI-    unknown → never warmed, unless `warming.ttlSec` is set
 *     compatible hosts, faux…)
 *   retention "none"                                 never: nothing is cached
 *
 * Sources and assumptions: Anthropic documents a 5-minute default TTL, refreshed at no cost on each
 * hit, and an optional 1-hour TTL (the same on Bedrock). OpenAI documents in-memory prompt caching
 * as "generally 5 to 10 minutes of inactivity, up to one hour off-peak" and an extended 24 h
 * retention; we take the documented floor, 5 minutes, so a refresh at 90% (270 s) lands inside even
 * the shortest window. A 24 h TTL puts the refresh past `maxDurationSec` (default 1 h): never
 * warmed, which is right — nothing needs it. `warming.ttlSec` > 0 overrides the table for any
 * model with a caching model and cache-read price.
 */

import type { RequestRecord, UsageRecordData } from "../../events/index.ts";
import { isRecord } from "../../events/index.ts";
import { promptTokensOf, type TokenCounts } from "../../reducers/index.ts";
import { type LedgerRequest, stablePrefixRequest } from "../../render/index.ts";
import {
	anthropicStyleMarks,
	type CachingModel,
	cachingModelFor,
	costOrInfinity,
	estimateRequest,
	fingerprintOf,
	type MarkedModel,
	type ModelPricing,
	type RequestEstimate,
} from "../budget/request-estimate.ts";
import { WARMING_OUTPUT_TOKENS } from "./payload-hash.ts";

/** The `warming` keys of advisor.json (the adapter's WarmingConfig fits). */
export interface WarmingSettings {
	enabled: boolean;
	/** 0 = the model's known cache TTL (`knownCacheTtlSec`). */
	ttlSec: number;
	minPromptTokens: number;
	continueProbability: number;
	minSavingsUsd: number;
	maxDurationSec: number;
}

/** pi-ai's `cacheRetention` stream option. */
export type CacheRetention = "none" | "short" | "long";

/** The model fields warming reads (pi-ai's `Model` fits). */
export interface CacheModelInfo {
	api: string;
	provider: string;
	id?: string;
	baseUrl?: string;
	cost: ModelPricing;
	compat?: unknown;
}

/** Refresh at this fraction of the TTL after the cache was last touched. */
export const WARMING_TTL_FRACTION = 0.9;
export const SHORT_CACHE_TTL_SEC = 300;
export const ANTHROPIC_LONG_CACHE_TTL_SEC = 3600;
export const OPENAI_LONG_CACHE_TTL_SEC = 86_400;

/**
 * The retention pi-ai will use: the option when one is passed, else "long" when the environment
 * says `PI_CACHE_RETENTION=long`, else "short". The adapter passes `process.env.PI_CACHE_RETENTION`
 * (no retention is forced, so pi-ai's own default is the one in force; docs/request-format.md).
 */
export function resolveCacheRetention(option: CacheRetention | undefined, env: string | undefined): CacheRetention {
	if (option !== undefined) return option;
	return env === "long" ? "long" : "short";
}

function compatFlag(model: CacheModelInfo, key: string): unknown {
	return isRecord(model.compat) ? model.compat[key] : undefined;
}

function longSupported(model: CacheModelInfo): boolean {
	return compatFlag(model, "supportsLongCacheRetention") !== false;
}

/** The provider's cache TTL for this model and retention, in seconds; undefined when we do not know it. */
export function knownCacheTtlSec(model: CacheModelInfo, retention: CacheRetention): number | undefined {
	if (retention === "none") return undefined;
	const long = retention === "long";
	switch (model.api) {
		case "anthropic-messages":
			return long && longSupported(model) ? ANTHROPIC_LONG_CACHE_TTL_SEC : SHORT_CACHE_TTL_SEC;
		case "bedrock-converse-stream":
			return long ? ANTHROPIC_LONG_CACHE_TTL_SEC : SHORT_CACHE_TTL_SEC;
		case "openai-completions": {
			if (anthropicStyleMarks(model))
				return long && longSupported(model) ? ANTHROPIC_LONG_CACHE_TTL_SEC : SHORT_CACHE_TTL_SEC;
			if (!(model.baseUrl ?? "").includes("api.openai.com")) return undefined;
			return long && longSupported(model) ? OPENAI_LONG_CACHE_TTL_SEC : SHORT_CACHE_TTL_SEC;
		}
		case "openai-responses":
			return long && longSupported(model) ? OPENAI_LONG_CACHE_TTL_SEC : SHORT_CACHE_TTL_SEC;
		case "azure-openai-responses":
		case "openai-codex-responses":
			return SHORT_CACHE_TTL_SEC;
		default:
			return undefined;
	}
}

/** The TTL warming plans with: `warming.ttlSec` when set, else the known one. */
export function warmingTtlSec(
	settings: Pick<WarmingSettings, "ttlSec">,
	model: CacheModelInfo,
	retention: CacheRetention,
): number | undefined {
	if (retention === "none") return undefined;
	if (Number.isFinite(settings.ttlSec) && settings.ttlSec > 0) return settings.ttlSec;
	return knownCacheTtlSec(model, retention);
}

export interface RefreshEstimateInput {
	/** The consultation's first request, as rendered and sent. */
	first: LedgerRequest;
	/** What the provider billed for it: input + cacheRead + cacheWrite of its first round. */
	promptTokens: number;
	pricing: ModelPricing;
	caching: CachingModel;
}

// The refresh is the first request again: it is compared with its own fingerprint, so every key
// the estimator matches on is equal by construction, and the clock plays no part.
const SELF = "warming-refresh";

/**
 * The refresh priced with policy/budget/request-estimate.ts: the first request replayed against itself just
 * after it was sent — its whole prompt read from the cache (token-prefix APIs: in 128-token steps,
 * the remainder at the input price; nothing written on breakpoint APIs) plus 16 output tokens.
 * `coldCostUsd` is the same refresh if the cache had already lapsed (a miss).
 */
export function estimateRefresh(input: RefreshEstimateInput): RequestEstimate {
	const previous = fingerprintOf(input.first, {
		model: SELF,
		effort: undefined,
		routingKey: SELF,
		timestampMs: 0,
		promptTokens: input.promptTokens,
	});
	return estimateRequest({
		request: input.first,
		model: SELF,
		effort: undefined,
		routingKey: SELF,
		pricing: input.pricing,
		caching: input.caching,
		previous,
		outputSamples: [WARMING_OUTPUT_TOKENS],
		nowMs: 0,
		warmWindowSec: 0,
	});
}

/**
 * What a refresh sends. Where only a marked prefix is cached (`anthropicStyleMarks`), the first
 * request cut right after its stable portion: a read keeps alive only the entry it reads, and the
 * entry the next consultation reads is the stable end (through its bridge), not the whole first
 * request with its appendix. Elsewhere the first request whole: a token-prefix cache keeps every
 * prefix of what it reads. docs/request-format.md §7.
 */
export function refreshRequest(first: LedgerRequest, model: MarkedModel): LedgerRequest {
	return anthropicStyleMarks(model) ? stablePrefixRequest(first) : first;
}

export interface WarmingInput {
	config: WarmingSettings;
	model: CacheModelInfo;
	/** `resolveCacheRetention(option, process.env.PI_CACHE_RETENTION)`. */
	cacheRetention: CacheRetention;
	/** The consultation's first request, as sent (kept in memory by the adapter). */
	first: LedgerRequest;
	/** Billed prompt tokens of the first request; undefined when it was never billed (it wrote no cache). */
	promptTokens: number | undefined;
	/** The branch's advisor spend so far (SpendState.totalUsd, this consultation and earlier refreshes included). */
	spentUsd: number;
	budget: { perCallHardUsd: number; sessionUsd: number };
	/** Epoch ms of the consultation's last request: `maxDurationSec` counts from here. */
	consultationMs: number;
	/** Epoch ms the cached prefix was last touched: the consultation's last request, or the last refresh sent. */
	lastTouchMs: number;
	nowMs: number;
}

export type WarmingSkipReason =
	| "disabled"
	/** cacheRetention "none": nothing is cached. */
	| "caching-off"
	/** No cache-read price in the registry entry, or an API with no caching model we know. */
	| "no-cache-pricing"
	| "unknown-ttl"
	| "below-min-prompt"
	/** What the refresh would keep warm is shorter than the model's minimum cacheable prompt: nothing is cached to keep. */
	| "below-min-cacheable"
	/** The refresh would fall after `maxDurationSec` since the consultation, or the cache has already lapsed. */
	| "expired"
	| "no-savings"
	| "below-min-savings"
	/** The refresh's cold cost is over `perCallHardUsd` or over what is left of the branch budget. */
	| "over-budget";

export type WarmingDecision =
	| {
			warm: true;
			/** Epoch ms to send the refresh: 90% of the TTL after the last touch (now, if that is past). */
			atMs: number;
			ttlSec: number;
			/** Net: the gross saving minus the refresh cost. */
			expectedSavingsUsd: number;
			grossSavingsUsd: number;
			refreshCostUsd: number;
			/** The refresh if the cache had lapsed: what the budgets must cover. */
			coldCostUsd: number;
			/** The prompt the refresh keeps warm: the first request's billed prompt, scaled to what the refresh sends. */
			promptTokens: number;
	  }
	| {
			warm: false;
			reason: WarmingSkipReason;
			/** Present once the economics were computed. */
			expectedSavingsUsd?: number;
			refreshCostUsd?: number;
			coldCostUsd?: number;
	  };

/**
 * Whether, and when, to refresh. Reasons in the order they are checked: disabled, caching-off,
 * no-cache-pricing, unknown-ttl, below-min-prompt, expired, below-min-cacheable, no-savings,
 * below-min-savings, over-budget.
 */
export function warmingDecision(input: WarmingInput): WarmingDecision {
	const { config, model } = input;
	if (!config.enabled) return { warm: false, reason: "disabled" };
	if (input.cacheRetention === "none") return { warm: false, reason: "caching-off" };
	const caching = cachingModelFor(model);
	if (caching.kind === "none" || !(model.cost.cacheRead > 0)) return { warm: false, reason: "no-cache-pricing" };
	const ttlSec = warmingTtlSec(config, model, input.cacheRetention);
	if (ttlSec === undefined) return { warm: false, reason: "unknown-ttl" };
	const prompt = input.promptTokens;
	if (prompt === undefined || !(prompt > 0) || prompt < config.minPromptTokens)
		return { warm: false, reason: "below-min-prompt" };

	const lapseMs = input.lastTouchMs + ttlSec * 1000;
	const atMs = Math.max(input.nowMs, input.lastTouchMs + Math.round(ttlSec * 1000 * WARMING_TTL_FRACTION));
	if (input.nowMs >= lapseMs || atMs > input.consultationMs + config.maxDurationSec * 1000)
		return { warm: false, reason: "expired" };

	// What stays warm is what the refresh sends: its share of the first request's billed prompt.
	const sent = refreshRequest(input.first, model);
	const kept =
		sent === input.first || !(input.first.tokens > 0)
			? prompt
			: Math.round((prompt * sent.tokens) / input.first.tokens);
	// Under the model's minimum the provider cached nothing: a refresh would buy nothing back (cache-minimum.ts).
	if (kept < caching.minTokens) return { warm: false, reason: "below-min-cacheable" };
	const refresh = estimateRefresh({ first: sent, promptTokens: kept, pricing: model.cost, caching });
	const refreshCostUsd = costOrInfinity(refresh.costUsd);
	const coldCostUsd = costOrInfinity(refresh.coldCostUsd);
	const grossSavingsUsd = (config.continueProbability * kept * (model.cost.input - model.cost.cacheRead)) / 1e6;
	const expectedSavingsUsd = grossSavingsUsd - refreshCostUsd;
	const economics = { expectedSavingsUsd, refreshCostUsd, coldCostUsd };
	if (!(expectedSavingsUsd > 0)) return { warm: false, reason: "no-savings", ...economics };
	if (expectedSavingsUsd < config.minSavingsUsd) return { warm: false, reason: "below-min-savings", ...economics };

	const spent = Number.isFinite(input.spentUsd) && input.spentUsd > 0 ? input.spentUsd : 0;
	if (coldCostUsd > input.budget.perCallHardUsd || spent + coldCostUsd > input.budget.sessionUsd)
		return { warm: false, reason: "over-budget", ...economics };

	return {
		warm: true,
		atMs,
		ttlSec,
		expectedSavingsUsd,
		grossSavingsUsd,
		refreshCostUsd,
		coldCostUsd,
		promptTokens: kept,
	};
}

export type RefreshOutcome = "hit" | "miss" | "error" | "aborted";

/**
 * What a refresh found, from its response: aborted / error by stop reason (a `length` stop is the
 * 16-token ceiling doing its job), else a hit when at least half its prompt was read from the
 * cache — a refresh of a live entry reads all of it (token-prefix APIs: all but < 128 tokens), one
 * that found it lapsed reads next to nothing and wrote it anew. A miss, error or abort ends the chain.
 */
export function refreshOutcome(
	usage: Pick<TokenCounts, "input" | "cacheRead" | "cacheWrite"> | undefined,
	stopReason: string | undefined,
): RefreshOutcome {
	if (stopReason === "aborted") return "aborted";
	if (stopReason === "error") return "error";
	if (usage === undefined) return "error";
	const prompt = promptTokensOf(usage);
	return prompt > 0 && usage.cacheRead * 2 >= prompt ? "hit" : "miss";
}

export interface WarmingUsageInput {
	/** `provider:modelId`. */
	model: string;
	effort?: string;
	/** The refresh's pi-ai Usage (zero usage when it was aborted before anything was billed). */
	usage: unknown;
	/**
	 * `requestRecord(first request, { routingKey, timestampMs: when the refresh was sent, payloadHash })`:
	 * the refresh counts as the newest touch of that request, so the next consultation's estimate
	 * expects its cache reads from it.
	 */
	request?: RequestRecord;
	/** Epoch ms when the refresh settled. */
	timestampMs: number;
}

/** `data` of the `advisor-usage` entry every refresh leaves, whatever its outcome. */
export function warmingUsageRecord(input: WarmingUsageInput): UsageRecordData {
	const out: UsageRecordData = {
		kind: "warming",
		model: input.model,
		usage: input.usage,
		timestampMs: input.timestampMs,
	};
	if (input.effort !== undefined) out.effort = input.effort;
	if (input.request !== undefined) out.request = input.request;
	return out;
}
