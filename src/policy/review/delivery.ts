/**
 * Completion review: what a finished review becomes. Pure; the adapter runs the request
 * and calls Pi. The whole flow, for the adapter author:
 *
 *   agent_end ─ no review in flight? ─ reviewDecision(branch, review settings)   (policy/review/trigger.ts)
 *     → review: planConsultation({ …, render: { …, mode: "review" }, interactive: false })
 *         decision "skip" (over budget: never a dialog) → nothing is sent, nothing shown
 *         decision "send" → run the request (tool loop as for a consultation, `budget.timeoutSec`,
 *         planNextRequest before each round with interactive false), in the background
 *     → when it settles (ok, failed, timed out or aborted):
 *         1. pi.appendEntry(CUSTOM_TYPES.usage, reviewUsageRecord(…))   ALWAYS, even with zero usage
 *         2. only with advice: reviewDelivery(advice, { wokeThisPrompt: wokeSinceLastUserMessage(branch),
 *            runActive }) → show: pi.sendMessage(reviewMessage(…), reviewSendOptions(delivery))
 *   session_before_compact|tree|switch|fork, session_shutdown → abort the review in flight, await
 *   it, record its usage (step 1), show nothing.
 *
 * The review message's `details.advice` is what a later consultation replays as the advisor's own
 * past answer under the review marker (reducers/ledger-fold.ts → closed segment "review"); a `none` review
 * is never delivered, so it leaves only its usage record.
 */

import type { AttemptRecord, RequestRecord, Severity, UsageRecordData } from "../../events/index.ts";
import { reviewSeverity } from "./severity.ts";

export interface DeliveryState {
	/** A review already started a turn since the last user message (`wokeSinceLastUserMessage`). */
	wokeThisPrompt: boolean;
	/** The executor is running (the user started another run): a message now would be injected into it. */
	runActive: boolean;
}

export type ReviewDelivery =
	| { show: false; severity: Severity }
	| {
			show: true;
			severity: Severity;
			/** Start one executor turn (blockers only, at most one per user prompt, never into a running run). */
			triggerTurn: boolean;
			/** "now": append to the context at once; "nextTurn": queue for the next user prompt's turn. */
			deliverAs: "now" | "nextTurn";
	  };

/**
 * How to deliver a review, by its first-line severity (decoration tolerated; none → `nit`):
 * `none` → nothing shown; `nit`/`concern` → a visible message in the executor's context, no turn;
 * `blocker` → the same, and it starts one turn unless one was started already this prompt. While
 * a run is active the message waits for the next turn (never injected into that run) and starts
 * no turn of its own. Advice with no text is never shown.
 */
export function reviewDelivery(advice: string, state: DeliveryState): ReviewDelivery {
	const severity = reviewSeverity(advice);
	if (severity === "none" || advice.trim().length === 0) return { show: false, severity };
	const deliverAs = state.runActive ? "nextTurn" : "now";
	const triggerTurn = severity === "blocker" && !state.wokeThisPrompt && !state.runActive;
	return { show: true, severity, triggerTurn, deliverAs };
}

/** `pi.sendMessage` options for a shown review. "now" sends no deliverAs: Pi appends it at once when idle. */
export function reviewSendOptions(delivery: Extract<ReviewDelivery, { show: true }>): {
	triggerTurn?: boolean;
	deliverAs?: "nextTurn";
} {
	if (delivery.deliverAs === "nextTurn") return { deliverAs: "nextTurn" };
	return delivery.triggerTurn ? { triggerTurn: true } : {};
}

export interface ReviewUsageInput {
	/** `provider:modelId`. */
	model: string;
	effort?: string;
	/** pi-ai Usage summed over every request of the review (zero usage when nothing was billed). */
	usage: unknown;
	answerEntryId: string;
	/** The review's verdict, when it produced advice. */
	severity?: Severity;
	/** `requestRecord(first request, meta)` of the review's first request, when it was sent. */
	request?: RequestRecord;
	/** One per request sent (retries and investigation rounds), as the envelope's `details.attempts`. */
	attempts?: AttemptRecord[];
	/** Epoch ms when the review settled. */
	timestampMs: number;
}

/** `data` of the `advisor-usage` entry every review leaves, whatever its outcome. */
export function reviewUsageRecord(input: ReviewUsageInput): UsageRecordData {
	const out: UsageRecordData = {
		kind: "review",
		model: input.model,
		usage: input.usage,
		timestampMs: input.timestampMs,
		answerEntryId: input.answerEntryId,
	};
	if (input.effort !== undefined) out.effort = input.effort;
	if (input.severity !== undefined) out.severity = input.severity;
	if (input.request !== undefined) out.request = input.request;
	if (input.attempts !== undefined && input.attempts.length > 0) out.attempts = input.attempts;
	return out;
}
