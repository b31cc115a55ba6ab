/**
 * The `privacy` section of advisor.json (docs/privacy.md): its schema, its resolved shape and its
 * validation. Pure: the adapter reads the file and hands the section's value to resolvePrivacy.
 *
 * A bad entry costs that entry only, with one warning line; a bad `redact` value leaves redaction on,
 * because the safe reading of a typo in a privacy switch is the private one.
 */

import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { backtrackingRisk } from "./regex-safety.ts";

export interface CustomPattern {
	/** A JavaScript regular expression, compiled like `new RegExp(pattern)`. */
	readonly pattern: string;
	/** The kind shown in the mark; "custom" when the user named none. */
	readonly kind: string;
}

export type AllowEntry =
	/** This exact credential is never redacted (a published test key). */
	| { readonly kind: "exact"; readonly value: string }
	/** A credential this regular expression matches (anywhere in it) is never redacted. */
	| { readonly kind: "pattern"; readonly pattern: string };

export interface PrivacySettings {
	readonly redact: boolean;
	readonly patterns: readonly CustomPattern[];
	readonly allow: readonly AllowEntry[];
}

export const DEFAULT_PRIVACY: PrivacySettings = Object.freeze({
	redact: true,
	patterns: Object.freeze([]),
	allow: Object.freeze([]),
});

export const CUSTOM_KIND = "custom";
/** Kinds are shown as `[redacted: <kind>]`, so they stay short, lowercase and unambiguous. */
export const KIND_SYNTAX = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_KIND_LENGTH = 40;

const PatternEntrySchema = Type.Union([
	Type.String({ minLength: 1 }),
	Type.Object({ pattern: Type.String({ minLength: 1 }), kind: Type.Optional(Type.String()) }),
]);

const AllowEntrySchema = Type.Union([
	Type.String({ minLength: 1 }),
	Type.Object({ pattern: Type.String({ minLength: 1 }) }),
]);

/** advisor.json's `privacy` section, every key optional. For documentation and editors; resolvePrivacy checks entry by entry. */
export const PrivacySchema = Type.Object({
	redact: Type.Optional(Type.Boolean()),
	patterns: Type.Optional(Type.Array(PatternEntrySchema)),
	allow: Type.Optional(Type.Array(AllowEntrySchema)),
});

export type PrivacyFile = Static<typeof PrivacySchema>;

// ---------------------------------------------------------------------------------------------
// Warning texts (each pinned by a test)
// ---------------------------------------------------------------------------------------------

const shown = (pattern: string) => JSON.stringify(pattern.length > 60 ? `${pattern.slice(0, 59)}…` : pattern);

export const privacyWarnings = {
	notObject: () => "privacy must be an object — using the defaults (redaction on, no extra patterns, no allow list)",
	redactNotBoolean: () => "privacy.redact must be true or false — redaction stays on",
	notList: (key: "patterns" | "allow") => `privacy.${key} must be a list — ignored`,
	badPatternEntry: (i: number) =>
		`privacy.patterns[${i}] must be a pattern string or {"pattern": "…", "kind": "…"} — skipped`,
	badAllowEntry: (i: number) => `privacy.allow[${i}] must be an exact string or {"pattern": "…"} — skipped`,
	doesNotCompile: (where: string, pattern: string) =>
		`${where} ${shown(pattern)} is not a valid JavaScript regular expression — skipped`,
	backtracks: (where: string, pattern: string, risk: string) =>
		`${where} ${shown(pattern)} could backtrack without bound (${risk}) — skipped`,
	matchesEmpty: (where: string, pattern: string) => `${where} ${shown(pattern)} matches the empty string — skipped`,
	badKind: (i: number, kind: string) =>
		`privacy.patterns[${i}].kind ${JSON.stringify(kind)} must be lowercase letters, digits and single dashes (at most ${MAX_KIND_LENGTH}) — using "${CUSTOM_KIND}"`,
} as const;

// ---------------------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------------------

