/**
 * One consultation: the rendered request goes to the advisor model, round after round, until
 * it answers. A loop over requests — investigation rounds (the advisor's read-only tools),
 * retries and a budget gate plug in through optional hooks — that never throws: every way it
 * can end is one row of the failure table (docs/request-format.md).
 *
 * Every request, first or retry or investigation round, carries the same sessionId and the
 * call's abort signal, and passes the `approve` gate first.
 *
 * Investigation (docs/request-format.md):
 * - `maxCalls` bounds executed tool CALLS, not responses. A response with more calls than remain
 *   gets the first ones run and the rest answered in-band with TOOL_CALL_REFUSED.
 * - Every request carries the same declarations (the rendered context's `tools`, untouched). The
 *   round that uses up the allowance is followed by a user message, TOOL_BUDGET_SPENT, after its
 *   tool results (so the request stays valid: results follow their calls).
 * - The same notice is sent when the gate says the next request must be the last (the consultation's
 *   limit leaves room for no round after it): `approve` answers `answerNow`, the notice is appended to
 *   that request, and no later request may call tools.
 * - A reply that still calls tools after that notice ends the consultation: its text is the
 *   advice when it wrote some, else `Advisor call failed: ` + TOOLS_AFTER_SPENT.
 * - A tool error (or a tool that throws) goes back to the advisor as an error result.
 * - One stream line per executed tool (`advisor: <summary>`), after the `Consulting advisor …` line.
 * - Rounds live only in this function: the envelope carries the final advice, the usage of every
 *   request and `details.toolCalls`; nothing of the rounds is written to the session.
 *
 * Cost control plugs in through the hooks, with these guarantees from the loop:
 * - `timeoutMs` is one deadline over the whole consultation, tool rounds included; `approve` can
 *   stop its clock while a dialog is open (`NextRequest.paused`). Expiry → the timeout row; the
 *   executor's own abort stays the cancelled row.
 * - `retry` is asked after every failed request AND after an answer with no text (`empty`); a
 *   retry passes `approve` again like any request.
 * - `details.request` is the RequestRecord of the first request (policy/budget/request-estimate.ts), with the
 *   prompt tokens the provider billed for it, so the next consultation's estimate can build on it,
 *   and `payloadHash`: the first request's provider payload as sent (after the cache-mark edit), in
 *   its warming form (payload-cache-marks.ts `warmingForm`), hashed by policy/warming/payload-hash.ts in
 *   `onPayload` — what a cache-warming refresh of it must match. Absent when the provider never
 *   builds a payload (pi-ai's faux provider).
 */

import type { Api, AssistantMessage, Context, Model, ToolCall, Usage } from "@mariozechner/pi-ai";
import type { AttemptRecord, RequestRecord } from "../../../events/index.ts";
import { payloadHash, requestRecord } from "../../../policy/index.ts";
import { parseUsage, promptTokensOf } from "../../../reducers/index.ts";
import { buildContext, redactionCount, TOOLS_AFTER_SPENT, zeroUsage } from "../../../render/index.ts";
import { errorText } from "../pi/error-text.ts";
import { modelDisplayName } from "../pi/model-key.ts";
import { consultingLine } from "../pi/notices.ts";
import { capAdvice } from "./advice-cap.ts";
import { addUsage, type ConsultationInput, type FailedAttempt, type SentRequest } from "./consultation-input.ts";
import { createDeadline } from "./deadline.ts";
import {
	type AdvisorEnvelope,
	adviceEnvelope,
	type EnvelopeBase,
	type Failure,
	failureEnvelope,
	identityBase,
} from "./envelope.ts";
import { type Investigation, investigate, spentNotice, toolCallDetails } from "./investigation-round.ts";
import { cacheMarksHook, markTargets, warmingForm } from "./payload-cache-marks.ts";

// ---------------------------------------------------------------------------------------------
// Hooks
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// The loop
// ---------------------------------------------------------------------------------------------

/** `context`: the conversation as sent (the gate may have added the notice to answer now). */
type SendOutcome =
	| { kind: "answered"; message: AssistantMessage; context: Context }
	| { kind: "ended"; failure: Failure };

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

/** An answer with nothing in it: no text, and no tool call the loop could run. */
function isEmptyReply(message: AssistantMessage, hasTools: boolean): boolean {
	if (replyText(message).trim().length > 0) return false;
	return !hasTools || toolCalls(message).length === 0;
}

function billedPrompt(usage: Usage | undefined): number {
	const billed = parseUsage(usage);
	return billed === undefined ? 0 : promptTokensOf(billed);
}

