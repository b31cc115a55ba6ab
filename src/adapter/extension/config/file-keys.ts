/**
 * What advisor.json's warnings say about its keys (docs/configuration.md, "When it is read, and what
 * happens when it is wrong"): a key the schema does not know, with the nearest one it does (a typo
 * would otherwise leave a cap at its default without a word), and what a rejected key allows. Both
 * read the file's schema (load.ts `AdvisorFileSchema`), so they cannot drift from what is read.
 */

import type { TSchema } from "@sinclair/typebox";
import { isRecord } from "../../../events/index.ts";

/** An unknown key, dotted from the top (`budget.maxUSD`, `disabledForModels[0].minEfort`). */
export interface UnknownKey {
	key: string;
	/** The nearest known key, dotted the same way; absent when none is close. */
	suggestion?: string;
}

type Node = TSchema & {
	type?: string;
	properties?: Record<string, TSchema>;
	items?: TSchema;
	anyOf?: TSchema[];
	const?: unknown;
};

const objectMember = (schema: Node): Node | undefined =>
	schema.type === "object" && schema.properties !== undefined
		? schema
		: (schema.anyOf as Node[] | undefined)?.find((m) => m.type === "object" && m.properties !== undefined);

/**
 * Optimal string alignment distance (Damerau–Levenshtein with adjacent transpositions), case
 * folded: `maxUSD` and `maxUsd` are the same key to a reader.
 */
export function editDistance(a: string, b: string): number {
	const s = a.toLowerCase();
	const t = b.toLowerCase();
	const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) =>
		Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
	);
	for (let i = 1; i <= s.length; i++) {
		for (let j = 1; j <= t.length; j++) {
			const cost = s[i - 1] === t[j - 1] ? 0 : 1;
			let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
			if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
				best = Math.min(best, d[i - 2]![j - 2]! + 1);
			d[i]![j] = best;
		}
	}
	return d[s.length]![t.length]!;
}

/** The closest candidate within a third of the word's length (at least 1); the first on a tie. */
export function nearest(word: string, candidates: readonly string[], leaf = (c: string) => c): string | undefined {
	const limit = Math.max(1, Math.floor(word.length / 3));
	let best: string | undefined;
	let bestDistance = limit + 1;
	for (const candidate of candidates) {
		const distance = editDistance(word, leaf(candidate));
		if (distance < bestDistance) {
			best = candidate;
			bestDistance = distance;
		}
	}
	return best;
}

/**
 * Every key of `raw` its schema does not name, at every level an object schema describes (the
 * sections, `disabledForModels` and `privacy` entries). `ignored`: top-level keys known to be
 * someone else's. A top-level key with no near sibling is matched against the sections' keys too,
 * so `tailToolCall` written at the top suggests `ledger.tailToolCalls`.
 */
export function unknownKeys(raw: Record<string, unknown>, schema: TSchema, ignored: readonly string[]): UnknownKey[] {
	const out: UnknownKey[] = [];
	const root = schema as Node;
	const sectionKeys = Object.entries(root.properties ?? {}).flatMap(([name, s]) =>
		Object.keys(objectMember(s as Node)?.properties ?? {}).map((key) => `${name}.${key}`),
	);
	const walk = (value: unknown, node: Node, prefix: string): void => {
		if (Array.isArray(value)) {
			if (node.type === "array" && node.items !== undefined)
				for (const [i, item] of value.entries()) walk(item, node.items as Node, `${prefix}[${i}]`);
			return;
		}
		const object = objectMember(node);
		if (object === undefined || !isRecord(value)) return;
		const known = object.properties ?? {};
		const dotted = (key: string) => (prefix === "" ? key : `${prefix}.${key}`);
		for (const [key, child] of Object.entries(value)) {
			const schemaOf = Object.hasOwn(known, key) ? known[key] : undefined;
			if (schemaOf !== undefined) {
				walk(child, schemaOf as Node, dotted(key));
				continue;
			}
			if (prefix === "" && ignored.includes(key)) continue;
			const near =
				nearest(key, Object.keys(known)) ??
				(prefix === "" ? nearest(key, sectionKeys, (c) => c.slice(c.indexOf(".") + 1)) : undefined);
			const suggestion = near === undefined ? undefined : prefix === "" ? near : dotted(near);
			out.push(suggestion === undefined ? { key: dotted(key) } : { key: dotted(key), suggestion });
		}
	};
	walk(raw, root, "");
	return out;
}

/** The schema of a dotted key as `readSection` and friends name it (`budget.sessionUsd`, `disabledForModels[1]`). */
export function schemaAt(schema: TSchema, key: string): TSchema | undefined {
	let node: Node | undefined = schema as Node;
	for (const part of key.split(/\.|(?=\[)/)) {
		if (node === undefined) return undefined;
		node = part.startsWith("[") ? (node.items as Node | undefined) : (objectMember(node)?.properties?.[part] as Node);
	}
	return node;
}

const bounds = (s: Record<string, unknown>): string[] => {
	const out: string[] = [];
	if (typeof s.minimum === "number") out.push(`≥ ${s.minimum}`);
	if (typeof s.exclusiveMinimum === "number") out.push(`> ${s.exclusiveMinimum}`);
	if (typeof s.maximum === "number") out.push(`≤ ${s.maximum}`);
	if (typeof s.exclusiveMaximum === "number") out.push(`< ${s.exclusiveMaximum}`);
	return out;
};

/** What a schema allows, in words: `one of confirm, skip`, `a number ≥ 0 and ≤ 1`, `true or false`. */
export function describeSchema(schema: TSchema): string {
	const s = schema as Node & Record<string, unknown>;
	if (s.anyOf !== undefined) {
		// A union of unions (effort: the levels, then `off`) reads as one list.
		const flat = (m: Node): Node[] => (m.anyOf === undefined ? [m] : (m.anyOf as Node[]).flatMap(flat));
		const members = flat(s);
		if (members.every((m) => m.const !== undefined))
			return `one of ${members.map((m) => String(m.const)).join(", ")}`;
		return members.map(describeSchema).join(" or ");
	}
	switch (s.type) {
		case "boolean":
			return "true or false";
		case "integer":
		case "number": {
			const range = bounds(s);
			const noun = s.type === "integer" ? "a whole number" : "a number";
			return range.length === 0 ? noun : `${noun} ${range.join(" and ")}`;
		}
		case "string":
			return typeof s.minLength === "number" && s.minLength > 0 ? "a non-empty string" : "a string";
		case "array":
			return s.items === undefined ? "a list" : `a list, each ${describeSchema(s.items)}`;
		case "object": {
			// A section's keys are in docs/configuration.md; a small entry's are worth naming.
			const keys = Object.keys(s.properties ?? {});
			return keys.length > 0 && keys.length <= 3 ? `an object with ${keys.join(", ")}` : "an object";
		}
		default:
			return "a valid value";
	}
}
