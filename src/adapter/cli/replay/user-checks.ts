/**
 * The replay's user-message check: every user message folded so far must be in the request
 * verbatim, as the renderer writes its block (docs/architecture.md, invariant 3). A message found
 * in a unit stays found while the request keeps the same bytes up to that unit, so a point looks
 * again only for the messages whose unit changed.
 */

import type { LedgerEvent } from "../../../events/index.ts";
import type { ChunkedList } from "../../../reducers/index.ts";
import {
	flatten,
	type LedgerConfig,
	type LedgerRequest,
	ordinalId,
	unitAt,
	unitCount,
	userWords,
} from "../../../render/index.ts";

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
 * Every user message folded so far must be in the request verbatim. A message found in a unit of
 * the previous request is still there when this request has the same chained hash at that unit
 * (the same bytes up to it); the others are looked for unit by unit from the end, where new blocks
 * are, and a message no single unit holds is looked for in the whole flattened request. `found` is
 * by user, in the order of `users`.
 */
export function checkUsers(
	request: LedgerRequest,
	users: readonly UserCheck[],
	count: number,
	found: FoundUsers,
): { found: FoundUsers; missing: string[] } {
	let next = found;
	const missing: string[] = [];
	let flat: string | undefined;
	const record = (k: number, at: Found | undefined) => {
		if (next.at(k) === at) return;
		// Users not found so far have no entry yet: the list is padded up to this one.
		if (k < next.length) next = next.with(k, at);
		else next = next.appended([...new Array<undefined>(k - next.length).fill(undefined), at]);
	};
	for (let k = 0; k < count; k++) {
		const user = users[k]!;
		const at = found.at(k);
		if (at !== undefined && unitAt(request, at.unit)?.prefixHash === at.hash) continue;
		record(k, undefined);
		let unit = -1;
		for (let i = unitCount(request) - 1; i >= 0; i--) {
			if (unitAt(request, i)!.text.includes(user.expected)) {
				unit = i;
				break;
			}
		}
		if (unit >= 0) {
			record(k, { unit, hash: unitAt(request, unit)!.prefixHash });
			continue;
		}
		flat ??= flatten(request);
		if (!flat.includes(user.expected)) missing.push(user.id);
	}
	return { found: next, missing };
}
