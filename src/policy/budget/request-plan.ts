/**
 * The budget steps of a consultation, composed, so the adapter makes one pure call
 * before each request and only does the impure parts itself: the dialog, `pi.appendEntry`, the
 * clock, sending.
 *
 * Before the first request — `planConsultation`:
 *   render with the sticky anchor → estimate the first request → estimate the consultation (its
 *   follow-ups: consultation-estimate.ts) → gate; on "trim": chooseTrim → re-render → re-estimate → gate again
 *   (trim "done"); a trim that cannot fit is a skip with the context-budget reason. The result says
 *   what to persist before dispatch (`persist`), what the envelope carries (`details.estimate`,
 *   `details.context`), and the consultation's limit if it is sent.
 * Every request, the first included — `planNextRequest`:
 *   the conversation as it has grown → estimate against the newest billed request → the guard of
 *   the consultation's limit: send, send with the in-band "answer now", or stop.
 *
 * "confirm" comes back as it is: the adapter asks once per consultation; a yes grants the limit the
 * decision names.
 */

import type { Context } from "@mariozechner/pi-ai";
import type { ContextTrim, EnvelopeEstimate, TrimAnchorRecord } from "../../events/index.ts";
import type { LedgerState, RenderTrim } from "../../reducers/index.ts";
import {
	activeTrim,
	outputSamples,
	previousRequest,
	type RequestFingerprint,
	remainingSessionUsd,
	type SpendState,
	type TrimAnchorState,
	trimAnchorRecord,
} from "../../reducers/index.ts";
import {
	extendRequest,
	type LedgerRequest,
	type RenderMemo,
	type RenderOptions,
	renderRequest,
	SKIP_REASONS,
} from "../../render/index.ts";
import {
	type ConsultationEstimate,
	consultationHistory,
	estimateConsultation,
	guardRequest,
} from "./consultation-estimate.ts";
import { type BudgetLimits, decideGate, type GateDecision } from "./gate.ts";
import {
	type CachingModel,
	type EstimateInput,
	envelopeEstimate,
	estimateRequest,
	type ModelPricing,
	PROMPT_HEADROOM,
	type RequestEstimate,
} from "./request-estimate.ts";
import { chooseTrim, contextDetails } from "./trim.ts";

/** Who is asking, with what model, and when. */
export interface PlanModel {
	/** `provider:modelId`. */
	model: string;
	effort: string | undefined;
	/** The `sessionId` every request is sent with (`advisor:<Pi session id>`). */
	routingKey: string;
	pricing: ModelPricing;
	caching: CachingModel;
}

export interface PlanBudget extends BudgetLimits {
	warmWindowSec: number;
}

/** What bounds a consultation's follow-ups: the tools' allowance and the output cap. */
export interface PlanBounds {
	/** Tool calls the advisor may run (`tools.maxRounds`); 0 when the request declares no tools. */
	maxCalls: number;
	/** Output tokens one request can bill at most. */
	outputCap: number;
	/** Prompt tokens one tool call's result can add at most. */
	callTokens: number;
}

export interface ConsultationPlanInput extends PlanModel, PlanBounds {
	ledger: LedgerState;
	/** The folded trim anchor of the branch (`trimAnchorOf` / `foldTrimAnchor`). */
	anchor: TrimAnchorState;
	/** The folded spend of the branch (`spendOf` / `foldSpend`). */
	spend: SpendState;
	/** Render options without `trim`: the sticky anchor is applied here. */
	render: Omit<RenderOptions, "trim">;
	memo?: RenderMemo;
	budget: PlanBudget;
	interactive: boolean;
	/** Epoch ms. */
	nowMs: number;
}

export interface ConsultationPlan {
	/** The first request to send (as rendered, possibly trimmed). */
	request: LedgerRequest;
	/** Its estimate. */
	estimate: RequestEstimate;
	/** The consultation's: expected, at most. */
	consultation: ConsultationEstimate;
	/** Never "trim": trimming has been done by the time a plan is returned. */
	decision: Exclude<GateDecision, { action: "trim" }>;
	/** `details.estimate` of the envelope. */
	envelopeEstimate: EnvelopeEstimate;
	/** What the request was rendered with (already applied to `request`). */
	trim: RenderTrim | undefined;
	/** When defined: `pi.appendEntry(CUSTOM_TYPES.trimAnchor, persist)` BEFORE sending. */
	persist: TrimAnchorRecord | undefined;
	/** `details.context` of the envelope: present when the request is trimmed (sticky or new). */
	context: ContextTrim | undefined;
}

