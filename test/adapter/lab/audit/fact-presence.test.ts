import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { auditUnits, unitsOf } from "../../../../src/adapter/lab/audit/fact-audit.ts";
import { forms, holds } from "../../../../src/adapter/lab/audit/fact-forms.ts";
import {
	createAuditMemo,
	MISSING,
	openAudit,
	type Place,
	place,
	placeMany,
	VOLATILE,
	VOLATILE_ONLY,
} from "../../../../src/adapter/lab/audit/fact-presence.ts";
import type { Fact } from "../../../../src/adapter/lab/audit/index.ts";

const word = fc.constantFrom(
	"npm test",
	"src/a.ts",
	"a.ts",
	"foo",
	"Tests 1 failed",
	"bar baz",
	"x",
	"src/{a.ts, b.ts}",
);
const unitText = fc.array(word, { maxLength: 4 }).map((ws) => ws.join(" "));
const factArb = fc.record({
	category: fc.constantFrom<Fact["category"]>("command", "read", "identifier", "test", "user"),
	text: word,
});

/** What a place says of a fact: held by a stable unit, only by volatile ones (known or not), or none. */
function kind(p: Place): string {
	if (p.at >= 0) return "stable";
	if (p.at === VOLATILE) return "volatile";
	if (p.at === VOLATILE_ONLY) return "volatile only";
	if (p.at === MISSING) return "missing";
	return "other";
}

describe("property: placing many facts at once places each as placing it alone does", () => {
	it("more facts than are looked for one by one, after an audit of other units", () => {
		fc.assert(
			fc.property(
				fc.array(unitText, { maxLength: 8 }),
				fc.nat(),
				fc.array(unitText, { maxLength: 8 }),
				fc.nat(),
				fc.nat(),
				fc.array(factArb, { minLength: 17, maxLength: 40 }),
				fc.constantFrom<"ledger" | "written">("ledger", "written"),
				(before, keep, added, stableBefore, stableAfter, raw, as) => {
					const facts = raw.map((f) => Object.freeze({ ...f }));
					const first = before.map((text, i) => ({ key: `b${i}`, text }));
					const second = [
						...first.slice(0, keep % (first.length + 1)),
						...added.map((text, i) => ({ key: `a${i}`, text })),
					];
					const memo = createAuditMemo();
					const us = (list: typeof first) =>
						unitsOf(
							list,
							(u) => u.key,
							(u) => u.text,
						);
					auditUnits(us(first), stableBefore % (first.length + 1), facts, memo, as);
					const view = openAudit(us(second), stableAfter % (second.length + 1), memo, as);
					const priors = facts.map((f) => memo.presence.get(f));
					const toPlace = facts.map((f, j) => ({ forms: forms(f), prior: priors[j], current: true }));
					const many = placeMany(view, toPlace);
					const alone = toPlace.map((f) => place(view, f.forms, f.prior, f.current));
					expect(many.map(kind)).toEqual(alone.map(kind));
					many.forEach((p, j) => {
						if (p.at < 0) return;
						expect(p.key).toBe(second[p.at]!.key);
						expect(holds(view.text(p.at), forms(facts[j]!), as)).toBe(true);
					});
				},
			),
			{ numRuns: 300 },
		);
	});
});
