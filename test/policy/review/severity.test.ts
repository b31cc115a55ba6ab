import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SEVERITIES } from "../../../src/events/index.ts";
import { parseSeverity, reviewSeverity } from "../../../src/policy/review/severity.ts";

describe("parseSeverity", () => {
	it.each([
		["Severity: none\nLooks right.", "none"],
		["Severity: nit", "nit"],
		["Severity: concern\n\nThe test is wrong.", "concern"],
		["Severity: blocker", "blocker"],
		// Decoration models add anyway.
		["**Severity: concern**\nx", "concern"],
		["**Severity:** concern", "concern"],
		["Severity: **blocker**", "blocker"],
		["# Severity: Blocker", "blocker"],
		["## Severity: nit", "nit"],
		["> Severity: none", "none"],
		["- Severity: nit", "nit"],
		["`Severity: none`", "none"],
		["_Severity_: concern", "concern"],
		["Severity — nit", "nit"],
		["Severity – nit", "nit"],
		["Severity - concern", "concern"],
		["Severity = none", "none"],
		["Severity：blocker", "blocker"],
		["Severity:none", "none"],
		["Severity: none.", "none"],
		["Severity: concern!", "concern"],
		["Severity: nit;", "nit"],
		["Severity: [concern]", "concern"],
		['Severity: "blocker"', "blocker"],
		["SEVERITY: BLOCKER", "blocker"],
		["severity: Concern", "concern"],
		["Severity: concern — the migration drops a column", "concern"],
		// Only the first non-empty line counts; blank and decoration-only lines are not lines of words.
		["\n\n  \nSeverity: nit", "nit"],
		["\r\nSeverity: none\r\nrest", "none"],
		["```\nSeverity: concern\n```", "concern"],
		["---\nSeverity: blocker", "blocker"],
		["\uFEFFSeverity: none", "none"],
	])("%j → %s", (advice, expected) => {
		expect(parseSeverity(advice)).toBe(expected);
	});

	it.each([
		["", "empty"],
		["   \n\n", "blank"],
		["Looks fine to me.", "no severity line"],
		["The plan is fine.\nSeverity: blocker", "severity on the second line"],
		["Severity: critical", "unknown level"],
		["Severity: nitpick", "a longer word"],
		["Severity: nones", "a longer word"],
		["Severity:", "no level"],
		["Severity none-ish", "a longer word after a dash"],
		["Overall severity: concern", "words before Severity"],
		["Severity level: blocker", "words between"],
	])("%j → undefined (%s)", (advice) => {
		expect(parseSeverity(advice)).toBeUndefined();
	});

	it("property: a clean first line is always read back", () => {
		fc.assert(
			fc.property(fc.constantFrom(...SEVERITIES), fc.string(), (severity, rest) => {
				expect(parseSeverity(`Severity: ${severity}\n${rest}`)).toBe(severity);
			}),
		);
	});

	it("property: a first line without the word severity never yields one", () => {
		fc.assert(
			fc.property(
				fc.string().filter((line) => !/severity/i.test(line) && !/[\r\n]/.test(line) && /[\p{L}\p{N}]/u.test(line)),
				fc.constantFrom(...SEVERITIES),
				(first, severity) => {
					expect(parseSeverity(`${first}\nSeverity: ${severity}`)).toBeUndefined();
				},
			),
		);
	});
});

describe("reviewSeverity", () => {
	it("absent → nit", () => {
		expect(reviewSeverity("All good.")).toBe("nit");
		expect(reviewSeverity("Severity: none")).toBe("none");
		expect(reviewSeverity("Severity: blocker\nStop.")).toBe("blocker");
	});
});
