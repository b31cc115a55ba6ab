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

import { CUSTOM_TYPES, type LedgerEvent, parseTrimAnchorRecord, type TrimAnchorRecord } from "../events/index.ts";
import { type CaseReducers, foldCases, nothing } from "./case-reducers.ts";
import type { Draft } from "./immer.ts";
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

/** What each kind of event does to the anchor: a record sets it, what re-paths the ledger resets it. */
const trimAnchorCases: CaseReducers<TrimAnchorState, LedgerEvent> = {
	custom: (draft, event) => {
		if (event.customType !== CUSTOM_TYPES.trimAnchor) return;
		const record = parseTrimAnchorRecord(event.data);
		if (record === undefined) return;
		draft.record = record;
		draft.entryId = event.id;
	},
	compaction: (draft, event) => {
		// A message-role compaction summary resets nothing in the ledger, so nothing here either.
		if (event.resets) reset(draft);
	},
	branchSummary: (draft) => reset(draft),
	// Nothing that moves a block of the ledger: a context edit changes no position in it, and spend
	// is no entry it shows.
	user: nothing,
	assistant: nothing,
	toolResult: nothing,
	bashRun: nothing,
	customMessage: nothing,
	modelChange: nothing,
	thinkingLevel: nothing,
	system: nothing,
	other: nothing,
	contextEdit: nothing,
	usage: nothing,
};

function reset(draft: Draft<TrimAnchorState>): void {
	draft.record = undefined;
	draft.entryId = undefined;
}

export function foldTrimAnchor(state: TrimAnchorState, events: readonly LedgerEvent[]): TrimAnchorState {
	return foldCases(trimAnchorCases, state, events);
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
