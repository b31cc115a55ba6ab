/**
 * Where the breakpoints of a request go (pi-ai's and the extension's, the bridge included) and what
 * the breakpoint model lets the next consultation read with Anthropic's 20-block lookback.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LedgerEvent } from "../../../src/events/index.ts";
import {
	extensionMarks,
	LOOKBACK_BLOCKS,
	MAX_BREAKPOINTS,
	requestMarks,
	unitPosition,
	withinReach,
} from "../../../src/policy/budget/breakpoint-placement.ts";
import { breakpointChars, reuseShares, tokenPrefixChars, totalChars } from "../../../src/policy/budget/cache-reuse.ts";
import { ledgerOf } from "../../../src/reducers/index.ts";
import {
	DEFAULT_LEDGER_CONFIG,
	type LedgerRequest,
	renderRequest,
	unitAt,
	unitCount,
} from "../../../src/render/index.ts";
import { advice, assistant, call, resetParents, result, user } from "../../support/events.ts";
import { leftOut, prefixCutArb } from "../../support/properties.ts";
import { RUNS } from "../../support/session-gen.ts";
import { options } from "./helpers.ts";

/** `rounds` read rounds with prose, then advisor call `adv<k>`; `advised` earlier consultations answered. */
function session(gaps: number[]): LedgerEvent[] {
	resetParents();
	const events: LedgerEvent[] = [user("u0", "please fix the build")];
	let n = 0;
	gaps.forEach((rounds, k) => {
		for (let r = 0; r < rounds; r++, n++) {
			events.push(
				assistant(`a${n}`, { text: `step ${n}: reading`, calls: [call(`c${n}`, "read", { path: `f${n}.ts` })] }),
			);
			events.push(result(`r${n}`, `c${n}`, "read", "x".repeat(200)));
		}
		events.push(assistant(`q${k}`, { text: `Is part ${k} right?`, calls: [call(`adv${k}`, "advisor")] }));
		if (k < gaps.length - 1) events.push(advice(`v${k}`, `adv${k}`, "Severity: none\nGo on."));
	});
	return events;
}

/** The request of each consultation of `session(gaps)`, as it was in flight. */
function consultations(gaps: number[]): LedgerRequest[] {
	const events = session(gaps);
	const out: LedgerRequest[] = [];
	gaps.forEach((_, k) => {
		const upTo = events.findIndex((e) => e.id === `q${k}`) + 1;
		out.push(
			renderRequest(ledgerOf(events.slice(0, upTo)), options(DEFAULT_LEDGER_CONFIG, { inFlightCallId: `adv${k}` })),
		);
	});
	return out;
}

const stableEnd = (r: LedgerRequest) => ({ stableUnits: r.stable.unitCount, stableHash: r.stable.hash });

