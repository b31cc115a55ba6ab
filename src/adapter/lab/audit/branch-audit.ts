/**
 * The fact audit along a branch (docs/request-format.md#the-fact-audit), with the work of a point
 * proportional to what changed since the previous one (docs/decisions.md, "A replay's work follows
 * the change"): what `auditUnits` counts for every fact of the branch, it counts here for the facts
 * a change can touch, and keeps running counts.
 *
 * What a point can change: facts new since the previous point (the facts fold only appends, except
 * for the replaced facts: open failures, test summaries, the newest prose, the standing
 * instructions); the facts held by a stable unit the request no longer has at its place (a cut of
 * the log rewrites most units at once: rare, and then every fact moves); the facts only volatile
 * units held; the missing facts a new unit names (anchor-index.ts); and which facts the executor
 * lost, when a compaction moves its horizon (rare: every fact is asked) or a fact lost turns up
 * again after the horizon.
 *
 * Anything else — another branch's state, a memo an audit of a list used in between — starts the
 * counts over from every fact of the branch, as `auditUnits` does.
 */

import { type ChunkedList, emptyList } from "../../../reducers/index.ts";
import { type AnchorIndex, createAnchorIndex, dropAnchors, fileAnchors, isShortItem } from "./anchor-index.ts";
import { addCounts, emptyCounts, type FactCounts, type FactTally } from "./fact-audit.ts";
import { type AuditSide, anchors, forms, type Holding } from "./fact-forms.ts";
import {
	type AuditMemo,
	type AuditUnits,
	type AuditView,
	GONE,
	isCarried,
	MISSING,
	oldKnown,
	openAudit,
	type Presence,
	readUnits,
	type Sought,
	stands,
	VOLATILE,
	VOLATILE_ONLY,
} from "./fact-presence.ts";
import {
	emptyFacts,
	type Fact,
	type FactCategory,
	type FactState,
	type HorizonFacts,
	holdsFact,
	replacedSources,
} from "./facts.ts";
import { followFacts } from "./follow.ts";
import { type ReplacedRead, readReplaced, replacedSince } from "./replaced.ts";

/** What the executor lost, and what that was worked out from. */
interface LostSplit {
	/** The horizon's path position. */
	from: number;
	/** The kept facts from the horizon on, as last read. */
	kept: ChunkedList<Fact>;
	/** Their replaced facts' sources, as last read. */
	sources: readonly unknown[];
	/** Lost facts of the appended categories, by category and text (as the facts fold keys them). */
	byKey: Map<FactCategory, Map<string, Fact>>;
	tally: FactTally;
}

/** A branch audit's running state, one per memo. */
interface Run {
	/** Its number, in `Presence.run` of the facts it counts: the audit that started it. */
	readonly id: number;
	readonly as: AuditSide;
	/** The last audit it made. */
	audit: number;
	kept: ChunkedList<Fact>;
	/** The replaced facts it counts, as last read (replaced.ts). */
	replaced: ReplacedRead;
	counts: FactCounts;
	/** The records of the facts by the stable unit that holds them (a record that has moved is passed over). */
	byUnit: (Presence[] | undefined)[];
	/** Facts only volatile units hold. */
	volatile: Set<Fact>;
	/** The length of each stable unit's text where it placed facts: a long one rewritten is followed (follow.ts). */
	lengths: number[];
	/**
	 * The facts no unit holds, filed under their anchors (what a new unit is read for), and while an
	 * audit looks for them, the facts it places.
	 */
	seeking: AnchorIndex<Fact>;
	/** Facts no unit holds. */
	missing: Set<Fact>;
	/** Of those, the ones with a needle shorter than HEAD (the index does not file them: each is asked). */
	shortMissing: Set<Fact>;
	lost: LostSplit | undefined;
}

/** The facts one audit looks for, besides the missing ones. */
interface Seeking {
	/** In any unit: the facts new to the run, and those whose unit is gone. */
	anywhere: Set<Fact>;
	/** Only in the new units: those the previous audit found in no unit it had but volatile ones. */
	inNew: Set<Fact>;
}

const runs = new WeakMap<AuditMemo, Run>();

export interface BranchAudit {
	counts: FactCounts;
	/** Of the facts the executor lost, how many the units carry; undefined without a horizon. */
	lost: FactTally | undefined;
}

/** Does `next` hold `previous`'s items first? A fact is made once, so the same last item says so. */
function extendsList<T>(previous: ChunkedList<T>, next: ChunkedList<T>): boolean {
	if (previous === next) return true;
	const n = previous.length;
	return next.length >= n && (n === 0 || next.at(n - 1) === previous.at(n - 1));
}

