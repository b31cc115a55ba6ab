/** foldBranch composes the ledger, spend and trim-anchor folds; folding in pieces changes nothing. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { branchReducer } from "../../src/reducers/branch.ts";
import { branchOf, foldBranch, ledgerOf } from "../../src/reducers/index.ts";
import { spendOf } from "../../src/reducers/spend.ts";
import { trimAnchorOf } from "../../src/reducers/trim-anchor.ts";
import { prefixCutArb } from "../support/properties.ts";
import { RUNS } from "../support/session-gen.ts";

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
