/** The budget gate: one describe per branch of the decision, on the consultation's estimate. */
import { describe, expect, it } from "vitest";
import { type BudgetLimits, decideGate, type GateInput } from "../../../src/policy/budget/gate.ts";
import { FAILURE, SKIP_REASONS } from "../../../src/render/index.ts";

const BUDGET: BudgetLimits = {
	perCallSoftUsd: 1,
	perCallHardUsd: 3,
	sessionUsd: 20,
	contextBudgetTokens: 250_000,
	onExceed: "confirm",
};

function input(over: Partial<GateInput> = {}, consultation: Partial<GateInput["consultation"]> = {}): GateInput {
	return {
		first: { promptTokens: 100_000, cold: false },
		consultation: { firstUsd: 0.4, expectedUsd: 0.5, atMostUsd: 1.5, maxRounds: 3, ...consultation },
		budget: BUDGET,
		spentUsd: 2,
		interactive: true,
		confirmation: "not-asked",
		trim: "available",
		...over,
	};
}

describe("send, held to its at most", () => {
	it("expected within perCallSoftUsd, perCallHardUsd and the branch's sessionUsd: sent, with the at most as its limit", () => {
		expect(decideGate(input())).toEqual({ action: "send", limitUsd: 1.5 });
	});
	it("the limit never passes the hard limit or what is left of the branch's budget", () => {
		expect(decideGate(input({}, { atMostUsd: 5 }))).toEqual({ action: "send", limitUsd: 3 });
		expect(decideGate(input({ spentUsd: 19 }, { atMostUsd: 5 }))).toEqual({ action: "send", limitUsd: 1 });
	});
	it("exactly at the limits is within them", () => {
		expect(decideGate(input({}, { expectedUsd: 1, atMostUsd: 1 }))).toEqual({ action: "send", limitUsd: 1 });
		expect(decideGate(input({ spentUsd: 19 }, { expectedUsd: 1, atMostUsd: 1 }))).toEqual({
			action: "send",
			limitUsd: 1,
		});
	});
	it("an at most below the expected cost (a rounding) still lets the expected through", () => {
		expect(decideGate(input({}, { expectedUsd: 0.5, atMostUsd: 0.4 }))).toEqual({ action: "send", limitUsd: 0.5 });
	});
});

describe("trim", () => {
	const big: Partial<GateInput> = { first: { promptTokens: 300_000, cold: true } };
	it("the first request cold and over contextBudgetTokens, the consultation expected over perCallSoftUsd", () => {
		expect(decideGate(input(big, { expectedUsd: 1.2 }))).toEqual({
			action: "trim",
			promptTokens: 300_000,
			budgetTokens: 250_000,
		});
	});
	it("not when warm, under the soft limit, under the token budget, disabled, or already trimmed", () => {
		const over = { expectedUsd: 1.2 };
		expect(decideGate(input({ first: { promptTokens: 300_000, cold: false } }, over)).action).toBe("confirm");
		expect(decideGate(input(big, { expectedUsd: 0.9 })).action).toBe("send");
		expect(decideGate(input({ first: { promptTokens: 250_000, cold: true } }, over)).action).toBe("confirm");
		expect(decideGate(input({ ...big, budget: { ...BUDGET, contextBudgetTokens: 0 } }, over)).action).toBe("confirm");
		expect(decideGate(input({ ...big, trim: "done" }, over)).action).toBe("confirm");
	});
});

describe("over the soft limit only, onExceed: confirm, with a UI → confirm once", () => {
	it("asks with the consultation's expected cost, its first request, its rounds and what a yes grants", () => {
		expect(decideGate(input({}, { firstUsd: 0.9, expectedUsd: 1.25, atMostUsd: 2.5 }))).toEqual({
			action: "confirm",
			expectedUsd: 1.25,
			firstUsd: 0.9,
			rounds: 3,
			limitUsd: 2.5,
			limit: "soft",
			reason: SKIP_REASONS.overSoftBudget(1.25, 1),
		});
	});
	it("a yes grants the at most, never past the hard or the branch limit", () => {
		expect(decideGate(input({}, { expectedUsd: 1.25, atMostUsd: 9 })).action).toBe("confirm");
		expect(decideGate(input({}, { expectedUsd: 1.25, atMostUsd: 9 }))).toMatchObject({ limitUsd: 3 });
		expect(decideGate(input({ confirmation: "granted" }, { expectedUsd: 1.25, atMostUsd: 2.5 }))).toEqual({
			action: "send",
			limitUsd: 2.5,
		});
	});
});

describe("over the hard or the branch limit: skip, never a dialog", () => {
	it("expected over perCallHardUsd", () => {
		const d = decideGate(input({}, { expectedUsd: 3.5 }));
		expect(d).toEqual({ action: "skip", reason: SKIP_REASONS.overCallBudget(3.5, 3), limit: "call" });
	});
	it("expected over what is left of the branch (the branch first)", () => {
		expect(decideGate(input({ spentUsd: 19.6 }, { expectedUsd: 0.5 }))).toEqual({
			action: "skip",
			reason: SKIP_REASONS.overSessionBudget(0.5, 20 - 19.6, 20),
			limit: "session",
		});
		expect(decideGate(input({ spentUsd: 19.6 }, { expectedUsd: 4 }))).toMatchObject({ limit: "session" });
	});
	it("only the expected cost decides it: an at most over the hard limit is held to it instead", () => {
		expect(decideGate(input({}, { expectedUsd: 2.9, atMostUsd: 30 })).action).toBe("confirm");
	});
});

describe("declined, headless or onExceed: skip", () => {
	it("declined", () => {
		expect(decideGate(input({ confirmation: "declined" }, { expectedUsd: 2 }))).toEqual({
			action: "skip",
			reason: SKIP_REASONS.declined(2),
			limit: "declined",
		});
	});
	it("headless", () => {
		expect(decideGate(input({ interactive: false }, { expectedUsd: 2 }))).toEqual({
			action: "skip",
			reason: SKIP_REASONS.overSoftBudget(2, 1),
			limit: "soft",
		});
	});
	it("onExceed: skip", () => {
		const d = decideGate(input({ budget: { ...BUDGET, onExceed: "skip" } }, { expectedUsd: 2 }));
		expect(d).toMatchObject({ action: "skip", limit: "soft" });
		if (d.action === "skip") {
			expect(FAILURE.skipped(d.reason)).toBe(
				"Advisor skipped: this consultation would cost about $2.00, over the per-call soft limit of $1.00. Continue without advisor; do not repeat this call.",
			);
		}
	});
});

describe("an estimate that is not a number is never free", () => {
	it("NaN reads as infinitely expensive: over every limit", () => {
		expect(decideGate(input({}, { expectedUsd: Number.NaN }))).toMatchObject({ action: "skip", limit: "session" });
	});
	it("a free consultation on a spent branch is still within it", () => {
		expect(decideGate(input({ interactive: false, spentUsd: 25 }, { expectedUsd: 0, atMostUsd: 0 })).action).toBe(
			"send",
		);
	});
});
