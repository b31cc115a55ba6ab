/**
 * Cost control, wired: the default `consultationHooks` of the advisor tool. The pure
 * half decides (policy/budget/request-plan.ts `planConsultation` / `planNextRequest`: render → estimate the
 * first request and the consultation → gate → trim; before every request, the guard of the
 * consultation's limit); this file only does what the pure half cannot — the dialog,
 * `pi.appendEntry`, the clock, the footer status — and hands runConsultation its hooks:
 *
 * - `request`: the planned first request (rendered with the sticky trim anchor, or trimmed now).
 * - `approve`, before EVERY request: the first one asks the consultation's gate — skip, send, or
 *   confirm: `ctx.ui.confirm` once, with the deadline paused, showing what the consultation is
 *   expected to cost and at most (a yes grants that at most, within the hard limits); then every
 *   request, the first included, is re-planned with the conversation as it has grown, what this
 *   consultation has been billed and the newest billed request as the cache candidate, and held to
 *   the limit: send, send with the advisor told to answer now, or stop. A new trim anchor is
 *   persisted (`pi.appendEntry(CUSTOM_TYPES.trimAnchor, …)`) once, right before the first dispatch.
 *   A refusal ends the consultation as the skip row (usage already billed stays in the envelope).
 * - `maxTokens`: the output cap sent (advice.maxOutputTokens), which makes "at most" a bound.
 * - `retry`: see `createRetryPolicy`.
 * - `timeoutMs`: `budget.timeoutSec` over the whole consultation.
 * - `base`: `details.estimate` (the first request's and the consultation's) and `details.context`.
 * - `settle`: the footer status after the consultation.
 */

import type { Api, Model, Usage } from "@mariozechner/pi-ai";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { assertNever, CUSTOM_TYPES } from "../../../events/index.ts";
import type { ConsultationPlan, PlanBounds, PlanBudget } from "../../../policy/index.ts";
import {
	CALL_OVERHEAD_TOKENS,
	cachingModelFor,
	fingerprintOf,
	formatAdvisorStatus,
	type PlanModel,
	planConsultation,
	planNextRequest,
} from "../../../policy/index.ts";
import {
	outputSamples,
	parseUsage,
	previousRequest,
	promptTokensOf,
	type RequestFingerprint,
	type SpendState,
} from "../../../reducers/index.ts";
import { extendRequest, SKIP_REASONS } from "../../../render/index.ts";
import { planBudget } from "../config/budget.ts";
import { formatColonKey, modelKeyOf } from "../pi/model-key.ts";
import { CONFIRM_COST_TITLE, confirmCostMessage, STATUS_KEY } from "../pi/notices.ts";
import type { ConsultationHooks, PlanningSetup } from "./advisor-tool.ts";
import type { Approval, FailedAttempt, NextRequest } from "./consultation-input.ts";
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

/** pi-ai's thinking budgets (simple-options.ts), which it adds to the cap of budget-based Anthropic thinking. */
const THINKING_BUDGETS: Readonly<Record<string, number>> = {
	minimal: 1024,
	low: 2048,
	medium: 8192,
	high: 16384,
	xhigh: 16384,
};
/** The APIs where pi-ai adds the thinking budget to the cap, and the one that sends no cap at all. */
const BUDGET_THINKING_APIS: ReadonlySet<string> = new Set(["anthropic-messages", "bedrock-converse-stream"]);
const NO_CAP_APIS: ReadonlySet<string> = new Set(["openai-codex-responses"]);
/** pi-ai's own cap when none is asked for: the model's, at most this. */
const PI_AI_DEFAULT_CAP = 32_000;

/**
 * The output cap: what is sent (`advice.maxOutputTokens`, never above the model's own limit; 0 = pi-ai's
 * default) and the most a request can bill for its answer — the cap plus what pi-ai adds to it (the
 * thinking budget of budget-based Anthropic thinking), or the model's limit where no cap is sent.
 */
export function outputCap(
	model: Pick<Model<Api>, "api" | "maxTokens">,
	effort: string | undefined,
	configured: number,
): { sent: number | undefined; ceiling: number } {
	const modelMax = model.maxTokens > 0 ? model.maxTokens : undefined;
	const sent = configured > 0 ? Math.min(configured, modelMax ?? configured) : undefined;
	const base = sent ?? Math.min(modelMax ?? PI_AI_DEFAULT_CAP, PI_AI_DEFAULT_CAP);
	if (NO_CAP_APIS.has(model.api)) return { sent, ceiling: modelMax ?? Math.max(base, PI_AI_DEFAULT_CAP) };
	const thinking = effort !== undefined && BUDGET_THINKING_APIS.has(model.api) ? (THINKING_BUDGETS[effort] ?? 0) : 0;
	const ceiling = base + thinking;
	return { sent, ceiling: modelMax === undefined ? ceiling : Math.min(ceiling, Math.max(base, modelMax)) };
}

