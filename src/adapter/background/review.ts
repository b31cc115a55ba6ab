/**
 * Completion review, wired. The pure half decides (policy/review/trigger.ts
 * `reviewDecision` and `wokeSinceLastUserMessage`, policy/review/delivery.ts `reviewDelivery`,
 * `reviewMessage`, `reviewUsageRecord`); this file runs the review and talks to Pi:
 *
 *   agent_end ─ review.enabled? host records usage? advisor active? none in flight?
 *     └ reviewDecision(branch) → review: runAdvisor in mode "review" (the consultation pipeline:
 *       ledger, investigation tools, budget gate with `interactive: false` — over budget is a skip,
 *       never a dialog —, retry, `budget.timeoutSec`), NOT awaited: the executor is not held up.
 *   the review settles (advice, skip, failure, timeout or abort)
 *     1. pi.appendEntry("advisor-usage", reviewUsageRecord(…))  — always, before anything is shown;
 *        the record names the reviewed answer, so "each final answer is reviewed once" is read
 *        back from the branch (also after a reload)
 *     2. advice → reviewDelivery(advice, { wokeThisPrompt: wokeSinceLastUserMessage(branch),
 *        runActive }) → none: nothing; nit/concern: `advisor-review` message into the executor's
 *        context, no turn; blocker: the same and one turn (at most one per user prompt). A run the
 *        user started meanwhile is never injected into: the message waits for the next prompt.
 *   session_before_compact|tree|switch|fork, session_shutdown → abort the review in flight, await
 *     it, record its usage (step 1) and show nothing.
 *
 * Decisions where the issue is silent:
 * - Every review that STARTED leaves exactly one usage record, whatever happened, including a
 *   budget skip before any request and a failure before any (no key): zero usage then. The record's
 *   extra `outcome` ("advice" | "skipped" | "failed" | "timeout" | "cancelled") and `errorMessage`
 *   are diagnostics the spend fold ignores. Nothing is recorded for a review that never started
 *   (disabled, advisor inactive, not a reviewable answer, one already in flight).
 * - One review at a time: an agent_end while one is in flight starts nothing, but is remembered;
 *   when the review settles with the executor idle, the branch is judged again, so the newer
 *   answer is not lost.
 * - `runActive` = an agent_start seen without its agent_end, or `ctx.isIdle()` false.
 */

import type { Usage } from "@mariozechner/pi-ai";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { CUSTOM_TYPES, type Severity } from "../../events/index.ts";
import {
	type ReviewDelivery,
	type ReviewSkipReason,
	reviewDecision,
	reviewDelivery,
	reviewSendOptions,
	reviewSeverity,
	reviewUsageRecord,
	wokeSinceLastUserMessage,
} from "../../policy/index.ts";
import { reviewMessage, zeroUsage } from "../../render/index.ts";
import { type AdvisorToolDeps, runAdvisor } from "../consult/advisor-tool.ts";
import type { AdvisorEnvelope } from "../consult/envelope.ts";
import { type AdvisorRuntime, currentConfig } from "../host/activation-state.ts";
import type { InterruptReason } from "../host/lifecycle.ts";

/** How a started review ended, as its usage record says. */
export type ReviewOutcome = "advice" | "skipped" | "failed" | "timeout" | "cancelled";

/** What the review did, for tests and diagnostics (never shown to the user). */
export type ReviewTrace =
	| {
			type: "not-started";
			reason: ReviewSkipReason | "in-flight" | "advisor-inactive";
			answerEntryId?: string;
	  }
	| { type: "started"; answerEntryId: string; toolCalls: number }
	| {
			type: "settled";
			answerEntryId: string;
			outcome: ReviewOutcome;
			severity?: Severity;
			delivery?: ReviewDelivery;
			/** Set when the session changed under it (compaction, tree, switch, fork, shutdown). */
			cancelledBy?: InterruptReason;
	  };

