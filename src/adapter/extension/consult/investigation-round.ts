/**
 * The advisor's investigation rounds (docs/request-format.md): the calls of a reply run within the
 * consultation's allowance, the rest refused in-band, one result per call, and the notice to answer
 * with what it has once the allowance is spent.
 */

import type { ToolCall, ToolResultMessage, UserMessage } from "@mariozechner/pi-ai";
import type { ToolCallSummary } from "../../../events/index.ts";
import { TOOL_BUDGET_SPENT, TOOL_CALL_REFUSED, TOOL_TEXT } from "../../../render/index.ts";
import { errorText } from "../pi/error-text.ts";
import { advisorToolLine } from "../pi/notices.ts";
import type { InvestigationResult, InvestigationTools } from "./consultation-input.ts";

/** What a consultation's rounds have done so far. */
export interface Investigation {
	/** Calls executed (each counts against the allowance, whatever its outcome). */
	executed: string[];
	/** Calls refused in-band because the allowance ran out within their response. */
	refused: number;
	/** The allowance is used up and the advisor has been told to answer. */
	spent: boolean;
}

export function toolCallDetails(investigation: Investigation): ToolCallSummary | undefined {
	if (investigation.executed.length === 0 && investigation.refused === 0) return undefined;
	const out: ToolCallSummary = { count: investigation.executed.length, names: [...investigation.executed] };
	if (investigation.refused > 0) out.refused = investigation.refused;
	return out;
}

/** The user message that follows the results of the round that spent the allowance. */
export function spentNotice(): UserMessage {
	return { role: "user", content: [{ type: "text", text: TOOL_BUDGET_SPENT }], timestamp: 0 };
}

function toolResult(call: ToolCall, result: InvestigationResult): ToolResultMessage {
	return {
		role: "toolResult",
		toolCallId: call.id,
		toolName: call.name,
		content: result.content,
		isError: result.isError,
		timestamp: 0,
	};
}

/**
 * One investigation round: run the calls within the allowance in order, refuse the rest, and
 * return one result per call (every tool call of a reply must be answered for the request to be
 * valid). The declarations never change (that would change the cached head); when this round
 * uses up the allowance, `spent` is set and the caller appends the notice as a user message.
 */
export async function investigate(
	calls: readonly ToolCall[],
	tools: InvestigationTools,
	investigation: Investigation,
	signal: AbortSignal | undefined,
	onProgress: ((line: string) => void) | undefined,
): Promise<ToolResultMessage[]> {
	const results: ToolResultMessage[] = [];
	for (const call of calls) {
		if (signal?.aborted) break;
		if (investigation.executed.length >= tools.maxCalls) {
			investigation.refused++;
			results.push(toolResult(call, { content: [{ type: "text", text: TOOL_CALL_REFUSED }], isError: true }));
			continue;
		}
		investigation.executed.push(call.name);
		const opened = describeCall(tools, call);
		if (opened !== undefined) onProgress?.(advisorToolLine(opened));
		let result: InvestigationResult;
		try {
			result = await tools.execute(call, signal);
		} catch (err) {
			result = { content: [{ type: "text", text: TOOL_TEXT.failed(call.name, errorText(err)) }], isError: true };
		}
		if (opened === undefined) onProgress?.(advisorToolLine(nonBlank(result.summary) ?? call.name));
		results.push(toolResult(call, result));
	}
	if (investigation.executed.length >= tools.maxCalls) investigation.spent = true;
	return results;
}

function describeCall(tools: InvestigationTools, call: ToolCall): string | undefined {
	if (tools.describe === undefined) return undefined;
	try {
		return nonBlank(tools.describe(call)) ?? call.name;
	} catch {
		return call.name;
	}
}

function nonBlank(text: string | undefined): string | undefined {
	return text !== undefined && text.trim().length > 0 ? text : undefined;
}
