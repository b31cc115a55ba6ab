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

interface InFlight {
	answerEntryId: string;
	controller: AbortController;
	promise: Promise<void>;
	cancelledBy: InterruptReason | undefined;
	/** Started without a UI: delivered as part of the run (see the header). */
	headless: boolean;
}

/** A promise and its resolver. */
interface Signal {
	promise: Promise<void>;
	resolve: () => void;
}

function signal(): Signal {
	let resolve = () => {};
	const promise = new Promise<void>((r) => {
		resolve = r;
	});
	return { promise, resolve };
}

/** No UI to show anything in; false when the context cannot say (a stale one: nothing to finish). */
function headless(ctx: ExtensionContext): boolean {
	try {
		return !ctx.hasUI;
	} catch {
		return false;
	}
}

/** `ctx.isIdle()`, false when the context cannot say (a stale one). */
function idle(ctx: ExtensionContext): boolean {
	try {
		return ctx.isIdle();
	} catch {
		return false;
	}
}

/** What one completion review keeps between Pi's events (one per loaded copy of the extension). */
interface ReviewState {
	readonly deps: ReviewDeps;
	readonly now: () => number;
	/** An agent_start seen without its agent_end. */
	running: boolean;
	inflight: InFlight | undefined;
	/** An agent_end arrived while a review was in flight. */
	missed: ExtensionContext | undefined;
	/** Resolved by the next agent_end (a shutdown that overtook it waits on this). */
	nextEnd: Signal | undefined;
	/** A headless review started an executor turn that has not ended yet. */
	woken: Signal | undefined;
}

