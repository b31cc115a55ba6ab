/**
 * How a section of advisor.json is read: key by key against its schema, so a bad value costs only
 * its own key (docs/configuration.md). Each section's schema, defaults and type live with the layer
 * that applies them (render/ledger-section.ts, tools/tools-section.ts, and budget.ts, warming.ts, review.ts,
 * advice.ts, guidance.ts, activation.ts here); this module only reads.
 */

import { type Static, type TProperties, type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { isRecord } from "../../../events/index.ts";

/** A section's values, one per key of its schema. */
export type Section<P extends TProperties> = { -readonly [K in keyof P]: Static<P[K]> };

/**
 * Compiles only when `A` and `B` are the same type: a section's derived type checked against the
 * type of the core rule that reads it.
 */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type Assert<T extends true> = T;

/** The section with every key optional: how the whole file is described (load.ts `AdvisorFileSchema`). */
export const partial = <P extends TProperties>(props: P) =>
	Type.Object(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, Type.Optional(s)])));

/** Checks each key of a section on its own; `bad` collects the dotted names of rejected keys. */
export function readSection<P extends TProperties>(
	name: string,
	props: P,
	defaults: Section<P>,
	value: unknown,
	bad: string[],
): Section<P> {
	const out: Section<P> = { ...defaults };
	if (value === undefined || value === null) return out;
	if (!isRecord(value)) {
		bad.push(name);
		return out;
	}
	for (const key of Object.keys(props) as (keyof P & string)[]) {
		const v = value[key];
		if (v === undefined || v === null) continue;
		if (Value.Check(props[key] as TSchema, v)) out[key] = v as Section<P>[typeof key];
		else bad.push(`${name}.${key}`);
	}
	return out;
}

/** A top-level key on its own (modelKey, effort). */
export function readLeaf<S extends TSchema>(
	name: string,
	schema: S,
	value: unknown,
	bad: string[],
): Static<S> | undefined {
	if (value === undefined || value === null) return undefined;
	if (Value.Check(schema, value)) return value;
	bad.push(name);
	return undefined;
}
