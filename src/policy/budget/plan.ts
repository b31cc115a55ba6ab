/**
 * The budget steps of a consultation, composed, so the adapter makes one pure call
 * before each request and only does the impure parts itself: the dialog, `pi.appendEntry`, the
 * clock, sending.
 *
 * First request — `planConsultation`:
 *   render with the sticky anchor → estimate → gate; on "trim": chooseTrim → re-render →
 *   re-estimate → gate again (trim "done"); a trim that cannot fit is a skip with the
 *   context-budget reason. The result says what to persist before dispatch (`persist`), and what
 *   the envelope carries (`details.estimate`, `details.context`).
 * Every later request (investigation round, retry) — `planNextRequest`:
 *   the conversation as it has grown → estimate against the newest billed request → gate.
 *
 * "confirm" comes back as it is: the adapter asks once per consultation, then passes the answer
 * as `confirmation` to every later `planNextRequest` (and treats "granted" as send right away).
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
} from "../../render/index.ts";
import {
	type CachingModel,
	envelopeEstimate,
	estimateRequest,
	type ModelPricing,
	type RequestEstimate,
} from "./estimate-cost.ts";
import { type BudgetLimits, type Confirmation, decideGate, type GateDecision } from "./gate.ts";
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

export interface ConsultationPlanInput extends PlanModel {
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

export interface RequestPlan {
	/** The request to send (for the first request: as rendered, possibly trimmed). */
	request: LedgerRequest;
	estimate: RequestEstimate;
	/** Never "trim": trimming has been done by the time a plan is returned. */
	decision: Exclude<GateDecision, { action: "trim" }>;
	/** `details.estimate` of the envelope. */
	envelopeEstimate: EnvelopeEstimate;
}

export interface ConsultationPlan extends RequestPlan {
	/** What the request was rendered with (already applied to `request`). */
	trim: RenderTrim | undefined;
	/** When defined: `pi.appendEntry(CUSTOM_TYPES.trimAnchor, persist)` BEFORE sending. */
	persist: TrimAnchorRecord | undefined;
	/** `details.context` of the envelope: present when the request is trimmed (sticky or new). */
	context: ContextTrim | undefined;
}

function noTrim(decision: GateDecision): Exclude<GateDecision, { action: "trim" }> {
	// decideGate only says "trim" with trim "available"; every call below passes "done"/"unavailable".
	return decision.action === "trim" ? { action: "send" } : decision;
}

export function planConsultation(input: ConsultationPlanInput): ConsultationPlan {
	const sticky = activeTrim(input.anchor, input.ledger);
	const options = (trim: RenderTrim | undefined): RenderOptions => ({ ...input.render, trim });
	const estimate = (request: LedgerRequest) =>
		estimateRequest({
			request,
			model: input.model,
			effort: input.effort,
			routingKey: input.routingKey,
			pricing: input.pricing,
			caching: input.caching,
			previous: previousRequest(input.spend, input.model),
			outputSamples: outputSamples(input.spend, input.model, input.effort),
			nowMs: input.nowMs,
			warmWindowSec: input.budget.warmWindowSec,
		});
	const gate = (e: RequestEstimate, trim: "available" | "done") =>
		decideGate({
			estimate: e,
			budget: input.budget,
			spentUsd: input.spend.totalUsd,
			billedUsd: 0,
			interactive: input.interactive,
			confirmation: "not-asked",
			trim,
		});
	const remaining = remainingSessionUsd(input.spend, input.budget.sessionUsd);

	const request = renderRequest(input.ledger, options(sticky), input.memo);
	const first = estimate(request);
	const decision = gate(first, "available");
	const stickyContext = sticky === undefined ? undefined : contextDetails(sticky, first.promptTokens);
	if (decision.action !== "trim") {
		return {
			request,
			estimate: first,
			decision,
			envelopeEstimate: envelopeEstimate(first, remaining),
			trim: sticky,
			persist: undefined,
			context: stickyContext,
		};
	}

	// chooseTrim renders with a memo of its own: its many candidate stand-ins stay out of the shared one.
	const choice = chooseTrim(input.ledger, options(sticky), { budgetTokens: input.budget.contextBudgetTokens });
	const trimmed = estimate(choice.request);
	const context = contextDetails(choice.trim, first.promptTokens);
	if (choice.kind === "too-big") {
		return {
			request: choice.request,
			estimate: trimmed,
			decision: { action: "skip", reason: choice.reason, limit: "context" },
			envelopeEstimate: envelopeEstimate(trimmed, remaining),
			trim: choice.trim,
			persist: undefined,
			context,
		};
	}
	return {
		request: choice.request,
		estimate: trimmed,
		decision: noTrim(gate(trimmed, "done")),
		envelopeEstimate: envelopeEstimate(trimmed, remaining),
		trim: choice.trim,
		persist: choice.changed && choice.trim !== undefined ? trimAnchorRecord(input.ledger, choice.trim) : undefined,
		context: choice.trim === undefined ? undefined : context,
	};
}

export interface NextRequestInput extends PlanModel {
	/** The consultation's first request, as sent (`ConsultationPlan.request`). */
	first: LedgerRequest;
	/** The conversation about to be sent (grown by investigation rounds; the same for a retry). */
	context: Pick<Context, "messages">;
	/**
	 * The newest BILLED request of this consultation (`fingerprintOf(request as sent, its usage)`),
	 * else the branch's (`previousRequest(spend, model)`).
	 */
	previous: RequestFingerprint | undefined;
	/** `outputSamples(spend, model, effort)`. */
	outputSamples: readonly number[];
	/** SpendState.totalUsd of the branch (this consultation's bills are not on it yet). */
	spentUsd: number;
	/** usage.cost.total summed over this consultation's requests so far. */
	billedUsd: number;
	budget: PlanBudget;
	interactive: boolean;
	confirmation: Confirmation;
	nowMs: number;
}

export function planNextRequest(input: NextRequestInput): RequestPlan {
	const request = extendRequest(input.first, input.context);
	const estimate = estimateRequest({
		request,
		model: input.model,
		effort: input.effort,
		routingKey: input.routingKey,
		pricing: input.pricing,
		caching: input.caching,
		previous: input.previous,
		outputSamples: input.outputSamples,
		nowMs: input.nowMs,
		warmWindowSec: input.budget.warmWindowSec,
	});
	const decision = decideGate({
		estimate,
		budget: input.budget,
		spentUsd: input.spentUsd,
		billedUsd: input.billedUsd,
		interactive: input.interactive,
		confirmation: input.confirmation,
		trim: "unavailable",
	});
	return {
		request,
		estimate,
		decision: noTrim(decision),
		envelopeEstimate: envelopeEstimate(estimate, Math.max(0, input.budget.sessionUsd - input.spentUsd)),
	};
}
