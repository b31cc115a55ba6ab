/**
 * Where a fact is in a request, from one audit to the next (docs/request-format.md#the-fact-audit).
 * Each audit compares its units with the previous audit's, position by position: the leading units
 * with the same keys are the same units, and only those after the first difference are new. A fact
 * found in a stable unit is found while that unit (position and key) is there; a fact missing last
 * time can only turn up in a unit that is new; a fact only a volatile unit held is looked for in the
 * new units, and among the old stable ones only once it is gone from the new ones.
 *
 * The audit of a list of facts (fact-audit.ts) asks this of every fact at every audit; the audit of a
 * branch (branch-audit.ts) only of the facts a change can touch.
 */

import { collapse } from "../../../reducers/index.ts";
import { type AnchorIndex, createAnchorIndex, eachNeedle, fileAnchors, HEAD } from "./anchor-index.ts";
import {
	type AuditSide,
	anchors,
	type FolderLists,
	type Forms,
	type Holding,
	holdingIn,
	holds,
	holdsAt,
} from "./fact-forms.ts";
import type { Fact } from "./facts.ts";

/**
 * The units of a request as the audit sees them: how many, each one's key (the same only for the
 * same unit), and its text (only asked for a unit the audit has not seen: making it may cost).
 */
export interface AuditUnits {
	length: number;
	key(index: number): unknown;
	text(index: number): string;
	/** What the units are read from, for `shared`. */
	source?: unknown;
	/**
	 * How many leading units are known to be `previous`'s (the same keys), found without comparing
	 * them one by one; the audit compares the rest. Absent: every unit is compared.
	 */
	shared?(previous: AuditUnits): number;
}

/** `Presence.at` of a fact only volatile units hold, stable ones maybe too (they were not asked). */
export const VOLATILE = -1;
/** `Presence.at` of a fact only volatile units hold: no stable unit does. */
export const VOLATILE_ONLY = -2;
/** `Presence.at` of a fact no unit holds. */
export const MISSING = -3;
/** `Presence.at` of a fact a branch's audit no longer counts (branch-audit.ts). */
export const GONE = -4;

/** Where a fact was at the audit that last placed it, and what a branch's audit keeps of it. */
export interface Presence extends Place {
	/** The fact it places: a branch audit files the records by unit, and reads a unit's facts from them without a look-up each. */
	readonly fact: Fact;
	/** The audit that placed it. */
	audit: number;
	/** The branch audit that counts it (branch-audit.ts); 0 for none. */
	run: number;
	/** Whether the executor lost it (branch-audit.ts): set only while a branch audit counts it. */
	lost: boolean;
	/** Where in its stable unit's text it stands, when known (branch-audit.ts follows it there when the unit is rewritten). */
	holding?: Holding | undefined;
	/** The fact's forms, once a branch audit has followed it (a cut of the log follows every fact of the log again). */
	forms?: Forms;
}

export function isCarried(place: Place): boolean {
	return place.at >= 0 || place.at === VOLATILE || place.at === VOLATILE_ONLY;
}

/** What one side's audit keeps from point to point of a branch. */
export interface AuditMemo {
	/** Where each fact was at the audit that last placed it. */
	presence: WeakMap<Fact, Presence>;
	/** Audits made with this memo. */
	audits: number;
	/** The previous audit's unit keys, in order. */
	keys: unknown[];
	/** The previous audit's units: what the next one's `shared` is counted against. */
	last: AuditUnits | undefined;
	/** The previous audit's stable units. */
	stable: number;
	/** Unit texts as compared (collapsed on the ledger's side), by key. */
	texts: Map<unknown, string>;
}

export function createAuditMemo(): AuditMemo {
	return { presence: new WeakMap(), audits: 0, keys: [], last: undefined, stable: 0, texts: new Map() };
}

/**
 * Texts of units no longer in use are dropped once the cache holds this many more than the request
 * (a stable unit goes out of use when a compaction or a trim rewrites the log).
 */
const TEXT_CACHE_SLACK = 1024;

/** One audit's units as the searches read them. */
export interface AuditView {
	readonly units: AuditUnits;
	readonly as: AuditSide;
	/** This audit's number. */
	readonly audit: number;
	readonly stable: number;
	/** Leading units that are the previous audit's stable units, unchanged: what a place there stays. */
	readonly kept: number;
	/** A unit's text as compared: a stable unit's cached by key, a volatile one's only for this audit. */
	text(index: number): string;
}

/** The previous audit's leading units that this one has with the same keys. */
function sharedUnits(units: AuditUnits, memo: AuditMemo): number {
	const keys = memo.keys;
	const known = memo.last === undefined || units.shared === undefined ? 0 : units.shared(memo.last);
	let first = Math.min(known, units.length, keys.length);
	while (first < units.length && first < keys.length && units.key(first) === keys[first]) first++;
	return first;
}

