/**
 * The `privacy` section: validation with one pinned warning per problem, the user's own patterns,
 * the allow list, the backtracking check, and redactValue's reading of credential-named keys.
 */

import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "vitest";
import {
	backtrackingRisk,
	DEFAULT_PRIVACY,
	PrivacySchema,
	type PrivacySettings,
	privacyFingerprint,
	redactText,
	redactValue,
	redactValueWithCount,
	redactWithCount,
	resolvePrivacy,
} from "../../../src/events/redact/index.ts";
import { ALNUM, PLANTS, randomText } from "./credentials.ts";

describe("resolvePrivacy", () => {
	it("absent: the defaults, no warning", () => {
		expect(resolvePrivacy(undefined)).toEqual({ settings: DEFAULT_PRIVACY, warnings: [] });
		expect(resolvePrivacy(null).settings).toBe(DEFAULT_PRIVACY);
		expect(resolvePrivacy({}).settings).toBe(DEFAULT_PRIVACY);
		expect(DEFAULT_PRIVACY).toEqual({ redact: true, patterns: [], allow: [] });
	});

	it("not an object: the defaults, one warning", () => {
		for (const raw of ["off", false, 3, ["a"]]) {
			expect(resolvePrivacy(raw)).toEqual({
				settings: DEFAULT_PRIVACY,
				warnings: [
					"privacy must be an object — using the defaults (redaction on, no extra patterns, no allow list)",
				],
			});
		}
	});

	it("redact: false turns it off; anything but a boolean leaves it on with a warning", () => {
		expect(resolvePrivacy({ redact: false })).toEqual({
			settings: { redact: false, patterns: [], allow: [] },
			warnings: [],
		});
		expect(resolvePrivacy({ redact: "no" })).toEqual({
			settings: DEFAULT_PRIVACY,
			warnings: ["privacy.redact must be true or false — redaction stays on"],
		});
	});

	it("patterns: a string is a pattern of kind custom; an object may name its kind", () => {
		const { settings, warnings } = resolvePrivacy({
			patterns: ["INT-[0-9]{6}", { pattern: "acme_[a-z0-9]{12}", kind: "acme-token" }, { pattern: "zz[0-9]+" }],
		});
		expect(warnings).toEqual([]);
		expect(settings.patterns).toEqual([
			{ pattern: "INT-[0-9]{6}", kind: "custom" },
			{ pattern: "acme_[a-z0-9]{12}", kind: "acme-token" },
			{ pattern: "zz[0-9]+", kind: "custom" },
		]);
	});

	it("each bad pattern costs itself only, with its own warning", () => {
		const long = `${"abc".repeat(30)}(`;
		const { settings, warnings } = resolvePrivacy({
			patterns: [
				42,
				{ kind: "x" },
				"",
				"(",
				"(a+)+",
				"(?:a|ab)*x",
				"a*",
				{ pattern: "tok_[0-9]{8}", kind: "Internal Token" },
				long,
				"ok_[0-9]{4}",
			],
		});
		expect(warnings).toEqual([
			'privacy.patterns[0] must be a pattern string or {"pattern": "…", "kind": "…"} — skipped',
			'privacy.patterns[1] must be a pattern string or {"pattern": "…", "kind": "…"} — skipped',
			'privacy.patterns[2] must be a pattern string or {"pattern": "…", "kind": "…"} — skipped',
			'privacy.patterns[3] "(" is not a valid JavaScript regular expression — skipped',
			'privacy.patterns[4] "(a+)+" could backtrack without bound (nested repetition) — skipped',
			'privacy.patterns[5] "(?:a|ab)*x" could backtrack without bound (overlapping alternation) — skipped',
			'privacy.patterns[6] "a*" matches the empty string — skipped',
			'privacy.patterns[7].kind "Internal Token" must be lowercase letters, digits and single dashes (at most 40) — using "custom"',
			`privacy.patterns[8] "${long.slice(0, 59)}…" is not a valid JavaScript regular expression — skipped`,
		]);
		expect(settings.patterns).toEqual([
			{ pattern: "tok_[0-9]{8}", kind: "custom" },
			{ pattern: "ok_[0-9]{4}", kind: "custom" },
		]);
		expect(settings.redact).toBe(true);
	});

	it("allow: a string is exact, an object holds a pattern checked like the others", () => {
		const { settings, warnings } = resolvePrivacy({
			allow: [
				"sk_test_4eC39HqLyjWDarjtT1zdp7dc",
				{ pattern: "^AKIA[A-Z0-9]{12}TEST$" },
				5,
				{ pattern: "(x+)*" },
				"",
			],
		});
		expect(settings.allow).toEqual([
			{ kind: "exact", value: "sk_test_4eC39HqLyjWDarjtT1zdp7dc" },
			{ kind: "pattern", pattern: "^AKIA[A-Z0-9]{12}TEST$" },
		]);
		expect(warnings).toEqual([
			'privacy.allow[2] must be an exact string or {"pattern": "…"} — skipped',
			'privacy.allow[3] "(x+)*" could backtrack without bound (nested repetition) — skipped',
			'privacy.allow[4] must be an exact string or {"pattern": "…"} — skipped',
		]);
	});

	it("lists that are not lists are ignored with a warning each", () => {
		expect(resolvePrivacy({ patterns: "abc", allow: { a: 1 } }).warnings).toEqual([
			"privacy.patterns must be a list — ignored",
			"privacy.allow must be a list — ignored",
		]);
	});

	it("the schema describes what resolvePrivacy accepts", () => {
		expect(Value.Check(PrivacySchema, {})).toBe(true);
		expect(
			Value.Check(PrivacySchema, {
				redact: false,
				patterns: ["a[0-9]", { pattern: "b[0-9]", kind: "b" }],
				allow: ["x", { pattern: "^y" }],
			}),
		).toBe(true);
		expect(Value.Check(PrivacySchema, { redact: "yes" })).toBe(false);
		expect(Value.Check(PrivacySchema, { patterns: [3] })).toBe(false);
		expect(Value.Check(PrivacySchema, { allow: [{ kind: "x" }] })).toBe(false);
	});

	it("the fingerprint changes exactly when redaction would", () => {
		const a = resolvePrivacy({ patterns: ["INT-[0-9]{6}"] }).settings;
		const b = resolvePrivacy({ patterns: ["INT-[0-9]{6}"] }).settings;
		expect(privacyFingerprint(a)).toBe(privacyFingerprint(b));
		expect(privacyFingerprint(DEFAULT_PRIVACY)).toBe("[[],[]]");
		expect(privacyFingerprint(a)).not.toBe(privacyFingerprint(DEFAULT_PRIVACY));
		expect(privacyFingerprint(resolvePrivacy({ allow: ["x"] }).settings)).not.toBe(
			privacyFingerprint(DEFAULT_PRIVACY),
		);
		expect(privacyFingerprint({ ...a, redact: false })).toBe("off");
	});
});

