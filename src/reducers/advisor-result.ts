/**
 * Which advisor results count as completed consultations. Only those close a segment and
 * replay their advice; failed, cancelled and skipped calls leave nothing in the ledger.
 */

import {
	type ContentPart,
	type CustomMessageEvent,
	isRecord,
	parseAdvisorDetails,
	type ToolResultEvent,
} from "../events/index.ts";

export function partsText(parts: readonly ContentPart[]): string {
	let out = "";
	for (const part of parts) {
		if (part.type !== "text") continue;
		out = out.length === 0 ? part.text : `${out}\n${part.text}`;
	}
	return out;
}

/** The advice of a completed consultation, or undefined when the call failed, was cancelled or skipped. */
export function completedAdvice(result: ToolResultEvent): string | undefined {
	if (result.isError) return undefined;
	const details = parseAdvisorDetails(result.details);
	if (details.skipped === true) return undefined;
	if (details.errorMessage !== undefined && details.errorMessage.length > 0) return undefined;
	const stop = details.stopReason;
	if (stop === "error" || stop === "aborted") return undefined;
	const text = partsText(result.parts);
	return text.trim().length > 0 ? text : undefined;
}

/** The advice carried by a delivered completion review message. */
export function reviewAdvice(message: CustomMessageEvent): string | undefined {
	const details = isRecord(message.details) ? message.details : {};
	const advice = typeof details.advice === "string" ? details.advice : partsText(message.parts);
	return advice.trim().length > 0 ? advice : undefined;
}
