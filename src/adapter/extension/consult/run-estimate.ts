/**
 * What a run of the pipeline is expected to cost before it runs: the watch asks, to keep its spend
 * within `watch.maxShare` of the executor's (docs/configuration.md#the-watch). The same planning the
 * run itself does (advisor-tool.ts: the model, the ledger, the tools it would declare, the request
 * in its mode) and the same estimate its gate decides on (policy/budget/request-plan.ts
 * `planConsultation`, without a dialog): nothing is sent, nothing recorded.
 */

import { planConsultation } from "../../../policy/index.ts";
import { planBudget } from "../config/budget.ts";
import { type AdvisorRunRequest, type AdvisorToolDeps, chooseModel, planConsultationSetup } from "./advisor-tool.ts";
import { planBounds, planModel } from "./cost-control.ts";

/**
 * The consultation's expected cost, in dollars; 0 when the run would not get as far as a request
 * (no model, the executor's own model, an executor it is disabled for): it costs nothing then.
 */
export function expectedRunUsd(deps: AdvisorToolDeps, req: AdvisorRunRequest): number {
	const chosen = chooseModel(deps, req, {});
	if (!chosen.ok) return 0;
	const { planning } = planConsultationSetup(deps, { ...req, interactive: false }, chosen);
	const plan = planConsultation({
		...planModel(planning.model, planning.effort, planning.routingKey),
		...planBounds(planning),
		ledger: planning.state,
		anchor: planning.anchor,
		spend: planning.spend,
		render: planning.renderOptions,
		memo: planning.memo,
		budget: planBudget(planning.config.budget),
		interactive: false,
		nowMs: planning.now(),
	});
	return plan.consultation.expectedUsd;
}
