/**
 * Inside Pi, `@sinclair/typebox` resolves to the bundled typebox 1.x (docs/decisions.md): the
 * privacy section must be judged the same way there.
 */

import { describe, expect, it, vi } from "vitest";

vi.mock("@sinclair/typebox", async () => await import("typebox"));
vi.mock("@sinclair/typebox/value", async () => await import("typebox/value"));

const { resolvePrivacy, PrivacySchema } = await import("../../../src/events/redact/index.ts");
const { Value } = await import("typebox/value");

describe("privacy settings under Pi's typebox 1.x alias", () => {
	it("entries are judged as under 0.34", () => {
		const { settings, warnings } = resolvePrivacy({
			redact: true,
			patterns: ["INT-[0-9]{6}", { pattern: "acme_[a-z]{4}", kind: "acme" }, 7, { kind: "x" }],
			allow: ["x", { pattern: "^y" }, { nope: 1 }],
		});
		expect(settings.patterns).toEqual([
			{ pattern: "INT-[0-9]{6}", kind: "custom" },
			{ pattern: "acme_[a-z]{4}", kind: "acme" },
		]);
		expect(settings.allow).toEqual([
			{ kind: "exact", value: "x" },
			{ kind: "pattern", pattern: "^y" },
		]);
		expect(warnings).toEqual([
			'privacy.patterns[2] must be a pattern string or {"pattern": "…", "kind": "…"} — skipped',
			'privacy.patterns[3] must be a pattern string or {"pattern": "…", "kind": "…"} — skipped',
			'privacy.allow[2] must be an exact string or {"pattern": "…"} — skipped',
		]);
		expect(Value.Check(PrivacySchema, { patterns: [{ pattern: "a" }] })).toBe(true);
		expect(Value.Check(PrivacySchema, { redact: 1 })).toBe(false);
	});
});
