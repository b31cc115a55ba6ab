/**
 * Context edits (Pi 1.x, docs/request-format.md#context-edits): Pi, or an extension, replaced an
 * earlier entry's content in the executor's context, or took the entry out of it. The ledger keeps
 * the newest edit of each entry and applies it wherever it reads an entry after the edit — blocks
 * made from then on, the appendix, advisor_expand — so what was taken out of the executor's context
 * stays out of the advisor's. Blocks made before the edit keep their bytes: a request already sent
 * cannot be unsent, and a block that changed would break every cached prefix after it.
 */

import { assertNever, type ContextReplacement, type LedgerEvent, type ToolCallInfo } from "../events/index.ts";
import type { Round } from "./round.ts";

/** The newest edit of each edited entry, by entry id. Never changed: an edit makes new edits. */
export interface ContextEdits {
	/** The newest edit of entry `id`: its replacement, null when it was omitted, undefined when it never was edited. */
	get(id: string): ContextReplacement | null | undefined;
	/** These edits with `replacement` as the newest edit of `id`. */
	with(id: string, replacement: ContextReplacement | null): ContextEdits;
}

// A class only for its prototype: immer stores an instance as a value, so the ledger's fold reads the
// edits on its draft as they are, never a draft of a replacement (the same as reducers/chunked.ts).
class Edits implements ContextEdits {
	readonly byId: Readonly<Record<string, ContextReplacement | null>>;

	constructor(byId: Readonly<Record<string, ContextReplacement | null>>) {
		this.byId = Object.freeze(byId);
		Object.freeze(this);
	}

	get(id: string): ContextReplacement | null | undefined {
		return Object.hasOwn(this.byId, id) ? this.byId[id] : undefined;
	}

	with(id: string, replacement: ContextReplacement | null): ContextEdits {
		return new Edits({ ...this.byId, [id]: replacement });
	}
}

/** No entry edited. */
export const NO_EDITS: ContextEdits = new Edits({});

/** Edits of the given entries. */
export function contextEditsOf(byId: Readonly<Record<string, ContextReplacement | null>>): ContextEdits {
	return new Edits({ ...byId });
}

/** An edited entry's prose: the replacement's text parts, joined the way an assistant's are. */
function proseOf(replacement: ContextReplacement): string {
	const texts: string[] = [];
	for (const part of replacement.parts) if (part.type === "text") texts.push(part.text);
	return texts.join("\n\n");
}

/**
 * The event as the executor's context holds it now: unchanged without an edit, undefined when an
 * edit omitted it, else with the replacement in place of its content. Only content changes; an
 * entry kind Pi does not let an edit target is returned as it is.
 */
export function editedEvent(event: LedgerEvent, edits: ContextEdits): LedgerEvent | undefined {
	const replacement = edits.get(event.id);
	if (replacement === undefined) return event;
	if (replacement === null) return undefined;
	switch (event.kind) {
		case "user":
		case "toolResult":
		case "customMessage":
			return { ...event, parts: replacement.parts };
		case "assistant":
			return { ...event, text: proseOf(replacement), thinking: replacement.thinking, calls: replacement.calls };
		case "bashRun":
		case "compaction":
		case "branchSummary":
		case "modelChange":
		case "thinkingLevel":
		case "system":
		case "custom":
		case "other":
		case "contextEdit":
		case "usage":
			return event;
		default:
			return assertNever(event, "ledger event");
	}
}

/** The call `id` as an edited message now makes it: the replacement's call of that id, else unknown arguments. */
function callAfterEdit(call: ToolCallInfo, replacement: ContextReplacement): ToolCallInfo {
	return replacement.calls.find((c) => c.id === call.id) ?? { id: call.id, name: call.name, arguments: {} };
}

/**
 * A round as the executor's context holds it now. A replaced result shows its replacement, a
 * replaced call message its own call (unknown arguments when the replacement has none of that id)
 * and reasoning; an omitted result — or a result of an omitted message, which Pi omits together —
 * becomes `omitted` text, given by the caller (the renderer owns model-facing text).
 */
export function editedRound(round: Round, edits: ContextEdits, omitted: string): Round {
	const onCall = edits.get(round.callEntryId);
	const onResult = round.resultId === undefined ? undefined : edits.get(round.resultId);
	if (onCall === undefined && onResult === undefined) return round;
	const out: Round = { ...round };
	if (onCall === null) {
		out.call = { id: round.call.id, name: round.call.name, arguments: {} };
		out.reasoning = "";
	} else if (onCall !== undefined) {
		out.call = callAfterEdit(round.call, onCall);
		out.reasoning = onCall.thinking;
	}
	if (onCall === null || onResult === null) {
		out.resultParts = [{ type: "text", text: omitted }];
		delete out.withheld;
	} else if (onResult !== undefined) {
		out.resultParts = onResult.parts;
		delete out.withheld;
	}
	return out;
}

/** The text an edited entry's prose now has: undefined when it was omitted. */
export function editedProse(id: string, text: string, edits: ContextEdits): string | undefined {
	const replacement = edits.get(id);
	if (replacement === undefined) return text;
	return replacement === null ? undefined : proseOf(replacement);
}
