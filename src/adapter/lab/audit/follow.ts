/**
 * Facts whose unit changed, followed to where they stand now rather than looked for again
 * (docs/decisions.md, "A replay's work follows the change"). A cut of the log rewrites the part
 * that stands in for what it leaves out: the same long text with the newly left-out entries' facts
 * added to it, every fact it held before still in it, in the same order. Looking for all of them
 * again read that part once per cut with every fact of the branch in the index, which made the
 * audit quadratic in the facts. Here each is looked for from where the one before it was found,
 * with a native search, and checked there as the audit checks any place (`holdsAt`): a fact found
 * so is carried, one not found is left to the reading of the units, as before.
 *
 * A compaction keeps Pi's newest messages (the same objects) at new places: a fact a kept message
 * held is where that message is now.
 */

import { type FolderLists, forms, type Holding, holdingAt, holdingIn, holdsAt } from "./fact-forms.ts";
import type { AuditView, Presence } from "./fact-presence.ts";

/** A unit at least this long (in characters), rewritten in place, has its facts followed; a shorter one is read again. */
const LONG = 8192;

/**
 * Facts of one unit not found after the one found before them that are looked for in the whole unit;
 * past that many, the unit's other facts are left to the reading (an order that changed costs a
 * reading, never more).
 */
const MISSES = 16;

/** Places a followed fact, by its record: at a unit, by its key, and where in its text (`holding`, the record's own, moved). */
export type Follow = (record: Presence, at: number, key: unknown, holding: Holding) => void;

/**
 * Of `facts` — counted facts whose stable unit, at or after `view.kept`, this audit no longer has at
 * its place, with their records — those found again: in the unit with the same key (moved), or in
 * the long unit that replaced a long one at the same place; `follow` places each. `lengths[p -
 * view.kept]`: the length of the text of the unit the previous audit had at `p`.
 */
export function followFacts(
	view: AuditView,
	facts: readonly Presence[],
	lengths: readonly (number | undefined)[],
	follow: Follow,
): void {
	let byKey: Map<unknown, number> | undefined;
	const byPlace = new Map<number, Presence[]>();
	for (const r of facts) {
		if (r.at < view.kept || r.holding === undefined) continue;
		byKey ??= stableKeys(view);
		const moved = byKey.get(r.key);
		if (moved !== undefined) {
			follow(r, moved, r.key, r.holding);
			continue;
		}
		const old = lengths[r.at - view.kept];
		if (old === undefined || old < LONG || r.at >= view.stable || view.text(r.at).length < LONG) continue;
		const list = byPlace.get(r.at);
		if (list === undefined) byPlace.set(r.at, [r]);
		else list.push(r);
	}
	for (const [at, list] of byPlace) followInUnit(view, at, list, follow);
}

/** The new stable units by key. */
function stableKeys(view: AuditView): Map<unknown, number> {
	const out = new Map<unknown, number>();
	for (let i = view.kept; i < view.stable; i++) out.set(view.units.key(i), i);
	return out;
}

/**
 * The facts the previous unit at `at` held, in the order they stood there, found in the unit there
 * now: each first where it stood moved by as much as the one before it moved (text added before
 * both), else from where the one before it is on.
 */
function followInUnit(view: AuditView, at: number, facts: Presence[], follow: Follow): void {
	const text = view.text(at);
	const key = view.units.key(at);
	const lists: FolderLists = new Map();
	facts.sort((a, b) => a.holding!.at - b.holding!.at);
	let from = 0;
	let shift = 0;
	let misses = 0;
	for (const r of facts) {
		r.forms ??= forms(r.fact);
		const f = r.forms;
		const holding = r.holding!;
		const was = holding.at;
		const guess = was + shift;
		const stands =
			guess >= from &&
			text.startsWith(holding.anchor, guess) &&
			holdsAt(text, f, view.as, holding.anchor, guess, lists);
		let now = stands ? guess : -1;
		if (now === -1) now = holdingAt(text, f, view.as, holding.anchor, from, lists);
		if (now !== -1) {
			from = now;
			shift = now - was;
			holding.at = now;
			follow(r, at, key, holding);
			continue;
		}
		if (++misses > MISSES) return;
		const anywhere = holdingIn(text, f, view.as, lists);
		if (anywhere !== undefined) follow(r, at, key, anywhere);
	}
}
