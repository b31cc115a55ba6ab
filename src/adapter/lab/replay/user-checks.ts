/**
 * The replay's user-message check: every user message folded so far must be in the request
 * verbatim, as the renderer writes its block (docs/architecture.md, invariant 3). A message found
 * in a unit stays found while the request keeps the same bytes up to that unit, so a point looks
 * again only for the messages whose unit changed.
 */

import type { LedgerEvent } from "../../../events/index.ts";
import { type ChunkedList, listBuilder } from "../../../reducers/index.ts";
import {
	commonUnits,
	flatten,
	type LedgerConfig,
	type LedgerRequest,
	ordinalId,
	unitAt,
	unitCount,
	userWords,
} from "../../../render/index.ts";
import {
	createAnchorIndex,
	dropAnchors,
	eachOccurrence,
	fileAnchors,
	indexedCount,
	shortItems,
} from "../audit/index.ts";

/** One user message and the block the renderer writes for it. */
export interface UserCheck {
	id: string;
	expected: string;
}

/** Where a user's block was last found: the unit and the chained hash that pins every unit up to it. */
export interface Found {
	unit: number;
	hash: string;
}

/** By user, in branch order (a chunked list: a point copies what changed, not every user). */
export type FoundUsers = ChunkedList<Found | undefined>;

/** A branch's user messages: their event indices, and the block each must render as. */
export interface BranchUsers {
	index: readonly number[];
	checks: readonly UserCheck[];
}

/** The user block as the renderer writes it: the header names the message's path position (`index` + 1). */
function userBlockText(event: LedgerEvent & { kind: "user" }, index: number, config: LedgerConfig): string {
	return userWords(ordinalId(index + 1), event.parts, config);
}

/**
 * User messages by event index, each with the block it must render as. The ones before `common`
 * (the events this branch shares with the one replayed before it) are that branch's, from
 * `previousIndex`; checks are cached by event in `cache`: a shared event sits at the same path
 * position on every branch that holds it.
 */
export function branchUsers(
	events: readonly LedgerEvent[],
	previousIndex: readonly number[],
	common: number,
	config: LedgerConfig,
	cache: WeakMap<LedgerEvent, UserCheck>,
): BranchUsers {
	const index: number[] = [];
	for (const i of previousIndex) {
		if (i >= common) break;
		index.push(i);
	}
	for (let i = Math.min(common, events.length); i < events.length; i++) {
		if (events[i]!.kind === "user") index.push(i);
	}
	const checks = index.map((i) => {
		const event = events[i] as LedgerEvent & { kind: "user" };
		let check = cache.get(event);
		if (check === undefined) {
			check = { id: event.id, expected: userBlockText(event, i, config) };
			cache.set(event, check);
		}
		return check;
	});
	return { index, checks };
}

/** How many of the branch's users come before event `upTo`, counting on from `from` (users before an earlier point). */
export function usersBefore(users: BranchUsers, upTo: number, from: number): number {
	let count = from;
	while (count < users.checks.length && users.index[count]! < upTo) count++;
	return count;
}

/**
 * Where the users checked last were found, by unit: what the next point looks at again (only the
 * users whose unit the request no longer has at its place, those no single unit held, and the new
 * ones), so that a point's work follows what changed (docs/decisions.md, "A replay's work follows
 * the change"). One per branch replay; it follows one `FoundUsers` list from point to point.
 */
export interface UserWatch {
	/** The list it describes; another list (a branch resumed elsewhere) is checked whole. */
	found: FoundUsers | undefined;
	/** The request that list was checked against. */
	request: LedgerRequest | undefined;
	/** Users checked. */
	count: number;
	/** Users by the unit they were found in (an entry whose user has moved is passed over). */
	byUnit: (number[] | undefined)[];
	/** Users no single unit held. */
	unfound: Set<number>;
}

export function createUserWatch(): UserWatch {
	return { found: undefined, request: undefined, count: 0, byUnit: [], unfound: new Set() };
}

/**
 * The users to look at again, in branch order (every one when `watch` does not follow `found`), and
 * the first unit that is new since the previous point.
 */
function usersToCheck(
	watch: UserWatch,
	request: LedgerRequest,
	count: number,
	found: FoundUsers,
): { users: number[]; kept: number } {
	if (watch.found !== found || watch.request === undefined || count < watch.count) {
		watch.byUnit = [];
		watch.unfound.clear();
		return { users: Array.from({ length: count }, (_, k) => k), kept: 0 };
	}
	// Up to where the two requests' chained hashes agree, every unit (and what was found in it) stays.
	const kept = commonUnits(watch.request, request);
	const out: number[] = [];
	for (let unit = kept; unit < watch.byUnit.length; unit++)
		for (const k of watch.byUnit[unit] ?? []) if (found.at(k)?.unit === unit) out.push(k);
	watch.byUnit.length = Math.min(watch.byUnit.length, kept);
	out.push(...watch.unfound);
	watch.unfound.clear();
	for (let k = watch.count; k < count; k++) out.push(k);
	return { users: out.sort((a, b) => a - b), kept };
}