/**
 * Starts an audit: compares its units with the previous audit's, records them for the next one, and
 * gives the texts. The work is the units new since the previous audit, not the whole request; a
 * volatile unit's text is not cached (it is new at every point: a cache would keep every version).
 */
export function openAudit(units: AuditUnits, stableUnits: number, memo: AuditMemo, as: AuditSide): AuditView {
	const stable = Math.min(stableUnits, units.length);
	const first = sharedUnits(units, memo);
	const kept = Math.min(first, memo.stable, stable);
	const keys = memo.keys;
	memo.last = units;
	memo.stable = stable;
	keys.length = first;
	for (let i = first; i < units.length; i++) keys.push(units.key(i));
	if (memo.texts.size > units.length + TEXT_CACHE_SLACK) {
		const cached = new Map<unknown, string>();
		for (const key of keys) {
			const t = memo.texts.get(key);
			if (t !== undefined) cached.set(key, t);
		}
		memo.texts = cached;
	}
	const volatile = new Map<number, string>();
	const text = (i: number): string => {
		const cache = i < stable ? memo.texts : volatile;
		const key = i < stable ? keys[i] : i;
		let t = cache.get(key);
		if (t === undefined) {
			const raw = units.text(i);
			t = as === "ledger" ? collapse(raw) : raw;
			cache.set(key, t);
		}
		return t;
	};
	return { units, as, audit: ++memo.audits, stable, kept, text };
}

/** The unit in [from, to) that holds the fact, newest first; -1 for none. */
function findDown(view: AuditView, fact: Forms, from: number, to: number): number {
	for (let i = to - 1; i >= from; i--) if (holds(view.text(i), fact, view.as)) return i;
	return -1;
}

function findUp(view: AuditView, fact: Forms, from: number, to: number): number {
	for (let i = from; i < to; i++) if (holds(view.text(i), fact, view.as)) return i;
	return -1;
}

/** Where a fact is at an audit: a stable unit's position and key, or one of the marks above. */
export interface Place {
	at: number;
	key: unknown;
}

/** A prior place that still stands: the same unit at the same place (`current`: known to be kept). */
export function stands(view: AuditView, prior: Place | undefined, current: boolean): prior is Place {
	return (
		prior !== undefined &&
		prior.at >= 0 &&
		prior.at < view.stable &&
		((current && prior.at < view.kept) || view.units.key(prior.at) === prior.key)
	);
}

/** Missing, or in no stable unit, at the previous audit: not in the units that audit had either. */
export function oldKnown(prior: Place | undefined, current: boolean): boolean {
	return current && prior !== undefined && (prior.at === MISSING || prior.at === VOLATILE_ONLY);
}

/**
 * Places a fact at this audit. `prior`: where it was, and whether that was at the previous audit
 * (`current`); a place older than that says only that its unit held the fact. New stable units are
 * asked first (a new fact is almost always in one), then volatile ones, then the old stable ones —
 * unless the fact is known to be in none of them.
 */
export function place(view: AuditView, fact: Forms, prior: Place | undefined, current: boolean): Place {
	if (stands(view, prior, current)) return prior;
	const { stable, kept } = view;
	const known = oldKnown(prior, current);
	let i = findDown(view, fact, kept, stable);
	if (i === -1) {
		if (findUp(view, fact, stable, view.units.length) !== -1)
			return { at: known ? VOLATILE_ONLY : VOLATILE, key: undefined };
		if (!known) i = findDown(view, fact, 0, kept);
	}
	return i === -1 ? { at: MISSING, key: undefined } : { at: i, key: view.units.key(i) };
}

/** A fact to place, with where it was (see `place`). */
export interface ToPlace {
	forms: Forms;
	prior: Place | undefined;
	current: boolean;
}

/**
 * Up to this many facts looked for in a text, each is searched for on its own (`String.includes` is
 * native); above, the rolling hash reads the text once for all of them. Measured on the bench's tree
 * (most points look for a few dozen missing facts in their new units): 4.2 → 3.2 s a replay.
 */
const FEW_NEEDLES = 256;

/** Above this many facts to look for, the units are read once for all of them (anchor-index.ts). */
const ONE_BY_ONE = 16;

/**
 * `place` for many facts: what `place` gives each. After a cut of the log or a compaction thousands
 * of facts are to be looked for again in the units that replaced theirs; one reading of those units
 * finds them all, where one search per fact read the part standing in for the cut once per fact.
 */