function noTrim(decision: GateDecision): Exclude<GateDecision, { action: "trim" }> {
	// decideGate only says "trim" with trim "available"; the second call passes "done".
	return decision.action === "trim" ? { action: "skip", reason: "", limit: "context" } : decision;
}

/** `details.estimate`: the first request's figures, the consultation's, and the limit a send holds it to. */
function withConsultation(
	base: EnvelopeEstimate,
	consultation: ConsultationEstimate,
	decision: Exclude<GateDecision, { action: "trim" }>,
): EnvelopeEstimate {
	const out: EnvelopeEstimate = {
		...base,
		consultationUsd: consultation.expectedUsd,
		atMostUsd: consultation.atMostUsd,
		expectedRounds: consultation.expectedRounds,
		basis: consultation.basis,
	};
	if (decision.action === "send" || decision.action === "confirm") out.limitUsd = decision.limitUsd;
	return out;
}

/** What a consultation's estimate reads besides its first request: who, the bounds, the branch's spend, the clock. */
export interface ConsultationEstimateSetup extends PlanModel, PlanBounds {
	/** The folded spend of the branch before the consultation. */
	spend: SpendState;
	budget: Pick<PlanBudget, "warmWindowSec">;
	/** Epoch ms. */
	nowMs: number;
}

/** A request of this consultation priced by `estimateRequest`, asked by the plan's model. */
function estimateFor(
	who: PlanModel,
	request: LedgerRequest,
	against: Pick<EstimateInput, "previous" | "outputSamples" | "nowMs" | "warmWindowSec">,
): RequestEstimate {
	return estimateRequest({
		request,
		model: who.model,
		effort: who.effort,
		routingKey: who.routingKey,
		pricing: who.pricing,
		caching: who.caching,
		previous: against.previous,
		outputSamples: against.outputSamples,
		nowMs: against.nowMs,
		warmWindowSec: against.warmWindowSec,
	});
}

/**
 * A consultation whose first request is `request`: that request priced against the newest billed
 * request of the model, then the whole consultation from the branch's recorded consultations (or the
 * prior). The one estimate: the gate decides on it, and `replay` reports it beside what was billed.
 */
export function estimateWholeConsultation(
	input: ConsultationEstimateSetup,
	request: LedgerRequest,
): { first: RequestEstimate; consultation: ConsultationEstimate } {
	const first = estimateFor(input, request, {
		previous: previousRequest(input.spend, input.model),
		outputSamples: outputSamples(input.spend, input.model, input.effort),
		nowMs: input.nowMs,
		warmWindowSec: input.budget.warmWindowSec,
	});
	const history = consultationHistory(input.spend, input.model, input.effort);
	return { first, consultation: estimateConsultation({ ...input, first, history }) };
}

