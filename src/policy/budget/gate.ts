/**
 * The budget gate, asked once per consultation, before its first request, with the consultation's
 * estimate (consultation-estimate.ts): what it is expected to cost and what it can cost at most.
 *
 * 1. Trim: the first request cold (nothing past the fixed head expected from the cache), the
 *    consultation expected over `perCallSoftUsd` AND the first request over `contextBudgetTokens`
 *    (0 disables) → "trim". The adapter then runs `chooseTrim` (policy/budget/trim.ts), persists the
 *    anchor, re-renders, re-estimates and asks again with `trim: "done"`; a "too-big" choice is a skip.
 * 2. Expected over what is left of the branch's `sessionUsd`, or over `perCallHardUsd` → "skip", no
 *    dialog: hard limits stay hard.
 * 3. Expected within `perCallSoftUsd` → "send".
 * 4. Over the soft limit only: with `onExceed: "confirm"` and a UI → "confirm" (the adapter asks once
 *    and answers with `confirmation`); headless or `onExceed: "skip"` → "skip"; declined → "skip".
 *
 * A send carries the consultation's limit: its "at most", within `perCallHardUsd` and what is left of
 * `sessionUsd`. A yes grants exactly that. Every request of the consultation is then held to it by
 * `guardRequest` (consultation-estimate.ts): a request that would pass it makes the advisor answer now.
 * Skip reasons are SKIP_REASONS texts, for `Advisor skipped: <reason>` with `details.skipped: true`.
 */

import { assertNever } from "../../events/index.ts";
import { SKIP_REASONS } from "../../render/index.ts";
import type { ConsultationEstimate } from "./consultation-estimate.ts";
import { costOrInfinity, type RequestEstimate } from "./request-estimate.ts";

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

/** "available": the first request, not trimmed yet; "done": trimming already ran for it. */
export type TrimStage = "available" | "done";

export interface GateInput {
	/** The first request (for the trim: its size, and whether it is cold). */
	first: Pick<RequestEstimate, "promptTokens" | "cold">;
	consultation: Pick<ConsultationEstimate, "firstUsd" | "expectedUsd" | "atMostUsd" | "maxRounds">;
	budget: BudgetLimits;
	/** The branch's spend before this consultation (SpendState.totalUsd). */
	spentUsd: number;
	/** A UI that can show a confirmation dialog. */
	interactive: boolean;
	confirmation: Confirmation;
	trim: TrimStage;
}

/** Which limit a consultation is over: the soft per-call one (confirmable), the hard one, the branch's. */
export type OverLimit = "soft" | "call" | "session";

export type GateDecision =
	| {
			action: "send";
			/** What the consultation may bill in all: its at most, within the hard and branch limits. */
			limitUsd: number;
	  }
	| { action: "trim"; promptTokens: number; budgetTokens: number }
	| {
			action: "confirm";
			/** The consultation as expected: the first request and the follow-ups expected. */
			expectedUsd: number;
			/** The first request alone. */
			firstUsd: number;
			/** Investigation rounds it may take. */
			rounds: number;
			/** What a yes grants: the at most, within the hard and branch limits. */
			limitUsd: number;
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
	const { consultation, budget } = input;
	const expected = costOrInfinity(consultation.expectedUsd);
	const spent = nonNegative(input.spentUsd);

	if (
		input.trim === "available" &&
		budget.contextBudgetTokens > 0 &&
		input.first.cold &&
		expected > budget.perCallSoftUsd &&
		input.first.promptTokens > budget.contextBudgetTokens
	) {
		return { action: "trim", promptTokens: input.first.promptTokens, budgetTokens: budget.contextBudgetTokens };
	}

	const remaining = Math.max(0, budget.sessionUsd - spent);
	// Over the hard or the branch limit is a skip without a dialog. The branch cap first:
	// no per-call allowance helps when the branch is spent.
	if (expected > remaining) {
		return {
			action: "skip",
			reason: SKIP_REASONS.overSessionBudget(expected, remaining, budget.sessionUsd),
			limit: "session",
		};
	}
	if (expected > budget.perCallHardUsd) {
		return { action: "skip", reason: SKIP_REASONS.overCallBudget(expected, budget.perCallHardUsd), limit: "call" };
	}
	const limitUsd = Math.min(
		Math.max(costOrInfinity(consultation.atMostUsd), expected),
		budget.perCallHardUsd,
		remaining,
	);
	if (expected <= budget.perCallSoftUsd) return { action: "send", limitUsd };

	// Over the soft limit only (confirming past the hard or branch limit would make them soft).
	const reason = SKIP_REASONS.overSoftBudget(expected, budget.perCallSoftUsd);
	switch (input.confirmation) {
		case "granted":
			return { action: "send", limitUsd };
		case "declined":
			return { action: "skip", reason: SKIP_REASONS.declined(expected), limit: "declined" };
		case "not-asked":
			if (budget.onExceed === "confirm" && input.interactive) {
				return {
					action: "confirm",
					expectedUsd: expected,
					firstUsd: costOrInfinity(consultation.firstUsd),
					rounds: consultation.maxRounds,
					limitUsd,
					limit: "soft",
					reason,
				};
			}
			return { action: "skip", reason, limit: "soft" };
		default:
			return assertNever(input.confirmation, "confirmation mode");
	}
}
