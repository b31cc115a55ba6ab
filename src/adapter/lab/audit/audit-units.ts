/**
 * The baseline's messages as units of the fact audit (docs/request-format.md#the-fact-audit): what
 * each message carries as text — its text and reasoning parts, and each tool call's arguments both
 * as the JSON the provider receives and as their plain string values (a command with quotes is
 * written escaped in JSON, and plainly in the executor's own view).
 */

import type { Message } from "@mariozechner/pi-ai";
import { commonPrefix, type MessageView, viewAt } from "../../extension/baseline/view.ts";
import type { AuditUnits } from "./fact-presence.ts";

function argumentTexts(value: unknown, out: string[]): void {
	if (typeof value === "string") out.push(value);
	else if (Array.isArray(value)) for (const item of value) argumentTexts(item, out);
	else if (typeof value === "object" && value !== null)
		for (const item of Object.values(value)) argumentTexts(item, out);
}

/** Everything a message says as text, one part per line (the audit caches it by message: adapter/lab/audit/fact-audit.ts). */
export function messageText(message: Message): string {
	const out: string[] = [];
	if (typeof message.content === "string") out.push(message.content);
	else {
		for (const part of message.content) {
			if (part.type === "text") out.push(part.text);
			else if (part.type === "thinking") out.push(part.thinking);
			else if (part.type === "toolCall") {
				out.push(JSON.stringify(part.arguments ?? {}));
				argumentTexts(part.arguments, out);
			}
		}
	}
	return out.join("\n");
}

/**
 * The units of a baseline request: one per message, keyed by the message object (a kept message is
 * the same object). Two requests' views tell how many leading messages they share (view.ts).
 */
export function baselineAuditUnits(view: MessageView): AuditUnits {
	const at = (index: number) => viewAt(view, index)!;
	return {
		length: view.length,
		key: at,
		text: (index) => messageText(at(index)),
		source: view,
		shared: (previous) => (isView(previous.source) ? commonPrefix(previous.source, view) : 0),
	};
}

function isView(value: unknown): value is MessageView {
	return typeof value === "object" && value !== null && "pieces" in value && "length" in value;
}
