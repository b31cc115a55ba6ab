/**
 * When a completion review runs (docs/configuration.md): a pure function of the branch, asked by the
 * adapter at `agent_end`. Everything it needs is recorded in the session itself — the executor's
 * messages, advisor results, delivered `advisor-review` messages and the `advisor-usage` record
 * every review leaves (delivered or not, failed or aborted) — so "each final answer is reviewed
 * once" survives a reload, and a branch switch brings its own answer back.
 *
 * Rules, checked in this order:
 * 1. `review.enabled` (else "disabled"); a host that cannot record usage (`pi.appendEntry`) never
 *    starts one ("host-cannot-record-usage"): the review could not be billed to the branch.
 * 2. The final answer is the newest executor message, with nothing of the conversation after it:
 *    only extension state (`custom`), labels and other bookkeeping, model / thinking changes and
 *    extension messages may follow. A user message, tool result, `!cmd` run, compaction or branch
 *    summary after it, or no executor message at all → "no-final-answer"; so is an answer with no
 *    text (thinking only).
 * 3. The answer's stop: `aborted` → "aborted"; `error` (or an error message) → "errored". A
 *    `length` stop is still a delivered answer.
 * 4. Tool calls in the answer (any, advisor included) → "tool-call-in-answer": the run did not end
 *    on a text answer.
 * 5. A review already recorded for this answer — a usage record of kind "review" naming it, or an
 *    `advisor-review` message naming it or sitting after it → "already-reviewed".
 * 6. Executor tool calls since the last user message (every call of every executor message after
 *    it, advisor calls excluded; calls that never got a result count) < `minToolCalls` →
 *    "too-few-tool-calls".
 * 7. The advisor already looked after the last change: a completed consultation (advice, not a
 *    failed, skipped or cancelled call) made in an executor message LATER than the one holding the
 *    last executor tool call, or a review (message or usage record) after that message →
 *    "consulted-after-last-tool-call". An advisor call in the same message as the last tool call
 *    does not count: with parallel calls it may not have seen that call's result. With no executor
 *    tool call since the last user message (minToolCalls 0), the last user message is the point.
 *    A review that names an answer on the branch BEFORE that message does not count either: it
 *    judged older work, and only its record landed later (a review settling while the user's next
 *    run was already making changes writes its usage record in the middle of that run).
 *    A watch review that answered counts the same way, wherever its record or note landed (after
 *    the answer too: it may settle while the run ends): it looked at the branch up to the entry its
 *    signal fired at (`atEntryId`), so it counts when that entry is at or after the message holding
 *    the last executor tool call (docs/configuration.md#the-watch).
 */

import type { AssistantEvent, LedgerEvent } from "../../events/index.ts";
import {
	ADVISOR_TOOL_NAME,
	assertNever,
	CUSTOM_TYPES,
	isRecord,
	parseUsageRecordData,
	parseWatchMessageDetails,
} from "../../events/index.ts";
import type { LedgerState } from "../../reducers/index.ts";
import { completedAdvice } from "../../reducers/index.ts";

/** The `review` keys of advisor.json (the adapter's ReviewConfig fits), plus what the host can do. */
export interface ReviewSettings {
	enabled: boolean;
	minToolCalls: number;
	/** false on hosts without `pi.appendEntry`: the review's usage could not be recorded. Default true. */
	hostRecordsUsage?: boolean;
}

export type ReviewSkipReason =
	| "disabled"
	| "host-cannot-record-usage"
	| "no-final-answer"
	| "tool-call-in-answer"
	| "errored"
	| "aborted"
	| "too-few-tool-calls"
	| "consulted-after-last-tool-call"
	| "already-reviewed";

export type ReviewDecision =
	| {
			review: true;
			/** Entry id of the executor's final answer: goes into the usage record and the review message. */
			answerEntryId: string;
			/** Executor tool calls since the last user message (advisor excluded). */
			toolCalls: number;
	  }
	| {
			review: false;
			reason: ReviewSkipReason;
			/** The final answer, when one was found. */
			answerEntryId?: string;
	  };

function eventsOf(branch: readonly LedgerEvent[] | Pick<LedgerState, "events">): readonly LedgerEvent[] {
	return "events" in branch ? branch.events.toArray() : branch;
}

/** May follow the final answer without ending it: not part of the executor's conversation. */
function trailing(event: LedgerEvent): boolean {
	switch (event.kind) {
		case "custom":
		case "other":
		case "modelChange":
		case "thinkingLevel":
		case "system":
		case "customMessage":
		// Pi 1.x writes context edits at the end of a turn and its own cache-warming spend at any time.
		case "contextEdit":
		case "usage":
			return true;
		case "user":
		case "assistant":
		case "toolResult":
		case "bashRun":
		case "compaction":
		case "branchSummary":
			return false;
		default:
			return assertNever(event, "ledger event");
	}
}

/** The answer a review message or usage record names; null when it is a review naming none; undefined when it is no review. */
function reviewedAnswer(event: LedgerEvent): string | null | undefined {
	if (event.kind === "customMessage" && event.customType === CUSTOM_TYPES.review) {
		const details = isRecord(event.details) ? event.details : {};
		return typeof details.answerEntryId === "string" && details.answerEntryId.length > 0
			? details.answerEntryId
			: null;
	}
	if (event.kind === "custom" && event.customType === CUSTOM_TYPES.usage) {
		const data = parseUsageRecordData(event.data);
		if (data?.kind !== "review") return undefined;
		return data.answerEntryId ?? null;
	}
	return undefined;
}