/** The consultation's clock and abort: the executor's signal and the deadline, as one. */
interface Clock {
	signal: AbortSignal | undefined;
	/** The deadline fired (and not the executor's own abort). */
	timedOut(): boolean;
	/** Since the consultation started, time spent in paused dialogs excluded. */
	elapsed(): number;
	paused<T>(work: () => Promise<T>): Promise<T>;
	/** How an interruption ends the consultation: the timeout row, or cancelled. */
	interrupted(message: string | undefined): Failure;
	dispose(): void;
}

function startClock(input: ConsultationInput, now: () => number): Clock {
	const deadline = input.timeoutMs !== undefined ? createDeadline(input.timeoutMs, now) : undefined;
	const signals = [input.signal, deadline?.signal].filter((s): s is AbortSignal => s !== undefined);
	const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
	const timedOut = () => deadline?.expired() === true && input.signal?.aborted !== true;
	const startedMs = now();
	return {
		signal,
		timedOut,
		elapsed: () => deadline?.elapsed() ?? now() - startedMs,
		paused: (work) => (deadline === undefined ? work() : deadline.paused(work)),
		interrupted: (message) =>
			timedOut()
				? { kind: "timeout", seconds: timeoutSeconds(input.timeoutMs ?? 0) }
				: { kind: "cancelled", message },
		dispose: () => deadline?.dispose(),
	};
}

/** What one consultation has gathered so far; every envelope's details are read from it. */
interface Consultation {
	readonly input: ConsultationInput;
	readonly now: () => number;
	readonly clock: Clock;
	attempts: AttemptRecord[];
	usage: Usage;
	lastStop: AttemptRecord["stopReason"] | undefined;
	/** When the first request was (to be) sent; its billed prompt; the last send. */
	firstMs: number | undefined;
	firstPrompt: number | undefined;
	lastSentMs: number | undefined;
	/** The first request's payload as the provider serialised it (every try of round 0 is the same one). */
	firstPayloadHash: string | undefined;
	previous: SentRequest | undefined;
	investigation: Investigation;
	/** Edits the provider payload to add the extension's cache marks, where the API takes marks. */
	breakpoint: ((payload: unknown) => unknown) | undefined;
	/** Credential marks sent so far, and how many messages of the context they cover; undefined before the first send. */
	redactions: { count: number; messages: number } | undefined;
}

function startConsultation(input: ConsultationInput): Consultation {
	const now = input.now ?? Date.now;
	return {
		input,
		now,
		clock: startClock(input, now),
		attempts: [],
		usage: zeroUsage(),
		lastStop: undefined,
		firstMs: undefined,
		firstPrompt: undefined,
		lastSentMs: undefined,
		firstPayloadHash: undefined,
		previous: undefined,
		investigation: { executed: [], refused: 0, spent: false },
		breakpoint: cacheMarksHook(
			input.model,
			buildContext(input.request),
			input.marks ?? markTargets(input.request, undefined),
		),
		redactions: undefined,
	};
}

/** `details.request`: the first request's record, once it was (to be) sent. */
function firstRequestRecord(c: Consultation): RequestRecord | undefined {
	if (c.firstMs === undefined) return undefined;
	return requestRecord(c.input.request, {
		routingKey: c.input.sessionId,
		timestampMs: c.firstMs,
		...(c.firstPayloadHash !== undefined ? { payloadHash: c.firstPayloadHash } : {}),
		...(c.firstPrompt !== undefined ? { promptTokens: c.firstPrompt } : {}),
		...(c.lastSentMs !== undefined && c.lastSentMs > c.firstMs ? { lastSentMs: c.lastSentMs } : {}),
	});
}

function envelopeBase(c: Consultation): EnvelopeBase {
	const out: EnvelopeBase = { ...identityBase(c.input.model, c.input.effort), ...c.input.base };
	const record = firstRequestRecord(c);
	if (record !== undefined) out.request = record;
	if (c.redactions !== undefined) out.redactions = c.redactions.count;
	if (c.attempts.length > 0) {
		out.usage = c.usage;
		out.attempts = c.attempts;
	}
	if (c.lastStop !== undefined) out.stopReason = c.lastStop;
	const calls = toolCallDetails(c.investigation);
	if (calls !== undefined) out.toolCalls = calls;
	return out;
}

