/**
 * The masked arm (docs/eval.md): the full context with observation masking, the baseline of
 * Lindenbauer et al. 2025 ("The Complexity Trap"): every tool result older than the newest
 * MASK_KEEP_TURNS assistant turns is replaced by one line saying how many lines it had. Everything
 * else — the user's words, the executor's prose, reasoning and calls, the recent results — stays.
 */

import type { Message, ToolResultMessage } from "@mariozechner/pi-ai";
import { MASKED_OUTPUT } from "../../../render/index.ts";

/** Tool results of the newest this-many assistant turns are kept whole. */
export const MASK_KEEP_TURNS = 10;

/** Lines of a result's text (an empty text is one line, as an editor shows it); images count none. */
export function outputLines(message: ToolResultMessage): number {
	let lines = 0;
	for (const part of message.content) if (part.type === "text") lines += part.text.split("\n").length;
	return lines;
}

/**
 * The messages with older tool results masked. A result is older when the assistant message it
 * answers is older than the newest `keep` assistant messages, i.e. it comes before the
 * keep-th newest assistant message. Messages that are not masked are the same objects.
 */
export function maskOldOutputs(messages: readonly Message[], keep: number = MASK_KEEP_TURNS): Message[] {
	let seen = 0;
	let boundary = 0;
	for (let i = messages.length - 1; i >= 0; i--) {
		if (messages[i]!.role !== "assistant") continue;
		seen++;
		if (seen === keep) {
			boundary = i;
			break;
		}
	}
	if (seen < keep) return [...messages];
	return messages.map((message, i) => {
		if (i >= boundary || message.role !== "toolResult") return message;
		const masked: ToolResultMessage = {
			...message,
			content: [{ type: "text", text: MASKED_OUTPUT(outputLines(message)) }],
		};
		return masked;
	});
}
