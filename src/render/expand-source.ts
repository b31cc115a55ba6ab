/**
 * advisor_expand's source: the verbatim text behind a card or a gap. Only entries the ledger
 * could have shown answer; hidden extension messages, `!!` runs, extension state and anything
 * off the branch are "not found", exactly like an id that never existed.
 */

import type { ContentPart, LedgerEvent } from "../events/index.ts";
import { assertNever, CUSTOM_TYPES } from "../events/index.ts";
import type { ContextEdits, LedgerState } from "../reducers/index.ts";
import { completedAdvice, editedEvent, mergeSections, reviewAdvice, standingInstructions } from "../reducers/index.ts";
import { CONTEXT_OMITTED, MESSAGE_IMAGE, PASTED_IMAGE, TOOL_IMAGE_NO_PATH } from "./model-text.ts";
import { displayId, ordinalPosition } from "./ordinal.ts";
import { jsonText } from "./text-shape.ts";

export type ExpandResult = { kind: "ok"; text: string } | { kind: "not-found" };

function partsWithImages(parts: readonly ContentPart[], image: (mime: string) => string): string {
	return parts.map((p) => (p.type === "text" ? p.text : image(p.mimeType))).join("\n");
}

function findCall(events: readonly LedgerEvent[], before: number, callId: string, edits: ContextEdits) {
	for (let i = before - 1; i >= 0; i--) {
		// The call as its message now stands: a replaced message's own calls, none of an omitted one.
		const e = editedEvent(events[i]!, edits);
		if (e?.kind !== "assistant") continue;
		const call = e.calls.find((c) => c.id === callId);
		if (call !== undefined) return call;
	}
	return undefined;
}

/** The standing instructions in force at a system entry: its sections merged over the earlier ones. */
function instructionsAt(events: readonly LedgerEvent[], index: number) {
	let content = "";
	let sections: Record<string, string> = {};
	for (let i = 0; i <= index; i++) {
		const e = events[i]!;
		const prompt = e.kind === "system" ? e : e.kind === "compaction" ? e.system : undefined;
		if (prompt === undefined) continue;
		sections = mergeSections(e.kind === "compaction" ? {} : sections, prompt.sections);
		if (prompt.content.trim().length > 0) content = prompt.content;
	}
	return standingInstructions({ content, sections });
}

/** The text behind an entry, as the executor's context holds it now (its newest context edit applied). */
function expandEvent(events: readonly LedgerEvent[], index: number, edits: ContextEdits): string | undefined {
	const event = editedEvent(events[index]!, edits);
	if (event === undefined) return CONTEXT_OMITTED;
	switch (event.kind) {
		case "user":
			return partsWithImages(event.parts, PASTED_IMAGE);
		case "assistant": {
			const sections: string[] = [];
			if (event.text.trim().length > 0) sections.push(`prose:\n${event.text}`);
			if (event.thinking.trim().length > 0) sections.push(`reasoning:\n${event.thinking}`);
			for (const call of event.calls) sections.push(`call ${call.name}: ${jsonText(call.arguments)}`);
			return sections.length > 0 ? sections.join("\n\n") : undefined;
		}
		case "toolResult": {
			if (event.toolName === "advisor") return completedAdvice(event);
			const call = findCall(events, index, event.callId, edits);
			const head = `${event.toolName}${event.isError ? " (error)" : ""}: ${jsonText(call?.arguments ?? {})}`;
			return `${head}\n${partsWithImages(event.parts, TOOL_IMAGE_NO_PATH)}`;
		}
		case "bashRun":
			return event.excluded ? undefined : `$ ${event.command}\n${event.output}`;
		case "customMessage":
			if (event.customType === CUSTOM_TYPES.review) return reviewAdvice(event);
			return event.display ? partsWithImages(event.parts, MESSAGE_IMAGE) : undefined;
		case "compaction":
			return event.summary;
		case "branchSummary":
			return event.summary;
		case "system": {
			const instructions = instructionsAt(events, index);
			return instructions.length === 0 ? undefined : instructions.map((i) => `${i.source}:\n${i.text}`).join("\n\n");
		}
		case "modelChange":
		case "thinkingLevel":
		case "custom":
		case "contextEdit":
		case "usage":
		case "other":
			return undefined;
		default:
			return assertNever(event, "ledger event");
	}
}

/**
 * The event an id names: the ordinal the request shows (`#a` = the 10th entry of the branch path),
 * else a full entry id (or its display form), newest first. The ordinal wins: it is what the request shows.
 */
function eventIndex(events: readonly LedgerEvent[], id: string): number | undefined {
	const pos = ordinalPosition(id);
	if (pos !== undefined && pos <= events.length) return pos - 1;
	for (let i = events.length - 1; i >= 0; i--) {
		const event = events[i]!;
		if (event.id === id || displayId(event.id) === id) return i;
	}
	return undefined;
}

/** Look an id up (`#` optional; the id as shown in the request works too). */
export function expandEntry(state: LedgerState, rawId: string): ExpandResult {
	const id = rawId.trim().replace(/^#/, "");
	if (id.length === 0) return { kind: "not-found" };
	// One lookup per advisor_expand call: the branch's events as one array is fine here.
	const events = state.events.toArray();
	const index = eventIndex(events, id);
	if (index === undefined) return { kind: "not-found" };
	const event = events[index]!;
	if (state.hidden.includes(event.id)) return { kind: "not-found" };
	const text = expandEvent(events, index, state.contextEdits);
	return text === undefined ? { kind: "not-found" } : { kind: "ok", text };
}

/** Adapter for the advisor_expand tool's `ExpandSource`. */
export function expandSource(state: LedgerState): { lookup(id: string): ExpandResult } {
	return { lookup: (id) => expandEntry(state, id) };
}