/** Every API gets the hook: the breakpoint edit where it applies, and the first request's hash. */
function payloadHook(c: Consultation, round: number): (payload: unknown, model: Model<Api>) => unknown {
	return (payload, model) => {
		const replaced = c.breakpoint?.(payload);
		if (round === 0) {
			try {
				const { request } = c.input;
				const form = warmingForm(replaced ?? payload, c.input.model, buildContext(request), request.stable);
				c.firstPayloadHash = form === undefined ? undefined : payloadHash(form, model?.api ?? c.input.model.api);
			} catch {
				// A fingerprint is never worth the request itself.
			}
		}
		return replaced;
	};
}

/** Tool calls the advisor may still run: none without tools, or once it has been told to answer. */
function callsLeft(c: Consultation): number {
	const tools = c.input.tools;
	if (tools === undefined || c.investigation.spent) return 0;
	return Math.max(0, tools.maxCalls - c.investigation.executed.length);
}

/** The gate before a request: the context to send (the notice added when it must be the last), or how the consultation ends. */
async function approve(
	c: Consultation,
	context: Context,
	round: number,
	attempt: number,
): Promise<{ failure: Failure } | { context: Context }> {
	const { signal } = c.clock;
	if (signal?.aborted) return { failure: c.clock.interrupted(undefined) };
	c.firstMs ??= c.now();
	if (c.input.approve === undefined) return { context };
	const approval = await c.input.approve({
		context,
		round,
		attempt,
		billedUsage: c.usage,
		callsLeft: callsLeft(c),
		previous: c.previous,
		paused: c.clock.paused,
	});
	// The executor's Esc (or the deadline) while the gate was deciding — e.g. a dismissed dialog — is
	// a cancellation, not a skip.
	if (signal?.aborted) return { failure: c.clock.interrupted(undefined) };
	if (!approval.send) return { failure: { kind: "skipped", reason: approval.reason } };
	if (approval.answerNow !== true || c.investigation.spent) return { context };
	c.investigation.spent = true;
	return { context: { ...context, messages: [...context.messages, spentNotice()] } };
}

interface Reply {
	/** The provider's reply; absent when the call threw. */
	message: AssistantMessage | undefined;
	thrown: string | undefined;
	sentMs: number;
}

/** One request to the provider. A throw is a reply too: the retry hook may send it again. */
/**
 * Marks of what leaves with this request and was not counted yet: the whole first request, then
 * what each round adds of ours (tool results, the spent notice), never the advisor's own replies.
 */
function countRedactions(c: Consultation, context: Context): void {
	if (c.redactions === undefined) {
		c.redactions = {
			count: redactionCount(context.messages, context.systemPrompt ?? ""),
			messages: context.messages.length,
		};
		return;
	}
	const added = context.messages.slice(c.redactions.messages).filter((m) => m.role !== "assistant");
	c.redactions = { count: c.redactions.count + redactionCount(added), messages: context.messages.length };
}

async function dispatch(c: Consultation, context: Context, round: number, attempt: number): Promise<Reply> {
	const { input } = c;
	const sentMs = c.now();
	if (round === 0 && attempt === 0) c.firstMs = sentMs;
	countRedactions(c, context);
	c.lastSentMs = sentMs;
	try {
		const message = await input.complete(input.model, context, {
			...(input.effort !== undefined ? { reasoning: input.effort } : {}),
			...(input.maxTokens !== undefined ? { maxTokens: input.maxTokens } : {}),
			sessionId: input.sessionId,
			...(c.clock.signal !== undefined ? { signal: c.clock.signal } : {}),
			...(input.auth.apiKey !== undefined ? { apiKey: input.auth.apiKey } : {}),
			...(input.auth.headers !== undefined ? { headers: input.auth.headers } : {}),
			onPayload: payloadHook(c, round),
		});
		return { message, thrown: undefined, sentMs };
	} catch (err) {
		return { message: undefined, thrown: errorText(err), sentMs };
	}
}

/** A reply's usage, stop and prompt go into the consultation's totals. */
function recordReply(c: Consultation, context: Context, round: number, message: AssistantMessage, sentMs: number) {
	const record: AttemptRecord = { usage: message.usage, stopReason: message.stopReason };
	if (message.errorMessage !== undefined) record.errorMessage = message.errorMessage;
	c.attempts.push(record);
	c.usage = addUsage(c.usage, message.usage);
	c.lastStop = message.stopReason;
	c.previous = { context, usage: message.usage, sentMs };
	if (round === 0 && billedPrompt(message.usage) > 0) c.firstPrompt = billedPrompt(message.usage);
}

/** Asks the retry hook, unless the consultation was interrupted. */
async function shouldRetry(c: Consultation, failure: FailedAttempt): Promise<boolean> {
	return !c.clock.signal?.aborted && c.input.retry !== undefined && (await c.input.retry(failure));
}

