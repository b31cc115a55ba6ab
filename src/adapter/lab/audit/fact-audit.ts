/**
 * The fact-survival audit, request side (docs/request-format.md#the-fact-audit): of the facts the
 * branch holds (src/adapter/lab/audit/facts.ts), which does a request carry as text? A fact is carried when
 * its judged form appears in the request — an omission that `advisor_expand` could fill does not
 * count. Both sides are compared with whitespace collapsed (a card shows `Tests 3 failed`, the
 * output said `Tests  3 failed`), and executor text is matched as the request writes it (framing
 * defused) or as written. Names and paths must stand as whole tokens: `a.ts` is not carried by
 * `data.ts`; a path also stands in a folder's list, `src/{a.ts, b.ts}` (how a compaction lists them).
 *
 * The same audit runs over any list of units — a ledger request's content parts, or the messages
 * of Pi's own context for the baseline — and is incremental across the points of a branch: a fact
 * found in a unit that is still there is still carried, and a fact missing last time can only turn
 * up in a unit that is new (fact-presence.ts). `auditUnits` still asks that of every fact it is
 * given; the replay's audit along a branch asks it only of the facts a point can have changed
 * (branch-audit.ts). How a fact is compared with a unit: fact-forms.ts.
 */

import { commonUnits, isLedgerRequest, type LedgerRequest, unitAt, unitCount } from "../../../render/index.ts";
import { type AuditSide, forms } from "./fact-forms.ts";
import { type AuditMemo, type AuditUnits, isCarried, openAudit, place } from "./fact-presence.ts";
import { FACT_CATEGORIES, type Fact, type FactCategory } from "./facts.ts";

export { type AuditSide, JUDGED_CHARS, pathCarried } from "./fact-forms.ts";
export { type AuditMemo, type AuditUnits, createAuditMemo } from "./fact-presence.ts";

export interface FactTally {
	total: number;
	carried: number;
}

export type FactCounts = Record<FactCategory, FactTally>;

export function emptyCounts(): FactCounts {
	const counts = {} as FactCounts;
	for (const category of FACT_CATEGORIES) counts[category] = { total: 0, carried: 0 };
	return counts;
}

export function addCounts(into: FactCounts, more: FactCounts): FactCounts {
	for (const category of FACT_CATEGORIES) {
		into[category].total += more[category].total;
		into[category].carried += more[category].carried;
	}
	return into;
}

export interface AuditResult {
	counts: FactCounts;
	missing: Fact[];
	/**
	 * Of the facts the executor lost (docs/request-format.md, "The executor's horizon": all of their
	 * occurrences lie before its newest horizon), how many the units carry; zeros without a horizon.
	 */
	lost: FactTally;
}

/**
 * Which facts the units carry. `stableUnits` leading units are stable (a fact found there is
 * remembered by position and key); the rest change from point to point and are searched last.
 * `as`: how the units hold executor text (see AuditSide).
 */
export function auditUnits(
	units: AuditUnits,
	stableUnits: number,
	facts: readonly Fact[],
	memo: AuditMemo,
	as: AuditSide,
	lost?: (fact: Fact) => boolean,
): AuditResult {
	const view = openAudit(units, stableUnits, memo, as);
	const counts = emptyCounts();
	const missing: Fact[] = [];
	const lostTally: FactTally = { total: 0, carried: 0 };
	for (const fact of facts) {
		const tally = counts[fact.category];
		tally.total++;
		const prior = memo.presence.get(fact);
		const at = place(view, forms(fact), prior, prior?.audit === view.audit - 1);
		memo.presence.set(fact, { fact, at: at.at, key: at.key, audit: view.audit, run: 0, lost: false });
		const carried = isCarried(at);
		if (carried) tally.carried++;
		else missing.push(fact);
		if (lost?.(fact) === true) {
			lostTally.total++;
			if (carried) lostTally.carried++;
		}
	}
	return { counts, missing, lost: lostTally };
}

/**
 * A ledger request's units: its content parts (and head), each keyed by its chained prefix hash. A
 * unit's hash covers every unit before it, so the units two requests share end where their hashes
 * part (a binary search).
 */
export function requestUnits(request: LedgerRequest): AuditUnits {
	return {
		length: unitCount(request),
		key: (i) => unitAt(request, i)!.prefixHash,
		text: (i) => unitAt(request, i)!.text,
		source: request,
		shared: (previous) => (isLedgerRequest(previous.source) ? commonUnits(previous.source, request) : 0),
	};
}

/** The audit of a ledger request. */
export function auditRequest(
	request: LedgerRequest,
	facts: readonly Fact[],
	memo: AuditMemo,
	lost?: (fact: Fact) => boolean,
): AuditResult {
	return auditUnits(requestUnits(request), request.stable.unitCount, facts, memo, "ledger", lost);
}

/** Units from a list: each item's key and text. */
export function unitsOf<T>(items: readonly T[], key: (item: T) => unknown, text: (item: T) => string): AuditUnits {
	return { length: items.length, key: (i) => key(items[i]!), text: (i) => text(items[i]!) };
}

/** The share of facts carried, 1 when there are none. */
export function carriedShare(tally: FactTally): number {
	return tally.total === 0 ? 1 : tally.carried / tally.total;
}
