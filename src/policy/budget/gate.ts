/**
 * The budget gate: asked before every request of a consultation — the first, each
 * investigation round, each retry — with that request's fresh estimate.
 *
 * 1. Trim: the consultation's first request, cold (nothing past the fixed head expected from the
 *    cache), over `perCallSoftUsd` AND over `contextBudgetTokens` (0 disables) → "trim". The
 *    adapter then runs `chooseTrim` (policy/budget/trim.ts), persists the anchor, re-renders,
 *    re-estimates and asks again with `trim: "done"`; a "too-big" choice is a skip with its reason.
 * 2. Over what is left of the branch's `sessionUsd`, or over `perCallHardUsd` (both counting what
 *    this consultation has already been billed) → "skip", no dialog: hard limits stay hard.
 * 3. Within `perCallSoftUsd` (the consultation so far + this request) → "send".
 * 4. Over the soft limit only: confirmed earlier in this consultation → "send"; declined → "skip";
 *    with `onExceed: "confirm"` and a UI → "confirm" (once per consultation: the adapter records the
 *    answer and passes it back as `confirmation`); headless or `onExceed: "skip"` → "skip".
 *
 * Steps 2–4: over the soft limit, confirm (interactive) or skip; over the hard or branch limit, skip.
 * Deliberately no dialog for the hard and branch limits: it keeps "hard" hard (docs/decisions.md).
 * Skip reasons are SKIP_REASONS texts, for `Advisor skipped: <reason>` with `details.skipped: true`.
 */

import { assertNever } from "../../events/index.ts";
import { SKIP_REASONS } from "../../render/index.ts";
import { costOrInfinity, type RequestEstimate } from "./estimate-cost.ts";

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

/** Which limit a request is over: the soft per-call one (confirmable), the hard one, the branch's. */
export type OverLimit = "soft" | "call" | "session";

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
			/** Only the soft limit can be confirmed past (docs/configuration.md). */
			limit: "soft";
			/** The skip reason, should the user decline. */
			reason: string;
	  }
	| { action: "skip"; reason: string; limit: OverLimit | "declined" | "context" };

function nonNegative(n: number): number {
	return Number.isFinite(n) && n > 0 ? n : 0;
}

export function decideGate(input: GateInput): GateDecision {
	const { estimate, budget } = input;
	const cost = costOrInfinity(estimate.costUsd);
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
	// Over the hard or the branch limit is a skip without a dialog. The branch cap first:
	// no per-call allowance helps when the branch is spent.
	if (spent + consultation > budget.sessionUsd) {
		return {
			action: "skip",
			reason: SKIP_REASONS.overSessionBudget(cost, remaining, budget.sessionUsd),
			limit: "session",
		};
	}
	if (consultation > budget.perCallHardUsd) {
		return {
			action: "skip",
			reason: SKIP_REASONS.overCallBudget(consultation, budget.perCallHardUsd),
			limit: "call",
		};
	}
	if (consultation <= budget.perCallSoftUsd) return { action: "send" };

	// Over the soft limit only (confirming past the hard or branch limit would make them soft).
	const reason = SKIP_REASONS.overSoftBudget(consultation, budget.perCallSoftUsd);
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
					coldUsd: costOrInfinity(estimate.coldCostUsd),
					consultationUsd: consultation,
					limit: "soft",
					reason,
				};
			}
			return { action: "skip", reason, limit: "soft" };
		default:
			return assertNever(input.confirmation, "confirmation mode");
	}
}
