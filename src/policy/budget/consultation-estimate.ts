/**
 * A consultation as the unit of cost: its first request and the follow-up requests that come after
 * it (docs/configuration.md, "The estimate"). A follow-up is any later request of the same
 * consultation — an investigation round (the previous request + the advisor's reply + its tool
 * results), the request after the round that spent the allowance (the same + the in-band notice), a
 * retry (the same request again). Each repeats the previous one byte for byte and adds to it, so
 * where the provider caches it is mostly a cache read.
 *
 * - expected: the first request as estimateRequest prices it, then the follow-ups this session's
 *   recorded consultations of the same model and effort show — how many, how much each one grew, what
 *   each answered — or, with none on record, the documented prior (PRIOR below);
 * - at most: the first request with a full answer (the output cap), then `tools.maxRounds` follow-ups,
 *   each growing by a full answer and one tool result at its cap, and one retry of the largest of
 *   them: the worst the loop allows but a second retry, which the guard then stops;
 * - the guard (`guardRequest`): before every request, whether it fits what is left of the consultation's
 *   limit with a full answer — and, while the advisor may still call tools, room for one more request
 *   after it; if not, the advisor is told in-band to answer now; if not even that fits, it stops.
 */

import { effortKey, promptTokensOf, type SpendState } from "../../reducers/index.ts";
import type { CachingModel, ModelPricing, RequestEstimate } from "./request-estimate.ts";
import { costOrInfinity } from "./request-estimate.ts";

/** What the estimate assumes before the session has a consultation of this model on record. */
export const PRIOR = Object.freeze({
	/** Follow-up requests of a consultation with tools (never more than `tools.maxRounds`). */
	rounds: 2,
	/** Tokens each follow-up adds: the advisor's reply with its tool call, and the call's result. */
	growthTokens: 2_000,
	/** Output tokens of a reply that calls tools. */
	roundOutputTokens: 150,
});

/** How many of the newest consultations the estimate learns from. */
export const HISTORY = 5;

/** Tokens a tool call and the framing of its result add beyond the result's own text. */
export const CALL_OVERHEAD_TOKENS = 50;

/** One recorded consultation of the model: each request's billed prompt and output, first to last. */
export interface ConsultationShape {
	prompts: number[];
	outputs: number[];
}

/**
 * The newest (up to HISTORY) consultations and reviews of this model and effort on the branch that
 * answered and recorded every request's usage: the estimate's evidence.
 */
export function consultationHistory(
	spend: Pick<SpendState, "records">,
	model: string,
	effort: string | undefined,
): ConsultationShape[] {
	const key = effortKey(effort);
	const shapes: ConsultationShape[] = [];
	for (let i = spend.records.length - 1; i >= 0 && shapes.length < HISTORY; i--) {
		const record = spend.records[i]!;
		if (record.source === "warming" || record.outcome !== "ok" || record.model !== model) continue;
		if (effortKey(record.effort) !== key || record.requests.length === 0) continue;
		const prompts = record.requests.map(promptTokensOf);
		if (prompts.some((p) => !(p > 0))) continue;
		shapes.unshift({ prompts, outputs: record.requests.map((r) => r.output) });
	}
	return shapes;
}

const mean = (values: readonly number[]) =>
	values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length;

/** What the history (or the prior) says a follow-up looks like. */
interface FollowUps {
	/** Follow-up requests expected (a mean: not a whole number). */
	count: number;
	/** Prompt tokens each adds to the one before. */
	growth: number;
	/** Output tokens of each. */
	output: number;
	/** Output tokens of the first request. */
	firstOutput: number;
	basis: "history" | "prior";
}

function followUps(input: ConsultationEstimateInput): FollowUps {
	const { history, maxCalls } = input;
	// Every round the allowance permits, and one retry: what the at most counts.
	const most = maxCalls === 0 ? 0 : maxCalls + 1;
	if (history.length === 0) {
		return {
			count: Math.min(PRIOR.rounds, maxCalls),
			growth: PRIOR.growthTokens,
			output: PRIOR.roundOutputTokens,
			firstOutput: input.first.outputTokens,
			basis: "prior",
		};
	}
	const growths: number[] = [];
	const outputs: number[] = [];
	for (const shape of history) {
		for (let k = 1; k < shape.prompts.length; k++) {
			growths.push(Math.max(0, shape.prompts[k]! - shape.prompts[k - 1]!));
			outputs.push(shape.outputs[k]!);
		}
	}
	return {
		count: Math.min(most, mean(history.map((s) => s.prompts.length - 1)) ?? 0),
		growth: mean(growths) ?? PRIOR.growthTokens,
		output: mean(outputs) ?? PRIOR.roundOutputTokens,
		firstOutput: mean(history.map((s) => s.outputs[0]!)) ?? 0,
		basis: "history",
	};
}

/**
 * A follow-up after a request of `previousPrompt` tokens, adding `growth` and answering with `output`
 * tokens, cached as estimateRequest caches (request-estimate.ts): the previous request is read back where
 * the provider caches and it reached the model's minimum; on the breakpoint APIs everything not read
 * is written once the follow-up reaches it; the rest is input.
 */
