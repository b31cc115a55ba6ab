/**
 * How the fact audit compares a fact with a unit of a request (docs/request-format.md#the-fact-audit):
 * the forms a fact is looked for in (collapsed, as the ledger shows executor text, as written, in a
 * folder's list), how much of it is judged, and when a text holds it. The audit itself, which units
 * it asks and when: fact-audit.ts, fact-presence.ts, branch-audit.ts.
 */

import { collapse } from "../../../reducers/index.ts";
import { ADVICE_START_CHARS, neutralise } from "../../../render/index.ts";
import type { Fact, FactCategory } from "./facts.ts";

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
	// The stand-in keeps one character more of each piece of earlier advice (render/stand-in.ts).
	advice: ADVICE_START_CHARS - 1,
	instructions: 100,
});

/** Categories whose facts must stand as whole tokens. */
const TOKEN_CATEGORIES: ReadonlySet<FactCategory> = new Set(["edited", "read", "identifier"]);

/** Categories whose facts are paths. */
const PATH_CATEGORIES: ReadonlySet<FactCategory> = new Set(["edited", "read"]);

/**
 * How a request holds executor text: `ledger` — rewritten (framing defused, one-line forms), so units
 * and facts are compared with whitespace collapsed; `written` — unchanged (Pi's own context), so each
 * fact is looked for as written.
 */
export type AuditSide = "ledger" | "written";

