/**
 * What the next advisor request will cost, before it is sent: prompt tokens, expected
 * cache reads and writes, output tokens, and the price of each from the model's registry entry.
 * Pure: the previous request, the clock and the prices come in as arguments.
 *
 * Rules:
 * - Prompt. When the previous request of the same model shares this request's stable prefix
 *   (the previous stable hash is found at the same unit here), the previous request's billed
 *   prompt stands in for what both share: `previous actual + (this estimate − previous estimate)`
 *   (chars/4 on both sides, so the previous volatile tail is taken out and the new part added),
 *   and never less than this request's chars/4 scaled by the previous actual/estimate ratio.
 *   Otherwise chars/4 with 20% headroom.
 * - Cache reads, only when model, effort, routing key and system prompt equal the previous
 *   request's, a prefix is shared, and the previous request was within `warmWindowSec`. Which
 *   shared prefix can be read depends on the API's caching model:
 *     token prefix (OpenAI-style): the longest shared prefix we can prove — the whole previous
 *       request (retry, next investigation round), else its stable portion, else the head —
 *       from the model's minimum up (policy/budget/cache-minimum.ts), in 128-token steps;
 *     breakpoints (Anthropic-style): only a prefix that ends on a breakpoint the previous
 *       request wrote (system prompt, last tool, the end of the stable portion when the adapter
 *       marks it, the last user message = the whole previous request), and only when one of this
 *       request's own breakpoints sits at most 20 blocks after it (the provider's lookback) —
 *       the adapter's bridge to the previous stable end is one of them (policy/budget/breakpoint-placement.ts);
 *       every uncached prompt token is written to the cache (pi-ai marks the last user message) once
 *       the prompt reaches the model's minimum, and nothing is read below it;
 *     none: no reads, no writes.
 *   A read is priced in real tokens: the chars/4 size of the shared prefix × actual/estimate of
 *   the previous request.
 * - Output: the mean of the last five positive output counts for this model and effort, rounded
 *   up; 0 when there are none (`outputKnown: false`).
 * - Cost: uncached × input + reads × cacheRead + writes × cacheWrite + output × output, per
 *   million tokens. `coldCostUsd` is the same request with nothing read from the cache.
 */

import { assertNever, type EnvelopeEstimate, isRecord, type RequestRecord } from "../../events/index.ts";
import { OUTPUT_SAMPLES, type RequestFingerprint } from "../../reducers/index.ts";
import type { LedgerRequest } from "../../render/index.ts";
import { tokensForChars, unitAt, unitCount } from "../../render/index.ts";
import { extensionMarks, LOOKBACK_BLOCKS, withinReach } from "./breakpoint-placement.ts";
import { minCachedTokens } from "./cache-minimum.ts";

/** USD per million tokens: pi-ai's `Model.cost`. */
export interface ModelPricing {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
}

export type CachingModel =
	| {
			kind: "token-prefix";
			/** Prompts shorter than this are never cached: the model's minimum (cache-minimum.ts). */
			minTokens: number;
			/** Cached tokens come in steps of this size. */
			granularity: number;
	  }
	| {
			kind: "breakpoints";
			/** A prefix shorter than this is never written, so never read: the model's minimum (cache-minimum.ts). */
			minTokens: number;
			/** How many blocks before one of its own breakpoints a request looks for an earlier cache entry. */
			lookbackBlocks: number;
			/**
			 * The adapter marks the end of the stable portion, and bridges to the previous request's stable
			 * end when it lies further back than the lookback (src/adapter/extension/consult/payload-cache-marks.ts).
			 */
			stableBreakpoint: boolean;
	  }
	| { kind: "none" };

export type CachingKind = CachingModel["kind"];

/** The previous request's prefix expected to be read from the cache. */
export type CacheMatch = "none" | "system" | "tools" | "stable" | "full";

export interface RequestEstimate {
	/** Every prompt token: uncached + cacheRead + cacheWrite. */
	promptTokens: number;
	cacheReadTokens: number;
	cacheWriteTokens: number;
	outputTokens: number;
	/** false: no output count on record for this model and effort, so output is estimated as 0. */
	outputKnown: boolean;
	costUsd: number;
	/** The prompt's part of costUsd (uncached, reads and writes): what the request costs before it answers. */
	promptCostUsd: number;
	/** The same request with nothing read from the cache. */
	coldCostUsd: number;
	/** How promptTokens was estimated. */
	promptBasis: "previous-actual" | "chars-headroom";
	cacheMatch: CacheMatch;
	/** No part of the conversation (beyond the fixed head) is expected from the cache. */
	cold: boolean;
}

