/**
 * One consultation: the rendered request goes to the advisor model, round after round, until
 * it answers. A loop over requests — investigation rounds (the advisor's read-only tools),
 * retries and a budget gate plug in through optional hooks — that never throws: every way it
 * can end is one row of SPEC §4.
 *
 * Every request, first or retry or investigation round, carries the same sessionId and the
 * call's abort signal, and passes the `approve` gate first.
 */

import type {
	Api,
	AssistantMessage,
	Context,
	ImageContent,
	Model,
	TextContent,
	ThinkingLevel,
	Tool,
	ToolCall,
	ToolResultMessage,
	Usage,
} from "@mariozechner/pi-ai";
import { TOOL_BUDGET_SPENT, TOOL_CALL_REFUSED } from "../render/constants.ts";
import type { LedgerRequest } from "../render/index.ts";
import { cacheBreakpointHook } from "./cache-breakpoint.ts";
import type { CompleteSimple } from "./compat.ts";
import {
	type AdvisorEnvelope,
	type AttemptRecord,
	adviceEnvelope,
	type EnvelopeBase,
	errorText,
	type Failure,
	failureEnvelope,
	identityBase,
	type RequestInfo,
} from "./envelope.ts";
import { advisorLabel } from "./model-key.ts";
import { consultingLine } from "./notices.ts";

// ---------------------------------------------------------------------------------------------
// Hooks
// ---------------------------------------------------------------------------------------------

/** One executed investigation call, as it goes back to the advisor. */
export interface InvestigationResult {
	content: (TextContent | ImageContent)[];
	isError: boolean;
	/** One line for the executor's stream, e.g. `read src/app.ts`. */
	summary: string;
}

/** The advisor's read-only tools (SPEC §3). Their declarations must already be in the request. */
export interface InvestigationTools {
	declarations: readonly Tool[];
	execute(call: ToolCall, signal: AbortSignal | undefined): Promise<InvestigationResult>;
	/** Tool calls executed per consultation; calls beyond it are refused in-band. */
	maxCalls: number;
}

/** What the gate sees before each request is sent. */
export interface NextRequest {
	context: Context;
	/** 0 for the first request; +1 per investigation round. */
	round: number;
	/** 0 for the first try of a round; +1 per retry. */
	attempt: number;
	/** Usage of every request of this consultation so far. */
	billedUsage: Usage;
}

export type Approval = { send: true } | { send: false; reason: string };

/** A request that did not produce an answer; the retry hook decides whether to send it again. */
export interface FailedAttempt {
	round: number;
	attempt: number;
	/** The provider's reply (stopReason error/aborted), absent when the call threw. */
	message: AssistantMessage | undefined;
	thrown: string | undefined;
	/** The consultation's own deadline fired. */
	timedOut: boolean;
	/** Since the consultation started. */
	elapsedMs: number;
}

export interface ConsultationAuth {
	apiKey?: string;
	headers?: Record<string, string>;
}

export interface ConsultationInput {
	complete: CompleteSimple;
	model: Model<Api>;
	auth: ConsultationAuth;
	/** Snapshotted when the tool was entered; undefined = no reasoning sent. */
	effort: ThinkingLevel | undefined;
	/** `advisor:<Pi session id>`, on every request. */
	sessionId: string;
	/** The first request, as rendered. */
	request: LedgerRequest;
	/** The executor's abort signal for this tool call. */
	signal: AbortSignal | undefined;
	/** Lines for the executor's stream while the call is in flight. */
	onProgress?: (line: string) => void;
	/** Absent: the advisor answers from the log in one request. */
	tools?: InvestigationTools;
	/** Called before every request; a refusal ends the consultation as a skip. */
	approve?: (next: NextRequest) => Promise<Approval>;
	/** Called after every failed request; true sends it again. */
	retry?: (failure: FailedAttempt) => boolean | Promise<boolean>;
	/** Deadline for the whole consultation. */
	timeoutMs?: number;
	/** Clock, injectable for tests. */
	now?: () => number;
	/** Base details already known (estimate, trim) that the envelope carries as they are. */
	base?: Pick<EnvelopeBase, "estimate" | "context">;
}