function sameSources(a: readonly unknown[], b: readonly unknown[]): boolean {
	return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Which facts of `facts` the units carry, for every category, and of the facts the executor lost
 * at its newest horizon (`since`), how many. Equal at every point to `auditUnits` of `branchFacts`
 * with `lostFacts(since)` (test/adapter/lab/audit/branch-audit.properties.test.ts).
 */
export function auditBranch(
	units: AuditUnits,
	stableUnits: number,
	facts: FactState,
	since: HorizonFacts | undefined,
	memo: AuditMemo,
	as: AuditSide,
): BranchAudit {
	const view = openAudit(units, stableUnits, memo, as);
	const previous = runs.get(memo);
	const current = previous !== undefined && previous.audit === view.audit - 1 && previous.as === as;
	const shared = current ? previous.kept.sharedPrefix(facts.kept) : 0;
	let run: Run;
	let added: Fact[];
	if (current && resumes(previous.kept.length, facts.kept.length, shared)) {
		run = previous;
		added = advance(run, view, memo, facts, shared);
	} else {
		run = start(view, memo, previous, facts);
		runs.set(memo, run);
		added = [];
	}
	splitLost(run, memo, since, added);
	run.audit = view.audit;
	return {
		counts: addCounts(emptyCounts(), run.counts),
		lost: run.lost === undefined ? undefined : { ...run.lost.tally },
	};
}

/**
 * Whether a run that counted `before` facts, `shared` of them the first of the `after` it is asked
 * for, goes on from there: when it only grows (the next point of its branch), or when what it takes
 * back and adds is less than all of them (a branch resumed where it parts from the one before).
 */
function resumes(before: number, after: number, shared: number): boolean {
	return before === shared || before - shared + (after - shared) < after;
}

function newRun(view: AuditView): Run {
	return {
		id: view.audit,
		as: view.as,
		audit: view.audit,
		kept: emptyList(),
		replaced: readReplaced(emptyFacts()),
		counts: emptyCounts(),
		byUnit: [],
		volatile: new Set(),
		lengths: [],
		seeking: createAnchorIndex(),
		missing: new Set(),
		shortMissing: new Set(),
		lost: undefined,
	};
}

/** Counts every fact of the branch anew; where a fact was at the previous audit still helps. */
function start(view: AuditView, memo: AuditMemo, previous: Run | undefined, facts: FactState): Run {
	const run = newRun(view);
	// The facts the previous run counted and did not move were where it last placed them.
	const current = (p: Presence): boolean =>
		p.audit === view.audit - 1 ||
		(previous !== undefined && previous.audit === view.audit - 1 && p.run === previous.id && p.at !== GONE);
	run.replaced = readReplaced(facts);
	const seeking: Seeking = { anywhere: new Set(), inNew: new Set() };
	track(run, view, memo, facts.kept, seeking, current);
	track(run, view, memo, run.replaced.all, seeking, current);
	seek(run, view, memo, seeking);
	run.kept = facts.kept;
	return run;
}

/**
 * Counts facts the run did not count: files them, and places those whose place at the previous
 * audit (`current`) still stands; the others are for `seek`.
 */
function track(
	run: Run,
	view: AuditView,
	memo: AuditMemo,
	facts: Iterable<Fact>,
	seeking: Seeking,
	current: (p: Presence) => boolean = (p) => p.audit === view.audit - 1,
): void {
	for (const fact of facts) {
		let record = memo.presence.get(fact);
		if (record === undefined) {
			record = { fact, at: GONE, key: undefined, audit: -1, run: run.id, lost: false };
			memo.presence.set(fact, record);
		}
		const now = current(record);
		// A place that stands is the record's own: read before the record is reset.
		const stood = stands(view, record, now) ? { at: record.at, key: record.key, holding: record.holding } : undefined;
		const known = oldKnown(record, now);
		record.at = GONE;
		record.run = run.id;
		record.lost = false;
		run.counts[fact.category].total++;
		if (stood !== undefined) settle(run, view, fact, record, stood.at, stood.key, stood.holding);
		else (known ? seeking.inNew : seeking.anywhere).add(fact);
	}
}

/**
 * Places the facts `seeking` names, and looks for the missing ones in the new units: the new units
 * are read once for all of them, the units the previous audit had only for the facts that may be
 * there (fact-presence.ts `place` says where each is looked for).
 */
function seek(run: Run, view: AuditView, memo: AuditMemo, seeking: Seeking): void {
	const record = (fact: Fact) => memo.presence.get(fact)!;
	const { anywhere, inNew } = seeking;
	for (const set of [anywhere, inNew])
		for (const fact of set) fileAnchors(run.seeking, fact, anchors(forms(fact), run.as));
	const shortOf = (set: Set<Fact>) => new Set([...set].filter((fact) => isShortItem(run.seeking, fact)));
	const shortAnywhere = shortOf(anywhere);
	const search: Sought<Fact> = {
		index: run.seeking,
		sets: [anywhere, inNew, run.missing],
		short: [shortAnywhere, shortOf(inNew), run.shortMissing],
		formsOf: forms,
	};
	const key = (at: number) => (at >= 0 ? view.units.key(at) : undefined);
	// Called before the fact leaves its set: one not sought anywhere was in none of the previous units.
	readUnits(view, search, view.kept, view.units.length, (fact, at, holding) => {
		const place = at === VOLATILE && !anywhere.has(fact) ? VOLATILE_ONLY : at;
		dropAnchors(run.seeking, fact);
		settle(run, view, fact, record(fact), place, key(place), holding);
	});
	// Newest first: a fact sought here is one a branch resumed elsewhere adds again, or one whose unit
	// went, and it stands mostly in the units just before the new ones; read from the oldest, each of
	// a few dozen facts was asked of thousands of units on the bench's tree.
	readUnits(
		view,
		{ ...search, sets: [anywhere], short: [shortAnywhere] },
		0,
		view.kept,
		(fact, at, holding) => {
			dropAnchors(run.seeking, fact);
			settle(run, view, fact, record(fact), at, key(at), holding);
		},
		true,
	);
	// What is still sought stays filed: it is missing.
	for (const fact of [...anywhere, ...inNew]) settle(run, view, fact, record(fact), MISSING, undefined);
}

/** Records where a counted fact is now (leaving where it was) and counts it carried or not. */
function settle(
	run: Run,
	view: AuditView,
	fact: Fact,
	record: Presence,
	at: number,
	key: unknown,
	holding?: Holding,
): void {
	const was = isCarried(record);
	leave(run, fact, record);
	record.at = at;
	record.key = key;
	record.audit = view.audit;
	record.holding = at >= 0 ? holding : undefined;
	if (at >= 0) {
		// Most of Pi's messages hold no fact: a place without one stays a hole.
		const there = run.byUnit[at];
		if (there === undefined) run.byUnit[at] = [record];
		else there.push(record);
		// Cleared from `kept` on at every point (advance): a length set is this unit's.
		run.lengths[at] ??= view.text(at).length;
	} else if (at === MISSING) {
		run.missing.add(fact);
		if (isShortItem(run.seeking, fact)) run.shortMissing.add(fact);
	} else run.volatile.add(fact);
	const is = isCarried(record);
	if (was === is) return;
	const step = is ? 1 : -1;
	run.counts[fact.category].carried += step;
	if (record.lost && run.lost !== undefined) run.lost.tally.carried += step;
}

/**
 * Moves the run on by one point; returns the facts it counts from now on. `shared`: how many of the
 * facts it counted the branch still holds first (fewer when the branch was resumed where it parts
 * from the one audited before: those after go).
 */
function advance(run: Run, view: AuditView, memo: AuditMemo, facts: FactState, shared: number): Fact[] {
	const record = (fact: Fact) => memo.presence.get(fact)!;
	for (let i = shared; i < run.kept.length; i++) untrack(run, run.kept.at(i)!, record(run.kept.at(i)!));
	const { gone, fresh } = replacedSince(run.replaced, facts);
	for (const fact of gone) untrack(run, fact, record(fact));
	const { seeking, unitMoved } = movedFacts(run, view, record);
	// The lengths of the units it leaves, from `kept` on: what tells a long unit rewritten in place.
	const lengths = run.lengths.splice(view.kept);
	followFacts(view, unitMoved, lengths, (r, at, key, holding) => settle(run, view, r.fact, r, at, key, holding));
	// A record followed is placed at this audit: the others are sought, before the volatile ones.
	const anywhere = new Set<Fact>();
	for (const r of unitMoved) if (r.audit !== view.audit) anywhere.add(r.fact);
	for (const fact of seeking.anywhere) anywhere.add(fact);
	seeking.anywhere = anywhere;
	const added: Fact[] = [];
	for (let i = shared; i < facts.kept.length; i++) added.push(facts.kept.at(i)!);
	track(run, view, memo, added, seeking);
	run.kept = facts.kept;
	track(run, view, memo, fresh, seeking);
	added.push(...fresh);
	seek(run, view, memo, seeking);
	return added;
}

/**
 * The counted facts this audit may place elsewhere, besides the missing ones: the records of those a
 * stable unit held that is not kept at its place (`unitMoved`: to follow, follow.ts), and those only
 * volatile units held (`seeking`). A cut of the log moves every fact of the log: the records are read
 * as filed, without a look-up per fact.
 */
function movedFacts(
	run: Run,
	view: AuditView,
	record: (fact: Fact) => Presence,
): { seeking: Seeking; unitMoved: Presence[] } {
	const seeking: Seeking = { anywhere: new Set(), inNew: new Set() };
	const unitMoved: Presence[] = [];
	for (let p = view.kept; p < run.byUnit.length; p++) {
		const there = run.byUnit[p];
		if (there !== undefined) for (const r of there) if (r.at === p) unitMoved.push(r);
	}
	run.byUnit.length = Math.min(run.byUnit.length, view.kept);
	for (const fact of run.volatile) (record(fact).at === VOLATILE_ONLY ? seeking.inNew : seeking.anywhere).add(fact);
	return { seeking, unitMoved };
}

/** Takes a fact out of the structure that holds it by its place (a unit's list is left to pass it over). */
function leave(run: Run, fact: Fact, record: Presence): void {
	if (record.at === MISSING) {
		dropAnchors(run.seeking, fact);
		run.missing.delete(fact);
		run.shortMissing.delete(fact);
	} else if (record.at === VOLATILE || record.at === VOLATILE_ONLY) run.volatile.delete(fact);
}

/** Stops counting a fact (a replaced fact the branch no longer holds, or one of a branch left). */
function untrack(run: Run, fact: Fact, record: Presence): void {
	leave(run, fact, record);
	const tally = run.counts[fact.category];
	tally.total--;
	const carried = isCarried(record);
	if (carried) tally.carried--;
	if (record.lost && run.lost !== undefined) {
		run.lost.tally.total--;
		if (carried) run.lost.tally.carried--;
	}
	record.at = GONE;
	record.lost = false;
}

/** The lost fact of `fact`'s category and text, if any. */
function lostByKey(split: LostSplit, fact: Fact): Fact | undefined {
	return split.byKey.get(fact.category)?.get(fact.text);
}

/** Marks a counted fact lost or not, and counts it; an appended one (`keyed`) is filed by its key. */
function setLost(split: LostSplit, fact: Fact, record: Presence, lost: boolean, keyed: boolean): void {
	if (record.lost === lost) return;
	record.lost = lost;
	const step = lost ? 1 : -1;
	split.tally.total += step;
	if (isCarried(record)) split.tally.carried += step;
	if (!keyed) return;
	let texts = split.byKey.get(fact.category);
	if (texts === undefined) {
		texts = new Map();
		split.byKey.set(fact.category, texts);
	}
	if (lost) texts.set(fact.text, fact);
	else texts.delete(fact.text);
}

/**
 * Which counted facts the executor lost (adapter/lab/audit/facts.ts `holdsFact`). A fact the executor holds
 * stays held while the horizon stays: the facts from it on only grow, but for the replaced ones.
 * `added`: the facts counted since the previous point.
 */
function splitLost(run: Run, memo: AuditMemo, since: HorizonFacts | undefined, added: readonly Fact[]): void {
	const record = (fact: Fact) => memo.presence.get(fact)!;
	const keyed = (fact: Fact) => !run.replaced.all.has(fact);
	const split = run.lost;
	if (
		split !== undefined &&
		(since === undefined || split.from !== since.from || !extendsList(split.kept, since.facts.kept))
	) {
		for (const fact of countedFacts(run)) record(fact).lost = false;
		run.lost = undefined;
	}
	if (since === undefined) return;
	const sources = replacedSources(since.facts);
	if (run.lost === undefined) {
		const fresh: LostSplit = {
			from: since.from,
			kept: since.facts.kept,
			sources,
			byKey: new Map(),
			tally: { total: 0, carried: 0 },
		};
		run.lost = fresh;
		for (const fact of countedFacts(run))
			setLost(fresh, fact, record(fact), !holdsFact(since.facts, fact), keyed(fact));
		return;
	}
	const open = run.lost;
	// Facts seen again from the horizon on are held again.
	for (let i = open.kept.length; i < since.facts.kept.length; i++) {
		const fact = lostByKey(open, since.facts.kept.at(i)!);
		if (fact !== undefined) setLost(open, fact, record(fact), false, true);
	}
	open.kept = since.facts.kept;
	for (const fact of added) setLost(open, fact, record(fact), !holdsFact(since.facts, fact), keyed(fact));
	if (!sameSources(sources, open.sources)) {
		for (const fact of run.replaced.all) setLost(open, fact, record(fact), !holdsFact(since.facts, fact), false);
		open.sources = sources;
	}
}

function* countedFacts(run: Run): Iterable<Fact> {
	yield* run.kept;
	yield* run.replaced.all;
}
