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
 * Without a UI (`pi -p`, JSON mode, an SDK session without a UI context) nobody is left to see a
 * review that settles after the run: the run IS the whole session. So there the review is held:
 * - Pi 1.x settles a run only after its `agent_before_settle` handlers, which may continue it: that
 *   handler awaits the review (bounded by `budget.timeoutSec`, the consultation's own deadline)
 *   and it is delivered as part of the run: a blocker as a follow-up that continues the run (one
 *   more executor turn, whose answer print mode then prints and JSON mode streams), anything else
 *   queued for the next prompt (appended now, it would become the run's last message, which print
 *   mode prints only when it is the executor's).
 * - Pi 0.73 has no such event and does not await agent_end handlers: print mode prints, then
 *   disposes the session. There session_shutdown ("quit", with the agent idle) waits for the
 *   review, its delivery (appended: the answer is printed already) and the executor turn a
 *   blocker starts, instead of cancelling them. That turn is recorded in the session; it comes
 *   after the printed answer and after JSON mode's subscription ended.
 * - The answer of a turn a review started is not reviewed again: one turn, then the run ends.
 *
 * The background work runs in the slot it shares with the watch (review-slot.ts): one review at
 * a time for both, the same run state, the same holding without a UI and the same cancelling.
 *
 * Decisions where the issue is silent:
 * - Every review that STARTED leaves exactly one usage record, whatever happened, including a
 *   budget skip before any request and a failure before any (no key): zero usage then. The record's
 *   extra `outcome` ("advice" | "skipped" | "failed" | "timeout" | "cancelled") and `errorMessage`
 *   are diagnostics the spend fold ignores. Nothing is recorded for a review that never started
 *   (disabled, advisor inactive, not a reviewable answer, one already in flight).
 * - One review at a time, the watch's included: an agent_end while one is in flight starts
 *   nothing, but is remembered; when that one is done with the executor idle (headless: once the
 *   run has ended), the branch is judged again, so the newer answer is not lost.
 * - `runActive` = an agent_start seen without its agent_end, or `ctx.isIdle()` false.
 */

import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { CUSTOM_TYPES, type Severity } from "../../../events/index.ts";
import {
	type ReviewDecision,
	type ReviewDelivery,
	type ReviewSkipReason,
	reviewDecision,
	reviewDelivery,
	reviewSendOptions,
	reviewSeverity,
	wokeSinceLastUserMessage,
} from "../../../policy/index.ts";
import { reviewMessage } from "../../../render/index.ts";
import { type AdvisorToolDeps, runAdvisor } from "../consult/advisor-tool.ts";
import type { AdvisorEnvelope } from "../consult/envelope.ts";
import type { InterruptReason } from "./interrupt.ts";
import { outcomeOf, type ReviewOutcome, usageRecord } from "./review-outcome.ts";
import { createReviewSlot, type Flight, headless, type ReviewSlot } from "./review-slot.ts";

export type { ReviewOutcome } from "./review-outcome.ts";

/** What the review did, for tests and diagnostics (never shown to the user). */
export type ReviewTrace =
	| {
			type: "not-started";
			reason: ReviewSkipReason | "in-flight" | "advisor-inactive" | "after-wake";
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
	/**
	 * The advisor tool's pipeline deps (the config, the session ledger, model, auth, investigation,
	 * budget hooks): the review reads the same config and ledger the tool does.
	 */
	pipeline: AdvisorToolDeps;
	/** Whether advisor() is in the executor's active set (the host's last activation decision). */
	advisorActive: () => boolean;
	now?: () => number;
	onTrace?: (trace: ReviewTrace) => void;
	/** The background slot shared with the watch; default one of its own. */
	slot?: ReviewSlot;
}

export interface CompletionReview {
	/** agent_start. */
	runStarted(): void;
	/** agent_end: decides and, maybe, starts a review in the background (returns at once). */
	runEnded(ctx: ExtensionContext): void;
	/**
	 * agent_before_settle (Pi 1.x): a review started without a UI is awaited here, so it is
	 * delivered before the run settles (see the header).
	 */
	beforeSettle(): Promise<void>;
	/** Aborts the review in flight; resolves once its usage is recorded. */
	cancel(reason: InterruptReason): Promise<void>;
	/**
	 * The session is about to change or end. A headless session that is quitting with the agent
	 * idle lets the held review finish (and the turn a blocker starts); anything else cancels.
	 */
	interrupted(reason: InterruptReason, ctx: ExtensionContext, shutdownReason?: string): Promise<void>;
	/** Resolves when no review is in flight (tests). */
	idle(): Promise<void>;
}

/** What one completion review keeps between Pi's events (one per loaded copy of the extension). */
interface ReviewState {
	readonly deps: ReviewDeps;
	readonly now: () => number;
	readonly slot: ReviewSlot;
	/** An agent_end arrived while a review (or the watch's) was in flight. */
	missed: ExtensionContext | undefined;
}

export function createCompletionReview(deps: ReviewDeps): CompletionReview {
	const slot = deps.slot ?? createReviewSlot(() => deps.pipeline.config().budget.timeoutSec * 1000);
	const review: ReviewState = { deps, now: deps.now ?? Date.now, slot, missed: undefined };
	// An answer that ended while the slot was busy gets its turn once it is free.
	slot.onDone((flight) => {
		const pending = review.missed;
		review.missed = undefined;
		if (pending === undefined || flight.cancelledBy !== undefined) return;
		// Headless, the host is not idle while it holds the run open (Pi 1.x): only the run counts.
		if (flight.headless ? !slot.running() : !slot.runActive(pending)) start(review, pending);
	});
	return {
		runStarted: () => slot.runStarted(),
		runEnded: (ctx) => slot.runEnded(() => start(review, ctx)),
		beforeSettle: () => slot.beforeSettle(),
		cancel: (reason) => slot.cancel(reason),
		interrupted: (reason, ctx, shutdownReason) => slot.interrupted(reason, ctx, shutdownReason),
		idle: () => slot.idle(),
	};
}

function trace(review: ReviewState, t: ReviewTrace): void {
	try {
		review.deps.onTrace?.(t);
	} catch {
		// A trace listener never breaks the review.
	}
}

function branchState(review: ReviewState, ctx: ExtensionContext) {
	const sm = ctx.sessionManager;
	return review.deps.pipeline.ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries(), sm.getCwd()).state;
}

function record(review: ReviewState, data: unknown): void {
	const pi = review.deps.pi;
	const append = pi.appendEntry;
	if (typeof append !== "function") return;
	try {
		append.call(pi, CUSTOM_TYPES.usage, data);
	} catch {
		// The session is gone; reviews are cancelled (and recorded) before that, normally.
	}
}

// ---------------------------------------------------------------------------------------------
// agent_end: decide, then start in the background
// ---------------------------------------------------------------------------------------------

/** The answer to review, or undefined when none is due (the trace says why). */
function due(review: ReviewState, ctx: ExtensionContext): Extract<ReviewDecision, { review: true }> | undefined {
	const config = review.deps.pipeline.config();
	if (!config.review.enabled) {
		trace(review, { type: "not-started", reason: "disabled" });
		return undefined;
	}
	let decision: ReviewDecision;
	try {
		decision = reviewDecision(branchState(review, ctx), {
			enabled: config.review.enabled,
			minToolCalls: config.review.minToolCalls,
			hostRecordsUsage: typeof review.deps.pi.appendEntry === "function",
		});
	} catch {
		return undefined;
	}
	if (!decision.review) {
		trace(review, {
			type: "not-started",
			reason: decision.reason,
			...(decision.answerEntryId !== undefined ? { answerEntryId: decision.answerEntryId } : {}),
		});
		return undefined;
	}
	// Off costs nothing: no model, a stale one, the executor's own model or a disabled executor.
	if (!review.deps.advisorActive()) {
		trace(review, { type: "not-started", reason: "advisor-inactive", answerEntryId: decision.answerEntryId });
		return undefined;
	}
	return decision;
}

/** Headless, an answer the review's own blocker turn produced is not reviewed again. */
function afterWake(review: ReviewState, ctx: ExtensionContext): boolean {
	try {
		return wokeSinceLastUserMessage(branchState(review, ctx));
	} catch {
		// Unreadable branch: judge the answer like any other.
		return false;
	}
}

function start(review: ReviewState, ctx: ExtensionContext): void {
	if (review.slot.current() !== undefined) {
		review.missed = ctx;
		trace(review, { type: "not-started", reason: "in-flight" });
		return;
	}
	const decision = due(review, ctx);
	if (decision === undefined) return;
	const unattended = headless(ctx);
	if (unattended && afterWake(review, ctx)) {
		trace(review, { type: "not-started", reason: "after-wake", answerEntryId: decision.answerEntryId });
		return;
	}
	const { answerEntryId } = decision;
	trace(review, { type: "started", answerEntryId, toolCalls: decision.toolCalls });
	review.slot.start("review", unattended, async (flight) => {
		const run = await runAdvisor(review.deps.pipeline, {
			ctx,
			mode: "review",
			signal: flight.controller.signal,
			interactive: false,
		});
		settle(review, ctx, flight, answerEntryId, run.envelope);
	});
}

// ---------------------------------------------------------------------------------------------
// The review settles: the bill first, then the verdict
// ---------------------------------------------------------------------------------------------

function settle(
	review: ReviewState,
	ctx: ExtensionContext,
	flight: Flight,
	answerEntryId: string,
	envelope: AdvisorEnvelope,
): void {
	const cancelled = flight.cancelledBy !== undefined;
	const { outcome, advice } = outcomeOf(envelope, cancelled);
	const severity = advice !== undefined ? reviewSeverity(advice) : undefined;
	// 1. The bill, before anything is shown.
	const fallbackModel = review.deps.pipeline.config().modelKey ?? "unknown";
	record(review, usageRecord(envelope, { answerEntryId, fallbackModel, now: review.now() }, outcome, severity));
	const settled: ReviewTrace = { type: "settled", answerEntryId, outcome };
	if (severity !== undefined) settled.severity = severity;
	if (flight.cancelledBy !== undefined) {
		settled.cancelledBy = flight.cancelledBy;
		trace(review, settled);
		return;
	}
	// 2. The verdict.
	if (advice !== undefined) {
		try {
			settled.delivery = deliver(review, flight, ctx, answerEntryId, advice, envelope);
		} catch {
			// A stale context (the session was replaced without telling us): nothing to show it in.
		}
	}
	trace(review, settled);
}

function deliver(
	review: ReviewState,
	flight: Flight,
	ctx: ExtensionContext,
	answerEntryId: string,
	advice: string,
	envelope: AdvisorEnvelope,
): ReviewDelivery {
	const { slot } = review;
	const delivery = reviewDelivery(advice, {
		wokeThisPrompt: wokeSinceLastUserMessage(branchState(review, ctx)),
		// Headless, the host is not idle while it holds the reviewed run open (Pi 1.x): only a run
		// started after it (a second `pi -p` message) counts as another run.
		runActive: flight.headless ? slot.running() : slot.runActive(ctx),
	});
	if (!delivery.show) return delivery;
	const message = reviewMessage({
		advice,
		answerEntryId,
		delivery,
		...(envelope.usage !== undefined ? { usage: envelope.usage } : {}),
		...(envelope.details.advisorModel !== undefined ? { advisorModel: envelope.details.advisorModel } : {}),
		...(envelope.details.effort !== undefined ? { effort: envelope.details.effort } : {}),
	});
	if (!flight.headless || delivery.deliverAs === "nextTurn") {
		review.deps.pi.sendMessage(message, reviewSendOptions(delivery));
		return delivery;
	}
	slot.sendHeadless(review.deps.pi, ctx, message, delivery.triggerTurn);
	return delivery;
}
