/**
 * How much of Pi's context an event takes, in characters, as the executor's messages hold it: what
 * a compaction leaves Pi's context at is measured with it (the compaction block's `contextChars`),
 * so the request can be held under Pi's own context (docs/request-format.md, "The log's size").
 * An estimate like Pi's own (characters, never tokens): images and framing are left out.
 */

import { assertNever, type ContentPart, type LedgerEvent } from "../events/index.ts";

function partsChars(parts: readonly ContentPart[]): number {
	let chars = 0;
	for (const part of parts) if (part.type === "text") chars += part.text.length;
	return chars;
}

function jsonChars(value: unknown): number {
	try {
		return JSON.stringify(value)?.length ?? 0;
	} catch {
		return 0;
	}
}

/** Characters `event` adds to the executor's context (0 for what never reaches it). */
export function contextChars(event: LedgerEvent): number {
	switch (event.kind) {
		case "user":
		case "toolResult":
			return partsChars(event.parts);
		case "assistant": {
			let chars = event.text.length + event.thinking.length;
			for (const call of event.calls) chars += call.name.length + jsonChars(call.arguments);
			return chars;
		}
		case "bashRun":
			return event.excluded ? 0 : event.command.length + event.output.length;
		case "customMessage":
			return partsChars(event.parts);
		case "branchSummary":
		case "compaction":
			return event.summary.length;
		case "system":
		case "contextEdit":
		case "modelChange":
		case "thinkingLevel":
		case "custom":
		case "usage":
		case "other":
			return 0;
		default:
			return assertNever(event, "ledger event");
	}
}
