/**
 * The `budget` section of advisor.json (docs/configuration.md, Budget rules): schema, defaults and
 * type. The gate and the estimate apply every key but `timeoutSec` (policy/budget: `gate`,
 * `planConsultation`, `planNextRequest`, which read them as `PlanBudget`); `timeoutSec` is the
 * consultation's deadline (consult/cost-control.ts).
 */

import { type Static, Type } from "@sinclair/typebox";
import type { PlanBudget } from "../../../policy/index.ts";
import type { Assert, Same } from "./section.ts";

export const BudgetSchema = Type.Object({
	perCallSoftUsd: Type.Number({ minimum: 0 }),
	perCallHardUsd: Type.Number({ minimum: 0 }),
	/** Per branch. */
	sessionUsd: Type.Number({ minimum: 0 }),
	warmWindowSec: Type.Number({ minimum: 0 }),
	// 0 turns trimming off (the gate never trims then).
	contextBudgetTokens: Type.Integer({ minimum: 0 }),
	timeoutSec: Type.Number({ exclusiveMinimum: 0 }),
	onExceed: Type.Union([Type.Literal("confirm"), Type.Literal("skip")]),
});

export type BudgetConfig = Static<typeof BudgetSchema>;
export type OnExceed = BudgetConfig["onExceed"];

/** The policy reads every key but the deadline: the schema must describe exactly what it reads. */
export type BudgetFitsPolicy = Assert<Same<Omit<BudgetConfig, "timeoutSec">, PlanBudget>>;

export const DEFAULT_BUDGET_CONFIG: Readonly<BudgetConfig> = Object.freeze({
	perCallSoftUsd: 1,
	perCallHardUsd: 3,
	sessionUsd: 20,
	warmWindowSec: 1800,
	contextBudgetTokens: 250000,
	timeoutSec: 420,
	onExceed: "confirm",
});

/** The gate's limits and the warm window, as the policy reads them. */
export function planBudget(budget: BudgetConfig): PlanBudget {
	return {
		perCallSoftUsd: budget.perCallSoftUsd,
		perCallHardUsd: budget.perCallHardUsd,
		sessionUsd: budget.sessionUsd,
		contextBudgetTokens: budget.contextBudgetTokens,
		onExceed: budget.onExceed,
		warmWindowSec: budget.warmWindowSec,
	};
}
