/**
 * The one shape of every fold of the core (docs/architecture.md, "Layers"): for each kind of
 * event, a case reducer — what an event of that kind does to the fold's state, written on an immer
 * draft (Redux Toolkit's case reducers; the decider's `evolve`). A fold's map has a reducer for
 * every kind, so the compiler holds each fold to every event a session can hold; a kind that changes
 * nothing says so with `nothing`.
 *
 * What a fold keeps and later reads back into a new value (the ledger's blocks, the facts kept) sits
 * in the state as a value immer does not draft — a list (chunked.ts), the context edits, the set of
 * facts seen — so a case reducer reads it as it is and replaces it, and no draft ends up inside
 * a block.
 */

import { type Draft, produce } from "./immer.ts";

/** One case reducer per kind of `E`; `C` is what a fold passes beside each event (the ledger: where it sits). */
export type CaseReducers<S, E extends { kind: string }, C = undefined> = {
	readonly [K in E["kind"]]: (draft: Draft<S>, event: Extract<E, { kind: K }>, context: C) => void;
};

/** The case reducer of an event that changes nothing the fold keeps. */
export function nothing(): void {}

/** `event` applied to `draft` by the case reducer of its kind. */
export function evolve<S, E extends { kind: string }, C>(
	reducers: CaseReducers<S, E, C>,
	draft: Draft<S>,
	event: E,
	context: C,
): void {
	// The map has the reducer of every kind; TypeScript cannot pair an event's kind with its reducer by itself.
	const reduce = reducers[event.kind as E["kind"]] as (draft: Draft<S>, event: E, context: C) => void;
	reduce(draft, event, context);
}

/**
 * Events folded per immer `produce`: a produce keeps every draft it makes until it ends, so a whole
 * branch is folded in pieces — the same state, since each event is applied on its own — and its
 * drafts die young instead of piling up (docs/decisions.md, "A replay's memory follows the branch").
 */
const EVENTS_PER_PRODUCE = 1024;

/**
 * `events` folded onto `state`, each applied on its own by `step`, so folding a branch in one go or
 * in any number of pieces gives the same state. `state` is never changed; when no event changes
 * anything, it is what is returned.
 */
export function foldEvents<S, E>(state: S, events: readonly E[], step: (draft: Draft<S>, event: E) => void): S {
	let next = state;
	for (let from = 0; from < events.length; from += EVENTS_PER_PRODUCE) {
		const to = Math.min(events.length, from + EVENTS_PER_PRODUCE);
		next = produce(next, (draft) => {
			for (let i = from; i < to; i++) step(draft, events[i]!);
		});
	}
	return next;
}

/** `events` folded onto `state` by the case reducers of a fold that needs nothing beside each event. */
export function foldCases<S, E extends { kind: string }>(
	reducers: CaseReducers<S, E>,
	state: S,
	events: readonly E[],
): S {
	return foldEvents(state, events, (draft: Draft<S>, event: E) => evolve(reducers, draft, event, undefined));
}