describe("the backtracking check", () => {
	it.each([
		["(a+)+", "nested repetition"],
		["(a*)*", "nested repetition"],
		["(?:ab?)*", "nested repetition"],
		["(\\w{1,9}){4}", "nested repetition"],
		["((a+))+", "nested repetition"],
		["x(?=(a+)+y)", "nested repetition"],
		["(?:-[a-z0-9]+)+", "nested repetition"],
		["(a|a)*", "overlapping alternation"],
		["(a|ab)*", "overlapping alternation"],
		["(?:\\d|x)+", "overlapping alternation"],
		["(?:a|)+", "overlapping alternation"],
		["(?:[a-z]|_){2,}", "overlapping alternation"],
	])("%s: %s", (pattern, risk) => {
		expect(backtrackingRisk(pattern)).toBe(risk);
	});

	it.each([
		"acme_[a-z0-9]{32}",
		"\\bINT-[0-9]{6}\\b",
		"(?:foo|bar)+",
		"(?:[a-z]{2}\\.)+",
		"a+b+c+",
		"(?<secret>[A-F0-9]{40})",
		"[(+*]",
		"x{",
		"a{2,}",
		"(?:ab)?c",
		"token=(?<secret>[^&\\s]+)",
	])("%s passes", (pattern) => {
		expect(backtrackingRisk(pattern)).toBeUndefined();
	});
});

