/**
 * The sticky trim boundary. When a cold request is too big, the adapter picks an anchor
 * (policy/budget/trim.ts `chooseTrim`), records it with `pi.appendEntry(CUSTOM_TYPES.trimAnchor, record)`
 * BEFORE dispatch, and every later consultation on the branch renders with the same anchor, so a
 * warm follow-up reproduces the trimmed request's prefix byte for byte. A compaction or a branch
 * summary after the record resets it (the ledger itself was rebuilt or re-pathed), and so does a
 * record written against another summary boundary than the ledger's current one.
 *
 * A fold of its own, like spend: the ledger's blocks do not depend on it (the renderer takes the
 * anchor as an option), and a resumed session gets it back by folding the same events.
 */

import {
	assertNever,
	CUSTOM_TYPES,
	type LedgerEvent,
	parseTrimAnchorRecord,
	type TrimAnchorRecord,
} from "../events/index.ts";
import { produce } from "./immer.ts";
import type { LedgerState } from "./ledger-state.ts";

/** What the renderer leaves out: everything up to the anchor, and the tail's parts capped. */
export type RenderTrim = Omit<TrimAnchorRecord, "summaryBoundaryId">;

export interface TrimAnchorState {
	record: TrimAnchorRecord | undefined;
	/** Entry id of the custom entry the record came from. */
	entryId: string | undefined;
}

export function emptyTrimAnchor(): TrimAnchorState {
	return { record: undefined, entryId: undefined };
}

export function foldTrimAnchor(state: TrimAnchorState, events: readonly LedgerEvent[]): TrimAnchorState {
	let next: TrimAnchorState | undefined;
	for (const event of events) {
		switch (event.kind) {
			case "custom": {
				if (event.customType !== CUSTOM_TYPES.trimAnchor) break;
				const record = parseTrimAnchorRecord(event.data);
				if (record !== undefined) next = { record, entryId: event.id };
				break;
			}
			case "compaction":
				// A message-role compaction summary resets nothing in the ledger, so nothing here either.
				if (event.resets) next = emptyTrimAnchor();
				break;
			case "branchSummary":
				next = emptyTrimAnchor();
				break;
			case "user":
			case "assistant":
			case "toolResult":
			case "bashRun":
			case "customMessage":
			case "modelChange":
			case "thinkingLevel":
			case "system":
			case "other":
			// A context edit changes no position in the ledger, and spend is no entry it shows.
			case "contextEdit":
			case "usage":
				break;
			default:
				return assertNever(event, "ledger event");
		}
	}
	if (next === undefined) return state;
	const value = next;
	return produce(state, (draft) => {
		draft.record = value.record;
		draft.entryId = value.entryId;
	});
}

export function trimAnchorOf(events: readonly LedgerEvent[]): TrimAnchorState {
	return foldTrimAnchor(emptyTrimAnchor(), events);
}

/** The record to persist for an anchor chosen on this ledger. */
export function trimAnchorRecord(ledger: Pick<LedgerState, "summaryBoundary">, trim: RenderTrim): TrimAnchorRecord {
	const out: TrimAnchorRecord = { summaryBoundaryId: ledger.summaryBoundary?.id ?? null };
	if (trim.anchorEntryId !== undefined) out.anchorEntryId = trim.anchorEntryId;
	if (trim.tailCaps !== undefined) out.tailCaps = trim.tailCaps;
	return out;
}

/**
 * The trim to render with, or undefined: the record must have been written against the ledger's
 * current summary boundary. (That the anchor names an item of the ledger is the renderer's check:
 * an unknown anchor renders untrimmed.)
 */
export function activeTrim(
	state: TrimAnchorState,
	ledger: Pick<LedgerState, "summaryBoundary">,
): RenderTrim | undefined {
	const record = state.record;
	if (record === undefined) return undefined;
	if (record.summaryBoundaryId !== (ledger.summaryBoundary?.id ?? null)) return undefined;
	const out: RenderTrim = {};
	if (record.anchorEntryId !== undefined) out.anchorEntryId = record.anchorEntryId;
	if (record.tailCaps !== undefined) out.tailCaps = record.tailCaps;
	return out;
}