export interface ResolvedPrivacy {
	settings: PrivacySettings;
	warnings: string[];
}

/** The `privacy` value as written (undefined when absent) → settings and one warning per problem. */
export function resolvePrivacy(raw: unknown): ResolvedPrivacy {
	const warnings: string[] = [];
	if (raw === undefined || raw === null) return { settings: DEFAULT_PRIVACY, warnings };
	if (typeof raw !== "object" || Array.isArray(raw)) {
		return { settings: DEFAULT_PRIVACY, warnings: [privacyWarnings.notObject()] };
	}
	const section = raw as Record<string, unknown>;
	let redact = true;
	if (section.redact !== undefined && section.redact !== null) {
		if (typeof section.redact === "boolean") redact = section.redact;
		else warnings.push(privacyWarnings.redactNotBoolean());
	}
	const patterns = readPatterns(section.patterns, warnings);
	const allow = readAllow(section.allow, warnings);
	const settings: PrivacySettings =
		redact && patterns.length === 0 && allow.length === 0 ? DEFAULT_PRIVACY : { redact, patterns, allow };
	return { settings, warnings };
}

function listOf(value: unknown, key: "patterns" | "allow", warnings: string[]): unknown[] {
	if (value === undefined || value === null) return [];
	if (Array.isArray(value)) return value;
	warnings.push(privacyWarnings.notList(key));
	return [];
}

function readPatterns(value: unknown, warnings: string[]): CustomPattern[] {
	const out: CustomPattern[] = [];
	listOf(value, "patterns", warnings).forEach((entry, i) => {
		if (!Value.Check(PatternEntrySchema, entry)) {
			warnings.push(privacyWarnings.badPatternEntry(i));
			return;
		}
		const pattern = typeof entry === "string" ? entry : entry.pattern;
		const problem = patternProblem(`privacy.patterns[${i}]`, pattern);
		if (problem !== undefined) {
			warnings.push(problem);
			return;
		}
		let kind = typeof entry === "string" || entry.kind === undefined ? CUSTOM_KIND : entry.kind;
		if (!isValidKind(kind)) {
			warnings.push(privacyWarnings.badKind(i, kind));
			kind = CUSTOM_KIND;
		}
		out.push({ pattern, kind });
	});
	return out;
}

function readAllow(value: unknown, warnings: string[]): AllowEntry[] {
	const out: AllowEntry[] = [];
	listOf(value, "allow", warnings).forEach((entry, i) => {
		if (!Value.Check(AllowEntrySchema, entry)) {
			warnings.push(privacyWarnings.badAllowEntry(i));
			return;
		}
		if (typeof entry === "string") {
			out.push({ kind: "exact", value: entry });
			return;
		}
		const problem = patternProblem(`privacy.allow[${i}]`, entry.pattern);
		if (problem !== undefined) warnings.push(problem);
		else out.push({ kind: "pattern", pattern: entry.pattern });
	});
	return out;
}

export function isValidKind(kind: string): boolean {
	return kind.length <= MAX_KIND_LENGTH && KIND_SYNTAX.test(kind);
}

/** Why a user's pattern cannot be used, as a warning line, or undefined when it can. */
function patternProblem(where: string, pattern: string): string | undefined {
	let compiled: RegExp;
	try {
		compiled = new RegExp(pattern);
	} catch {
		return privacyWarnings.doesNotCompile(where, pattern);
	}
	const risk = backtrackingRisk(pattern);
	if (risk !== undefined) return privacyWarnings.backtracks(where, pattern, risk);
	if (compiled.test("")) return privacyWarnings.matchesEmpty(where, pattern);
	return undefined;
}

/**
 * A string that changes exactly when redaction would change: for whatever memoises rendered
 * blocks, so blocks rendered under other settings are never reused.
 */
export function privacyFingerprint(settings: PrivacySettings): string {
	if (!settings.redact) return "off";
	return JSON.stringify([settings.patterns, settings.allow]);
}
