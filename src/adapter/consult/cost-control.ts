/**
 * Cost control, wired: the default `consultationHooks` of the advisor tool. The pure
 * half decides (policy/budget/plan.ts `planConsultation` / `planNextRequest`: render → estimate → gate →
 * trim); this file only does what the pure half cannot — the dialog, `pi.appendEntry`, the clock,
 * the footer status — and hands runConsultation its hooks:
 *
 * - `request`: the planned first request (rendered with the sticky trim anchor, or trimmed now).
 * - `approve`, before EVERY request: the first uses the consultation plan; each investigation
 *   round and retry is re-planned with the grown conversation, what this consultation has been
 *   billed so far and the newest billed request as the cache candidate. "confirm" opens
 *   `ctx.ui.confirm` at most once per consultation, with the deadline paused; a new trim anchor is
 *   persisted (`pi.appendEntry(CUSTOM_TYPES.trimAnchor, …)`) once, right before the first dispatch.
 *   A refusal ends the consultation as the skip row (usage already billed stays in the envelope).
 * - `retry`: see `createRetryPolicy`.
 * - `timeoutMs`: `budget.timeoutSec` over the whole consultation.
 * - `base`: `details.estimate` (the first request's) and `details.context` (when trimmed).
 * - `settle`: the footer status after the consultation.
 */

import type { Api, Model, Usage } from "@mariozechner/pi-ai";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { assertNever, CUSTOM_TYPES } from "../../events/index.ts";
import type { Confirmation, ConsultationPlan, GateDecision, PlanBudget } from "../../policy/index.ts";
import {
	cachingModelFor,
	fingerprintOf,
	formatAdvisorStatus,
	type PlanModel,
	planConsultation,
	planNextRequest,
} from "../../policy/index.ts";
import {
	outputSamples,
	parseUsage,
	previousRequest,
	promptTokensOf,
	type RequestFingerprint,
	type SpendState,
} from "../../reducers/index.ts";
import { extendRequest, SKIP_REASONS } from "../../render/index.ts";
import { planBudget } from "../config/budget.ts";
import { formatColonKey, modelKeyOf } from "../pi/model-key.ts";
import { CONFIRM_COST_TITLE, confirmCostMessage, STATUS_KEY } from "../pi/notices.ts";
import type { ConsultationHooks, PlanningSetup } from "./advisor-tool.ts";
import type { Approval, FailedAttempt, NextRequest } from "./consultation.ts";
import type { AdvisorEnvelope } from "./envelope.ts";
import { classifyFailure } from "./retry-classifier.ts";
import type { SessionLedger } from "./session-ledger.ts";

export interface CostControlDeps {
	pi: Pick<ExtensionAPI, "appendEntry">;
}

/** Who is asked, with what, at what price: what every estimate of this consultation shares. */
export function planModel(model: Model<Api>, effort: string | undefined, routingKey: string): PlanModel {
	return {
		// The same `provider:modelId` the envelope records as details.advisorModel (the spend fold's key).
		model: formatColonKey(modelKeyOf(model)),
		effort,
		routingKey,
		pricing: model.cost,
		caching: cachingModelFor(model),
	};
}

export function costControl(deps: CostControlDeps): (setup: PlanningSetup) => ConsultationHooks {
	return (setup) => consultationHooks(deps, setup);
}

/** One consultation's budget: its plan, and what the gate has seen of it so far. */
interface ConsultationBudget {
	readonly deps: CostControlDeps;
	readonly setup: PlanningSetup;
	readonly budget: PlanBudget;
	readonly who: PlanModel;
	readonly plan: ConsultationPlan;
	confirmation: Confirmation;
	/** The trim anchor to write before the first dispatch; undefined once written (or when none). */
	persist: ConsultationPlan["persist"];
	/** The newest request of this consultation the provider billed: the next one's cache candidate. */
	billed: RequestFingerprint | undefined;
}

function consultationHooks(deps: CostControlDeps, setup: PlanningSetup): ConsultationHooks {
	const { ctx, config } = setup;
	const budget = planBudget(config.budget);
	const who = planModel(setup.model, setup.effort, setup.routingKey);
	const plan = planConsultation({
		...who,
		ledger: setup.state,
		anchor: setup.anchor,
		spend: setup.spend,
		render: setup.renderOptions,
		memo: setup.memo,
		budget,
		// A completion review passes false: nobody is there to answer a dialog (over the soft limit → skipped).
		interactive: setup.interactive,
		nowMs: setup.now(),
	});
	const consultation: ConsultationBudget = {
		deps,
		setup,
		budget,
		who,
		plan,
		confirmation: "not-asked",
		persist: plan.persist,
		billed: undefined,
	};
	return {
		request: plan.request,
		approve: (next) => approve(consultation, next),
		retry: createRetryPolicy({
			timeoutMs: config.budget.timeoutSec * 1000,
			contextWindow: setup.model.contextWindow,
		}),
		timeoutMs: config.budget.timeoutSec * 1000,
		base: {
			estimate: plan.envelopeEstimate,
			...(plan.context !== undefined ? { context: plan.context } : {}),
		},
		settle: (envelope) => setAdvisorStatus(ctx, spendAfter(setup.spend, envelope)),
	};
}

