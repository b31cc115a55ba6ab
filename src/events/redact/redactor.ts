/**
 * Redaction: credentials in a text become `[redacted: <kind>]` (docs/privacy.md).
 *
 * Rules apply one after another in table order (rules.ts), then the user's patterns, then the
 * generic name/value rule, each on the text the previous ones left. So a value both specific and
 * generic (`GITHUB_TOKEN=ghp_…`) gets the specific kind, and a mark already written is never
 * matched again: a match that starts inside a mark is dropped, one that runs into a mark is cut
 * where the mark starts, which also makes redaction idempotent. Deterministic: nothing but the
 * text and the settings decides.
 *
 * Speed: one case-insensitive scan for every rule's literals decides which rules run at all (the
 * user's patterns always run), so a text without any candidate costs that one scan and comes back
 * as the same string.
 */

import { assertNever } from "../never.ts";
import { ASSIGNMENT_KIND, isCredentialName } from "./assignment.ts";
import type { Finder, Found } from "./found.ts";
import { isSecretValue } from "./plausible.ts";
import { REDACTION_RULES, type RedactionRule } from "./rules.ts";
import type { CustomPattern, PrivacySettings } from "./settings.ts";

/** The mark a credential becomes. The advisor reads it: it says a credential was there, and of which kind. */
export const markFor = (kind: string) => `[redacted: ${kind}]`;
const MARK_PREFIX = "[redacted: ";
const MARK = /\[redacted: [a-z0-9]+(?:-[a-z0-9]+)*\]/g;

interface Trigger {
	/** Its index among all triggers. */
	readonly id: number;
	/** Lowercase when `folded`. */
	readonly literal: string;
	readonly folded: boolean;
	readonly rules: number[];
}

interface Compiled {
	readonly rules: readonly Finder[];
	/** Rules without literals: they run on every text. */
	readonly always: readonly number[];
	/** Every literal of every rule, case-insensitively, in one alternation; longest first. */
	readonly prefilter: RegExp;
	/** The literals by their first character, lowercased. */
	readonly triggers: ReadonlyMap<string, readonly Trigger[]>;
	readonly triggerCount: number;
	readonly allowed: (secret: string) => boolean;
}

const compiledCache = new WeakMap<PrivacySettings, Compiled>();

function compiled(settings: PrivacySettings): Compiled {
	let c = compiledCache.get(settings);
	if (c === undefined) {
		c = compile(settings);
		compiledCache.set(settings, c);
	}
	return c;
}

type Runnable = { literals: readonly string[] | undefined; folded: boolean; find: Finder };

function compile(settings: PrivacySettings): Compiled {
	const fromTable = (phase: RedactionRule["phase"]): Runnable[] =>
		REDACTION_RULES.filter((r) => r.phase === phase).map((r) => ({
			literals: r.literals,
			folded: r.foldCase,
			find: r.find,
		}));
	const custom = settings.patterns.flatMap((p): Runnable[] => {
		const find = customFinder(p);
		return find === undefined ? [] : [{ literals: undefined, folded: false, find }];
	});
	const runnable = [...fromTable("specific"), ...custom, ...fromTable("generic")];
	const always: number[] = [];
	const byLiteral = new Map<string, Trigger>();
	runnable.forEach((r, index) => {
		if (r.literals === undefined) {
			always.push(index);
			return;
		}
		for (const raw of r.literals) {
			const literal = r.folded ? raw.toLowerCase() : raw;
			const key = `${r.folded ? "i" : "s"}${literal}`;
			const trigger = byLiteral.get(key) ?? { id: byLiteral.size, literal, folded: r.folded, rules: [] };
			trigger.rules.push(index);
			byLiteral.set(key, trigger);
		}
	});
	const triggers = new Map<string, Trigger[]>();
	for (const t of byLiteral.values()) {
		const first = t.literal[0]!.toLowerCase();
		triggers.set(first, [...(triggers.get(first) ?? []), t]);
	}
	const alternatives = [...new Set([...byLiteral.values()].map((t) => t.literal.toLowerCase()))]
		.sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
		.map(escapeRegExp);
	return {
		rules: runnable.map((r) => r.find),
		always,
		prefilter: new RegExp(alternatives.join("|"), "gi"),
		triggers,
		triggerCount: byLiteral.size,
		allowed: allowList(settings),
	};
}