export function placeMany(view: AuditView, facts: readonly ToPlace[]): Place[] {
	const out: (Place | undefined)[] = facts.map((f) => (stands(view, f.prior, f.current) ? f.prior : undefined));
	let pending = facts.flatMap((_, j) => (out[j] === undefined ? [j] : []));
	// A short needle (a one-letter path) is in most texts many times over, mostly not as a token: it
	// is looked for from the newest unit, one fact at a time, as `place` does.
	const alone = (j: number) =>
		pending.length <= ONE_BY_ONE || anchors(facts[j]!.forms, view.as).some((a) => a.length < HEAD);
	for (const j of pending) if (alone(j)) out[j] = place(view, facts[j]!.forms, facts[j]!.prior, facts[j]!.current);
	pending = pending.filter((j) => out[j] === undefined);
	if (pending.length === 0) return out as Place[];
	const known = (j: number) => oldKnown(facts[j]!.prior, facts[j]!.current);
	const index = createAnchorIndex<number>();
	for (const j of pending) fileAnchors(index, j, anchors(facts[j]!.forms, view.as));
	const sought = new Set(pending);
	const search: Sought<number> = { index, sets: [sought], short: [], formsOf: (j) => facts[j]!.forms };
	// One place per unit, shared by the facts found there.
	const places = new Map<number, Place>();
	const unitPlace = (at: number): Place => {
		let p = places.get(at);
		if (p === undefined) {
			p = { at, key: at >= 0 ? view.units.key(at) : undefined };
			places.set(at, p);
		}
		return p;
	};
	readUnits(view, search, view.kept, view.units.length, (j, at) => {
		out[j] = unitPlace(at === VOLATILE && known(j) ? VOLATILE_ONLY : at);
	});
	for (const j of pending) if (known(j)) sought.delete(j);
	// Newest first, as `place` looks: see branch-audit.ts `seek`.
	readUnits(
		view,
		search,
		0,
		view.kept,
		(j, at) => {
			out[j] = unitPlace(at);
		},
		true,
	);
	const missing = unitPlace(MISSING);
	return out.map((p) => p ?? missing);
}

/**
 * What a reading of units looks for: the items of `sets` (an item is in one at most), their needles
 * filed in `index` (which may hold others too: a branch's audit files every fact it counts once, and
 * asks for those a point can have changed). The items with a needle shorter than HEAD, which the
 * index does not file, are also in one of `short`. A found item leaves its sets.
 */
export interface Sought<T> {
	readonly index: AnchorIndex<T>;
	readonly sets: readonly Set<T>[];
	readonly short: readonly Set<T>[];
	formsOf(item: T): Forms;
}

function soughtCount<T>(sought: Sought<T>): number {
	let n = 0;
	for (const set of sought.sets) n += set.size;
	return n;
}

function isSought<T>(sought: Sought<T>, item: T): boolean {
	for (const set of sought.sets) if (set.has(item)) return true;
	return false;
}

/**
 * Reads units `from` to `to`, in order (`newestFirst`: from `to` down), for the items `sought` looks
 * for: `found(item, at, holding)` for each at the first unit that holds it (`at` its position when
 * stable, VOLATILE when not; `holding` where in its text), and then it leaves its sets.
 */
export function readUnits<T>(
	view: AuditView,
	sought: Sought<T>,
	from: number,
	to: number,
	found: (item: T, at: number, holding: Holding) => void,
	newestFirst = false,
): void {
	for (let k = from; k < to; k++) {
		const i = newestFirst ? to - 1 - (k - from) : k;
		const left = soughtCount(sought);
		if (left === 0) return;
		const text = view.text(i);
		const at = i < view.stable ? i : VOLATILE;
		const lists: FolderLists = new Map();
		const hit = (item: T, holding: Holding) => {
			found(item, at, holding);
			for (const set of sought.sets) set.delete(item);
			for (const set of sought.short) set.delete(item);
		};
		const ask = (item: T) => {
			const holding = holdingIn(text, sought.formsOf(item), view.as, lists);
			if (holding !== undefined) hit(item, holding);
		};
		// Few needles: one native search each reads the text faster than the rolling hash does once.
		if (left <= FEW_NEEDLES) {
			for (const set of sought.sets) for (const item of [...set]) ask(item);
			continue;
		}
		// A needle none of whose items is still sought is not compared again in this text.
		eachNeedle(sought.index, text, (items, anchor, at) => {
			let open = false;
			for (const item of items) {
				if (!isSought(sought, item)) continue;
				if (holdsAt(text, sought.formsOf(item), view.as, anchor, at, lists)) hit(item, { anchor, at });
				else open = true;
			}
			return !open;
		});
		for (const set of sought.short) for (const item of [...set]) ask(item);
	}
}