/**
 * Every user message folded so far must be in the request verbatim. A message found in a unit of
 * the previous request is still there when this request has the same chained hash at that unit
 * (the same bytes up to it); the others are looked for unit by unit from the end, where new blocks
 * are, and a message no single unit holds is looked for in the whole flattened request. `found` is
 * by user, in the order of `users`; `watch` says which users can have moved since the previous point.
 */
export function checkUsers(
	request: LedgerRequest,
	users: readonly UserCheck[],
	count: number,
	found: FoundUsers,
	watch: UserWatch,
): { found: FoundUsers; missing: string[] } {
	const missing: string[] = [];
	let flat: string | undefined;
	const changes = new Map<number, Found | undefined>();
	const record = (k: number, at: Found | undefined) => {
		if (found.at(k) === at) changes.delete(k);
		else changes.set(k, at);
	};
	const file = (k: number, unit: number) => {
		const there = watch.byUnit[unit];
		if (there === undefined) watch.byUnit[unit] = [k];
		else there.push(k);
	};
	const { users: again, kept } = usersToCheck(watch, request, count, found);
	const pending: number[] = [];
	for (const k of again) {
		const at = found.at(k);
		if (at !== undefined && unitAt(request, at.unit)?.prefixHash === at.hash) file(k, at.unit);
		else pending.push(k);
	}
	const units = unitsHolding(
		request,
		pending.map((k) => ({ text: users[k]!.expected, isNew: found.at(k) === undefined })),
		kept,
	);
	pending.forEach((k, j) => {
		const unit = units[j]!;
		record(k, undefined);
		if (unit >= 0) {
			record(k, { unit, hash: unitAt(request, unit)!.prefixHash });
			file(k, unit);
			return;
		}
		watch.unfound.add(k);
		flat ??= flatten(request);
		if (!flat.includes(users[k]!.expected)) missing.push(users[k]!.id);
	});
	const next = withChanges(found, changes);
	watch.found = next;
	watch.request = request;
	watch.count = count;
	return { found: next, missing };
}

/** Above this many messages to look for, the units are read once for all of them (adapter/lab/audit/anchor-index.ts). */
const ONE_BY_ONE = 16;

/**
 * A unit of `request` holding each text; -1 for none. A message whose unit was rewritten (a cut of
 * the log) is looked for from the first new unit (`kept`) on, where the cut lists what it left out,
 * then before it; a new one (`isNew`) from the end, where new blocks are. After a cut thousands are
 * looked for: the units are read once for all of them.
 */
function unitsHolding(
	request: LedgerRequest,
	texts: readonly { text: string; isNew: boolean }[],
	kept: number,
): number[] {
	const count = unitCount(request);
	const holding = (text: string, i: number) => unitAt(request, i)!.text.includes(text);
	if (texts.length <= ONE_BY_ONE)
		return texts.map(({ text, isNew }) => {
			if (isNew) return findIndexDown(0, count, (i) => holding(text, i));
			const at = findIndexUp(kept, count, (i) => holding(text, i));
			return at !== -1 ? at : findIndexDown(0, Math.min(kept, count), (i) => holding(text, i));
		});
	const out = texts.map(() => -1);
	const index = createAnchorIndex<number>();
	texts.forEach(({ text }, j) => {
		fileAnchors(index, j, [text]);
	});
	const read = (from: number, to: number) => {
		for (let i = from; i < to && indexedCount(index) > 0; i++) {
			const text = unitAt(request, i)!.text;
			const hit = (j: number) => {
				dropAnchors(index, j);
				out[j] = i;
			};
			eachOccurrence(index, text, hit);
			for (const j of [...shortItems(index)]) if (text.includes(texts[j]!.text)) hit(j);
		}
	};
	read(kept, count);
	read(0, Math.min(kept, count));
	return out;
}

function findIndexUp(from: number, to: number, test: (i: number) => boolean): number {
	for (let i = from; i < to; i++) if (test(i)) return i;
	return -1;
}

function findIndexDown(from: number, to: number, test: (i: number) => boolean): number {
	for (let i = to - 1; i >= from; i--) if (test(i)) return i;
	return -1;
}

/**
 * `list` with the items at the changed indices replaced (past its end, padded with undefined): one
 * copy of each chunk a few changes fall in, the list rebuilt from the first change when there are
 * many (after a cut of the log, most users are found elsewhere).
 */
function withChanges<T>(
	list: ChunkedList<T | undefined>,
	changes: ReadonlyMap<number, T | undefined>,
): ChunkedList<T | undefined> {
	if (changes.size === 0) return list;
	let first = Number.POSITIVE_INFINITY;
	let last = -1;
	for (const k of changes.keys()) {
		first = Math.min(first, k);
		last = Math.max(last, k);
	}
	const end = Math.max(list.length, last + 1);
	if (changes.size <= 4 && end === list.length) {
		let out = list;
		for (const [k, item] of changes) out = out.with(k, item);
		return out;
	}
	const builder = listBuilder(list, Math.min(first, list.length));
	for (let k = builder.length; k < end; k++) builder.push(changes.has(k) ? changes.get(k) : list.at(k));
	return builder.done();
}
