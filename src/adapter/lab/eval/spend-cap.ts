/**
 * What an eval may spend (docs/eval.md): the estimate shown before anything is sent, and the
 * `--max-usd` cap checked before every request. A request is priced at the model's prices from
 * Pi's registry (pi-ai's cost fields, dollars per million tokens), its prompt estimated as the
 * ledger estimates everything (render/estimate.ts, no cache read assumed) and its output at the
 * cap the eval sends (`maxTokens`): an estimate from above. What was billed: billed-requests.ts.
 */

import type { Api, Context, Model } from "@mariozechner/pi-ai";
import { estimateContextTokens } from "../../../render/index.ts";

/** `maxTokens` of every advisor request the eval sends: advice is asked to be brief. */
export const ANSWER_MAX_TOKENS = 2048;
/** `maxTokens` of every judge request. */
export const JUDGE_MAX_TOKENS = 2048;

/** Dollars for a request of `prompt` tokens in and `output` tokens out, uncached. */
export function requestUsd(model: Pick<Model<Api>, "cost">, prompt: number, output: number): number {
	return (prompt * model.cost.input + output * model.cost.output) / 1_000_000;
}

/** The run's spending: what was billed so far, and whether the cap has stopped it. */
export interface Budget {
	/** `--max-usd`; undefined = no cap. */
	readonly limit: number | undefined;
	/** Dollars billed so far (previous runs of a resumed eval included). */
	spent: number;
	/** Set once a request was refused: nothing more is sent. */
	stopped: boolean;
}

export function createBudget(limit: number | undefined, spent = 0): Budget {
	return { limit, spent, stopped: false };
}

/**
 * Whether one more request may leave: refused when the run is stopped, or when what is billed so
 * far (`pending`: billed by the current consultation and not yet recorded) plus this request's
 * estimate would cross the cap. A refusal stops the run.
 */
export function allowRequest(
	budget: Budget,
	model: Pick<Model<Api>, "cost">,
	context: Context,
	maxTokens: number,
	pending = 0,
): boolean {
	if (budget.stopped) return false;
	if (budget.limit === undefined) return true;
	const next = requestUsd(model, estimateContextTokens(context), maxTokens);
	if (budget.spent + pending + next > budget.limit) {
		budget.stopped = true;
		return false;
	}
	return true;
}
