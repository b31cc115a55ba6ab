/** foldBranch composes the ledger, spend and trim-anchor folds; folding in pieces changes nothing, for each of them. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { branchOf, branchReducer, foldBranch } from "../../src/reducers/branch-fold.ts";
import { ledgerOf } from "../../src/reducers/ledger-fold.ts";
import { emptySpend, foldSpend, spendOf } from "../../src/reducers/spend.ts";
import { emptyTrimAnchor, foldTrimAnchor, trimAnchorOf } from "../../src/reducers/trim-anchor.ts";
import { eventsOf, fractionArb, prefixCutArb } from "../support/properties.ts";
import { RUNS, sessionArb } from "../support/session-gen.ts";

describe("foldBranch", () => {
	it("equals each fold on its own, and folding at any cut equals folding in one go", () => {
		fc.assert(
			fc.property(prefixCutArb(), ({ events, cut, prefix }) => {
				const whole = branchOf(events);
				expect(whole.ledger).toEqual(ledgerOf(events));
				expect(whole.spend).toEqual(spendOf(events));
				expect(whole.anchor).toEqual(trimAnchorOf(events));
				expect(foldBranch(branchOf(prefix), events.slice(cut))).toEqual(whole);
			}),
			{ numRuns: Math.min(RUNS, 100) },
		);
	});

	it("no new events leaves the state as it is (the same object)", () => {
		const state = branchReducer.initial();
		expect(foldBranch(state, [])).toBe(state);
	});
});

describe("the folds beside the ledger's are incremental", () => {
	it("spend and trim anchor: folding in pieces equals folding at once", () => {
		fc.assert(
			fc.property(sessionArb(), fc.array(fractionArb, { maxLength: 5 }), (session, cuts) => {
				const events = eventsOf(session.jsonl);
				const points = [...new Set(cuts.map((c) => Math.floor(c * events.length)))].sort((a, b) => a - b);
				let spend = emptySpend();
				let anchor = emptyTrimAnchor();
				let from = 0;
				for (const p of [...points, events.length]) {
					spend = foldSpend(spend, events.slice(from, p));
					anchor = foldTrimAnchor(anchor, events.slice(from, p));
					from = p;
				}
				expect(spend).toEqual(spendOf(events));
				expect(anchor).toEqual(trimAnchorOf(events));
				// Generated consultations record usage in details: every ok/failed one is on the bill.
				const results = events.filter((e) => e.kind === "toolResult" && e.toolName === "advisor");
				expect(spend.records).toHaveLength(results.length);
			}),
			{ numRuns: RUNS },
		);
	});
});