describe("the user's patterns", () => {
	const settings = (raw: unknown): PrivacySettings => {
		const r = resolvePrivacy(raw);
		expect(r.warnings).toEqual([]);
		return r.settings;
	};

	it("replace the whole match, or only the group named secret", () => {
		const s = settings({
			patterns: [{ pattern: "acme_[a-z0-9]{12}", kind: "acme-token" }, "INTERNAL-(?<secret>[0-9]{6})"],
		});
		expect(redactText("use acme_0a1b2c3d4e5f, then INTERNAL-123456.", s)).toBe(
			"use [redacted: acme-token], then INTERNAL-[redacted: custom].",
		);
		expect(redactText("use acme_0a1b2c3d4e5f", DEFAULT_PRIVACY)).toBe("use acme_0a1b2c3d4e5f");
	});

	it("come before the generic rule, so their kind wins", () => {
		const s = settings({ patterns: [{ pattern: "acme_[a-z0-9]{12}", kind: "acme-token" }] });
		expect(redactText("ACME_TOKEN=acme_0a1b2c3d4e5f", s)).toBe("ACME_TOKEN=[redacted: acme-token]");
	});

	it("never break a mark, and redaction stays idempotent", () => {
		const jwt = PLANTS.jwt!(3).text;
		const s = settings({ patterns: ["redacted", "jwt", "[a-z]{3,}"] });
		const once = redactText(`token ${jwt} here`, s);
		expect(once).toContain("[redacted: jwt]");
		expect(redactText(once, s)).toBe(once);
	});

	it("a pattern that matches only empty strings changes nothing; a hand-built invalid one is skipped", () => {
		const hand: PrivacySettings = {
			redact: true,
			patterns: [
				{ pattern: "(?=a)", kind: "custom" },
				{ pattern: "(", kind: "custom" },
			],
			allow: [],
		};
		expect(redactWithCount("banana", hand)).toEqual({ text: "banana", count: 0 });
	});
});

describe("the allow list", () => {
	const stripeTest = `sk_test_${randomText(8, 24, ALNUM)}`;
	const stripeLive = `sk_live_${randomText(9, 24, ALNUM)}`;

	it("an exact entry keeps that credential only", () => {
		const s = resolvePrivacy({ allow: [stripeTest] }).settings;
		expect(redactText(`${stripeTest} ${stripeLive}`, s)).toBe(`${stripeTest} [redacted: stripe-key]`);
		// Beside a credential name too: the generic rule asks the same list.
		expect(redactText(`STRIPE_KEY=${stripeTest}`, s)).toBe(`STRIPE_KEY=${stripeTest}`);
		expect(redactText(stripeTest, DEFAULT_PRIVACY)).toBe("[redacted: stripe-key]");
	});

	it("a pattern entry keeps every credential it matches", () => {
		const s = resolvePrivacy({ allow: [{ pattern: "^sk_test_" }] }).settings;
		const other = `sk_test_${randomText(10, 30, ALNUM)}`;
		expect(redactText(`${stripeTest} ${other} ${stripeLive}`, s)).toBe(
			`${stripeTest} ${other} [redacted: stripe-key]`,
		);
	});

	it("applies to redactValue's credential-named keys", () => {
		const s = resolvePrivacy({ allow: ["hunter2-hunter2"] }).settings;
		const value = { env: { DB_PASSWORD: "hunter2-hunter2" } };
		expect(redactValue(value, s)).toBe(value);
		expect(redactValue(value, DEFAULT_PRIVACY)).toEqual({ env: { DB_PASSWORD: "[redacted: secret-assignment]" } });
	});
});

describe("redactValue", () => {
	it("judges a string under a credential-named key as that key's value", () => {
		const args = {
			command: "deploy",
			env: { API_TOKEN: "abcdefgh12345678", LOG_LEVEL: "debug" },
			headers: [{ "X-Api-Key": "Zx81-qq0p-LLm2" }],
			options: { apiKey: "nextToken", token: 12345678, secret: true },
		};
		const { value, count } = redactValueWithCount(args, DEFAULT_PRIVACY);
		expect(value).toEqual({
			command: "deploy",
			env: { API_TOKEN: "[redacted: secret-assignment]", LOG_LEVEL: "debug" },
			headers: [{ "X-Api-Key": "[redacted: secret-assignment]" }],
			options: { apiKey: "nextToken", token: 12345678, secret: true },
		});
		expect(count).toBe(2);
		// Untouched branches are the same objects.
		expect(value.options).toBe(args.options);
	});

	it("redacts inside strings anywhere and keeps keys and order", () => {
		const key = PLANTS["github-classic"]!(4).text;
		const args = { path: ".env", content: `A=1\nGITHUB_TOKEN=${key}\n`, list: ["x", key] };
		expect(redactValue(args, DEFAULT_PRIVACY)).toEqual({
			path: ".env",
			content: "A=1\nGITHUB_TOKEN=[redacted: github-token]\n",
			list: ["x", "[redacted: github-token]"],
		});
	});
});
