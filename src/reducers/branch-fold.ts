/**
 * Every fold of a branch, composed. Each reducer is `{ initial, fold }`: its empty state, and
 * (state, new events) → state. They are folded side by side rather than merged into one state
 * because each survives different things: a compaction rebuilds the ledger's blocks, never the
 * bill, the trim anchor resets on what re-paths the ledger, and the watch counts what the executor did.
 */

import type { LedgerEvent } from "../events/index.ts";
import { foldLedger } from "./ledger-fold.ts";
import { emptyLedger, type LedgerState } from "./ledger-state.ts";
import { emptySpend, foldSpend, type SpendState } from "./spend.ts";
import { emptyTrimAnchor, foldTrimAnchor, type TrimAnchorState } from "./trim-anchor.ts";
import { emptyWatchFacts, foldWatchFacts, type WatchFacts } from "./watch-facts.ts";

export interface Reducer<S> {
	initial: () => S;
	/** Folding a branch in one go or in any number of pieces gives the same state. */
	fold: (state: S, events: readonly LedgerEvent[]) => S;
}

export const ledgerReducer: Reducer<LedgerState> = { initial: emptyLedger, fold: foldLedger };
export const spendReducer: Reducer<SpendState> = { initial: emptySpend, fold: foldSpend };
export const trimAnchorReducer: Reducer<TrimAnchorState> = { initial: emptyTrimAnchor, fold: foldTrimAnchor };
export const watchReducer: Reducer<WatchFacts> = { initial: emptyWatchFacts, fold: foldWatchFacts };

export interface BranchState {
	ledger: LedgerState;
	/** The branch's advisor spend (consultations, reviews, warming). */
	spend: SpendState;
	/** The branch's sticky trim anchor. */
	anchor: TrimAnchorState;
	/** What the watch knows of the branch (docs/configuration.md#the-watch). */
	watch: WatchFacts;
}

export const branchReducer: Reducer<BranchState> = {
	initial: () => ({
		ledger: ledgerReducer.initial(),
		spend: spendReducer.initial(),
		anchor: trimAnchorReducer.initial(),
		watch: watchReducer.initial(),
	}),
	fold: (state, events) => foldBranch(state, events),
};

export function foldBranch(state: BranchState, events: readonly LedgerEvent[]): BranchState {
	if (events.length === 0) return state;
	return {
		ledger: ledgerReducer.fold(state.ledger, events),
		spend: spendReducer.fold(state.spend, events),
		anchor: trimAnchorReducer.fold(state.anchor, events),
		watch: watchReducer.fold(state.watch, events),
	};
}

/** `cwd` is the session's working directory (from its header); the ledger's cards are relative to it. */
export function branchOf(events: readonly LedgerEvent[], cwd?: string): BranchState {
	const initial = branchReducer.initial();
	return foldBranch(
		cwd === undefined ? initial : { ...initial, ledger: emptyLedger(cwd), watch: emptyWatchFacts(cwd) },
		events,
	);
}