export interface Forms {
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

export function forms(fact: Fact): Forms {
	let f = formsOf.get(fact);
	if (f === undefined) {
		const max = JUDGED_CHARS[fact.category];
		const cut = (text: string) => (text.length > max ? text.slice(0, max).trimEnd() : text);
		const collapsed = judgedPrefix(fact.text, max, collapse, ANY);
		f = {
			collapsed,
			shown: neutralise(fact.text) === fact.text ? collapsed : judgedPrefix(fact.text, max, shownForm, SETTLED),
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

const shownForm = (text: string) => collapse(neutralise(text));

/** Any character: collapsing a prefix of a text gives a prefix of the collapsed text, wherever it ends. */
const ANY = /[\s\S]/g;

/**
 * A character no pattern of `neutralise` is in the middle of: not blank, not part of a name or an
 * id, not framing. Every rewrite of a text up to and including one is decided there.
 */
const SETTLED = /[^\s\w.:\-<>[\]#/»]/g;

/**
 * `form(text)` cut to its first `max` characters (`JUDGED_CHARS`), computed from as little of the
 * text as decides them: a fact can be a pasted log of many megabytes, and its forms are judged on a
 * few hundred characters (docs/request-format.md#the-fact-audit). `form` maps a prefix of the text
 * that ends in a character `end` matches to a prefix of what it maps the whole text to; once that is
 * longer than `max`, the rest of the text cannot change the cut.
 */
function judgedPrefix(text: string, max: number, form: (text: string) => string, end: RegExp): string {
	const cut = (t: string) => (t.length > max ? t.slice(0, max).trimEnd() : t);
	for (let want = Math.max(256, 2 * max); want < text.length; want *= 4) {
		end.lastIndex = want - 1;
		const at = end.exec(text)?.index;
		if (at === undefined || at > 4 * want) break;
		const prefix = form(text.slice(0, at + 1));
		if (prefix.length > max) return cut(prefix);
	}
	return cut(form(text));
}

/** A name character: `[A-Za-z0-9_$]`. */
function isNameChar(c: number): boolean {
	return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36;
}

/** A name or path character: `[A-Za-z0-9_$./\\-]`. */
function isPathLead(c: number): boolean {
	return isNameChar(c) || c === 46 || c === 47 || c === 92 || c === 45;
}

/** Does the `length` characters at `at` stand as a token: no name character after, no name or path character before? */
function tokenAt(text: string, at: number, length: number): boolean {
	// charCodeAt past either end is NaN: neither kind of character.
	return !isPathLead(text.charCodeAt(at - 1)) && !isNameChar(text.charCodeAt(at + length));
}

/** `needle` in `text` with no name character right after it and no name or path character right before. */
function containsToken(text: string, needle: string): boolean {
	let at = text.indexOf(needle);
	while (at !== -1) {
		if (tokenAt(text, at, needle.length)) return true;
		at = text.indexOf(needle, at + 1);
	}
	return false;
}

/** The names of the folder list opening at `at` (`open`, `src/{`); undefined where none opens there. */
function listAt(text: string, at: number, open: string): readonly string[] | undefined {
	const end = text.indexOf("}", at);
	if (end === -1 || isPathLead(text.charCodeAt(at - 1))) return undefined;
	return text.slice(at + open.length, end).split(", ");
}

/** Does the folder list opening at `at` (`open`, `src/{`) list `name`? */
function listedAt(text: string, at: number, open: string, name: string): boolean {
	return listAt(text, at, open)?.includes(name) === true;
}

/** `src/{a.ts, b.ts}` lists `a.ts` in `src`. */
function inFolderList(text: string, open: string, name: string): boolean {
	let at = text.indexOf(open);
	while (at !== -1) {
		if (listedAt(text, at, open, name)) return true;
		// No `}` after this opening: none after a later one either.
		if (text.indexOf("}", at) === -1) return false;
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

/** Does a unit's text (collapsed on the ledger's side) hold the fact? */
export function holds(text: string, fact: Forms, as: AuditSide): boolean {
	const find = fact.token ? containsToken : (t: string, n: string) => t.includes(n);
	if (as === "written") return fact.written.length > 0 && find(text, fact.written);
	if (fact.collapsed.length > 0 && find(text, fact.collapsed)) return true;
	if (fact.grouped?.some((g) => inFolderList(text, g.open, g.name)) === true) return true;
	return fact.shown !== fact.collapsed && fact.shown.length > 0 && find(text, fact.shown);
}

/**
 * Strings one of which a text holding the fact must contain (`holds` is true only where one is):
 * what the index of missing facts looks for in new units (anchor-index.ts). None: no text holds it.
 */
export function anchors(fact: Forms, as: AuditSide): readonly string[] {
	let out = anchorsOf.get(fact)?.[as];
	if (out === undefined) {
		if (as === "written") out = fact.written.length > 0 ? [fact.written] : [];
		else {
			const all = new Set<string>();
			if (fact.collapsed.length > 0) all.add(fact.collapsed);
			if (fact.shown.length > 0) all.add(fact.shown);
			for (const g of fact.grouped ?? []) all.add(g.open);
			out = [...all];
		}
		anchorsOf.set(fact, { ...anchorsOf.get(fact), [as]: out });
	}
	return out;
}

const anchorsOf = new WeakMap<Forms, Partial<Record<AuditSide, readonly string[]>>>();

/**
 * Does the anchor `anchor` (one of `anchors(fact, as)`) where it stands at `at` in `text` make the
 * text hold the fact? `holds` is true exactly where this is true of one of its anchors' places.
 */
export function holdsAt(
	text: string,
	fact: Forms,
	as: AuditSide,
	anchor: string,
	at: number,
	lists: FolderLists = new Map(),
): boolean {
	const whole = (form: string) => anchor === form && (!fact.token || tokenAt(text, at, form.length));
	if (as === "written") return whole(fact.written);
	if (whole(fact.collapsed) || whole(fact.shown)) return true;
	return fact.grouped?.some((g) => g.open === anchor && listedIn(lists, text, at, g.open).has(g.name)) === true;
}

/** Where `anchor` first stands at or after `from` in `text` such that the text holds the fact there (`holdsAt`); -1 for nowhere. */
export function holdingAt(
	text: string,
	fact: Forms,
	as: AuditSide,
	anchor: string,
	from: number,
	lists: FolderLists = new Map(),
): number {
	for (let at = text.indexOf(anchor, from); at !== -1; at = text.indexOf(anchor, at + 1))
		if (holdsAt(text, fact, as, anchor, at, lists)) return at;
	return -1;
}

/** A place where a text holds a fact: the anchor that stands there, and where it starts. */
export interface Holding {
	anchor: string;
	at: number;
}

/** Where `text` holds the fact (`holds`), found one anchor at a time; undefined where it does not. */
export function holdingIn(
	text: string,
	fact: Forms,
	as: AuditSide,
	lists: FolderLists = new Map(),
): Holding | undefined {
	for (const anchor of anchors(fact, as)) {
		const at = holdingAt(text, fact, as, anchor, 0, lists);
		if (at !== -1) return { anchor, at };
	}
	return undefined;
}

/**
 * The folder lists of one text by where they open (and the opening's length), read once: every path fact of a folder is filed
 * under the same opening (`src/{`), and a list read again for each of them made the audit quadratic.
 */
export type FolderLists = Map<number, ReadonlySet<string>>;

function listedIn(lists: FolderLists, text: string, at: number, open: string): ReadonlySet<string> {
	// Two openings at one place differ in length (`a/{` and `a/{b/{`).
	const key = at * 4096 + Math.min(open.length, 4095);
	let names = lists.get(key);
	if (names === undefined) {
		names = new Set(listAt(text, at, open));
		lists.set(key, names);
	}
	return names;
}