// ---------------------------------------------------------------------------------------------
// Usage
// ---------------------------------------------------------------------------------------------

export function zeroUsage(): Usage {
	return {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
}

export function addUsage(sum: Usage, more: Usage | undefined): Usage {
	if (more === undefined) return sum;
	const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
	return {
		input: sum.input + n(more.input),
		output: sum.output + n(more.output),
		cacheRead: sum.cacheRead + n(more.cacheRead),
		cacheWrite: sum.cacheWrite + n(more.cacheWrite),
		totalTokens: sum.totalTokens + n(more.totalTokens),
		cost: {
			input: sum.cost.input + n(more.cost?.input),
			output: sum.cost.output + n(more.cost?.output),
			cacheRead: sum.cost.cacheRead + n(more.cost?.cacheRead),
			cacheWrite: sum.cost.cacheWrite + n(more.cost?.cacheWrite),
			total: sum.cost.total + n(more.cost?.total),
		},
	};
}

// ---------------------------------------------------------------------------------------------
// The loop
// ---------------------------------------------------------------------------------------------

type SendOutcome = { kind: "answered"; message: AssistantMessage } | { kind: "ended"; failure: Failure };

/** The advice text of a reply: its text blocks, in order. */
export function replyText(message: AssistantMessage): string {
	const texts: string[] = [];
	for (const block of message.content) if (block.type === "text") texts.push(block.text);
	return texts.join("\n");
}

function toolCalls(message: AssistantMessage): ToolCall[] {
	return message.content.filter((block): block is ToolCall => block.type === "toolCall");
}

function timeoutSeconds(ms: number): number {
	return Math.round(ms / 10) / 100;
}

export async function runConsultation(input: ConsultationInput): Promise<AdvisorEnvelope> {
	const now = input.now ?? Date.now;
	const started = now();
	const attempts: AttemptRecord[] = [];
	let usage = zeroUsage();
	let request: RequestInfo | undefined;
	let lastStop: AttemptRecord["stopReason"] | undefined;

	const base = (): EnvelopeBase => {
		const out: EnvelopeBase = { ...identityBase(input.model, input.effort), ...input.base };
		if (request !== undefined) out.request = request;
		if (attempts.length > 0) {
			out.usage = usage;
			out.attempts = attempts;
		}
		if (lastStop !== undefined) out.stopReason = lastStop;
		return out;
	};

	const deadline = input.timeoutMs !== undefined ? AbortSignal.timeout(input.timeoutMs) : undefined;
	const signals = [input.signal, deadline].filter((s): s is AbortSignal => s !== undefined);
	const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
	const timedOut = () => deadline?.aborted === true && input.signal?.aborted !== true;
	const interrupted = (message: string | undefined): Failure =>
		timedOut() ? { kind: "timeout", seconds: timeoutSeconds(input.timeoutMs ?? 0) } : { kind: "cancelled", message };

	const onPayload = cacheBreakpointHook(input.model, input.request.context, input.request.stable);

	const send = async (context: Context, round: number): Promise<SendOutcome> => {
		for (let attempt = 0; ; attempt++) {
			if (signal?.aborted) return { kind: "ended", failure: interrupted(undefined) };
			request ??= {
				hash: input.request.hash,
				messageCount: input.request.messageCount,
				estimatedTokens: input.request.tokens,
				timestamp: now(),
			};
			if (input.approve !== undefined) {
				const approval = await input.approve({ context, round, attempt, billedUsage: usage });
				if (!approval.send) return { kind: "ended", failure: { kind: "skipped", reason: approval.reason } };
			}
			let message: AssistantMessage | undefined;
			let thrown: string | undefined;
			try {
				message = await input.complete(input.model, context, {
					...(input.effort !== undefined ? { reasoning: input.effort } : {}),
					sessionId: input.sessionId,
					...(signal !== undefined ? { signal } : {}),
					...(input.auth.apiKey !== undefined ? { apiKey: input.auth.apiKey } : {}),
					...(input.auth.headers !== undefined ? { headers: input.auth.headers } : {}),
					...(onPayload !== undefined ? { onPayload } : {}),
				});
			} catch (err) {
				thrown = errorText(err);
			}
			if (message !== undefined) {
				const record: AttemptRecord = { usage: message.usage, stopReason: message.stopReason };
				if (message.errorMessage !== undefined) record.errorMessage = message.errorMessage;
				attempts.push(record);
				usage = addUsage(usage, message.usage);
				lastStop = message.stopReason;
				if (message.stopReason !== "error" && message.stopReason !== "aborted") {
					return { kind: "answered", message };
				}
			}
			const failed: FailedAttempt = {
				round,
				attempt,
				message,
				thrown,
				timedOut: timedOut(),
				elapsedMs: now() - started,
			};
			if (!signal?.aborted && input.retry !== undefined && (await input.retry(failed))) continue;
			if (thrown !== undefined) {
				return {
					kind: "ended",
					failure: signal?.aborted ? interrupted(thrown) : { kind: "threw", message: thrown },
				};
			}
			if (timedOut() || message?.stopReason === "aborted") {
				return { kind: "ended", failure: interrupted(message?.errorMessage) };
			}
			return { kind: "ended", failure: { kind: "failed", message: message?.errorMessage } };
		}
	};

	try {
		input.onProgress?.(consultingLine(advisorLabel(input.model), input.effort));
		let context = input.request.context;
		const allowance = { used: 0, spentRounds: 0 };
		for (let round = 0; ; round++) {
			const outcome = await send(context, round);
			if (outcome.kind === "ended") return failureEnvelope(outcome.failure, base());
			const calls = toolCalls(outcome.message);
			const tools = input.tools;
			// Past the allowance, one more round is given to answer; a model that keeps calling is cut off.
			if (calls.length === 0 || tools === undefined || allowance.spentRounds > 0) {
				return answer(outcome.message, base());
			}
			context = await investigate(context, outcome.message, calls, tools, allowance, signal, input.onProgress);
		}
	} catch (err) {
		return failureEnvelope({ kind: "threw", message: errorText(err) }, base());
	}
}

function answer(message: AssistantMessage, base: EnvelopeBase): AdvisorEnvelope {
	const text = replyText(message);
	if (text.trim().length === 0) return failureEnvelope({ kind: "empty" }, base);
	return adviceEnvelope(text, base);
}

/**
 * One investigation round: run the calls within the allowance, refuse the rest, and append the
 * reply and the results. The declarations never change (that would change the cached head); when
 * the allowance is spent, the advisor is told so in-band, on the last result.
 */
async function investigate(
	context: Context,
	reply: AssistantMessage,
	calls: readonly ToolCall[],
	tools: InvestigationTools,
	allowance: { used: number; spentRounds: number },
	signal: AbortSignal | undefined,
	onProgress: ((line: string) => void) | undefined,
): Promise<Context> {
	const results: ToolResultMessage[] = [];
	for (const call of calls) {
		let result: InvestigationResult;
		if (allowance.used >= tools.maxCalls) {
			result = { content: [{ type: "text", text: TOOL_CALL_REFUSED }], isError: true, summary: "" };
		} else {
			allowance.used++;
			try {
				result = await tools.execute(call, signal);
			} catch (err) {
				result = { content: [{ type: "text", text: errorText(err) }], isError: true, summary: call.name };
			}
			if (result.summary.length > 0) onProgress?.(result.summary);
		}
		results.push({
			role: "toolResult",
			toolCallId: call.id,
			toolName: call.name,
			content: result.content,
			isError: result.isError,
			timestamp: 0,
		});
	}
	if (allowance.used >= tools.maxCalls) {
		allowance.spentRounds++;
		const last = results[results.length - 1];
		if (last !== undefined) last.content = [...last.content, { type: "text", text: TOOL_BUDGET_SPENT }];
	}
	return { ...context, messages: [...context.messages, reply, ...results] };
}
