/** The composed budget steps the adapter calls before each request. */
import { beforeEach, describe, expect, it } from "vitest";
import { fingerprintOf } from "../../../src/policy/budget/request-estimate.ts";
import {
	type ConsultationPlanInput,
	planConsultation,
	planNextRequest,
} from "../../../src/policy/budget/request-plan.ts";
import { ledgerOf } from "../../../src/reducers/index.ts";
import { spendOf } from "../../../src/reducers/spend.ts";
import { emptyTrimAnchor, trimAnchorOf } from "../../../src/reducers/trim-anchor.ts";
import { buildContext, flatten, SKIP_REASONS } from "../../../src/render/index.ts";
import { resetParents } from "../../support/events.ts";
import { anchorRecord, options, roundsSession, SONNET } from "./helpers.ts";

beforeEach(() => resetParents());

const BUDGET = {
	perCallSoftUsd: 1,
	perCallHardUsd: 3,
	sessionUsd: 20,
	contextBudgetTokens: 250_000,
	onExceed: "confirm" as const,
	warmWindowSec: 1800,
};
/** One tool call allowed, a 4,000-token output cap, results up to 3,650 tokens. */
const BOUNDS = { maxCalls: 1, outputCap: 4_000, callTokens: 3_650 };
const MODEL = {
	model: "anthropic:claude-sonnet-4-5",
	effort: "high",
	routingKey: "advisor:s1",
	pricing: SONNET,
	caching: { kind: "breakpoints" as const, minTokens: 1024, lookbackBlocks: 20, stableBreakpoint: true },
};

function plan(
	events = roundsSession(40, 4000, { users: [7, 25], prose: 3000 }),
	over: Partial<ConsultationPlanInput> = {},
) {
	return planConsultation({
		...MODEL,
		...BOUNDS,
		ledger: ledgerOf(events),
		anchor: trimAnchorOf(events),
		spend: spendOf(events),
		render: options(),
		budget: BUDGET,
		interactive: true,
		nowMs: 1_000_000,
		...over,
	});
}

describe("planConsultation", () => {
	it("a request within every limit is sent as rendered", () => {
		const p = plan();
		// Held to its at most (within the hard limit and the branch's budget).
		expect(p.decision).toEqual({ action: "send", limitUsd: p.consultation.atMostUsd });
		expect(p.trim).toBeUndefined();
		expect(p.persist).toBeUndefined();
		expect(p.context).toBeUndefined();
		expect(p.envelopeEstimate).toMatchObject({
			promptTokens: p.estimate.promptTokens,
			sessionUsd: 20,
			consultationUsd: p.consultation.expectedUsd,
			atMostUsd: p.consultation.atMostUsd,
			limitUsd: p.consultation.atMostUsd,
			expectedRounds: 1,
			basis: "prior",
		});
	});

	it("a cold request over the soft limit and the context budget is trimmed, and the anchor is to be persisted", () => {
		const untrimmed = plan();
		const u = untrimmed.estimate;
		// The soft limit sits between the untrimmed consultation and what the trimmed one can cost.
		const soft = untrimmed.consultation.expectedUsd * 0.85;
		const budget = { ...BUDGET, perCallSoftUsd: soft, contextBudgetTokens: Math.floor(u.promptTokens * 0.7) };
		const p = plan(undefined, { budget });
		expect(p.decision).toMatchObject({ action: "send" });
		expect(p.persist).toMatchObject({ anchorEntryId: p.trim!.anchorEntryId, summaryBoundaryId: null });
		expect(p.context).toEqual({
			trimmed: true,
			anchorEntryId: p.trim!.anchorEntryId,
			originalPromptTokens: untrimmed.estimate.promptTokens,
		});
		expect(p.estimate.promptTokens).toBeLessThanOrEqual(budget.contextBudgetTokens);

		// Persisted, the next consultation renders with it without persisting again.
		const events = [
			...roundsSession(40, 4000, { users: [7, 25], prose: 3000 }),
			anchorRecord("t1", { ...p.persist! }),
		];
		const again = plan(events, { budget });
		expect(again.trim).toEqual(p.trim);
		expect(again.persist).toBeUndefined();
		expect(flatten(again.request)).toBe(flatten(p.request));
	});

	it("a request that cannot be trimmed to fit is skipped with the context-budget reason", () => {
		const budget = { ...BUDGET, perCallSoftUsd: 0.01, contextBudgetTokens: 500 };
		const p = plan(undefined, { budget });
		expect(p.decision).toMatchObject({ action: "skip", limit: "context" });
		if (p.decision.action === "skip")
			expect(p.decision.reason).toBe(SKIP_REASONS.contextBudget(p.estimate.promptTokens, 500));
		expect(p.persist).toBeUndefined();
	});

	it("contextBudgetTokens: 0 never trims", () => {
		const p = plan(undefined, { budget: { ...BUDGET, perCallSoftUsd: 0.01, contextBudgetTokens: 0 } });
		expect(p.trim).toBeUndefined();
		// Not trimmed, so still over the soft limit: the dialog (docs/configuration.md).
		expect(p.decision.action).toBe("confirm");
	});

	it("over the soft limit with a UI → confirm; headless → skip; over the hard limit → skip even with a UI (docs/configuration.md)", () => {
		const soft = { ...BUDGET, perCallSoftUsd: 0.001, contextBudgetTokens: 0 };
		expect(plan(undefined, { budget: soft }).decision.action).toBe("confirm");
		expect(plan(undefined, { budget: soft, interactive: false }).decision.action).toBe("skip");
		const hard = { ...BUDGET, perCallSoftUsd: 0.0005, perCallHardUsd: 0.001 };
		expect(plan(undefined, { budget: hard }).decision).toMatchObject({ action: "skip", limit: "call" });
		expect(plan(undefined, { anchor: emptyTrimAnchor(), budget: hard, interactive: false }).decision.action).toBe(
			"skip",
		);
	});
});