describe("the extension's marks", () => {
	it("30 rounds apart: a bridge at the previous stable end, which the next request repeats", () => {
		const [p, n] = consultations([5, 30]);
		const marks = extensionMarks(n!, stableEnd(p!));
		expect(marks.stable).toBe(n!.stable.unitCount - 1);
		expect(marks.bridge).toBe(p!.stable.unitCount - 1);
		expect(marks.stable - marks.bridge!).toBeGreaterThan(LOOKBACK_BLOCKS);
		expect(unitAt(n!, marks.bridge!)!.prefixHash).toBe(p!.stable.hash);
	});

	it("a few rounds apart, or a previous request this one does not repeat: no bridge", () => {
		const [p, n] = consultations([5, 3]);
		expect(n!.stable.unitCount - p!.stable.unitCount).toBeLessThanOrEqual(LOOKBACK_BLOCKS);
		expect(extensionMarks(n!, stableEnd(p!)).bridge).toBeUndefined();
		const [, far] = consultations([5, 30]);
		expect(extensionMarks(far!, { stableUnits: p!.stable.unitCount, stableHash: "other" }).bridge).toBeUndefined();
		expect(extensionMarks(far!, undefined).bridge).toBeUndefined();
		// A previous stable end in the head is pi-ai's own mark.
		expect(extensionMarks(far!, { stableUnits: 2, stableHash: unitAt(far!, 1)!.prefixHash }).bridge).toBeUndefined();
	});

	it("every mark as sent: pi-ai's, the stable end and the bridge, the earliest dropped beyond four", () => {
		const [p, n] = consultations([5, 30]);
		const last = unitCount(n!) - 1;
		const stable = n!.stable.unitCount - 1;
		const bridge = p!.stable.unitCount - 1;
		// System 0, tools 1, bridge, stable, last: five, so the system prompt's goes (the tools' unit covers it).
		expect(requestMarks(n!, stableEnd(p!), { bridges: true })).toEqual([1, bridge, stable, last]);
		expect(requestMarks(n!, stableEnd(p!), { bridges: false })).toEqual([0, 1, stable, last]);
		const noTools = renderRequest(ledgerOf(session([5])), options(DEFAULT_LEDGER_CONFIG, { tools: [] }));
		expect(requestMarks(noTools, undefined, { bridges: true })).toEqual([
			0,
			noTools.stable.unitCount - 1,
			unitCount(noTools) - 1,
		]);
	});

	it("withinReach: a mark at the unit or at most the lookback after it", () => {
		expect(withinReach(10, [10])).toBe(true);
		expect(withinReach(10, [30])).toBe(true);
		expect(withinReach(10, [31])).toBe(false);
		expect(withinReach(10, [9])).toBe(false);
		expect(withinReach(10, [12], 1)).toBe(false);
	});

	it("unitPosition maps a unit to its message and part count; the head has none", () => {
		const [p] = consultations([5]);
		expect(unitPosition(p!, 0)).toBeUndefined();
		expect(unitPosition(p!, 1)).toBeUndefined();
		expect(unitPosition(p!, 2)).toEqual({ messageIndex: 0, partCount: 1 });
		expect(unitPosition(p!, 3)).toEqual({ messageIndex: 1, partCount: 1 });
		expect(unitPosition(p!, p!.stable.unitCount - 1)).toEqual({
			messageIndex: p!.stable.messageIndex,
			partCount: p!.stable.partCount,
		});
		expect(unitPosition(p!, unitCount(p!))).toBeUndefined();
	});
});

describe("the breakpoint model with the lookback", () => {
	it("30 rounds apart: without a bridge only the head is read; with it, the previous stable portion", () => {
		const [p, n] = consultations([5, 30]);
		const total = totalChars(p!);
		const shares = reuseShares(p!, n!);
		expect(shares.breakpoint).toBeCloseTo(p!.stable.chars / total, 12);
		expect(shares.breakpointNoBridges).toBeCloseTo(unitAt(p!, 1)!.prefixChars / total, 12);
		expect(shares.tokenPrefix).toBeGreaterThanOrEqual(shares.breakpoint);
	});

	it("a few rounds apart, the stable end is within reach without a bridge", () => {
		const [p, n] = consultations([5, 3]);
		const shares = reuseShares(p!, n!);
		expect(shares.breakpointNoBridges).toBe(shares.breakpoint);
		expect(shares.breakpoint).toBeCloseTo(p!.stable.chars / totalChars(p!), 12);
	});

	it("the same request again (a retry) reads all of it", () => {
		const [p] = consultations([5]);
		expect(reuseShares(p!, p!)).toEqual({ tokenPrefix: 1, breakpoint: 1, breakpointNoBridges: 1 });
	});

	it("property: with bridges, a later request of the branch reads at least the earlier one's stable portion", () => {
		fc.assert(
			fc.property(prefixCutArb(), ({ events, prefix }) => {
				const stateP = ledgerOf(prefix);
				const stateN = ledgerOf(events);
				const p = renderRequest(stateP, options());
				const n = renderRequest(stateN, options());
				const bridged = breakpointChars(p, n, true);
				// The log's own cut moving forward between them rewrites the prefix: no reuse is owed then.
				if (leftOut(stateP, options()) === leftOut(stateN, options()))
					expect(bridged).toBeGreaterThanOrEqual(p.stable.chars);
				expect(breakpointChars(p, n, false)).toBeLessThanOrEqual(bridged);
				expect(bridged).toBeLessThanOrEqual(tokenPrefixChars(p, n));
				const marks = requestMarks(n, stableEnd(p), { bridges: true });
				expect(marks.length).toBeLessThanOrEqual(MAX_BREAKPOINTS);
				expect(marks).toContain(unitCount(n) - 1);
				expect(marks).toContain(n.stable.unitCount - 1);
			}),
			{ numRuns: RUNS },
		);
	});
});
