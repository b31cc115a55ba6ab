/**
 * The fact-survival audit, request side (docs/request-format.md#the-fact-audit): of the facts the
 * branch holds (src/reducers/facts.ts), which does a request carry as text? A fact is carried when
 * its judged form appears in the request — an omission that `advisor_expand` could fill does not
 * count. Both sides are compared with whitespace collapsed (a card shows `Tests 3 failed`, the
 * output said `Tests  3 failed`), and executor text is matched as the request writes it (framing
 * defused) or as written. Names and paths must stand as whole tokens: `a.ts` is not carried by
 * `data.ts`; a path also stands in a folder's list, `src/{a.ts, b.ts}` (how a compaction lists them).
 *
 * The same audit runs over any list of units — a ledger request's content parts, or the messages
 * of Pi's own context for the baseline — and is incremental across the points of a branch: a fact
 * found in a unit that is still there is still carried, and a fact missing last time can only turn
 * up in a unit that is new.
 */

import { FACT_CATEGORIES, type Fact, type FactCategory } from "../reducers/index.ts";
import { neutralise } from "./neutralise.ts";
import { commonUnits, isLedgerRequest, type LedgerRequest, unitAt, unitCount } from "./request-units.ts";

/** How many characters of a fact's collapsed text are judged; the rest of a long text may be capped. */
export const JUDGED_CHARS: Readonly<Record<FactCategory, number>> = Object.freeze({
	user: 200,
	edited: Number.POSITIVE_INFINITY,
	read: Number.POSITIVE_INFINITY,
	command: 100,
	failure: 80,
	test: 100,
	prose: 300,
	identifier: Number.POSITIVE_INFINITY,
	advice: 200,
	instructions: 100,
});

/** Categories whose facts must stand as whole tokens. */
const TOKEN_CATEGORIES: ReadonlySet<FactCategory> = new Set(["edited", "read", "identifier"]);

function collapse(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}

/** Categories whose facts are paths. */
const PATH_CATEGORIES: ReadonlySet<FactCategory> = new Set(["edited", "read"]);

interface Forms {
	/** Collapsed and cut to its judged length: what a request that writes text on one line carries. */
	collapsed: string;
	/** As the ledger writes executor text (framing defused), collapsed and cut. */
	shown: string;
	/** As written, cut to its judged length: what a request that carries the text unchanged holds. */
	written: string;
	token: boolean;
	/** For a path in a folder: the folder's list opening (`src/{`) and the file's name in it, as written and as shown. */
	grouped?: { open: string; name: string }[];
}

const formsOf = new WeakMap<Fact, Forms>();

function forms(fact: Fact): Forms {
	let f = formsOf.get(fact);
	if (f === undefined) {
		const max = JUDGED_CHARS[fact.category];
		const cut = (text: string) => (text.length > max ? text.slice(0, max).trimEnd() : text);
		f = {
			collapsed: cut(collapse(fact.text)),
			shown: cut(collapse(neutralise(fact.text))),
			written: cut(fact.text.trim()),
			token: TOKEN_CATEGORIES.has(fact.category),
		};
		if (PATH_CATEGORIES.has(fact.category)) {
			f.grouped = [];
			for (const form of new Set([f.collapsed, f.shown])) {
				const slash = form.lastIndexOf("/");
				if (slash > 0) f.grouped.push({ open: `${form.slice(0, slash)}/{`, name: form.slice(slash + 1) });
			}
		}
		formsOf.set(fact, f);
	}
	return f;
}

const NAME_CHAR = /[A-Za-z0-9_$]/;
const PATH_LEAD = /[A-Za-z0-9_$./\\-]/;

/** `needle` in `text` with no name character right after it and no name or path character right before. */
function containsToken(text: string, needle: string): boolean {
	let at = text.indexOf(needle);
	while (at !== -1) {
		const before = at === 0 ? "" : text[at - 1]!;
		const after = text[at + needle.length] ?? "";
		if ((before === "" || !PATH_LEAD.test(before)) && (after === "" || !NAME_CHAR.test(after))) return true;
		at = text.indexOf(needle, at + 1);
	}
	return false;
}

/** `src/{a.ts, b.ts}` lists `a.ts` in `src`. */
function inFolderList(text: string, open: string, name: string): boolean {
	let at = text.indexOf(open);
	while (at !== -1) {
		const before = at === 0 ? "" : text[at - 1]!;
		const end = text.indexOf("}", at);
		if (end === -1) return false;
		if (
			(before === "" || !PATH_LEAD.test(before)) &&
			text
				.slice(at + open.length, end)
				.split(", ")
				.includes(name)
		)
			return true;
		at = text.indexOf(open, at + 1);
	}
	return false;
}

/** Does `text` carry `path`, whole or in its folder's list (`src/{a.ts, b.ts}`)? */
export function pathCarried(text: string, path: string): boolean {
	if (text.includes(path)) return true;
	const slash = path.lastIndexOf("/");
	return slash > 0 && inFolderList(text, `${path.slice(0, slash)}/{`, path.slice(slash + 1));
}