describe("planNextRequest", () => {
	const first = plan();
	const grown = (chars: number) => [
		...buildContext(first.request).messages,
		{
			role: "toolResult" as const,
			toolCallId: "t",
			toolName: "read",
			content: [{ type: "text" as const, text: "z".repeat(chars) }],
			isError: false,
			timestamp: 0,
		},
	];
	const previous = fingerprintOf(first.request, {
		...MODEL,
		timestampMs: 1_000_000,
		promptTokens: first.request.tokens,
	});
	const next = (limitUsd: number, billedUsd: number, callsLeft: number, chars = 20_000) =>
		planNextRequest({
			...MODEL,
			outputCap: BOUNDS.outputCap,
			callTokens: BOUNDS.callTokens,
			first: first.request,
			context: { messages: grown(chars) },
			previous,
			outputSamples: [],
			limitUsd,
			billedUsd,
			callsLeft,
			warmWindowSec: 1800,
			nowMs: 1_010_000,
		});

	it("re-estimates the grown conversation against the last billed request", () => {
		const n = next(3, 0.2, 1);
		expect(n.request.tokens).toBe(first.request.tokens + 5000);
		expect(n.estimate.cacheMatch).toBe("full");
		expect(n.decision).toEqual({ action: "send" });
	});

	it("held to the limit: room for a round after it → send; room for this request only → answer now; not even → skip", () => {
		const self = next(1e9, 0, 0).estimate.promptCostUsd + (4_000 * 15) / 1e6;
		// Just enough for this request with a full answer (and a little headroom on what is new): the last one.
		expect(next(0.2 + self * 1.05, 0.2, 1).decision).toEqual({ action: "answer-now" });
		// Without tools left, the same room sends it as it is: no round can follow.
		expect(next(0.2 + self * 1.05, 0.2, 0).decision).toEqual({ action: "send" });
		// Not even this request fits: the consultation stops, saying what it reached.
		expect(next(0.2 + self * 0.9, 0.2, 1).decision).toEqual({
			action: "skip",
			reason: SKIP_REASONS.overConsultationLimit(0.2 + self * 0.9, 0.2),
		});
	});
});
