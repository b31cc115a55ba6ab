/**
 * The audit along a branch (adapter/lab/audit/branch-audit.ts) on hand-made units, where what the
 * generated branches rarely reach is the rule: hundreds of facts (read at once, not one by one), a
 * long unit rewritten in place at every point as a cut of the log rewrites its stand-in — facts
 * added to it, taken out of it, its parts reordered, a path moved into a folder's list — whose facts
 * are followed rather than looked for again (follow.ts), and units kept but moved to other places.
 * At every point its counts equal those of `auditUnits` over every fact with a fresh memo.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { auditBranch } from "../../../../src/adapter/lab/audit/branch-audit.ts";
import { auditUnits, createAuditMemo, unitsOf } from "../../../../src/adapter/lab/audit/fact-audit.ts";
import { emptyFacts, type Fact, type FactState } from "../../../../src/adapter/lab/audit/facts.ts";
import { emptyList } from "../../../../src/reducers/index.ts";
import { RUNS } from "../../../support/session-gen.ts";

const FACTS = 320;

/** Facts of the kinds a stand-in lists: paths (some in the same folder, some the tail of another), names, commands, words. */
function factAt(k: number): Fact {
	switch (k % 5) {
		case 0:
			return Object.freeze({ category: "read" as const, text: `src/d${k % 7}/f${k}.ts` });
		case 1:
			return Object.freeze({ category: "edited" as const, text: k % 3 === 0 ? `a${k}.ts` : `lib/da${k}.ts` });
		case 2:
			return Object.freeze({ category: "identifier" as const, text: `name${k}` });
		case 3:
			return Object.freeze({ category: "command" as const, text: `npm run task${k}` });
		default:
			return Object.freeze({ category: "user" as const, text: `please fix item ${k} now` });
	}
}
const ALL = Array.from({ length: FACTS }, (_, k) => factAt(k));

/** How a fact is mentioned in a text: as written, in its folder's list with a neighbour, as a near miss, or not at all. */
function mention(k: number, how: number): string {
	const fact = ALL[k]!;
	const slash = fact.text.lastIndexOf("/");
	switch (how % 4) {
		case 0:
			return fact.text;
		case 1:
			return slash > 0 ? `${fact.text.slice(0, slash)}/{x.ts, ${fact.text.slice(slash + 1)}}` : `\`${fact.text}\``;
		case 2:
			// Not a token: the fact inside a longer name.
			return `data${fact.text}x`;
		default:
			return "";
	}
}

/** A long text: the mentions in order, each its own part, padded past the length the audit follows (8192). */
function longText(parts: readonly [number, number][]): string {
	const body = parts.map(([k, how]) => mention(k, how)).join("; ");
	return `Left out:\n${body}\n${"filler words ".repeat(700)}`;
}

const editArb = fc.record({
	/** New mentions added at random places. */
	add: fc.array(fc.tuple(fc.nat(FACTS - 1), fc.nat(3), fc.nat()), { maxLength: 30 }),
	/** Mentions taken out (by index, modulo the length). */
	drop: fc.array(fc.nat(), { maxLength: 6 }),
	/** A run of parts moved to the end (a command run again). */
	move: fc.option(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 20 })), { nil: undefined }),
	/** Facts the branch holds by now. */
	facts: fc.integer({ min: 1, max: FACTS }),
	/** Short units: mentions each, some kept from the point before under the same key at another place. */
	cards: fc.array(fc.tuple(fc.nat(FACTS - 1), fc.nat(3)), { maxLength: 6 }),
	keepCards: fc.boolean(),
	volatile: fc.integer({ min: 0, max: 2 }),
});

type EditOf = typeof editArb extends fc.Arbitrary<infer E> ? E : never;

function edited(parts: readonly [number, number][], edit: EditOf): [number, number][] {
	const out = [...parts];
	for (const [k, how, at] of edit.add) out.splice(at % (out.length + 1), 0, [k, how]);
	for (const d of edit.drop) if (out.length > 0) out.splice(d % out.length, 1);
	if (edit.move !== undefined && out.length > 0) {
		const [from, n] = edit.move;
		const start = from % out.length;
		out.push(...out.splice(start, n));
	}
	return out;
}

function stateOf(count: number): FactState {
	return { ...emptyFacts(), kept: emptyList<Fact>().appended(ALL.slice(0, count)) };
}

describe("property: the audit along a branch follows a long unit rewritten in place", () => {
	it("with hundreds of facts, parts added, taken out and reordered, and units moved", () => {
		fc.assert(
			fc.property(
				fc.array(fc.tuple(fc.nat(FACTS - 1), fc.nat(3)), { minLength: 50, maxLength: 400 }),
				fc.array(editArb, { minLength: 2, maxLength: 8 }),
				fc.constantFrom<"ledger" | "written">("ledger", "written"),
				(first, edits, as) => {
					const memo = createAuditMemo();
					let parts: readonly [number, number][] = first;
					let facts = 0;
					let previousCards: { key: object; text: string }[] = [];
					edits.forEach((edit, point) => {
						parts = edited(parts, edit);
						facts = Math.max(facts, edit.facts);
						const cards = edit.cards.map(([k, how]) => ({ key: {}, text: `#c ${mention(k, how)}` }));
						// Kept cards come first, under their keys, at other places than before.
						const kept = edit.keepCards ? previousCards.slice(1) : [];
						const units = [
							{ key: "head", text: "the head" },
							{ key: { point }, text: longText(parts) },
							...kept,
							...cards,
						];
						previousCards = [...kept, ...cards];
						const list = unitsOf(
							units,
							(u) => u.key,
							(u) => u.text,
						);
						const stable = Math.max(0, units.length - edit.volatile);
						const along = auditBranch(list, stable, stateOf(facts), undefined, memo, as);
						const fresh = auditUnits(list, stable, ALL.slice(0, facts), createAuditMemo(), as);
						expect(along.counts).toEqual(fresh.counts);
					});
				},
			),
			{ numRuns: Math.max(20, RUNS / 4) },
		);
	});
});