function holds(text: string, fact: Forms, as: AuditSide): boolean {
	const find = fact.token ? containsToken : (t: string, n: string) => t.includes(n);
	if (as === "written") return fact.written.length > 0 && find(text, fact.written);
	if (fact.collapsed.length > 0 && find(text, fact.collapsed)) return true;
	if (fact.grouped?.some((g) => inFolderList(text, g.open, g.name)) === true) return true;
	return fact.shown !== fact.collapsed && fact.shown.length > 0 && find(text, fact.shown);
}

/**
 * How a request holds executor text: `ledger` — rewritten (framing defused, one-line forms), so units
 * and facts are compared with whitespace collapsed; `written` — unchanged (Pi's own context), so each
 * fact is looked for as written.
 */
export type AuditSide = "ledger" | "written";

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

/**
 * What one side's audit keeps from point to point of a branch. Each audit compares its units with
 * the previous one's, position by position: the leading units with the same keys are the same
 * units, and only those after the first difference are new — what one point adds to the next.
 */
export interface AuditMemo {
	/** The stable unit each fact was found in: its position and key. */
	found: WeakMap<Fact, { index: number; key: unknown }>;
	/** The audit (by number) at which each fact was last found missing. */
	missing: WeakMap<Fact, number>;
	/** Audits made with this memo. */
	audits: number;
	/** The previous audit's unit keys, in order. */
	keys: unknown[];
	/** The previous audit's units: what the next one's `shared` is counted against. */
	last: AuditUnits | undefined;
	/** Unit texts as compared (collapsed on the ledger's side), by key. */
	texts: Map<unknown, string>;
}

export function createAuditMemo(): AuditMemo {
	return { found: new WeakMap(), missing: new WeakMap(), audits: 0, keys: [], last: undefined, texts: new Map() };
}

export interface AuditResult {
	counts: FactCounts;
	missing: Fact[];
}

/**
 * Texts of units no longer in use are dropped once the cache holds this many more than the request
 * (a stable unit goes out of use when a compaction or a trim rewrites the log).
 */
const TEXT_CACHE_SLACK = 1024;

/**
 * The units new since the previous audit (from the first position whose key differs), and every
 * unit's text: a stable unit's cached by key, so the work of one point is the units it adds, not
 * the whole request; a volatile unit's only for this audit (it is new at every point: a cache
 * would keep every version).
 */
function unitTexts(
	units: AuditUnits,
	stable: number,
	memo: AuditMemo,
	as: AuditSide,
): { first: number; text: (i: number) => string } {
	const keys = memo.keys;
	const known = memo.last === undefined || units.shared === undefined ? 0 : units.shared(memo.last);
	let first = Math.min(known, units.length, keys.length);
	while (first < units.length && first < keys.length && units.key(first) === keys[first]) first++;
	memo.last = units;
	keys.length = first;
	for (let i = first; i < units.length; i++) keys.push(units.key(i));
	if (memo.texts.size > units.length + TEXT_CACHE_SLACK) {
		const kept = new Map<unknown, string>();
		for (const key of keys) {
			const t = memo.texts.get(key);
			if (t !== undefined) kept.set(key, t);
		}
		memo.texts = kept;
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
	return { first, text };
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
): AuditResult {
	const stable = Math.min(stableUnits, units.length);
	const { first, text } = unitTexts(units, stable, memo, as);
	const audit = ++memo.audits;
	// New units first (a new fact is almost always in one), stable ones before volatile ones so that a
	// find is remembered; then, for a fact not known missing, the units seen before, newest first.
	const fresh: number[] = [];
	for (let i = stable - 1; i >= first; i--) fresh.push(i);
	for (let i = Math.max(first, stable); i < units.length; i++) fresh.push(i);
	const search = (f: Forms, from: "fresh" | "all"): number => {
		for (const i of fresh) if (holds(text(i), f, as)) return i;
		if (from === "fresh") return -1;
		for (let i = Math.min(first, stable) - 1; i >= 0; i--) if (holds(text(i), f, as)) return i;
		for (let i = stable; i < first; i++) if (holds(text(i), f, as)) return i;
		return -1;
	};

	const counts = emptyCounts();
	const missing: Fact[] = [];
	for (const fact of facts) {
		const tally = counts[fact.category];
		tally.total++;
		const at = memo.found.get(fact);
		let carried = at !== undefined && at.index < stable && units.key(at.index) === at.key;
		if (!carried) {
			// A fact missing from the previous audit can only be in a unit that is new since.
			const i = search(forms(fact), memo.missing.get(fact) === audit - 1 ? "fresh" : "all");
			carried = i !== -1;
			if (i !== -1 && i < stable) memo.found.set(fact, { index: i, key: units.key(i) });
			else memo.found.delete(fact);
		}
		if (carried) tally.carried++;
		else {
			missing.push(fact);
			memo.missing.set(fact, audit);
		}
	}
	return { counts, missing };
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
export function auditRequest(request: LedgerRequest, facts: readonly Fact[], memo: AuditMemo): AuditResult {
	return auditUnits(requestUnits(request), request.stable.unitCount, facts, memo, "ledger");
}

/** Units from a list: each item's key and text. */
export function unitsOf<T>(items: readonly T[], key: (item: T) => unknown, text: (item: T) => string): AuditUnits {
	return { length: items.length, key: (i) => key(items[i]!), text: (i) => text(items[i]!) };
}

/** The share of facts carried, 1 when there are none. */
export function carriedShare(tally: FactTally): number {
	return tally.total === 0 ? 1 : tally.carried / tally.total;
}