/**
 * An estimated cost as the decisions take it: one that is not a number (a registry entry without
 * prices) is never taken as free, and none is below zero. The gate and the warming decision both read
 * estimates through it.
 */
export function costOrInfinity(usd: number): number {
	return Number.isNaN(usd) ? Number.POSITIVE_INFINITY : Math.max(0, usd);
}

export interface EstimateInput {
	/** The request about to be sent; for an investigation round or a retry, `extendRequest(first, context)`. */
	request: LedgerRequest;
	/** `provider:modelId`. */
	model: string;
	/** Absent = no reasoning sent. */
	effort: string | undefined;
	/** The `sessionId` the request is sent with. */
	routingKey: string;
	pricing: ModelPricing;
	caching: CachingModel;
	/**
	 * The newest billed request this one could reuse: within a consultation, the previous round or
	 * attempt (`fingerprintOf`); for its first request, `previousRequest(spend, model)`.
	 */
	previous: RequestFingerprint | undefined;
	/** `outputSamples(spend, model, effort)`. */
	outputSamples: readonly number[];
	/** Epoch ms, passed in. */
	nowMs: number;
	warmWindowSec: number;
}

/** Headroom on chars/4 when no previous actual prompt applies. */
export const PROMPT_HEADROOM = 1.2;
/** Anthropic's cache lookback, in content blocks. */
export const BREAKPOINT_LOOKBACK_BLOCKS = LOOKBACK_BLOCKS;
/** OpenAI reports cached tokens in steps of 128. */
export const OPENAI_CACHE_STEP = 128;

const OPENAI_APIS: ReadonlySet<string> = new Set([
	"openai-completions",
	"openai-responses",
	"azure-openai-responses",
	"openai-codex-responses",
]);
const OTHER_PREFIX_APIS: ReadonlySet<string> = new Set([
	"google-generative-ai",
	"google-vertex",
	"mistral-conversations",
]);

/** The model fields that say which marks pi-ai sends (pi-ai's `Model` fits). */
export interface MarkedModel {
	api: string;
	provider?: string;
	id?: string;
	compat?: unknown;
}

/**
 * pi-ai sends Anthropic-style cache marks for this model: Anthropic's Messages API, Bedrock's
 * Converse (`cachePoint` blocks; pi-ai places them only for the Claude models it knows, which the
 * adapter finds in the payload), and an OpenAI-compatible endpoint with `compat.cacheControlFormat:
 * "anthropic"`, which pi-ai also sets itself for OpenRouter's `anthropic/…` models.
 */
export function anthropicStyleMarks(model: MarkedModel): boolean {
	if (model.api === "anthropic-messages" || model.api === "bedrock-converse-stream") return true;
	if (model.api !== "openai-completions") return false;
	if (isRecord(model.compat) && model.compat.cacheControlFormat === "anthropic") return true;
	return model.provider === "openrouter" && (model.id ?? "").startsWith("anthropic/");
}

/**
 * The caching model of a pi-ai model. Breakpoints where pi-ai sends Anthropic-style marks
 * (`anthropicStyleMarks`), and there the adapter adds its own: the stable end and the bridge
 * (src/adapter/extension/consult/payload-cache-marks.ts). Token prefix for the OpenAI, Google and Mistral APIs;
 * none for anything else, and for a model whose registry entry has no cache-read price (we do not
 * assume a discount nobody listed). Either caches only from the model's minimum up (cache-minimum.ts).
 */
export function cachingModelFor(model: MarkedModel & { cost: ModelPricing }): CachingModel {
	if (!(model.cost.cacheRead > 0)) return { kind: "none" };
	const minTokens = minCachedTokens(model);
	if (anthropicStyleMarks(model)) {
		return { kind: "breakpoints", minTokens, lookbackBlocks: BREAKPOINT_LOOKBACK_BLOCKS, stableBreakpoint: true };
	}
	if (OPENAI_APIS.has(model.api)) return { kind: "token-prefix", minTokens, granularity: OPENAI_CACHE_STEP };
	if (OTHER_PREFIX_APIS.has(model.api)) return { kind: "token-prefix", minTokens, granularity: 1 };
	return { kind: "none" };
}

/** chars/4 with the 20% headroom: the prompt of a request nothing is known about. */
export function coldPromptTokens(request: Pick<LedgerRequest, "tokens">): number {
	return Math.ceil(request.tokens * PROMPT_HEADROOM);
}