/** What bounds this consultation's follow-ups: the tool calls it may run, the output cap, one result's size. */
export function planBounds(setup: Pick<PlanningSetup, "config" | "model" | "effort" | "renderOptions">): PlanBounds {
	const { config } = setup;
	const hasTools = setup.renderOptions.tools.length > 0;
	return {
		maxCalls: hasTools ? Math.max(0, Math.floor(config.tools.maxRounds)) : 0,
		outputCap: outputCap(setup.model, setup.effort, config.advice.maxOutputTokens).ceiling,
		// A result is capped at maxResultChars; chars/4 with the estimate's 20% headroom, and the call around it.
		callTokens: Math.ceil((config.tools.maxResultChars * 1.2) / 4) + CALL_OVERHEAD_TOKENS,
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
	/** The advisor as the plans read it: model key, effort, routing key, prices, caching model. */
	readonly advisor: PlanModel;
	readonly bounds: PlanBounds;
	readonly plan: ConsultationPlan;
	/** What the consultation may bill in all, once the gate (and the user) said yes. */
	limitUsd: number | undefined;
	/** The trim anchor to write before the first dispatch; undefined once written (or when none). */
	persist: ConsultationPlan["persist"];
	/** The newest request of this consultation the provider billed: the next one's cache candidate. */
	billed: RequestFingerprint | undefined;
}

function consultationHooks(deps: CostControlDeps, setup: PlanningSetup): ConsultationHooks {
	const { ctx, config } = setup;
	const budget = planBudget(config.budget);
	const advisor = planModel(setup.model, setup.effort, setup.routingKey);
	const bounds = planBounds(setup);
	const plan = planConsultation({
		...advisor,
		...bounds,
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
		advisor,
		bounds,
		plan,
		limitUsd: undefined,
		persist: plan.persist,
		billed: undefined,
	};
	const sent = outputCap(setup.model, setup.effort, config.advice.maxOutputTokens).sent;
	return {
		request: plan.request,
		approve: (next) => approve(consultation, next),
		retry: createRetryPolicy({
			timeoutMs: config.budget.timeoutSec * 1000,
			contextWindow: setup.model.contextWindow,
		}),
		timeoutMs: config.budget.timeoutSec * 1000,
		...(sent !== undefined ? { maxTokens: sent } : {}),
		base: {
			estimate: plan.envelopeEstimate,
			...(plan.context !== undefined ? { context: plan.context } : {}),
		},
		settle: (envelope) => setAdvisorStatus(ctx, spendAfter(setup.spend, envelope)),
	};
}

/**
 * The consultation's gate, before its first request: the limit it may spend, or how it ends. Asks
 * once when the gate says so, with the deadline paused.
 */
async function admit(consultation: ConsultationBudget, next: NextRequest): Promise<Approval | undefined> {
	const { decision } = consultation.plan;
	switch (decision.action) {
		case "skip":
			return { send: false, reason: decision.reason };
		case "confirm": {
			const { setup } = consultation;
			const yes = await next.paused(() =>
				setup.ctx.ui.confirm(
					CONFIRM_COST_TITLE,
					confirmCostMessage({
						expectedUsd: decision.expectedUsd,
						firstUsd: decision.firstUsd,
						rounds: decision.rounds,
						atMostUsd: decision.limitUsd,
						softUsd: consultation.budget.perCallSoftUsd,
					}),
					setup.signal !== undefined ? { signal: setup.signal } : undefined,
				),
			);
			if (!yes) return { send: false, reason: SKIP_REASONS.declined(decision.expectedUsd) };
			consultation.limitUsd = decision.limitUsd;
			return undefined;
		}
		case "send":
			consultation.limitUsd = decision.limitUsd;
			return undefined;
		default:
			return assertNever(decision, "gate decision");
	}
}

/** The guard before one request: it fits the consultation's limit with tools, only as the answer, or not. */
function guard(consultation: ConsultationBudget, next: NextRequest, limitUsd: number): Approval {
	const { plan, advisor, setup, bounds } = consultation;
	const sent = next.previous;
	const prompt = sent === undefined ? 0 : promptOf(sent.usage);
	if (sent !== undefined && prompt > 0) {
		consultation.billed = fingerprintOf(extendRequest(plan.request, sent.context), {
			...advisor,
			timestampMs: sent.sentMs,
			promptTokens: prompt,
		});
	}
	const { decision } = planNextRequest({
		...advisor,
		outputCap: bounds.outputCap,
		callTokens: bounds.callTokens,
		first: plan.request,
		context: next.context,
		previous: consultation.billed ?? previousRequest(setup.spend, advisor.model),
		outputSamples: outputSamples(setup.spend, advisor.model, advisor.effort),
		limitUsd,
		billedUsd: billedUsdOf(next.billedUsage),
		callsLeft: next.callsLeft,
		warmWindowSec: consultation.budget.warmWindowSec,
		nowMs: setup.now(),
	});
	switch (decision.action) {
		case "skip":
			return { send: false, reason: decision.reason };
		case "answer-now":
			return { send: true, answerNow: true };
		case "send":
			return { send: true };
		default:
			return assertNever(decision, "request decision");
	}
}

/** Before every request: the gate once (skip, ask, or the limit), then the guard; the trim anchor is written before the first that leaves. */
async function approve(consultation: ConsultationBudget, next: NextRequest): Promise<Approval> {
	if (consultation.limitUsd === undefined) {
		const refused = await admit(consultation, next);
		if (refused !== undefined) return refused;
	}
	const approval = guard(consultation, next, consultation.limitUsd ?? 0);
	if (!approval.send) return approval;
	if (consultation.persist !== undefined) {
		// Before the first dispatch, once: every later consultation on the branch renders with it.
		consultation.deps.pi.appendEntry(CUSTOM_TYPES.trimAnchor, consultation.persist);
		consultation.persist = undefined;
	}
	return approval;
}

function promptOf(usage: Usage | undefined): number {
	const parsed = parseUsage(usage);
	return parsed === undefined ? 0 : promptTokensOf(parsed);
}

/** What a provider billed for a usage, in dollars, read the way the spend fold reads it (0 when it says nothing). */
export function billedUsdOf(usage: Usage): number {
	return parseUsage(usage)?.usd ?? 0;
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
		totalUsd: spend.totalUsd + usage.usd,
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