export function planConsultation(input: ConsultationPlanInput): ConsultationPlan {
	const sticky = activeTrim(input.anchor, input.ledger);
	const options = (trim: RenderTrim | undefined): RenderOptions => ({ ...input.render, trim });
	const estimate = (request: LedgerRequest) => estimateWholeConsultation(input, request);
	const gate = (e: ReturnType<typeof estimate>, trim: "available" | "done") =>
		decideGate({
			first: e.first,
			consultation: e.consultation,
			budget: input.budget,
			spentUsd: input.spend.totalUsd,
			interactive: input.interactive,
			confirmation: "not-asked",
			trim,
		});
	const remaining = remainingSessionUsd(input.spend, input.budget.sessionUsd);
	const planned = (
		request: LedgerRequest,
		e: ReturnType<typeof estimate>,
		decision: Exclude<GateDecision, { action: "trim" }>,
		rest: Pick<ConsultationPlan, "trim" | "persist" | "context">,
	): ConsultationPlan => ({
		request,
		estimate: e.first,
		consultation: e.consultation,
		decision,
		envelopeEstimate: withConsultation(envelopeEstimate(e.first, remaining), e.consultation, decision),
		...rest,
	});

	const request = renderRequest(input.ledger, options(sticky), input.memo);
	const first = estimate(request);
	const decision = gate(first, "available");
	if (decision.action !== "trim") {
		const context = sticky === undefined ? undefined : contextDetails(sticky, first.first.promptTokens);
		return planned(request, first, decision, { trim: sticky, persist: undefined, context });
	}

	// chooseTrim renders with a memo of its own: its many candidate stand-ins stay out of the shared one.
	const choice = chooseTrim(input.ledger, options(sticky), { budgetTokens: input.budget.contextBudgetTokens });
	const trimmed = estimate(choice.request);
	const context = contextDetails(choice.trim, first.first.promptTokens);
	if (choice.kind === "too-big") {
		const skip = { action: "skip" as const, reason: choice.reason, limit: "context" as const };
		return planned(choice.request, trimmed, skip, { trim: choice.trim, persist: undefined, context });
	}
	return planned(choice.request, trimmed, noTrim(gate(trimmed, "done")), {
		trim: choice.trim,
		persist: choice.changed && choice.trim !== undefined ? trimAnchorRecord(input.ledger, choice.trim) : undefined,
		context: choice.trim === undefined ? undefined : context,
	});
}

export interface NextRequestInput extends PlanModel, Omit<PlanBounds, "maxCalls"> {
	/** The consultation's first request, as planned (`ConsultationPlan.request`). */
	first: LedgerRequest;
	/** The conversation about to be sent (the first request's, grown by investigation rounds). */
	context: Pick<Context, "messages">;
	/**
	 * The newest BILLED request of this consultation (`fingerprintOf(request as sent, its usage)`),
	 * else the branch's (`previousRequest(spend, model)`).
	 */
	previous: RequestFingerprint | undefined;
	/** `outputSamples(spend, model, effort)`. */
	outputSamples: readonly number[];
	/** What this consultation may bill in all (the decision's limitUsd). */
	limitUsd: number;
	/** usage.cost.total summed over this consultation's requests so far. */
	billedUsd: number;
	/** Tool calls the advisor may still run; 0 when it has none or was told to answer. */
	callsLeft: number;
	warmWindowSec: number;
	nowMs: number;
}

export type RequestDecision = { action: "send" } | { action: "answer-now" } | { action: "skip"; reason: string };

export interface RequestPlan {
	request: LedgerRequest;
	estimate: RequestEstimate;
	decision: RequestDecision;
}

/**
 * The prompt's price with headroom on what is new since the previous billed request: its size is
 * chars/4, an estimate, and the guard's bound must hold when the tokenizer counts more.
 */
function promptUsdHigh(estimate: RequestEstimate, request: LedgerRequest, input: NextRequestInput): number {
	if (estimate.promptBasis !== "previous-actual" || input.previous === undefined) return estimate.promptCostUsd;
	const added = Math.max(0, request.tokens - input.previous.estimatedTokens);
	const price =
		input.caching.kind === "breakpoints" && input.pricing.cacheWrite > 0
			? input.pricing.cacheWrite
			: input.pricing.input;
	return estimate.promptCostUsd + (Math.ceil(added * (PROMPT_HEADROOM - 1)) * price) / 1e6;
}

export function planNextRequest(input: NextRequestInput): RequestPlan {
	const request = extendRequest(input.first, input.context);
	const estimate = estimateFor(input, request, input);
	const guard = guardRequest({
		limitUsd: input.limitUsd,
		billedUsd: input.billedUsd,
		promptUsd: promptUsdHigh(estimate, request, input),
		promptTokens: estimate.promptTokens,
		outputCap: input.outputCap,
		outputCapUsd: (input.outputCap * input.pricing.output) / 1e6,
		roundTokens: input.callsLeft * input.callTokens,
		pricing: input.pricing,
		caching: input.caching,
	});
	const decision: RequestDecision =
		guard === "stop"
			? { action: "skip", reason: SKIP_REASONS.overConsultationLimit(input.limitUsd, input.billedUsd) }
			: { action: guard };
	return { request, estimate, decision };
}
