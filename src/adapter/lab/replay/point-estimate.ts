/**
 * What replay models the consultation at a point to cost (docs/cli.md, "Billed and estimated"): the
 * extension's estimate of the whole consultation at that point — the policy function the gate
 * decides on (`estimateWholeConsultation`), given the request the replay rendered, the branch's spend
 * folded up to the point (its recorded consultations are the history; with none, the prior) and the
 * report's model. The cache is taken as warm since the previous consultation, as everywhere in the
 * replay. What the same point was billed: point-bill.ts.
 */

import type { Api, Model, ThinkingLevel } from "@mariozechner/pi-ai";
import { parseAdvisorDetails, type ToolResultEvent } from "../../../events/index.ts";
import { estimateWholeConsultation } from "../../../policy/index.ts";
import { previousRequest, type SpendState } from "../../../reducers/index.ts";
import type { LedgerRequest, RenderOptions } from "../../../render/index.ts";
import { EFFORT_LEVELS } from "../../extension/config/activation.ts";
import { type AdvisorConfig, DEFAULT_ADVISOR_CONFIG } from "../../extension/config/load.ts";
import { planBounds, planModel } from "../../extension/consult/cost-control.ts";
import { formatColonKey, modelKeyOf } from "../../extension/pi/model-key.ts";
import { round } from "../report/numbers.ts";
import { DEFAULT_PRICE_MODEL, resolveRegistryModel } from "../report/price-lookup.ts";
import type { PointEstimate } from "../report/replay-report.ts";

/** What the estimate and the billed dollars are computed with. */
export interface CostSetup {
	/** The report's price model (`--price`): its prices and caching model price both sides. */
	price: Model<Api>;
	/** advisor.json: the effort, the tools' allowance and result cap, the output cap, the warm window. */
	config: AdvisorConfig;
}

/** The built-in advisor.json and the default price model. */
export function defaultCostSetup(): CostSetup {
	return { price: resolveRegistryModel(DEFAULT_PRICE_MODEL)!, config: DEFAULT_ADVISOR_CONFIG };
}

function effortOf(value: string | undefined): ThinkingLevel | undefined {
	return value !== undefined && (EFFORT_LEVELS as readonly string[]).includes(value)
		? (value as ThinkingLevel)
		: undefined;
}

/**
 * The advisor the extension would ask at this point: the one the call recorded, else the newest
 * on the branch's records, else the price model at the configured effort.
 */
function advisorAt(
	result: ToolResultEvent | undefined,
	spend: SpendState,
	setup: CostSetup,
): { model: string; effort: string | undefined } {
	if (result !== undefined) {
		const details = parseAdvisorDetails(result.details);
		if (details.advisorModel !== undefined) return { model: details.advisorModel, effort: details.effort };
	}
	for (let i = spend.records.length - 1; i >= 0; i--) {
		const record = spend.records[i]!;
		if (record.source !== "warming" && record.model !== undefined)
			return { model: record.model, effort: record.effort };
	}
	return { model: formatColonKey(modelKeyOf(setup.price)), effort: setup.config.effort };
}

/**
 * The extension's estimate of the consultation at a point. `spend` is the branch folded up to the
 * point (the point's own result not included); `render` what the request was rendered with.
 */
export function estimateAt(
	request: LedgerRequest,
	spend: SpendState,
	context: { result: ToolResultEvent | undefined; sessionId: string | null; render: RenderOptions },
	setup: CostSetup,
): PointEstimate {
	const advisor = advisorAt(context.result, spend, setup);
	const effort = effortOf(advisor.effort);
	const routingKey = `advisor:${context.sessionId ?? ""}`;
	const bounds = planBounds({
		config: setup.config,
		model: setup.price,
		effort,
		renderOptions: context.render,
	});
	const previous = previousRequest(spend, advisor.model);
	const { first, consultation } = estimateWholeConsultation(
		{
			...planModel(setup.price, effort, routingKey),
			// The recorded model's history and previous request, at the report model's prices.
			model: advisor.model,
			effort: advisor.effort,
			...bounds,
			spend,
			budget: setup.config.budget,
			// The cache taken as warm since the previous consultation, as the replay takes it everywhere.
			nowMs: previous?.timestampMs ?? 0,
		},
		request,
	);
	return {
		model: advisor.model,
		basis: consultation.basis,
		first: {
			promptTokens: first.promptTokens,
			cacheReadTokens: first.cacheReadTokens,
			cacheWriteTokens: first.cacheWriteTokens,
			usd: round(consultation.firstUsd, 6),
		},
		followUps: round(consultation.expectedRounds),
		usd: round(consultation.expectedUsd, 6),
		atMostUsd: round(consultation.atMostUsd, 6),
	};
}
