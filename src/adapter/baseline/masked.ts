/**
 * The masked baseline (docs/cli.md, docs/eval.md): Pi's context with observation masking, the
 * baseline of Lindenbauer et al. 2025 ("The Complexity Trap"): every tool result older than the
 * newest MASK_KEEP_TURNS assistant turns is replaced by one line saying how many lines it had.
 * Everything else — the user's words, the executor's prose, reasoning and calls, the recent
 * results — stays. `eval` sends it as its masked arm; `replay` measures it as a column.
 */

import type { Message, ToolResultMessage } from "@mariozechner/pi-ai";
import { estimateMessageTokens, MASKED_OUTPUT } from "../../render/index.ts";
import { type BaselineRequest, messageChars } from "./cache-share.ts";
import type { BaselineCursor } from "./track.ts";

/** Tool results of the newest this-many assistant turns are kept whole. */
export const MASK_KEEP_TURNS = 10;

/** Lines of a result's text (an empty text is one line, as an editor shows it); images count none. */
export function outputLines(message: ToolResultMessage): number {
	let lines = 0;
	for (const part of message.content) if (part.type === "text") lines += part.text.split("\n").length;
	return lines;
}

// A result is masked the same way at every point: the same object, so cache shares see it repeat.
const maskedMemo = new WeakMap<ToolResultMessage, ToolResultMessage>();

function masked(message: ToolResultMessage): ToolResultMessage {
	let out = maskedMemo.get(message);
	if (out === undefined) {
		out = { ...message, content: [{ type: "text", text: MASKED_OUTPUT(outputLines(message)) }] };
		maskedMemo.set(message, out);
	}
	return out;
}

/**
 * Where masking stops: the index of the keep-th newest assistant message (results before it are
 * older), or 0 when there are fewer assistant messages than that (nothing is masked).
 */
export function maskBoundary(messages: readonly Message[], keep: number = MASK_KEEP_TURNS): number {
	let seen = 0;
	for (let i = messages.length - 1; i >= 0; i--) {
		if (messages[i]!.role !== "assistant") continue;
		if (++seen === keep) return i;
	}
	return 0;
}

/**
 * The messages with older tool results masked. A result is older when it comes before the keep-th
 * newest assistant message: by position, as the paper masks observations by turn. Messages that are
 * not masked are the same objects.
 */
export function maskOldOutputs(messages: readonly Message[], keep: number = MASK_KEEP_TURNS): Message[] {
	const boundary = maskBoundary(messages, keep);
	return messages.map((message, i) => (i < boundary && message.role === "toolResult" ? masked(message) : message));
}

/** Running sums over a cursor's backing list of what masking each message saves, in tokens and chars. */
interface Savings {
	tokens: number[];
	chars: number[];
}

// Items of a backing list never change once pushed (track.ts), so its running sums only grow.
const savingsMemo = new WeakMap<Message[], Savings>();

function savingsUpTo(list: Message[], count: number): { tokens: number; chars: number } {
	let sums = savingsMemo.get(list);
	if (sums === undefined) {
		sums = { tokens: [0], chars: [0] };
		savingsMemo.set(list, sums);
	}
	for (let i = sums.tokens.length - 1; i < count; i++) {
		const message = list[i]!;
		let tokens = 0;
		let chars = 0;
		if (message.role === "toolResult") {
			const short = masked(message);
			tokens = estimateMessageTokens(message) - estimateMessageTokens(short);
			chars = messageChars(message) - messageChars(short);
		}
		sums.tokens.push(sums.tokens[i]! + tokens);
		sums.chars.push(sums.chars[i]! + chars);
	}
	return { tokens: sums.tokens[count]!, chars: sums.chars[count]! };
}

/**
 * The masked request at a replay point, from the baseline request built there (`sent`: the
 * inventory, then the cursor's messages, the in-flight call left out). Its size comes from the
 * running sums, not a pass over every message; the messages are built for the cache shares.
 */
export function maskedPointRequest(
	cursor: BaselineCursor,
	sent: { messages: readonly Message[]; tokens: number; chars: number },
): BaselineRequest {
	const boundary = maskBoundary(sent.messages);
	if (boundary === 0) return { messages: sent.messages, tokens: sent.tokens, chars: sent.chars };
	const messages = maskOldOutputs(sent.messages);
	// sent.messages[i] is cursor.list[i − 1] up to the boundary: the inventory comes first, and the
	// in-flight call is stripped from a newer message than the keep-th newest assistant one.
	if (sent.messages[boundary - 1] === cursor.list[boundary - 2] || boundary === 1) {
		const saved = savingsUpTo(cursor.list, boundary - 1);
		return { messages, tokens: sent.tokens - saved.tokens, chars: sent.chars - saved.chars };
	}
	let tokens = 0;
	let chars = 0;
	for (const message of messages) {
		tokens += estimateMessageTokens(message);
		chars += messageChars(message);
	}
	return { messages, tokens, chars };
}