export function followUpUsd(
	pricing: ModelPricing,
	caching: CachingModel,
	previousPrompt: number,
	growth: number,
	output: number,
): number {
	const whole = previousPrompt + growth;
	const read = caching.kind !== "none" && previousPrompt >= caching.minTokens ? previousPrompt : 0;
	const written = caching.kind === "breakpoints" && whole >= caching.minTokens ? whole - read : 0;
	const writePrice = pricing.cacheWrite > 0 ? pricing.cacheWrite : pricing.input;
	const uncached = whole - read - written;
	return (read * pricing.cacheRead + written * writePrice + uncached * pricing.input + output * pricing.output) / 1e6;
}

export interface ConsultationEstimateInput {
	/** The first request, as estimateRequest priced it. */
	first: RequestEstimate;
	pricing: ModelPricing;
	caching: CachingModel;
	/** `consultationHistory(spend, model, effort)`. */
	history: readonly ConsultationShape[];
	/** Tool calls the advisor may run (`tools.maxRounds`); 0 without tools. */
	maxCalls: number;
	/** Output tokens one request can bill at most (the cap sent, and what the provider adds to it). */
	outputCap: number;
	/** Prompt tokens one tool call's result can add at most (its cap in tokens + CALL_OVERHEAD_TOKENS). */
	callTokens: number;
}

export interface ConsultationEstimate {
	/** The first request: its prompt and its expected answer. */
	firstUsd: number;
	/** The first request and the follow-ups expected. */
	expectedUsd: number;
	/** Follow-ups expected (a mean). */
	expectedRounds: number;
	/** Investigation rounds the loop allows (`tools.maxRounds`). */
	maxRounds: number;
	/** The first request and maxRounds follow-ups, every answer at the output cap, and one retry of the largest. */
	atMostUsd: number;
	/** Where the follow-ups' number and size come from. */
	basis: "history" | "prior";
	/** What a request may bill for its answer: outputCap at the output price. */
	outputCapUsd: number;
}

export function estimateConsultation(input: ConsultationEstimateInput): ConsultationEstimate {
	const { first, pricing, caching } = input;
	// Within what the loop allows now, whatever earlier limits allowed: no answer past the cap, no round
	// larger than a full answer and a result at its cap.
	const shape = followUps(input);
	const withinCap = {
		...shape,
		growth: Math.min(shape.growth, input.outputCap + input.callTokens),
		output: Math.min(shape.output, input.outputCap),
		firstOutput: Math.min(shape.firstOutput, input.outputCap),
	};
	const firstUsd = first.promptCostUsd + (withinCap.firstOutput * pricing.output) / 1e6;
	// A mean count of follow-ups: whole ones, then the fraction of the next.
	let expectedUsd = firstUsd;
	let prompt = first.promptTokens;
	for (let k = 0; k < Math.ceil(withinCap.count); k++) {
		const weight = Math.min(1, withinCap.count - k);
		expectedUsd += weight * followUpUsd(pricing, caching, prompt, withinCap.growth, withinCap.output);
		prompt += withinCap.growth;
	}
	const outputCapUsd = (input.outputCap * pricing.output) / 1e6;
	let largest = first.promptCostUsd + outputCapUsd;
	let atMostUsd = largest;
	prompt = first.promptTokens;
	for (let k = 0; k < input.maxCalls; k++) {
		const growth = input.outputCap + input.callTokens;
		const round = followUpUsd(pricing, caching, prompt, growth, input.outputCap);
		atMostUsd += round;
		largest = Math.max(largest, round);
		prompt += growth;
	}
	// Room for one retry (a transient failure, or an answer with nothing in it) of the largest request.
	atMostUsd += largest;
	return {
		firstUsd: costOrInfinity(firstUsd),
		expectedUsd: costOrInfinity(expectedUsd),
		expectedRounds: withinCap.count,
		maxRounds: input.maxCalls,
		atMostUsd: costOrInfinity(Math.max(atMostUsd, expectedUsd)),
		basis: withinCap.basis,
		outputCapUsd: costOrInfinity(outputCapUsd),
	};
}

// ---------------------------------------------------------------------------------------------
// The guard before every request
// ---------------------------------------------------------------------------------------------

export interface GuardInput {
	/** What this consultation may bill in all: the confirmed "at most", within the hard and branch limits. */
	limitUsd: number;
	/** Billed so far in this consultation. */
	billedUsd: number;
	/** This request's prompt, priced (estimateRequest's promptCostUsd, with headroom on what is new). */
	promptUsd: number;
	/** Its prompt tokens, the base of the request that may follow it. */
	promptTokens: number;
	/** ConsultationEstimate.outputCapUsd. */
	outputCapUsd: number;
	outputCap: number;
	/** Prompt tokens the tool results of the reply to this request can add at most; 0 when it cannot call tools. */
	roundTokens: number;
	pricing: ModelPricing;
	caching: CachingModel;
}

/** "send": with tools; "answer-now": told in-band to answer with what it has; "stop": not even that fits. */
export type Guard = "send" | "answer-now" | "stop";

export function guardRequest(input: GuardInput): Guard {
	const left = input.limitUsd - Math.max(0, input.billedUsd);
	const self = costOrInfinity(input.promptUsd) + input.outputCapUsd;
	if (!(self <= left)) return "stop";
	if (input.roundTokens <= 0) return "send";
	// Room for the request after this one: this prompt read back, a full answer and the round's results added.
	const after = followUpUsd(
		input.pricing,
		input.caching,
		input.promptTokens,
		input.outputCap + input.roundTokens,
		input.outputCap,
	);
	return self + after <= left ? "send" : "answer-now";
}
