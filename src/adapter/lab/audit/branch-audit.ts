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
import { type AnchorIndex, createAnchorIndex, dropAnchors, fileAnchors } from "./anchor-index.ts";
import { addCounts, emptyCounts, type FactCounts, type FactTally } from "./fact-audit.ts";
import { type AuditSide, anchors, forms } from "./fact-forms.ts";
import {
	type AuditMemo,
	type AuditUnits,
	type AuditView,
	GONE,
	isCarried,
	MISSING,
	openAudit,
	type Presence,
	placeMany,
	readUnits,
	type ToPlace,
	VOLATILE,
	VOLATILE_ONLY,
} from "./fact-presence.ts";
import { type Fact, type FactState, type HorizonFacts, holdsFact, replacedFacts, replacedSources } from "./facts.ts";

/** What the executor lost, and what that was worked out from. */
interface LostSplit {
	/** The horizon's path position. */
	from: number;
	/** The kept facts from the horizon on, as last read. */
	kept: ChunkedList<Fact>;
	/** Their replaced facts' sources, as last read. */
	sources: readonly unknown[];
	/** Lost facts of the appended categories, by `category\0text` (as the facts fold keys them). */
	byKey: Map<string, Fact>;
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
	sources: readonly unknown[];
	replaced: Set<Fact>;
	counts: FactCounts;
	/** Facts by the stable unit that holds them (an entry whose fact has moved is passed over). */
	byUnit: (Fact[] | undefined)[];
	/** Facts only volatile units hold. */
	volatile: Set<Fact>;
	missing: AnchorIndex<Fact>;
	lost: LostSplit | undefined;
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
	let run: Run;
	let added: Fact[];
	if (
		previous !== undefined &&
		previous.audit === view.audit - 1 &&
		previous.as === as &&
		extendsList(previous.kept, facts.kept)
	) {
		run = previous;
		added = advance(run, view, memo, facts);
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

function newRun(view: AuditView): Run {
	return {
		id: view.audit,
		as: view.as,
		audit: view.audit,
		kept: emptyList(),
		sources: [],
		replaced: new Set(),
		counts: emptyCounts(),
		byUnit: [],
		volatile: new Set(),
		missing: createAnchorIndex(),
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
	const replaced = replacedFacts(facts);
	track(run, view, memo, [...facts.kept, ...replaced], current);
	run.replaced = new Set(replaced);
	run.kept = facts.kept;
	run.sources = replacedSources(facts);
	return run;
}

/** Counts facts the run did not count, placed at this audit. */
function track(
	run: Run,
	view: AuditView,
	memo: AuditMemo,
	facts: readonly Fact[],
	current: (p: Presence) => boolean = (p) => p.audit === view.audit - 1,
): void {
	const records = facts.map((fact) => {
		let record = memo.presence.get(fact);
		if (record === undefined) {
			record = { at: GONE, key: undefined, audit: -1, run: run.id, lost: false };
			memo.presence.set(fact, record);
		}
		return record;
	});
	const places = placeMany(
		view,
		facts.map((fact, j) => ({ forms: forms(fact), prior: records[j], current: current(records[j]!) })),
	);
	facts.forEach((fact, j) => {
		const record = records[j]!;
		// A place that stands is the record itself: read before the record is reset.
		const { at, key } = places[j]!;
		record.at = GONE;
		record.run = run.id;
		record.lost = false;
		run.counts[fact.category].total++;
		settle(run, view, fact, record, at, key);
	});
}

/** Records where a counted fact is now (its old place already left) and counts it carried or not. */
function settle(run: Run, view: AuditView, fact: Fact, record: Presence, at: number, key: unknown): void {
	const was = isCarried(record);
	record.at = at;
	record.key = key;
	record.audit = view.audit;
	if (at >= 0) {
		// Most of Pi's messages hold no fact: a place without one stays a hole.
		const there = run.byUnit[at];
		if (there === undefined) run.byUnit[at] = [fact];
		else there.push(fact);
	} else if (at === MISSING) fileAnchors(run.missing, fact, anchors(forms(fact), run.as));
	else run.volatile.add(fact);
	const is = isCarried(record);
	if (was === is) return;
	const step = is ? 1 : -1;
	run.counts[fact.category].carried += step;
	if (record.lost && run.lost !== undefined) run.lost.tally.carried += step;
}

/** Moves the run on by one point; returns the facts it counts from now on. */
function advance(run: Run, view: AuditView, memo: AuditMemo, facts: FactState): Fact[] {
	const record = (fact: Fact) => memo.presence.get(fact)!;
	// The missing facts a new unit holds; they leave the index as they are found.
	const found: [Fact, number][] = [];
	readUnits(view, run.missing, forms, view.kept, view.units.length, (fact, at) =>
		found.push([fact, at === VOLATILE ? VOLATILE_ONLY : at]),
	);
	const moved = movedFacts(run, view, record);
	const places = placeMany(
		view,
		moved.map((fact): ToPlace => ({ forms: forms(fact), prior: record(fact), current: true })),
	);
	for (const [fact, at] of found) settle(run, view, fact, record(fact), at, at >= 0 ? view.units.key(at) : undefined);
	moved.forEach((fact, j) => {
		const r = record(fact);
		if (r.at < 0) run.volatile.delete(fact);
		const { at, key } = places[j]!;
		settle(run, view, fact, r, at, key);
	});
	const added: Fact[] = [];
	for (let i = run.kept.length; i < facts.kept.length; i++) added.push(facts.kept.at(i)!);
	track(run, view, memo, added);
	run.kept = facts.kept;
	const sources = replacedSources(facts);
	if (!sameSources(sources, run.sources)) {
		const now = new Set(replacedFacts(facts));
		for (const fact of run.replaced) if (!now.has(fact)) untrack(run, fact, record(fact));
		const fresh = [...now].filter((fact) => !run.replaced.has(fact));
		track(run, view, memo, fresh);
		added.push(...fresh);
		run.replaced = now;
		run.sources = sources;
	}
	return added;
}

/**
 * The counted facts this audit may place elsewhere, besides the missing ones: those a stable unit
 * held that is not kept at its place, and those only volatile units held.
 */
function movedFacts(run: Run, view: AuditView, record: (fact: Fact) => Presence): Fact[] {
	const out = new Set<Fact>();
	for (let p = view.kept; p < run.byUnit.length; p++)
		for (const fact of run.byUnit[p] ?? []) if (record(fact).at === p) out.add(fact);
	run.byUnit.length = Math.min(run.byUnit.length, view.kept);
	for (const fact of run.volatile) out.add(fact);
	return [...out];
}

/** Takes a fact out of the structure that holds it by its place (a unit's list is left to pass it over). */
function leave(run: Run, fact: Fact, record: Presence): void {
	if (record.at === MISSING) dropAnchors(run.missing, fact);
	else if (record.at < 0) run.volatile.delete(fact);
}

/** Stops counting a fact (a replaced fact the branch no longer holds). */
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

function factKey(fact: Fact): string {
	return `${fact.category}\u0000${fact.text}`;
}

/** Marks a counted fact lost or not, and counts it; an appended one (`keyed`) is filed by its key. */
function setLost(split: LostSplit, fact: Fact, record: Presence, lost: boolean, keyed: boolean): void {
	if (record.lost === lost) return;
	record.lost = lost;
	const step = lost ? 1 : -1;
	split.tally.total += step;
	if (isCarried(record)) split.tally.carried += step;
	if (!keyed) return;
	if (lost) split.byKey.set(factKey(fact), fact);
	else split.byKey.delete(factKey(fact));
}

/**
 * Which counted facts the executor lost (adapter/lab/audit/facts.ts `holdsFact`). A fact the executor holds
 * stays held while the horizon stays: the facts from it on only grow, but for the replaced ones.
 * `added`: the facts counted since the previous point.
 */
function splitLost(run: Run, memo: AuditMemo, since: HorizonFacts | undefined, added: readonly Fact[]): void {
	const record = (fact: Fact) => memo.presence.get(fact)!;
	const keyed = (fact: Fact) => !run.replaced.has(fact);
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
		const fact = open.byKey.get(factKey(since.facts.kept.at(i)!));
		if (fact !== undefined) setLost(open, fact, record(fact), false, true);
	}
	open.kept = since.facts.kept;
	for (const fact of added) setLost(open, fact, record(fact), !holdsFact(since.facts, fact), keyed(fact));
	if (!sameSources(sources, open.sources)) {
		for (const fact of run.replaced) setLost(open, fact, record(fact), !holdsFact(since.facts, fact), false);
		open.sources = sources;
	}
}

function* countedFacts(run: Run): Iterable<Fact> {
	yield* run.kept;
	yield* run.replaced;
}
