/**
 * The budget gate (issue 6): asked before every request of a consultation — the first, each
 * investigation round, each retry — with that request's fresh estimate.
 *
 * 1. Trim: the consultation's first request, cold (nothing past the fixed head expected from the
 *    cache), over `perCallSoftUsd` AND over `contextBudgetTokens` (0 disables) → "trim". The
 *    adapter then runs `chooseTrim` (render/trim.ts), persists the anchor, re-renders,
 *    re-estimates and asks again with `trim: "done"`; a "too-big" choice is a skip with its reason.
 * 2. Within `perCallHardUsd` (counting what this consultation has already been billed) and within
 *    what is left of the branch's `sessionUsd` → "send".
 * 3. Otherwise: confirmed earlier in this consultation → "send"; declined → "skip"; with
 *    `onExceed: "confirm"` and a UI → "confirm" (once per consultation: the adapter records the
 *    answer and passes it back as `confirmation`); headless or `onExceed: "skip"` → "skip".
 * Skip reasons are SKIP_REASONS texts, for `Advisor skipped: <reason>` with `details.skipped: true`.
 */

import { SKIP_REASONS } from "../render/constants.ts";
import type { RequestEstimate } from "../render/estimate-cost.ts";

/** The `budget` keys of advisor.json the gate reads (the adapter's BudgetConfig fits). */
export interface BudgetLimits {
	perCallSoftUsd: number;
	perCallHardUsd: number;
	/** Per branch. */
	sessionUsd: number;
	/** 0 disables trimming. */
	contextBudgetTokens: number;
	onExceed: "confirm" | "skip";
}

/** The user's answer to this consultation's dialog, if it was asked. */
export type Confirmation = "not-asked" | "granted" | "declined";

/**
 * "available": the consultation's first request, not trimmed yet in this call;
 * "done": trimming already ran for it; "unavailable": investigation rounds and retries.
 */
export type TrimStage = "available" | "done" | "unavailable";

export interface GateInput {
	estimate: Pick<RequestEstimate, "costUsd" | "coldCostUsd" | "promptTokens" | "cold">;
	budget: BudgetLimits;
	/** The branch's spend before this consultation (SpendState.totalUsd). */
	spentUsd: number;
	/** Already billed in this consultation: earlier rounds and attempts (sum of their usage.cost.total). */
	billedUsd: number;
	/** A UI that can show a confirmation dialog. */
	interactive: boolean;
	confirmation: Confirmation;
	trim: TrimStage;
}

export type OverLimit = "call" | "session";

export type GateDecision =
	| { action: "send" }
	| { action: "trim"; promptTokens: number; budgetTokens: number }
	| {
			action: "confirm";
			/** This request. */
			expectedUsd: number;
			/** This request with nothing from the cache. */
			coldUsd: number;
			/** Billed so far in this consultation + this request. */
			consultationUsd: number;
			limit: OverLimit;
			/** The skip reason, should the user decline. */
			reason: string;
	  }
	| { action: "skip"; reason: string; limit: OverLimit | "declined" | "context" };

function nonNegative(n: number): number {
	return Number.isFinite(n) && n > 0 ? n : 0;
}

/** An estimate that is not a number (a registry entry without prices) is never taken as free. */
function costOf(n: number): number {
	if (Number.isNaN(n)) return Number.POSITIVE_INFINITY;
	return Math.max(0, n);
}

export function decideGate(input: GateInput): GateDecision {
	const { estimate, budget } = input;
	const cost = costOf(estimate.costUsd);
	const billed = nonNegative(input.billedUsd);
	const spent = nonNegative(input.spentUsd);

	if (
		input.trim === "available" &&
		budget.contextBudgetTokens > 0 &&
		estimate.cold &&
		cost > budget.perCallSoftUsd &&
		estimate.promptTokens > budget.contextBudgetTokens
	) {
		return { action: "trim", promptTokens: estimate.promptTokens, budgetTokens: budget.contextBudgetTokens };
	}

	const consultation = billed + cost;
	const remaining = Math.max(0, budget.sessionUsd - spent - billed);
	const overCall = consultation > budget.perCallHardUsd;
	const overSession = spent + consultation > budget.sessionUsd;
	if (!overCall && !overSession) return { action: "send" };

	// The branch cap first: no per-call allowance helps when the branch is spent.
	const limit: OverLimit = overSession ? "session" : "call";
	const reason =
		limit === "session"
			? SKIP_REASONS.overSessionBudget(cost, remaining, budget.sessionUsd)
			: SKIP_REASONS.overCallBudget(consultation, budget.perCallHardUsd);

	switch (input.confirmation) {
		case "granted":
			return { action: "send" };
		case "declined":
			return { action: "skip", reason: SKIP_REASONS.declined(consultation), limit: "declined" };
		case "not-asked":
			if (budget.onExceed === "confirm" && input.interactive) {
				return {
					action: "confirm",
					expectedUsd: cost,
					coldUsd: costOf(estimate.coldCostUsd),
					consultationUsd: consultation,
					limit,
					reason,
				};
			}
			return { action: "skip", reason, limit };
		default: {
			const never: never = input.confirmation;
			return never;
		}
	}
}
