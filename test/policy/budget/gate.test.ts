/** The budget gate: one describe per branch of the decision. */
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

function input(over: Partial<GateInput> = {}, estimate: Partial<GateInput["estimate"]> = {}): GateInput {
	return {
		estimate: { costUsd: 0.5, coldCostUsd: 1.5, promptTokens: 100_000, cold: false, ...estimate },
		budget: BUDGET,
		spentUsd: 2,
		billedUsd: 0,
		interactive: true,
		confirmation: "not-asked",
		trim: "available",
		...over,
	};
}

describe("send", () => {
	it("within perCallSoftUsd, perCallHardUsd and the branch's sessionUsd", () => {
		expect(decideGate(input())).toEqual({ action: "send" });
	});
	it("exactly at the limits is within them", () => {
		expect(decideGate(input({ billedUsd: 0.5 }, { costUsd: 0.5 }))).toEqual({ action: "send" });
		expect(decideGate(input({ spentUsd: 19 }, { costUsd: 1 }))).toEqual({ action: "send" });
		expect(decideGate(input({ billedUsd: 1, confirmation: "granted", trim: "unavailable" }, { costUsd: 2 }))).toEqual(
			{ action: "send" },
		);
	});
	it("the soft limit counts what this consultation was already billed", () => {
		expect(decideGate(input({ billedUsd: 0.6, interactive: false }, { costUsd: 0.5 }))).toMatchObject({
			action: "skip",
			limit: "soft",
		});
	});
});

describe("trim", () => {
	const big = { costUsd: 1.2, promptTokens: 300_000, cold: true };
	it("cold and over both perCallSoftUsd and contextBudgetTokens", () => {
		expect(decideGate(input({}, big))).toEqual({ action: "trim", promptTokens: 300_000, budgetTokens: 250_000 });
	});
	it("not when warm, under the soft limit, under the token budget, disabled, or already trimmed / not the first request", () => {
		expect(decideGate(input({}, { ...big, cold: false })).action).toBe("confirm");
		expect(decideGate(input({}, { ...big, costUsd: 0.9 })).action).toBe("send");
		expect(decideGate(input({}, { ...big, promptTokens: 250_000 })).action).toBe("confirm");
		expect(decideGate(input({ budget: { ...BUDGET, contextBudgetTokens: 0 } }, big)).action).toBe("confirm");
		expect(decideGate(input({ trim: "done" }, big)).action).toBe("confirm");
		expect(decideGate(input({ trim: "unavailable" }, big)).action).toBe("confirm");
	});
});

describe("over the soft limit only, onExceed: confirm, with a UI → confirm once", () => {
	it("asks with this request's expected and cold cost and the consultation's total", () => {
		const d = decideGate(input({ billedUsd: 0.5 }, { costUsd: 0.75, coldCostUsd: 2 }));
		expect(d).toEqual({
			action: "confirm",
			expectedUsd: 0.75,
			coldUsd: 2,
			consultationUsd: 1.25,
			limit: "soft",
			reason: SKIP_REASONS.overSoftBudget(1.25, 1),
		});
	});
	it("a granted confirmation sends every later request of the consultation that stays within hard and branch", () => {
		expect(
			decideGate(input({ billedUsd: 1.5, confirmation: "granted", trim: "unavailable" }, { costUsd: 1 })),
		).toEqual({ action: "send" });
	});
	it("a granted confirmation does not lift the hard or the branch limit", () => {
		expect(
			decideGate(input({ billedUsd: 2.5, confirmation: "granted", trim: "unavailable" }, { costUsd: 1 })),
		).toMatchObject({ action: "skip", limit: "call" });
		expect(
			decideGate(input({ spentUsd: 19.5, confirmation: "granted", trim: "unavailable" }, { costUsd: 1 })),
		).toMatchObject({ action: "skip", limit: "session" });
	});
});

describe("skip", () => {
	it("over perCallHardUsd counting what this consultation was already billed: no dialog, even with a UI", () => {
		const d = decideGate(input({ billedUsd: 2.5 }, { costUsd: 0.75, coldCostUsd: 2 }));
		expect(d).toEqual({ action: "skip", reason: SKIP_REASONS.overCallBudget(3.25, 3), limit: "call" });
	});
	it("over the branch's sessionUsd: no dialog, even with a UI; the branch cap is named first", () => {
		const d = decideGate(input({ spentUsd: 19.6 }, { costUsd: 0.5 }));
		expect(d).toEqual({
			action: "skip",
			reason: SKIP_REASONS.overSessionBudget(0.5, 0.4, 20),
			limit: "session",
		});
		expect(decideGate(input({ spentUsd: 19.6 }, { costUsd: 4 }))).toMatchObject({ limit: "session" });
	});
	it("declined", () => {
		expect(decideGate(input({ confirmation: "declined" }, { costUsd: 2 }))).toEqual({
			action: "skip",
			reason: SKIP_REASONS.declined(2),
			limit: "declined",
		});
	});
	it("headless, over the soft limit", () => {
		expect(decideGate(input({ interactive: false }, { costUsd: 2 }))).toEqual({
			action: "skip",
			reason: SKIP_REASONS.overSoftBudget(2, 1),
			limit: "soft",
		});
	});
	it("onExceed: skip, over the soft limit", () => {
		const d = decideGate(input({ budget: { ...BUDGET, onExceed: "skip" } }, { costUsd: 2 }));
		expect(d).toMatchObject({ action: "skip", limit: "soft" });
	});
	it("the reason reads as the executor sees it", () => {
		expect(FAILURE.skipped(SKIP_REASONS.overCallBudget(3.25, 3))).toBe(
			"Advisor skipped: this consultation would cost about $3.25, over the per-call limit of $3.00. Continue without advisor; do not repeat this call.",
		);
		expect(SKIP_REASONS.overSoftBudget(1.2, 1)).toBe(
			"this consultation would cost about $1.20, over the per-call soft limit of $1.00",
		);
		expect(SKIP_REASONS.overSessionBudget(0.004, 0, 20)).toBe(
			"this request would cost about $0.004, more than the $0.000 left of this branch's advisor budget ($20.00)",
		);
		expect(SKIP_REASONS.contextBudget(260_000, 250_000)).toBe(
			"the request needs about 260000 tokens even with older log entries left out, over the context budget of 250000 tokens",
		);
	});
	it("an estimate that is not a number never sneaks through as free", () => {
		expect(decideGate(input({}, { costUsd: Number.NaN }))).toEqual({
			action: "skip",
			reason: "this request would cost about $?, more than the $18.00 left of this branch's advisor budget ($20.00)",
			limit: "session",
		});
		expect(decideGate(input({ interactive: false, spentUsd: 25 }, { costUsd: 0 })).action).toBe("skip");
	});
});