export interface ReviewDeps {
	pi: Pick<ExtensionAPI, "sendMessage"> & Partial<Pick<ExtensionAPI, "appendEntry">>;
	runtime: AdvisorRuntime;
	/** The advisor tool's pipeline deps (model, auth, investigation, budget hooks). */
	pipeline: AdvisorToolDeps;
	now?: () => number;
	onTrace?: (trace: ReviewTrace) => void;
}

export interface CompletionReview {
	/** agent_start. */
	runStarted(): void;
	/** agent_end: decides and, maybe, starts a review in the background (returns at once). */
	runEnded(ctx: ExtensionContext): void;
	/** Aborts the review in flight; resolves once its usage is recorded. */
	cancel(reason: InterruptReason): Promise<void>;
	/** Resolves when no review is in flight (tests). */
	idle(): Promise<void>;
}

interface InFlight {
	answerEntryId: string;
	controller: AbortController;
	promise: Promise<void>;
	cancelledBy: InterruptReason | undefined;
}

function outcomeOf(envelope: AdvisorEnvelope, cancelled: boolean): { outcome: ReviewOutcome; advice?: string } {
	const { details } = envelope;
	if (details.skipped === true) return { outcome: "skipped" };
	if (details.errorMessage === "timeout") return { outcome: "timeout" };
	if (details.errorMessage !== undefined || details.stopReason === "error" || details.stopReason === "aborted")
		return { outcome: cancelled ? "cancelled" : "failed" };
	const advice = envelope.content.map((part) => part.text).join("\n");
	if (advice.trim().length === 0) return { outcome: "failed" };
	return cancelled ? { outcome: "cancelled" } : { outcome: "advice", advice };
}