/** The gate's verdict on the next request: the plan's for the first, re-planned for every later one. */
function decide(consultation: ConsultationBudget, next: NextRequest): Exclude<GateDecision, { action: "trim" }> {
	const { plan, who, setup } = consultation;
	if (next.round === 0 && next.attempt === 0) return plan.decision;
	const sent = next.previous;
	const prompt = sent === undefined ? 0 : promptOf(sent.usage);
	if (sent !== undefined && prompt > 0) {
		consultation.billed = fingerprintOf(extendRequest(plan.request, sent.context), {
			...who,
			timestampMs: sent.sentMs,
			promptTokens: prompt,
		});
	}
	return planNextRequest({
		...who,
		first: plan.request,
		context: next.context,
		previous: consultation.billed ?? previousRequest(setup.spend, who.model),
		outputSamples: outputSamples(setup.spend, who.model, who.effort),
		spentUsd: setup.spend.totalUsd,
		billedUsd: billedUsdOf(next.billedUsage),
		budget: consultation.budget,
		interactive: setup.interactive,
		confirmation: consultation.confirmation,
		nowMs: setup.now(),
	}).decision;
}

/** Before every request: skip, ask (once per consultation, the deadline paused) or send; the trim anchor is written before the first that leaves. */
async function approve(consultation: ConsultationBudget, next: NextRequest): Promise<Approval> {
	const decision = decide(consultation, next);
	switch (decision.action) {
		case "skip":
			return { send: false, reason: decision.reason };
		case "confirm": {
			// The gate only says "confirm" while nobody has been asked in this consultation.
			const { setup } = consultation;
			const yes = await next.paused(() =>
				setup.ctx.ui.confirm(
					CONFIRM_COST_TITLE,
					confirmCostMessage({
						expectedUsd: decision.expectedUsd,
						coldUsd: decision.coldUsd,
						consultationUsd: decision.consultationUsd,
						softUsd: consultation.budget.perCallSoftUsd,
					}),
					setup.signal !== undefined ? { signal: setup.signal } : undefined,
				),
			);
			consultation.confirmation = yes ? "granted" : "declined";
			if (!yes) return { send: false, reason: SKIP_REASONS.declined(decision.consultationUsd) };
			break;
		}
		case "send":
			break;
		default:
			return assertNever(decision, "gate decision");
	}
	if (consultation.persist !== undefined) {
		// Before the first dispatch, once: every later consultation on the branch renders with it.
		consultation.deps.pi.appendEntry(CUSTOM_TYPES.trimAnchor, consultation.persist);
		consultation.persist = undefined;
	}
	return { send: true };
}

function promptOf(usage: Usage | undefined): number {
	const parsed = parseUsage(usage);
	return parsed === undefined ? 0 : promptTokensOf(parsed);
}

/** What a provider billed for a usage, in dollars, read the way the spend fold reads it (0 when it says nothing). */
export function billedUsdOf(usage: Usage): number {
	return parseUsage(usage)?.costUsd ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Retry (docs/configuration.md)
// ---------------------------------------------------------------------------------------------

export interface RetryPolicyOptions {
	/** budget.timeoutSec in ms: a transient failure is retried only within the first half. */
	timeoutMs: number;
	/** For isContextOverflow's silent-overflow check. */
	contextWindow?: number;
}

/**
 * - An answer with no text: sent again once, at once (whatever the clock says, within the deadline).
 * - A transient failure (classifyFailure: Pi's own AgentSession retry pattern — overloaded, rate
 *   limit, 429/5xx, service unavailable, network/connection errors, `ended without`, fetch
 *   failed, timed out, … — and not a context overflow or an auth error): sent again ONCE per
 *   consultation, only while under half of `timeoutSec` has run (dialog time excluded). A thrown
 *   call is classified by its message.
 * - Anything else (context overflow, auth, a `length` stop, an abort, the deadline): returned as is.
 */
export function createRetryPolicy(options: RetryPolicyOptions): (failure: FailedAttempt) => boolean {
	let emptyRetried = false;
	let transientRetried = false;
	return (failure) => {
		if (failure.timedOut) return false;
		if (failure.empty) {
			if (emptyRetried) return false;
			emptyRetried = true;
			return true;
		}
		if (transientRetried) return false;
		const probe =
			failure.message ??
			(failure.thrown !== undefined ? { stopReason: "error" as const, errorMessage: failure.thrown } : undefined);
		if (probe === undefined || classifyFailure(probe, options.contextWindow) !== "transient") return false;
		if (failure.elapsedMs >= options.timeoutMs / 2) return false;
		transientRetried = true;
		return true;
	};
}

// ---------------------------------------------------------------------------------------------
// Footer status
// ---------------------------------------------------------------------------------------------

/** The branch's spend with this consultation's bill added (its result is not on the branch yet). */
export function spendAfter(spend: SpendState, envelope: Pick<AdvisorEnvelope, "usage" | "details">): SpendState {
	const usage = parseUsage(envelope.usage) ?? parseUsage(envelope.details.usage);
	if (usage === undefined) return spend;
	return {
		...spend,
		totalUsd: spend.totalUsd + usage.costUsd,
		promptTokens: spend.promptTokens + promptTokensOf(usage),
		cacheReadTokens: spend.cacheReadTokens + usage.cacheRead,
	};
}

/** `Advisor $<branch spend> · cache <pct>%`, or cleared when the branch has no spend. */
export function setAdvisorStatus(ctx: Pick<ExtensionContext, "ui">, spend: SpendState): void {
	ctx.ui.setStatus(STATUS_KEY, formatAdvisorStatus(spend));
}

/**
 * Brings the session's folded ledger (and with it the spend) up to the current branch and shows
 * its status: before every prompt (before_agent_start, docs/architecture.md) and at session start. Cosmetic, so
 * it never fails the host's event.
 */
export function refreshBranchStatus(ledger: SessionLedger, ctx: Pick<ExtensionContext, "ui" | "sessionManager">): void {
	try {
		const sm = ctx.sessionManager;
		const snapshot = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries(), sm.getCwd());
		setAdvisorStatus(ctx, snapshot.spend);
	} catch {
		// A status line is not worth a failed prompt.
	}
}
