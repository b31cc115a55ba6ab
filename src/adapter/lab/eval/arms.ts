/**
 * The requests of one eval point, one per arm (docs/eval.md). Each arm is sent to the same advisor
 * model with the same question; none of them carries the workspace tools (read, grep, find, ls,
 * git_diff), because the workspace is no longer in the state it was in at the point.
 *
 * - ledger: the request `render --at` builds, with `tools.repo: false` — advisor_expand alone,
 *   answered from the session file;
 * - full: what rpiv-advisor sends, as the replay's baseline builds it (Pi's buildSessionContext +
 *   convertToLlm, after the tool inventory with its schemas), under a neutral system prompt with
 *   the same answer rules, the question and the instruction in a last user message;
 * - masked: the full arm with tool results older than the last MASK_KEEP_TURNS assistant turns
 *   replaced by one line (baseline/masked.ts).
 *
 * Every arm's messages go through the credential redaction last (the full and masked arms are built
 * from Pi's raw entries, not from events), so the eval sends nothing the extension would not.
 */

import type { Context, Message, Tool, UserMessage } from "@mariozechner/pi-ai";
import { type PrivacySettings, redactValue } from "../../../events/index.ts";
import type { LedgerState } from "../../../reducers/index.ts";
import {
	buildContext,
	estimateContextTokens,
	FULL_CONTEXT_INSTRUCTION,
	FULL_CONTEXT_SYSTEM_PROMPT,
	fullContextQuestion,
	type LedgerRequest,
	withContext,
} from "../../../render/index.ts";
import { baselineMessages, prepareBaseline } from "../../extension/baseline/messages.ts";
import { maskOldOutputs } from "../replay/masked.ts";
import { calledToolNames, sessionTools } from "../replay/tool-set.ts";
import { renderAt } from "../request/render-at.ts";
import type { DrawnPoint } from "./eval-points.ts";

export const ARMS = ["ledger", "full", "masked"] as const;
export type ArmName = (typeof ARMS)[number];

export interface ArmRequest {
	arm: ArmName;
	/** The first request, as sent (redacted). */
	context: Context;
	/** Estimated prompt tokens of the first request (render/estimate.ts). */
	tokens: number;
}

export interface LedgerArm extends ArmRequest {
	arm: "ledger";
	/** The rendered request with its stable portion (the Anthropic cache breakpoint goes there). */
	request: LedgerRequest;
	/** The folded ledger: advisor_expand's source. */
	state: LedgerState;
}

export interface PointRequests {
	/** The consultation's own question (the executor's prose beside the call), "" for a simulated point. */
	question: string;
	/** The user's newest message before the point, as text (images named). */
	userRequest: string;
	ledger?: LedgerArm;
	full?: ArmRequest;
	masked?: ArmRequest;
}

function userMessage(texts: readonly string[]): UserMessage {
	return { role: "user", content: texts.map((text) => ({ type: "text" as const, text })), timestamp: 0 };
}

function redactedContext(context: Context, privacy: PrivacySettings): Context {
	return { ...context, messages: redactValue(context.messages, privacy) };
}

function ledgerArm(drawn: DrawnPoint, privacy: PrivacySettings): LedgerArm {
	const { session, point, atEntryId } = drawn;
	const rendered = renderAt(session.file, session.text, undefined, atEntryId, {
		repo: false,
		...(point.callId !== undefined ? { inFlightCallId: point.callId } : {}),
	});
	const context = redactedContext(buildContext(rendered.request), privacy);
	return {
		arm: "ledger",
		context,
		tokens: estimateContextTokens(context),
		request: withContext(rendered.request, context),
		state: rendered.state,
	};
}

/** Pi's own context at the point (the in-flight call left out), after the tool inventory. */
function piContext(drawn: DrawnPoint): { messages: Message[]; inventory: Tool[] } {
	const { session, point } = drawn;
	const tools = sessionTools(session.cwd ?? process.cwd(), calledToolNames(session.entries));
	const messages = baselineMessages(prepareBaseline(session.path, tools.inventory), point.upTo, point.callId);
	return { messages, inventory: tools.inventory };
}

/**
 * The tools a history's calls name, declared: some providers (Anthropic's Messages API) refuse a
 * request whose history holds tool calls or results without tool definitions. The inventory is
 * already in the first message as text; the declarations add only the names the history uses.
 */
function historyTools(messages: readonly Message[], inventory: readonly Tool[]): Tool[] {
	const used = new Set<string>();
	for (const m of messages) {
		if (m.role === "assistant") for (const p of m.content) if (p.type === "toolCall") used.add(p.name);
		if (m.role === "toolResult") used.add(m.toolName);
	}
	return inventory.filter((t) => used.has(t.name));
}

function fullArm(
	arm: "full" | "masked",
	pi: { messages: Message[]; inventory: Tool[] },
	question: string,
	privacy: PrivacySettings,
): ArmRequest {
	const context = redactedContext(
		{
			systemPrompt: FULL_CONTEXT_SYSTEM_PROMPT,
			messages: [...pi.messages, userMessage([fullContextQuestion(question), FULL_CONTEXT_INSTRUCTION])],
			tools: historyTools(pi.messages, pi.inventory),
		},
		privacy,
	);
	return { arm, context, tokens: estimateContextTokens(context) };
}

/** The question of the consultation in flight at the point (none at a simulated point). */
function questionAt(drawn: DrawnPoint, state: LedgerState | undefined): string {
	const { callId } = drawn.point;
	if (callId === undefined) return "";
	if (state !== undefined)
		return state.pendingConsultations.toArray().find((c) => c.callId === callId)?.question ?? "";
	for (let i = drawn.point.upTo - 1; i >= 0; i--) {
		const event = drawn.session.events[i]!;
		if (event.kind === "assistant" && event.calls.some((c) => c.id === callId)) return event.text;
	}
	return "";
}

function userRequestAt(drawn: DrawnPoint): string {
	for (let i = drawn.point.upTo - 1; i >= 0; i--) {
		const event = drawn.session.events[i]!;
		if (event.kind !== "user") continue;
		return event.parts.map((p) => (p.type === "text" ? p.text : `[image (${p.mimeType})]`)).join("\n");
	}
	return "";
}

/** Every asked arm's first request at one point, redacted. */
export function pointRequests(drawn: DrawnPoint, arms: readonly ArmName[], privacy: PrivacySettings): PointRequests {
	const ledger = arms.includes("ledger") ? ledgerArm(drawn, privacy) : undefined;
	const question = questionAt(drawn, ledger?.state);
	const out: PointRequests = {
		question: redactValue(question, privacy),
		userRequest: redactValue(userRequestAt(drawn), privacy),
	};
	if (ledger !== undefined) out.ledger = ledger;
	if (arms.includes("full") || arms.includes("masked")) {
		const pi = piContext(drawn);
		if (arms.includes("full")) out.full = fullArm("full", pi, question, privacy);
		if (arms.includes("masked"))
			out.masked = fullArm("masked", { ...pi, messages: maskOldOutputs(pi.messages) }, question, privacy);
	}
	return out;
}

/** The arm requests of a point in the order they are sent. */
export function armRequests(requests: PointRequests): ArmRequest[] {
	const out: ArmRequest[] = [];
	for (const arm of ARMS) {
		const request = requests[arm];
		if (request !== undefined) out.push(request);
	}
	return out;
}