function escapeRegExp(literal: string): string {
	return literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function allowList(settings: PrivacySettings): (secret: string) => boolean {
	const exact = new Set<string>();
	const patterns: RegExp[] = [];
	for (const entry of settings.allow) {
		switch (entry.kind) {
			case "exact":
				exact.add(entry.value);
				break;
			case "pattern": {
				const re = tryRegExp(entry.pattern, "");
				if (re !== undefined) patterns.push(re);
				break;
			}
			default:
				assertNever(entry, "allow entry");
		}
	}
	if (exact.size === 0 && patterns.length === 0) return () => false;
	return (secret) => exact.has(secret) || patterns.some((re) => re.test(secret));
}

/**
 * Which rules can match: one case-insensitive pass of the prefilter, each hit confirmed against the
 * literals starting with its character. A hit moves the scan on by one character, so overlapping
 * literals (`sk-` inside `task-sk-ant-`) are all seen. Replacing a match never creates a literal
 * (marks are bracketed), so the set found on the original text holds for the whole pass.
 */
function candidateRules(text: string, c: Compiled): readonly number[] {
	const { prefilter } = c;
	prefilter.lastIndex = 0;
	let m = prefilter.exec(text);
	if (m === null) return c.always;
	const ruleHit = new Uint8Array(c.rules.length);
	for (const r of c.always) ruleHit[r] = 1;
	// A literal seen once need not be looked at again: keyword-dense code hits the same few often.
	const seen = new Uint8Array(c.triggerCount);
	for (; m !== null; m = prefilter.exec(text)) {
		const at = m.index;
		for (const t of c.triggers.get(m[0][0]!.toLowerCase()) ?? []) {
			if (seen[t.id] === 1 || !literalAt(text, at, t)) continue;
			seen[t.id] = 1;
			for (const r of t.rules) ruleHit[r] = 1;
		}
		prefilter.lastIndex = at + 1;
	}
	const hit: number[] = [];
	ruleHit.forEach((h, r) => {
		if (h === 1) hit.push(r);
	});
	return hit;
}

/** Whether the trigger's literal starts at `at`; a folded one ignores the case of letters. */
function literalAt(text: string, at: number, t: Trigger): boolean {
	if (!t.folded) return text.startsWith(t.literal, at);
	const { literal } = t;
	if (at + literal.length > text.length) return false;
	for (let i = 0; i < literal.length; i++) {
		const want = literal.charCodeAt(i);
		const got = text.charCodeAt(at + i);
		// Folded literals are lowercase; `| 0x20` lowercases an ASCII letter and nothing else matters here.
		if (got !== want && !(want >= 97 && want <= 122 && (got | 0x20) === want)) return false;
	}
	return true;
}

/** resolvePrivacy has refused what does not compile; settings built by hand lose such a pattern silently. */
function tryRegExp(pattern: string, flags: string): RegExp | undefined {
	try {
		return new RegExp(pattern, flags);
	} catch {
		return undefined;
	}
}

/** A user's pattern: the whole match is replaced, or only its named group `secret` when it has one. */
function customFinder(p: CustomPattern): Finder | undefined {
	const re = tryRegExp(p.pattern, "dg");
	if (re === undefined) return undefined;
	return (text) => {
		const found: Found[] = [];
		re.lastIndex = 0;
		for (let m = re.exec(text); m !== null; m = re.exec(text)) {
			if (m[0] === "") {
				re.lastIndex++;
				continue;
			}
			const span = m.indices?.groups?.secret ?? m.indices?.[0];
			if (span === undefined || span[1] <= span[0]) continue;
			found.push({ start: span[0], end: span[1], kind: p.kind });
		}
		return found;
	};
}

export interface Redacted {
	text: string;
	/** How many marks redaction wrote. */
	count: number;
}

/** Redacts a whole text (before any clip). Returns the same string when nothing was redacted. */
export function redactWithCount(text: string, settings: PrivacySettings): Redacted {
	if (!settings.redact || text.length === 0) return { text, count: 0 };
	const c = compiled(settings);
	const candidates = candidateRules(text, c);
	if (candidates.length === 0) return { text, count: 0 };
	let current = text;
	let count = 0;
	for (const index of candidates) {
		const found = c.rules[index]!(current);
		if (found.length === 0) continue;
		const kept = keep(found, current, c.allowed);
		if (kept.length === 0) continue;
		current = splice(current, kept);
		count += kept.length;
	}
	return { text: current, count };
}

/**
 * Whether any rule could match the text (the prefilter's verdict). A text without a candidate is
 * never changed; with custom patterns every text is a candidate.
 */
export function hasCandidate(text: string, settings: PrivacySettings): boolean {
	return settings.redact && candidateRules(text, compiled(settings)).length > 0;
}

export function redactText(text: string, settings: PrivacySettings): string {
	return redactWithCount(text, settings).text;
}

/**
 * Drops what is allowed and what starts inside a mark already written; a match that runs into a
 * mark (a greedy password class meeting the mark of the next credential) is cut where the mark starts.
 */
function keep(found: readonly Found[], text: string, allowed: (secret: string) => boolean): Found[] {
	const marks = text.includes(MARK_PREFIX) ? markSpans(text) : [];
	const kept: Found[] = [];
	for (const f of found) {
		let end = f.end;
		for (const [start, stop] of marks) {
			if (f.start >= start && f.start < stop) end = f.start;
			else if (f.start < start && start < end) end = start;
		}
		if (end > f.start && !allowed(text.slice(f.start, end))) kept.push(end === f.end ? f : { ...f, end });
	}
	return kept;
}

function markSpans(text: string): [number, number][] {
	return Array.from(text.matchAll(MARK), (m) => [m.index, m.index + m[0].length]);
}

function splice(text: string, found: readonly Found[]): string {
	let out = "";
	let at = 0;
	for (const f of found) {
		// Finders report left to right without overlap; a custom finder cannot break that either.
		if (f.start < at) continue;
		out += text.slice(at, f.start) + markFor(f.kind);
		at = f.end;
	}
	return out + text.slice(at);
}

/** Counts the marks in a text (a mark the user typed themselves counts too). */
export function countMarks(text: string): number {
	if (!text.includes(MARK_PREFIX)) return 0;
	let n = 0;
	for (const _ of text.matchAll(MARK)) n++;
	return n;
}

/** Nesting deeper than this is not walked: the events layer clips entries at 100 levels already. */
const MAX_VALUE_DEPTH = 200;

/**
 * Redacts every string inside a JSON-like value (a tool call's arguments), keys left as they are.
 * A string under a key that names a credential (`{"apiKey": "…"}`) is judged as that key's value,
 * as it would be in `"apiKey": "…"` text. Returns the same value when nothing changed.
 */
export function redactValue<T>(value: T, settings: PrivacySettings): T {
	return redactValueWithCount(value, settings).value;
}

export function redactValueWithCount<T>(value: T, settings: PrivacySettings): { value: T; count: number } {
	if (!settings.redact) return { value, count: 0 };
	const counter = { count: 0 };
	const out = walk(value, undefined, settings, counter, 0) as T;
	return { value: out, count: counter.count };
}

function walk(
	value: unknown,
	key: string | undefined,
	settings: PrivacySettings,
	counter: { count: number },
	depth: number,
): unknown {
	if (typeof value === "string") {
		const r = redactWithCount(value, settings);
		if (r.count > 0) {
			counter.count += r.count;
			return r.text;
		}
		if (key !== undefined && isCredentialName(key) && isSecretValue(value, "code") && !isAllowed(value, settings)) {
			counter.count++;
			return markFor(ASSIGNMENT_KIND);
		}
		return value;
	}
	if (typeof value !== "object" || value === null || depth >= MAX_VALUE_DEPTH) return value;
	if (Array.isArray(value)) {
		let changed = false;
		const items = value.map((item) => {
			const next = walk(item, undefined, settings, counter, depth + 1);
			if (next !== item) changed = true;
			return next;
		});
		return changed ? items : value;
	}
	const proto = Object.getPrototypeOf(value);
	if (proto !== Object.prototype && proto !== null) return value;
	let changed = false;
	const entries = Object.entries(value).map(([k, v]) => {
		const next = walk(v, k, settings, counter, depth + 1);
		if (next !== v) changed = true;
		return [k, next] as const;
	});
	return changed ? Object.fromEntries(entries) : value;
}

function isAllowed(secret: string, settings: PrivacySettings): boolean {
	return compiled(settings).allowed(secret);
}
