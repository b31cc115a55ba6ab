/**
 * The advisor's investigation loop grows the conversation: each round appends the advisor's reply
 * (tool calls) and the tool results to the request it answered. Every request of the loop is
 * estimated afresh, so it is measured the same way as the ledger request: one unit per
 * content part, chained hashes, chars/4 tokens (1200 per image).
 */

import type { Context, Message } from "@mariozechner/pi-ai";
import { assertNever } from "../events/index.ts";
import { estimateMessageTokens } from "./estimate.ts";
import { chainHash, hashString } from "./hash.ts";
import type { LedgerRequest, RequestUnit } from "./request.ts";
import { jsonText } from "./text-shape.ts";

/** The flattened texts of a message's parts, in the provider-neutral form units use. */
function partTexts(message: Message): string[] {
	switch (message.role) {
		case "user":
			if (typeof message.content === "string") return [message.content];
			return message.content.map((p) => (p.type === "text" ? p.text : `\u0002image ${p.mimeType}`));
		case "assistant":
			return message.content.map((p) => {
				switch (p.type) {
					case "text":
						return p.text;
					case "thinking":
						return `\u0002thinking ${p.thinking}`;
					case "toolCall":
						return `\u0002call ${p.id} ${p.name} ${jsonText(p.arguments)}`;
					default:
						return assertNever(p, "assistant content part");
				}
			});
		case "toolResult":
			return [
				`\u0002result ${message.toolCallId} ${message.isError ? "error" : "ok"}`,
				...message.content.map((p) => (p.type === "text" ? p.text : `\u0002image ${p.mimeType}`)),
			];
		default:
			return assertNever(message, "message role");
	}
}

/**
 * The request `context` as it has grown in the tool loop: `request` (the ledger request as
 * rendered) with every message of `context` after the request's own appended as new units. The
 * stable portion is unchanged; `hash`, `units`, `tokens` and `messageCount` cover the whole
 * conversation. `context.messages` must start with the request's messages (the loop only appends).
 */
export function extendRequest(request: LedgerRequest, context: Pick<Context, "messages">): LedgerRequest {
	const added = context.messages.slice(request.context.messages.length);
	if (added.length === 0) return request;
	const units: RequestUnit[] = [...request.units];
	let prefixHash = request.hash;
	let prefixChars = units.length === 0 ? 0 : units[units.length - 1]!.prefixChars;
	let tokens = request.tokens;
	for (const message of added) {
		const role = message.role === "assistant" ? "a" : "u";
		partTexts(message).forEach((part, p) => {
			const text = `${p === 0 ? "\u0001" : ""}${role}\u0000${part}`;
			prefixHash = chainHash(prefixHash, hashString(text));
			prefixChars += text.length;
			units.push({ prefixHash, prefixChars, text });
		});
		tokens += estimateMessageTokens(message);
	}
	return {
		context: { ...request.context, messages: [...request.context.messages, ...added] },
		stable: request.stable,
		units,
		hash: prefixHash,
		tokens,
		messageCount: request.messageCount + added.length,
	};
}