export function createCompletionReview(deps: ReviewDeps): CompletionReview {
	const review: ReviewState = {
		deps,
		now: deps.now ?? Date.now,
		running: false,
		inflight: undefined,
		missed: undefined,
		nextEnd: undefined,
		woken: undefined,
	};
	return {
		runStarted() {
			review.running = true;
		},
		runEnded: (ctx) => runEnded(review, ctx),
		async beforeSettle() {
			const flight = review.inflight;
			if (flight?.headless) await flight.promise;
		},
		cancel: (reason) => cancel(review, reason),
		interrupted: (reason, ctx, shutdownReason) => interrupted(review, reason, ctx, shutdownReason),
		idle: () => review.inflight?.promise ?? Promise.resolve(),
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

function runActive(review: ReviewState, ctx: ExtensionContext): boolean {
	if (review.running) return true;
	try {
		return !ctx.isIdle();
	} catch {
		return true;
	}
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

function runEnded(review: ReviewState, ctx: ExtensionContext): void {
	review.running = false;
	const ended = review.nextEnd;
	review.nextEnd = undefined;
	const wake = review.woken;
	review.woken = undefined;
	try {
		start(review, ctx);
	} finally {
		ended?.resolve();
		wake?.resolve();
	}
}

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
	if (review.inflight !== undefined) {
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
	const controller = new AbortController();
	const flight: InFlight = {
		answerEntryId: decision.answerEntryId,
		controller,
		promise: Promise.resolve(),
		cancelledBy: undefined,
		headless: unattended,
	};
	review.inflight = flight;
	trace(review, { type: "started", answerEntryId: decision.answerEntryId, toolCalls: decision.toolCalls });
	flight.promise = (async () => {
		const run = await runAdvisor(review.deps.pipeline, {
			ctx,
			mode: "review",
			signal: controller.signal,
			interactive: false,
		});
		settle(review, ctx, flight, run.envelope);
	})().catch(() => {
		if (review.inflight === flight) review.inflight = undefined;
	});
}

// ---------------------------------------------------------------------------------------------
// The review settles: the bill first, then the verdict
// ---------------------------------------------------------------------------------------------

function settle(review: ReviewState, ctx: ExtensionContext, flight: InFlight, envelope: AdvisorEnvelope): void {
	const cancelled = flight.cancelledBy !== undefined;
	const { outcome, advice } = outcomeOf(envelope, cancelled);
	const severity = advice !== undefined ? reviewSeverity(advice) : undefined;
	// 1. The bill, before anything is shown.
	const fallbackModel = review.deps.pipeline.config().modelKey ?? "unknown";
	record(
		review,
		usageRecord(
			envelope,
			{ answerEntryId: flight.answerEntryId, fallbackModel, now: review.now() },
			outcome,
			severity,
		),
	);
	if (review.inflight === flight) review.inflight = undefined;
	const settled: ReviewTrace = { type: "settled", answerEntryId: flight.answerEntryId, outcome };
	if (severity !== undefined) settled.severity = severity;
	if (flight.cancelledBy !== undefined) {
		settled.cancelledBy = flight.cancelledBy;
		trace(review, settled);
		return;
	}
	// 2. The verdict.
	if (advice !== undefined) {
		try {
			settled.delivery = deliver(review, flight, ctx, advice, envelope);
		} catch {
			// A stale context (the session was replaced without telling us): nothing to show it in.
		}
	}
	trace(review, settled);
	// An answer that ended while this review ran gets its own turn now.
	const pending = review.missed;
	review.missed = undefined;
	if (pending !== undefined && !runActive(review, pending)) start(review, pending);
}

function deliver(
	review: ReviewState,
	flight: InFlight,
	ctx: ExtensionContext,
	advice: string,
	envelope: AdvisorEnvelope,
): ReviewDelivery {
	const delivery = reviewDelivery(advice, {
		wokeThisPrompt: wokeSinceLastUserMessage(branchState(review, ctx)),
		// Headless, the host is not idle while it holds the reviewed run open (Pi 1.x): only a run
		// started after it (a second `pi -p` message) counts as another run.
		runActive: flight.headless ? review.running : runActive(review, ctx),
	});
	if (!delivery.show) return delivery;
	const message = reviewMessage({
		advice,
		answerEntryId: flight.answerEntryId,
		delivery,
		...(envelope.usage !== undefined ? { usage: envelope.usage } : {}),
		...(envelope.details.advisorModel !== undefined ? { advisorModel: envelope.details.advisorModel } : {}),
		...(envelope.details.effort !== undefined ? { effort: envelope.details.effort } : {}),
	});
	if (!flight.headless || delivery.deliverAs === "nextTurn") {
		review.deps.pi.sendMessage(message, reviewSendOptions(delivery));
		return delivery;
	}
	deliverHeadless(review, ctx, message, delivery.triggerTurn);
	return delivery;
}

/**
 * Pi 1.x is still inside the reviewed run (agent_before_settle): a follow-up continues it.
 * Pi 0.73 is idle (print mode has already printed): a turn starts one more run.
 */
function deliverHeadless(
	review: ReviewState,
	ctx: ExtensionContext,
	message: ReturnType<typeof reviewMessage>,
	wake: boolean,
): void {
	if (wake) review.woken ??= signal();
	const inRun = !idle(ctx);
	review.deps.pi.sendMessage(
		message,
		wake
			? { triggerTurn: true, deliverAs: "followUp" }
			: // Appended inside the run it would become the run's last message, and print mode
				// prints the last message only when it is the executor's: queue it for the next
				// prompt instead. Once the run is over it is simply stored.
				inRun
				? { deliverAs: "nextTurn" }
				: { triggerTurn: false },
	);
	// Nothing started (the host refused): nothing to wait for.
	if (wake && idle(ctx)) {
		review.woken?.resolve();
		review.woken = undefined;
	}
}

// ---------------------------------------------------------------------------------------------
// The session changes: cancel, or (headless, quitting) let the review finish
// ---------------------------------------------------------------------------------------------

async function cancel(review: ReviewState, reason: InterruptReason): Promise<void> {
	review.missed = undefined;
	const flight = review.inflight;
	if (flight === undefined) return;
	flight.cancelledBy = reason;
	flight.controller.abort(new Error(`aborted: ${reason}`));
	await flight.promise;
}

async function interrupted(
	review: ReviewState,
	reason: InterruptReason,
	ctx: ExtensionContext,
	shutdownReason: string | undefined,
): Promise<void> {
	const finishing = reason === "session_shutdown" && shutdownReason === "quit" && headless(ctx) && idle(ctx);
	if (!finishing) {
		await cancel(review, reason);
		return;
	}
	// Pi 0.73 may dispose before the run's agent_end reached the extension: let it arrive
	// (it is already queued), within the review's own bound.
	if (review.running) {
		review.nextEnd ??= signal();
		await boundedBy(review.nextEnd.promise, review.deps.pipeline.config().budget.timeoutSec * 1000);
	}
	await review.inflight?.promise;
	// The executor turn a blocker started, then the run ends.
	await review.woken?.promise;
	await cancel(review, reason);
}

/** `promise`, or nothing after `ms`: a guard against an event that never arrives. */
async function boundedBy(promise: Promise<void>, ms: number): Promise<void> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const expired = new Promise<void>((resolve) => {
		timer = setTimeout(resolve, ms);
	});
	try {
		await Promise.race([promise, expired]);
	} finally {
		clearTimeout(timer);
	}
}
