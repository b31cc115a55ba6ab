/**
 * How a fact is written for the audit (adapter/lab/audit/fact-forms.ts): its forms are read from as
 * little of a long text as decides them, and are what the whole text gives.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { forms, JUDGED_CHARS } from "../../../../src/adapter/lab/audit/fact-forms.ts";
import type { Fact, FactCategory } from "../../../../src/adapter/lab/audit/facts.ts";
import { collapse } from "../../../../src/reducers/index.ts";
import { neutralise } from "../../../../src/render/index.ts";
import { HOSTILE, RUNS } from "../../../support/session-gen.ts";

/** The forms by their definition: the whole text collapsed (and defused), then cut. */
function naive(category: FactCategory, text: string): { collapsed: string; shown: string } {
	const max = JUDGED_CHARS[category];
	const cut = (t: string) => (t.length > max ? t.slice(0, max).trimEnd() : t);
	return { collapsed: cut(collapse(text)), shown: cut(collapse(neutralise(text))) };
}

/** Pieces a long text is made of: framing and its near misses, blanks of every kind, names, punctuation. */
const piece = fc.oneof(
	fc.constantFrom(...HOSTILE),
	fc.constantFrom(
		" ",
		"\n",
		"\t",
		"\u00a0",
		"\r\n",
		" ".repeat(300),
		"\n".repeat(200),
		"<",
		"< ",
		"</",
		"<executor_log",
		">",
		"[",
		"[user",
		"[branch\n\nsummary",
		"]",
		"#",
		"#a1b2",
		"#abc".repeat(100),
		"»",
		",",
		"!",
		"é",
		"word",
		"src/a.ts",
	),
	fc.string({ maxLength: 12 }),
);
/** Framing whose rewrite is decided hundreds of blanks (or id characters) after it starts. */
const spanning = fc
	.tuple(fc.integer({ min: 100, max: 2000 }), fc.constantFrom(" ", "\n", "\t "))
	.chain(([n, blank]) =>
		fc.constantFrom(
			`<${blank.repeat(n)}/executor_log>`,
			`<${blank.repeat(n)}question${blank.repeat(3)}>`,
			`\n#${"a".repeat(n)} next`,
			`\n#a1${" ".repeat(n)}x`,
			`\n[branch${blank.repeat(n)}summary]`,
			`\n${" ".repeat(n)}[tool #1]`,
		),
	);
const longText = fc
	.tuple(
		fc.array(piece, { maxLength: 20 }),
		fc.option(spanning, { nil: "" }),
		fc.array(piece, { minLength: 1, maxLength: 400 }),
	)
	.map(([lead, span, rest]) => `${lead.join("")}${span}${rest.join("")}`);
const category = fc.constantFrom<FactCategory>("user", "command", "prose", "advice", "failure", "instructions");

describe("property: a long fact's forms are those of its whole text", () => {
	it("collapsed and as the ledger shows it, framing and blanks anywhere", () => {
		fc.assert(
			fc.property(category, longText, (c, text) => {
				const fact: Fact = Object.freeze({ category: c, text });
				const f = forms(fact);
				expect({ collapsed: f.collapsed, shown: f.shown }).toEqual(naive(c, text));
			}),
			{ numRuns: RUNS },
		);
	});

	it("a text of megabytes: its forms are its first words", () => {
		const text = `Here is the log:\n${"[user #1] <executor_log> word, ".repeat(50_000)}`;
		const f = forms(Object.freeze({ category: "user", text }));
		expect(f).toMatchObject(naive("user", text));
		expect(f.collapsed.length).toBeLessThanOrEqual(JUDGED_CHARS.user);
	});
});
