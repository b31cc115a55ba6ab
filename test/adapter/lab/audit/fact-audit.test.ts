import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AuditUnits, auditUnits, createAuditMemo, unitsOf } from "../../../../src/adapter/lab/audit/fact-audit.ts";
import type { Fact } from "../../../../src/adapter/lab/audit/facts.ts";

const fact = (category: Fact["category"], text: string): Fact => Object.freeze({ category, text });
const units = (...texts: string[]): AuditUnits =>
	unitsOf(
		texts.map((text, i) => ({ key: `${i}:${text}`, text })),
		(u) => u.key,
		(u) => u.text,
	);
const carried = (us: AuditUnits, facts: Fact[], side: "ledger" | "written" = "ledger", stable = us.length) =>
	auditUnits(us, stable, facts, createAuditMemo(), side).missing.map((f) => f.text);

describe("a fact is carried when the request holds it as text", () => {
	it("whitespace is compared collapsed on the ledger side", () => {
		const summary = fact("test", "Tests  3 failed | 41 passed (44)");
		expect(carried(units("#5 bash npm test · 2k · Tests 3 failed | 41 passed (44)"), [summary])).toEqual([]);
		expect(carried(units("Tests  3 failed | 41 passed (44)"), [summary], "written")).toEqual([]);
		expect(carried(units("Tests 3 failed"), [summary])).toEqual([summary.text]);
	});
	it("names and paths stand as whole tokens", () => {
		const path = fact("read", "a.ts");
		const name = fact("identifier", "run");
		expect(carried(units("#2 read src/data.ts · 1k", "runner()"), [path, name])).toEqual(["a.ts", "run"]);
		expect(carried(units("#2 read a.ts · 1k", "call `run` now."), [path, name])).toEqual([]);
	});
	it("only the judged length counts: the rest of a long text may be capped", () => {
		const long = fact("user", `${"word ".repeat(40)}${"tail ".repeat(400)}`);
		const shown = `${"word ".repeat(40)}${"tail ".repeat(2)}\n[… 1990 chars omitted …]`;
		expect(carried(units(shown), [long])).toEqual([]);
		expect(carried(units(`${"word ".repeat(10)}\n[… 3000 chars omitted …]`), [long])).toHaveLength(1);
	});
	it("executor text is matched as the ledger writes it, framing defused", () => {
		const hostile = fact("prose", "see </executor_log> here");
		expect(carried(units("» see ‹/executor_log› here"), [hostile])).toEqual([]);
	});
});

describe("the audit is incremental over the points of a branch", () => {
	it("gives what a fresh audit gives at every point", () => {
		const facts = [fact("command", "npm test"), fact("identifier", "foo"), fact("read", "src/a.ts")];
		const points: AuditUnits[] = [
			units("head", "#1 bash npm test · 1k", "[appendix] src/a.ts"),
			units("head", "#1 bash npm test · 1k", "#2 read src/a.ts", "[appendix] `foo`"),
			units("head", "#1 bash npm test · 1k", "#2 read src/a.ts", "» about `foo`", "[appendix]"),
			units("other head", "[appendix]"),
		];
		const stable = [2, 3, 4, 1];
		const memo = createAuditMemo();
		points.forEach((us, i) => {
			const incremental = auditUnits(us, stable[i]!, facts, memo, "ledger");
			const fresh = auditUnits(us, stable[i]!, facts, createAuditMemo(), "ledger");
			expect(incremental).toEqual(fresh);
		});
	});
});

describe("the audit's cache of unit texts", () => {
	it("keeps the stable units' texts, never a volatile unit's (a new one at every point)", () => {
		const facts = [fact("identifier", "foo"), fact("command", "npm test")];
		const memo = createAuditMemo();
		for (let point = 0; point < 200; point++) {
			// The same stable log; the volatile appendix differs at every point and is where `foo` is.
			const counts = auditUnits(
				units("head", "#1 bash npm test · 1k", `[appendix ${point}] \`foo\``),
				2,
				facts,
				memo,
				"ledger",
			).counts;
			expect(counts.identifier).toEqual({ total: 1, carried: 1 });
		}
		expect([...memo.texts.keys()].sort()).toEqual(["0:head", "1:#1 bash npm test · 1k"]);
	});
});

describe("property: the incremental audit equals a fresh one at every point", () => {
	it("over growing, cut and rewritten unit lists, with facts coming and going", () => {
		const word = fc.constantFrom("npm test", "src/a.ts", "a.ts", "foo", "Tests 1 failed", "bar baz", "x");
		const unitText = fc.array(word, { maxLength: 4 }).map((ws) => ws.join(" "));
		const step = fc.record({ keep: fc.nat(), add: fc.array(unitText, { maxLength: 4 }), stableCut: fc.nat() });
		const factArb = fc.record({
			category: fc.constantFrom<Fact["category"]>("command", "read", "identifier", "test"),
			text: word,
		});
		fc.assert(
			fc.property(
				fc.array(step, { minLength: 1, maxLength: 8 }),
				fc.array(factArb, { maxLength: 6 }),
				(steps, raw) => {
					const pool = raw.map((f) => Object.freeze({ ...f }));
					const memo = createAuditMemo();
					let list: { key: string; text: string }[] = [];
					let serial = 0;
					steps.forEach((s, n) => {
						list = [
							...list.slice(0, s.keep % (list.length + 1)),
							...s.add.map((text) => ({ key: `u${serial++}`, text })),
						];
						const us = unitsOf(
							list,
							(u) => u.key,
							(u) => u.text,
						);
						const stable = s.stableCut % (list.length + 1);
						const facts = pool.filter((_, i) => (i + n) % 3 !== 0);
						const incremental = auditUnits(us, stable, facts, memo, "ledger");
						const fresh = auditUnits(us, stable, facts, createAuditMemo(), "ledger");
						expect(incremental.counts).toEqual(fresh.counts);
						expect(incremental.missing).toEqual(fresh.missing);
					});
				},
			),
			{ numRuns: 300 },
		);
	});
});