/** The mean of the last five positive counts, rounded up; undefined when there are none. */
export function expectedOutput(samples: readonly number[]): number | undefined {
	const positive = samples.filter((n) => Number.isFinite(n) && n > 0).slice(-OUTPUT_SAMPLES);
	if (positive.length === 0) return undefined;
	return Math.ceil(positive.reduce((a, b) => a + b, 0) / positive.length);
}

function prefixAt(request: LedgerRequest, count: number, hash: string | undefined): boolean {
	if (hash === undefined || count < 1 || count > unitCount(request)) return false;
	return unitAt(request, count - 1)!.prefixHash === hash;
}

function priced(pricing: ModelPricing, prompt: number, reads: number, writes: number, output: number): number {
	const uncached = Math.max(0, prompt - reads - writes);
	const writePrice = pricing.cacheWrite > 0 ? pricing.cacheWrite : pricing.input;
	return (uncached * pricing.input + reads * pricing.cacheRead + writes * writePrice + output * pricing.output) / 1e6;
}

interface Candidate {
	match: Exclude<CacheMatch, "none">;
	/** Index of the candidate's last unit. */
	unit: number;
	/** chars/4 size of the prefix. */
	tokens: number;
}

/** The shared prefixes we can prove from the previous request's fingerprint, longest last. */
function sharedPrefixes(request: LedgerRequest, previous: RequestFingerprint): Candidate[] {
	const out: Candidate[] = [];
	if (prefixAt(request, 1, previous.systemHash))
		out.push({ match: "system", unit: 0, tokens: tokensForChars(unitAt(request, 0)!.prefixChars) });
	if (prefixAt(request, 2, previous.toolsHash))
		out.push({ match: "tools", unit: 1, tokens: tokensForChars(unitAt(request, 1)!.prefixChars) });
	if (prefixAt(request, previous.stableUnits, previous.stableHash))
		out.push({ match: "stable", unit: previous.stableUnits - 1, tokens: previous.stableTokens });
	if (previous.unitCount > previous.stableUnits && prefixAt(request, previous.unitCount, previous.hash))
		out.push({ match: "full", unit: previous.unitCount - 1, tokens: previous.estimatedTokens });
	return out;
}

/** Breakpoints a request writes (unit indices), as pi-ai and the adapter place them. */
function writtenBreakpoints(stableUnits: number, count: number, stableBreakpoint: boolean): number[] {
	const points = [0, 1, count - 1];
	if (stableBreakpoint) points.push(stableUnits - 1);
	return points.filter((p) => p >= 0 && p < count);
}

function readable(candidate: Candidate, request: LedgerRequest, previous: RequestFingerprint, caching: CachingModel) {
	switch (caching.kind) {
		case "none":
			return false;
		case "token-prefix":
			return true;
		case "breakpoints": {
			const written = writtenBreakpoints(previous.stableUnits, previous.unitCount, caching.stableBreakpoint);
			if (!written.includes(candidate.unit)) return false;
			const mine = writtenBreakpoints(request.stable.unitCount, unitCount(request), caching.stableBreakpoint);
			const bridge = caching.stableBreakpoint
				? extensionMarks(request, previous, caching.lookbackBlocks).bridge
				: undefined;
			if (bridge !== undefined) mine.push(bridge);
			return withinReach(candidate.unit, mine, caching.lookbackBlocks);
		}
		default:
			return assertNever(caching, "caching model");
	}
}

