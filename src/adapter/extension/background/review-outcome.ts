/**
 * How a started completion review ended, and the `advisor-usage` record it leaves whatever happened
 * to it (docs/configuration.md, "Completion review"): the bill is recorded before anything is shown.
 */

import type { Usage } from "@mariozechner/pi-ai";
import type { Severity } from "../../../events/index.ts";
import { reviewUsageRecord } from "../../../policy/index.ts";
import { zeroUsage } from "../../../render/index.ts";
import type { AdvisorEnvelope } from "../consult/envelope.ts";

/** How a started review ended, as its usage record says. */
export type ReviewOutcome = "advice" | "skipped" | "failed" | "timeout" | "cancelled";

export function outcomeOf(envelope: AdvisorEnvelope, cancelled: boolean): { outcome: ReviewOutcome; advice?: string } {
	const { details } = envelope;
	if (details.skipped === true) return { outcome: "skipped" };
	if (details.errorMessage === "timeout") return { outcome: "timeout" };
	if (details.errorMessage !== undefined || details.stopReason === "error" || details.stopReason === "aborted")
		return { outcome: cancelled ? "cancelled" : "failed" };
	const advice = envelope.content.map((part) => part.text).join("\n");
	if (advice.trim().length === 0) return { outcome: "failed" };
	return cancelled ? { outcome: "cancelled" } : { outcome: "advice", advice };
}

/**
 * The record of a review that started: `fallbackModel` names the configured advisor when the envelope
 * names none (a record without a model is dropped by the spend fold); `now` the clock's reading.
 */
export function usageRecord(
	envelope: AdvisorEnvelope,
	at: { answerEntryId: string; fallbackModel: string; now: number },
	outcome: ReviewOutcome,
	severity: Severity | undefined,
) {
	const { details } = envelope;
	const usage: Usage = envelope.usage ?? details.usage ?? zeroUsage();
	return {
		...reviewUsageRecord({
			model: details.advisorModel ?? at.fallbackModel,
			...(details.effort !== undefined ? { effort: details.effort } : {}),
			usage,
			answerEntryId: at.answerEntryId,
			...(severity !== undefined ? { severity } : {}),
			...(details.request !== undefined ? { request: details.request } : {}),
			...(details.attempts !== undefined ? { attempts: details.attempts } : {}),
			timestampMs: at.now,
		}),
		outcome,
		...(details.errorMessage !== undefined ? { errorMessage: details.errorMessage } : {}),
	};
}