export function reviewDecision(
	branch: readonly LedgerEvent[] | Pick<LedgerState, "events">,
	settings: ReviewSettings,
): ReviewDecision {
	if (!settings.enabled) return { review: false, reason: "disabled" };
	if (settings.hostRecordsUsage === false) return { review: false, reason: "host-cannot-record-usage" };
	const events = eventsOf(branch);

	let answerIndex = events.length - 1;
	while (answerIndex >= 0 && trailing(events[answerIndex]!)) answerIndex--;
	const answer = answerIndex >= 0 ? events[answerIndex]! : undefined;
	if (answer === undefined || answer.kind !== "assistant") return { review: false, reason: "no-final-answer" };
	const skip = (reason: ReviewSkipReason): ReviewDecision => ({ review: false, reason, answerEntryId: answer.id });

	if (answer.stopReason === "aborted") return skip("aborted");
	if (answer.stopReason === "error" || (answer.errorMessage !== undefined && answer.errorMessage.length > 0))
		return skip("errored");
	if (answer.calls.length > 0) return skip("tool-call-in-answer");
	if (answer.text.trim().length === 0) return skip("no-final-answer");

	for (let i = 0; i < events.length; i++) {
		const named = reviewedAnswer(events[i]!);
		if (named === answer.id || (named === null && i > answerIndex)) return skip("already-reviewed");
	}

	let lastUser = -1;
	for (let i = answerIndex - 1; i >= 0; i--) {
		if (events[i]!.kind === "user") {
			lastUser = i;
			break;
		}
	}

	// Executor messages since the last user message: their tool calls, and where advisor calls were made.
	let toolCalls = 0;
	let lastCallMessage = lastUser;
	const advisorCallMessage = new Map<string, number>();
	for (let i = lastUser + 1; i < answerIndex; i++) {
		const event = events[i]!;
		if (event.kind !== "assistant") continue;
		const executorCalls = executorCallCount(event);
		toolCalls += executorCalls;
		if (executorCalls > 0) lastCallMessage = i;
		for (const call of event.calls) if (call.name === ADVISOR_TOOL_NAME) advisorCallMessage.set(call.id, i);
	}
	if (toolCalls < settings.minToolCalls) return skip("too-few-tool-calls");

	for (let i = lastCallMessage + 1; i < answerIndex; i++) {
		const event = events[i]!;
		if (event.kind === "toolResult" && event.toolName === ADVISOR_TOOL_NAME) {
			if (completedAdvice(event) === undefined) continue;
			// A result whose call is not on the branch is placed by the result itself.
			const madeAt = advisorCallMessage.get(event.callId) ?? i;
			if (madeAt > lastCallMessage) return skip("consulted-after-last-tool-call");
			continue;
		}
		const named = reviewedAnswer(event);
		if (named === undefined) continue;
		// A review of an answer older than the last tool call judged older work (see rule 7).
		const at = named === null ? -1 : events.findIndex((e) => e.id === named);
		if (at !== -1 && at < lastCallMessage) continue;
		return skip("consulted-after-last-tool-call");
	}
	if (watchedAfter(events, lastCallMessage)) return skip("consulted-after-last-tool-call");

	return { review: true, answerEntryId: answer.id, toolCalls };
}

/** The entry a watch review that answered looked up to, from its usage record or its note; undefined for anything else. */
function watchedUpTo(event: LedgerEvent): string | undefined {
	if (event.kind === "custom" && event.customType === CUSTOM_TYPES.usage) {
		const data = parseUsageRecordData(event.data);
		return data?.kind === "watch" && data.outcome === "advice" ? (data.atEntryId ?? event.id) : undefined;
	}
	if (event.kind === "customMessage" && event.customType === CUSTOM_TYPES.watch)
		return parseWatchMessageDetails(event.details)?.atEntryId;
	return undefined;
}

/** Rule 7 for the watch: a watch review after `from` that saw the branch at or after it (a point off the branch: where the record is). */
function watchedAfter(events: readonly LedgerEvent[], from: number): boolean {
	for (let i = from + 1; i < events.length; i++) {
		const upTo = watchedUpTo(events[i]!);
		if (upTo === undefined) continue;
		const at = events.findIndex((e) => e.id === upTo);
		if ((at === -1 ? i : at) >= from) return true;
	}
	return false;
}

function executorCallCount(event: AssistantEvent): number {
	let n = 0;
	for (const call of event.calls) if (call.name !== ADVISOR_TOOL_NAME) n++;
	return n;
}

/**
 * Whether a review already started a turn since the last user message: an `advisor-review` or
 * `advisor-watch` message recorded with `details.triggerTurn: true` after it (the completion
 * review and the watch share the one wake per prompt). The branch is the memory, so the
 * "at most one wake per user prompt" rule holds across reloads and needs no adapter flag.
 */
export function wokeSinceLastUserMessage(branch: readonly LedgerEvent[] | Pick<LedgerState, "events">): boolean {
	const events = eventsOf(branch);
	for (let i = events.length - 1; i >= 0; i--) {
		const event = events[i]!;
		if (event.kind === "user") return false;
		if (
			event.kind === "customMessage" &&
			(event.customType === CUSTOM_TYPES.review || event.customType === CUSTOM_TYPES.watch)
		) {
			if (isRecord(event.details) && event.details.triggerTurn === true) return true;
		}
	}
	return false;
}