/** How a request that did not answer ends the consultation (after the retry hook declined). */
function failureOf(c: Consultation, reply: Reply): Failure {
	const { message, thrown } = reply;
	if (thrown !== undefined) {
		return c.clock.signal?.aborted ? c.clock.interrupted(thrown) : { kind: "threw", message: thrown };
	}
	if (c.clock.timedOut() || message?.stopReason === "aborted") return c.clock.interrupted(message?.errorMessage);
	return { kind: "failed", message: message?.errorMessage };
}

/** One round's request, tried until it answers, the retry hook gives up, or the gate refuses. */
async function sendRound(c: Consultation, asked: Context, round: number): Promise<SendOutcome> {
	const hasTools = c.input.tools !== undefined;
	let context = asked;
	for (let attempt = 0; ; attempt++) {
		const gate = await approve(c, context, round, attempt);
		if ("failure" in gate) return { kind: "ended", failure: gate.failure };
		context = gate.context;
		const reply = await dispatch(c, context, round, attempt);
		const { message } = reply;
		if (message !== undefined) {
			recordReply(c, context, round, message, reply.sentMs);
			if (message.stopReason !== "error" && message.stopReason !== "aborted") {
				if (!isEmptyReply(message, hasTools)) return { kind: "answered", message, context };
				// Nothing in it: the retry hook may ask once more; else it ends as the empty row.
				const empty: FailedAttempt = {
					round,
					attempt,
					message,
					thrown: undefined,
					timedOut: false,
					empty: true,
					elapsedMs: c.clock.elapsed(),
				};
				if (await shouldRetry(c, empty)) continue;
				return { kind: "answered", message, context };
			}
		}
		const failed: FailedAttempt = {
			round,
			attempt,
			message,
			thrown: reply.thrown,
			timedOut: c.clock.timedOut(),
			empty: false,
			elapsedMs: c.clock.elapsed(),
		};
		if (await shouldRetry(c, failed)) continue;
		return { kind: "ended", failure: failureOf(c, reply) };
	}
}

/** After an answered round: the envelope when the consultation is over, else the next round's context. */
async function afterAnswer(
	c: Consultation,
	context: Context,
	message: AssistantMessage,
): Promise<{ done: AdvisorEnvelope } | { next: Context }> {
	const calls = toolCalls(message);
	const tools = c.input.tools;
	if (calls.length === 0 || tools === undefined) return { done: answer(c, message, envelopeBase(c)) };
	if (c.investigation.spent) {
		// Told in a user message to answer now, it called tools again: its text is the answer when it
		// wrote one; else the consultation ends without advice rather than loop on.
		if (replyText(message).trim().length > 0) return { done: answer(c, message, envelopeBase(c)) };
		return { done: failureEnvelope({ kind: "failed", message: TOOLS_AFTER_SPENT }, envelopeBase(c)) };
	}
	const results = await investigate(calls, tools, c.investigation, c.clock.signal, c.input.onProgress);
	// An abort mid-round: the next send reports it (cancelled, or timeout).
	const notice = c.investigation.spent ? [spentNotice()] : [];
	return { next: { ...context, messages: [...context.messages, message, ...results, ...notice] } };
}

/** Never throws: whatever a hook, a tool or the host throws ends the consultation as the "threw" row. */
export async function runConsultation(input: ConsultationInput): Promise<AdvisorEnvelope> {
	const c = startConsultation(input);
	try {
		input.onProgress?.(consultingLine(modelDisplayName(input.model), input.effort));
		let context = buildContext(input.request);
		for (let round = 0; ; round++) {
			const outcome = await sendRound(c, context, round);
			if (outcome.kind === "ended") return failureEnvelope(outcome.failure, envelopeBase(c));
			const step = await afterAnswer(c, outcome.context, outcome.message);
			if ("done" in step) return step.done;
			context = step.next;
		}
	} catch (err) {
		return failureEnvelope({ kind: "threw", message: errorText(err) }, envelopeBase(c));
	} finally {
		c.clock.dispose();
	}
}

function answer(c: Consultation, message: AssistantMessage, base: EnvelopeBase): AdvisorEnvelope {
	const text = replyText(message);
	if (text.trim().length === 0) return failureEnvelope({ kind: "empty" }, base);
	const max = c.input.adviceMaxChars;
	return adviceEnvelope(max === undefined ? text : capAdvice(text, max).text, base);
}

/** The tool calls of one consultation so far. */
