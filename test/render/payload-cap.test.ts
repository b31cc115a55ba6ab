/** Never larger than the payload: the appendix's fit, pinned, and held as a property. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ledgerOf } from "../../src/reducers/index.ts";
import { tokensForChars } from "../../src/render/estimate.ts";
import { APPENDIX_HEADER, APPENDIX_LEFT_OUT } from "../../src/render/model-text.ts";
import { cutToPayload, fitAppendix, furtherCut, heldToPayload, requestBudget } from "../../src/render/payload-cap.ts";
import type { LedgerRequest } from "../../src/render/request-units.ts";
import { user } from "../support/events.ts";

describe("the appendix, fitted", () => {
	it("whole when it fits; none without entries", () => {
		expect(fitAppendix(["a\n", "b\n"], 100)).toBe("[appendix]\na\nb\n");
		expect(fitAppendix([], 0)).toBeUndefined();
	});
	it("its oldest entries left out first, with the note", () => {
		const entries = ["x".repeat(400), "y".repeat(400), "z\n"];
		expect(fitAppendix(entries, 160)).toBe(
			"[appendix]\n[omitted] 1 older appendix entry left out: the request may not be larger than the executor's own context; advisor_expand returns any of them.\n" +
				`${"y".repeat(400)}z\n`,
		);
		expect(fitAppendix(entries, 0)).toBe(`[appendix]\n${APPENDIX_LEFT_OUT(3)}\n`);
	});
	it("the budget: the payload, plus what the advisor's head has over the executor's", () => {
		expect(requestBudget({ tokens: 5000, headTokens: 1000 }, 1500)).toBe(5500);
		expect(requestBudget({ tokens: 5000, headTokens: 2000 }, 1500)).toBe(5000);
	});
});

describe("held to the payload (property)", () => {
	const entry = fc.integer({ min: 0, max: 3000 }).map((n) => `${"e".repeat(n)}\n`);
	it("the request fits the budget unless nothing is left to give; what stays is the newest entries, and the note counts the rest", () => {
		fc.assert(
			fc.property(fc.array(entry, { maxLength: 8 }), fc.nat(3000), fc.nat(4000), (entries, rest, budget) => {
				const made: (string | undefined)[] = [];
				const request = heldToPayload(entries, budget, (appendix) => {
					made.push(appendix);
					return { tokens: tokensForChars(rest + (appendix?.length ?? 0)) } as LedgerRequest;
				});
				const appendix = made.at(-1);
				if (entries.length === 0) {
					expect(appendix).toBeUndefined();
					return;
				}
				const least = fitAppendix(entries, Number.NEGATIVE_INFINITY);
				if (appendix !== least) expect(request.tokens).toBeLessThanOrEqual(budget);
				const whole = `${APPENDIX_HEADER}\n${entries.join("")}`;
				if (appendix === whole) return;
				const note = /^\[appendix\]\n(\[omitted\] (\d+) older appendix (?:entry|entries) left out[^\n]*)\n/.exec(
					appendix!,
				);
				expect(note).not.toBeNull();
				const dropped = Number(note![2]);
				expect(note![1]).toBe(APPENDIX_LEFT_OUT(dropped));
				expect(appendix!.slice(note![0].length)).toBe(entries.slice(dropped).join(""));
				// Whole would not have fitted.
				expect(tokensForChars(rest + whole.length)).toBeGreaterThan(budget);
			}),
		);
	});
});

describe("the log's cut, moved further only when the appendix has nothing left to give", () => {
	const ledger = (n: number) => ledgerOf(Array.from({ length: n }, (_, i) => user(`u${i}`, `words ${i}`)));
	it("k items further, never the newest item", () => {
		const state = ledger(4);
		expect(furtherCut(state, undefined, 1)).toEqual({ firstSegment: 0, firstBlock: 1, droppedItems: 1 });
		const two = furtherCut(state, undefined, 2)!;
		expect(furtherCut(state, two, 1)).toEqual({ firstSegment: 0, firstBlock: 3, droppedItems: 3 });
		expect(furtherCut(state, two, 2)).toBeUndefined();
		expect(furtherCut(state, undefined, 4)).toBeUndefined();
	});
	it("as few items as fit; all but the newest when none do; the cut as it was when it fits (property)", () => {
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 40 }), fc.nat(45), (n, need) => {
				const state = ledger(n);
				const renders: number[] = [];
				const request = cutToPayload(state, undefined, (cut) => {
					const dropped = cut?.droppedItems ?? 0;
					renders.push(dropped);
					return { request: { tokens: dropped } as LedgerRequest, over: dropped < need };
				});
				expect(request.tokens).toBe(Math.min(need, n - 1));
				// A logarithmic number of renders, not one per item.
				expect(renders.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(n + 1)) + 2);
			}),
		);
	});
});