export function createCompletionReview(deps: ReviewDeps): CompletionReview {
	const now = deps.now ?? Date.now;
	const trace = (t: ReviewTrace) => {
		try {
			deps.onTrace?.(t);
		} catch {
			// A trace listener never breaks the review.
		}
	};
	let running = false;
	let inflight: InFlight | undefined;
	/** An agent_end arrived while a review was in flight. */
	let missed: ExtensionContext | undefined;

	const branchState = (ctx: ExtensionContext) => {
		const sm = ctx.sessionManager;
		return deps.runtime.ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries(), sm.getCwd()).state;
	};

	const runActive = (ctx: ExtensionContext): boolean => {
		if (running) return true;
		try {
			return !ctx.isIdle();
		} catch {
			return true;
		}
	};

	const record = (data: unknown): void => {
		const append = deps.pi.appendEntry;
		if (typeof append !== "function") return;
		try {
			append.call(deps.pi, CUSTOM_TYPES.usage, data);
		} catch {
			// The session is gone; reviews are cancelled (and recorded) before that, normally.
		}
	};

	const deliver = (ctx: ExtensionContext, answerEntryId: string, advice: string, envelope: AdvisorEnvelope) => {
		const state = branchState(ctx);
		const delivery = reviewDelivery(advice, {
			wokeThisPrompt: wokeSinceLastUserMessage(state),
			runActive: runActive(ctx),
		});
		if (delivery.show) {
			const message = reviewMessage({
				advice,
				answerEntryId,
				delivery,
				...(envelope.usage !== undefined ? { usage: envelope.usage } : {}),
				...(envelope.details.advisorModel !== undefined ? { advisorModel: envelope.details.advisorModel } : {}),
				...(envelope.details.effort !== undefined ? { effort: envelope.details.effort } : {}),
			});
			deps.pi.sendMessage(message, reviewSendOptions(delivery));
		}
		return delivery;
	};

	const settle = (ctx: ExtensionContext, flight: InFlight, envelope: AdvisorEnvelope) => {
		const cancelled = flight.cancelledBy !== undefined;
		const { outcome, advice } = outcomeOf(envelope, cancelled);
		const severity = advice !== undefined ? reviewSeverity(advice) : undefined;
		const config = currentConfig(deps.runtime);
		const usage: Usage = envelope.usage ?? envelope.details.usage ?? zeroUsage();
		const data = {
			...reviewUsageRecord({
				// A record without a model is dropped by the spend fold: always name one.
				model: envelope.details.advisorModel ?? config.modelKey ?? "unknown",
				...(envelope.details.effort !== undefined ? { effort: envelope.details.effort } : {}),
				usage,
				answerEntryId: flight.answerEntryId,
				...(severity !== undefined ? { severity } : {}),
				...(envelope.details.request !== undefined ? { request: envelope.details.request } : {}),
				timestampMs: now(),
			}),
			outcome,
			...(envelope.details.errorMessage !== undefined ? { errorMessage: envelope.details.errorMessage } : {}),
		};
		// 1. The bill, before anything is shown.
		record(data);
		if (inflight === flight) inflight = undefined;
		const settled: ReviewTrace = { type: "settled", answerEntryId: flight.answerEntryId, outcome };
		if (severity !== undefined) settled.severity = severity;
		if (flight.cancelledBy !== undefined) {
			settled.cancelledBy = flight.cancelledBy;
			trace(settled);
			return;
		}
		// 2. The verdict.
		if (advice !== undefined) {
			try {
				settled.delivery = deliver(ctx, flight.answerEntryId, advice, envelope);
			} catch {
				// A stale context (the session was replaced without telling us): nothing to show it in.
			}
		}
		trace(settled);
		// An answer that ended while this review ran gets its own turn now.
		const pending = missed;
		missed = undefined;
		if (pending !== undefined && !runActive(pending)) start(pending);
	};

	const start = (ctx: ExtensionContext): void => {
		if (inflight !== undefined) {
			missed = ctx;
			trace({ type: "not-started", reason: "in-flight" });
			return;
		}
		const config = currentConfig(deps.runtime);
		if (!config.review.enabled) {
			trace({ type: "not-started", reason: "disabled" });
			return;
		}
		let decision: ReturnType<typeof reviewDecision>;
		try {
			decision = reviewDecision(branchState(ctx), {
				enabled: config.review.enabled,
				minToolCalls: config.review.minToolCalls,
				hostRecordsUsage: typeof deps.pi.appendEntry === "function",
			});
		} catch {
			return;
		}
		if (!decision.review) {
			trace({
				type: "not-started",
				reason: decision.reason,
				...(decision.answerEntryId !== undefined ? { answerEntryId: decision.answerEntryId } : {}),
			});
			return;
		}
		// Off costs nothing: no model, a stale one, the executor's own model or a disabled executor.
		if (deps.runtime.activation?.active !== true) {
			trace({ type: "not-started", reason: "advisor-inactive", answerEntryId: decision.answerEntryId });
			return;
		}
		const controller = new AbortController();
		const flight: InFlight = {
			answerEntryId: decision.answerEntryId,
			controller,
			promise: Promise.resolve(),
			cancelledBy: undefined,
		};
		inflight = flight;
		trace({ type: "started", answerEntryId: decision.answerEntryId, toolCalls: decision.toolCalls });
		flight.promise = (async () => {
			const run = await runAdvisor(deps.pipeline, {
				ctx,
				mode: "review",
				signal: controller.signal,
				interactive: false,
			});
			settle(ctx, flight, run.envelope);
		})().catch(() => {
			if (inflight === flight) inflight = undefined;
		});
	};

	return {
		runStarted() {
			running = true;
		},
		runEnded(ctx) {
			running = false;
			start(ctx);
		},
		async cancel(reason) {
			missed = undefined;
			const flight = inflight;
			if (flight === undefined) return;
			flight.cancelledBy = reason;
			flight.controller.abort(new Error(`aborted: ${reason}`));
			await flight.promise;
		},
		idle: () => inflight?.promise ?? Promise.resolve(),
	};
}
