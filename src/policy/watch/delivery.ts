/**
 * What a settled watch review becomes (docs/configuration.md#the-watch), by its first-line severity
 * (no severity line reads as `nit`):
 *
 * - its finding no longer holds (the failing run passed meanwhile, a test ran since the edits) →
 *   `stale`: recorded with its advice, never shown;
 * - `none` → recorded; `nit` → `kept`: recorded with its advice for /advisor stats, never put into
 *   the executor's context;
 * - `concern` → `steered` into the running executor, before its next model call; the run has ended
 *   → `queued` for the user's next prompt;
 * - `blocker` → `steered` while the run goes on; after it ended, one more executor `turn` — at most
 *   one a user prompt (shared with the completion review's), else `queued`.
 *
 * Every review leaves exactly one usage record (`watchUsageRecord`), written before anything is
 * shown, whatever happened.
 */

import {
	type AttemptRecord,
	assertNever,
	type RequestRecord,
	type Severity,
	type UsageRecordData,
	type WatchDelivery,
} from "../../events/index.ts";
import type { WatchFinding } from "../../reducers/index.ts";
import { reviewSeverity } from "../review/severity.ts";

export interface WatchDeliveryState {
	/** The finding still holds on the branch as it is now (signals.ts `findingHolds`). */
	holds: boolean;
	/** The executor is running: a note now is steered into that run. */
	runActive: boolean;
	/** A note or a review already started a turn since the user's last message. */
	wokeThisPrompt: boolean;
}

export interface WatchDeliveryDecision {
	severity: Severity;
	delivery: WatchDelivery;
}

export function watchDelivery(advice: string, state: WatchDeliveryState): WatchDeliveryDecision {
	const severity = reviewSeverity(advice);
	if (advice.trim().length === 0) return { severity, delivery: "none" };
	if (!state.holds) return { severity, delivery: "stale" };
	switch (severity) {
		case "none":
			return { severity, delivery: "none" };
		case "nit":
			return { severity, delivery: "kept" };
		case "concern":
			return { severity, delivery: state.runActive ? "steered" : "queued" };
		case "blocker":
			return { severity, delivery: state.runActive ? "steered" : state.wokeThisPrompt ? "queued" : "turn" };
		default:
			return assertNever(severity, "severity");
	}
}

/** Whether a delivery puts the note into the executor's context (a steer, a queued note, a turn). */
export function deliveredToExecutor(delivery: WatchDelivery): boolean {
	return delivery === "steered" || delivery === "queued" || delivery === "turn";
}

/** How much of the advice a record keeps when the note was not delivered (a nit, a stale note). */
export const RECORDED_ADVICE_CHARS = 2000;

export interface WatchUsageInput {
	/** `provider:modelId`. */
	model: string;
	effort?: string;
	/** pi-ai Usage summed over every request of the review (zero usage when nothing was billed). */
	usage: unknown;
	finding: WatchFinding;
	/** The entry at whose turn the signal fired. */
	atEntryId: string;
	outcome: NonNullable<UsageRecordData["outcome"]>;
	delivery: WatchDelivery;
	severity?: Severity;
	/** The advice, kept when it was not delivered (capped to RECORDED_ADVICE_CHARS). */
	advice?: string;
	errorMessage?: string;
	request?: RequestRecord;
	attempts?: AttemptRecord[];
	timestampMs: number;
}

/** `data` of the `advisor-usage` entry every watch review (and every skipped finding) leaves. */
export function watchUsageRecord(input: WatchUsageInput): UsageRecordData {
	const out: UsageRecordData = {
		kind: "watch",
		model: input.model,
		usage: input.usage,
		timestampMs: input.timestampMs,
		signal: input.finding.signal,
		watchKey: input.finding.key,
		atEntryId: input.atEntryId,
		outcome: input.outcome,
		delivery: input.delivery,
	};
	if (input.effort !== undefined) out.effort = input.effort;
	if (input.severity !== undefined) out.severity = input.severity;
	if (input.errorMessage !== undefined) out.errorMessage = input.errorMessage;
	if (input.request !== undefined) out.request = input.request;
	if (input.attempts !== undefined && input.attempts.length > 0) out.attempts = input.attempts;
	if (input.advice !== undefined && !deliveredToExecutor(input.delivery))
		out.advice = input.advice.slice(0, RECORDED_ADVICE_CHARS);
	return out;
}
