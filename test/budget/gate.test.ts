/** The budget gate (issue 6): one describe per branch of the decision. */
import { describe, expect, it } from "vitest";
import { type BudgetLimits, decideGate, type GateInput } from "../../src/reducers/gate.ts";
import { FAILURE, SKIP_REASONS } from "../../src/render/constants.ts";

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
	it("within perCallHardUsd and the branch's sessionUsd", () => {
		expect(decideGate(input())).toEqual({ action: "send" });
	});
	it("over the soft limit alone is still a send (soft only triggers trimming)", () => {
		expect(decideGate(input({}, { costUsd: 2.5, cold: true }))).toEqual({ action: "send" });
	});
	it("exactly at the limits is within them", () => {
		expect(decideGate(input({ billedUsd: 1 }, { costUsd: 2 }))).toEqual({ action: "send" });
		expect(decideGate(input({ spentUsd: 19 }, { costUsd: 1 }))).toEqual({ action: "send" });
	});
});

describe("trim", () => {
	const big = { costUsd: 1.2, promptTokens: 300_000, cold: true };
	it("cold and over both perCallSoftUsd and contextBudgetTokens", () => {
		expect(decideGate(input({}, big))).toEqual({ action: "trim", promptTokens: 300_000, budgetTokens: 250_000 });
	});
	it("not when warm, under the soft limit, under the token budget, disabled, or already trimmed / not the first request", () => {
		expect(decideGate(input({}, { ...big, cold: false })).action).toBe("send");
		expect(decideGate(input({}, { ...big, costUsd: 0.9 })).action).toBe("send");
		expect(decideGate(input({}, { ...big, promptTokens: 250_000 })).action).toBe("send");
		expect(decideGate(input({ budget: { ...BUDGET, contextBudgetTokens: 0 } }, big)).action).toBe("send");
		expect(decideGate(input({ trim: "done" }, big)).action).toBe("send");
		expect(decideGate(input({ trim: "unavailable" }, big)).action).toBe("send");
	});
});

describe("over a limit, onExceed: confirm, with a UI → confirm once", () => {
	it("over perCallHardUsd counting what this consultation was already billed", () => {
		const d = decideGate(input({ billedUsd: 2.5 }, { costUsd: 0.75, coldCostUsd: 2 }));
		expect(d).toEqual({
			action: "confirm",
			expectedUsd: 0.75,
			coldUsd: 2,
			consultationUsd: 3.25,
			limit: "call",
			reason: SKIP_REASONS.overCallBudget(3.25, 3),
		});
	});
	it("over the branch's sessionUsd", () => {
		const d = decideGate(input({ spentUsd: 19.6 }, { costUsd: 0.5 }));
		expect(d).toMatchObject({ action: "confirm", limit: "session" });
		if (d.action === "confirm") expect(d.reason).toBe(SKIP_REASONS.overSessionBudget(0.5, 0.4, 20));
	});
	it("a granted confirmation sends every later request of the consultation", () => {
		expect(decideGate(input({ billedUsd: 5, confirmation: "granted", trim: "unavailable" }))).toEqual({
			action: "send",
		});
	});
});

describe("skip", () => {
	it("declined", () => {
		expect(decideGate(input({ confirmation: "declined" }, { costUsd: 4 }))).toEqual({
			action: "skip",
			reason: SKIP_REASONS.declined(4),
			limit: "declined",
		});
	});
	it("headless", () => {
		expect(decideGate(input({ interactive: false }, { costUsd: 4 }))).toEqual({
			action: "skip",
			reason: SKIP_REASONS.overCallBudget(4, 3),
			limit: "call",
		});
	});
	it("onExceed: skip", () => {
		const d = decideGate(input({ budget: { ...BUDGET, onExceed: "skip" }, spentUsd: 20 }, { costUsd: 0.01 }));
		expect(d).toMatchObject({ action: "skip", limit: "session" });
	});
	it("the reason reads as the executor sees it", () => {
		expect(FAILURE.skipped(SKIP_REASONS.overCallBudget(3.25, 3))).toBe(
			"Advisor skipped: this consultation would cost about $3.25, over the per-call limit of $3.00. Continue without advisor; do not repeat this call.",
		);
		expect(SKIP_REASONS.overSessionBudget(0.004, 0, 20)).toBe(
			"this request would cost about $0.004, more than the $0.00 left of this branch's advisor budget ($20.00)",
		);
		expect(SKIP_REASONS.contextBudget(260_000, 250_000)).toBe(
			"the request needs about 260000 tokens even with older log entries left out, over the context budget of 250000 tokens",
		);
	});
	it("an estimate that is not a number never sneaks through as free", () => {
		expect(decideGate(input({ interactive: false }, { costUsd: Number.NaN }))).toEqual({
			action: "skip",
			reason: "this request would cost about $?, more than the $18.00 left of this branch's advisor budget ($20.00)",
			limit: "session",
		});
		expect(decideGate(input({ interactive: false, spentUsd: 25 }, { costUsd: 0 })).action).toBe("skip");
	});
});