export function estimateRequest(input: EstimateInput): RequestEstimate {
	const { request, previous, caching, pricing } = input;
	const sameModel = previous !== undefined && previous.model === input.model;
	const actual = sameModel && previous.promptTokens !== undefined && previous.promptTokens > 0;
	const ratio = actual && previous.estimatedTokens > 0 ? previous.promptTokens! / previous.estimatedTokens : 1;

	let prompt: number;
	let promptBasis: RequestEstimate["promptBasis"];
	if (actual && previous.estimatedTokens > 0 && prefixAt(request, previous.stableUnits, previous.stableHash)) {
		const shifted = previous.promptTokens! + request.tokens - previous.estimatedTokens;
		prompt = Math.max(shifted, Math.ceil(request.tokens * ratio));
		promptBasis = "previous-actual";
	} else {
		prompt = coldPromptTokens(request);
		promptBasis = "chars-headroom";
	}

	let reads = 0;
	let cacheMatch: CacheMatch = "none";
	const age = previous === undefined ? -1 : input.nowMs - previous.timestampMs;
	const warm =
		previous !== undefined &&
		sameModel &&
		previous.effort === input.effort &&
		previous.routingKey === input.routingKey &&
		prefixAt(request, 1, previous.systemHash) &&
		age >= 0 &&
		age <= input.warmWindowSec * 1000;
	if (warm) {
		const candidates = sharedPrefixes(request, previous).filter((c) => readable(c, request, previous, caching));
		const best = candidates[candidates.length - 1];
		if (best !== undefined) {
			reads = Math.min(prompt, Math.round(best.tokens * ratio));
			cacheMatch = best.match;
		}
	}
	if (caching.kind === "none" || reads < caching.minTokens) reads = 0;
	else if (caching.kind === "token-prefix" && caching.granularity > 1)
		reads = Math.floor(reads / caching.granularity) * caching.granularity;
	if (reads === 0) cacheMatch = "none";

	const cacheable = caching.kind === "breakpoints" && prompt >= caching.minTokens;
	const writes = cacheable ? prompt - reads : 0;
	const coldWrites = cacheable ? prompt : 0;

	const expected = expectedOutput(input.outputSamples);
	const output = expected ?? 0;
	return {
		promptTokens: prompt,
		cacheReadTokens: reads,
		cacheWriteTokens: writes,
		outputTokens: output,
		outputKnown: expected !== undefined,
		costUsd: priced(pricing, prompt, reads, writes, output),
		promptCostUsd: priced(pricing, prompt, reads, writes, 0),
		coldCostUsd: priced(pricing, prompt, 0, coldWrites, output),
		promptBasis,
		cacheMatch,
		cold: cacheMatch !== "stable" && cacheMatch !== "full",
	};
}

// ---------------------------------------------------------------------------------------------
// Records: what the adapter writes, and what it keeps in memory within a consultation
// ---------------------------------------------------------------------------------------------

export interface RequestMeta {
	/** The `sessionId` sent. */
	routingKey: string;
	/** Epoch ms at dispatch. */
	timestampMs: number;
	/** Billed prompt tokens (usage input + cacheRead + cacheWrite) of this request, once known. */
	promptTokens?: number;
	payloadHash?: string;
	/** Epoch ms of the consultation's last request, once known. */
	lastSentMs?: number;
}

/** `details.request` for the envelope (and `request` of a usage record): the ledger request, measured. */
export function requestRecord(request: LedgerRequest, meta: RequestMeta): RequestRecord {
	const out: RequestRecord = {
		hash: request.hash,
		messageCount: request.messageCount,
		estimatedTokens: request.tokens,
		timestamp: meta.timestampMs,
		unitCount: unitCount(request),
		stableHash: request.stable.hash,
		stableUnits: request.stable.unitCount,
		stableTokens: request.stable.tokens,
		routingKey: meta.routingKey,
	};
	const system = unitAt(request, 0)?.prefixHash;
	const tools = unitAt(request, 1)?.prefixHash;
	if (system !== undefined) out.systemHash = system;
	if (tools !== undefined) out.toolsHash = tools;
	if (meta.payloadHash !== undefined) out.payloadHash = meta.payloadHash;
	if (meta.promptTokens !== undefined) out.promptTokens = meta.promptTokens;
	if (meta.lastSentMs !== undefined) out.lastSentMs = meta.lastSentMs;
	return out;
}

/**
 * The fingerprint of a request just sent, for the next request of the same consultation (the next
 * investigation round, or a retry): pass the request as sent (`extendRequest(first, context)`) and
 * the billed prompt of its response. A request that was not billed wrote no cache: do not use it.
 */
export function fingerprintOf(
	request: LedgerRequest,
	meta: { model: string; effort: string | undefined; routingKey: string; timestampMs: number; promptTokens: number },
): RequestFingerprint {
	return {
		model: meta.model,
		effort: meta.effort,
		routingKey: meta.routingKey,
		systemHash: unitAt(request, 0)?.prefixHash,
		toolsHash: unitAt(request, 1)?.prefixHash,
		stableHash: request.stable.hash,
		stableUnits: request.stable.unitCount,
		stableTokens: request.stable.tokens,
		hash: request.hash,
		unitCount: unitCount(request),
		estimatedTokens: request.tokens,
		promptTokens: meta.promptTokens,
		timestampMs: meta.timestampMs,
	};
}

/** `details.estimate` of the envelope (docs/request-format.md); `sessionUsd` is what is left of the branch budget. */
export function envelopeEstimate(estimate: RequestEstimate, remainingSessionUsd: number): EnvelopeEstimate {
	return {
		promptTokens: estimate.promptTokens,
		cacheReadTokens: estimate.cacheReadTokens,
		outputTokens: estimate.outputTokens,
		costUsd: estimate.costUsd,
		coldCostUsd: estimate.coldCostUsd,
		sessionUsd: remainingSessionUsd,
	};
}
