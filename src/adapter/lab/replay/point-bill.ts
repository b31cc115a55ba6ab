/**
 * What the consultation at a replay point was billed (docs/cli.md, "Billed and estimated"): the
 * advisor result's usage, and where it recorded every request (`details.attempts`) the first request
 * apart from the follow-ups (investigation rounds, the request after the allowance, retries) — read
 * through the spend fold, as /advisor stats reads it, and priced at the report's model with pi-ai's
 * own `calculateCost`. What replay models the same point to cost: point-estimate.ts.
 */

import type { Api, Model, Usage } from "@mariozechner/pi-ai";
import { calculateCost } from "@mariozechner/pi-ai";
import { parseAdvisorDetails, type ToolResultEvent } from "../../../events/index.ts";
import { promptTokensOf, type SpendRecord, spendOf, type TokenCounts } from "../../../reducers/index.ts";
import { addUsageSplit, emptyUsageSplit } from "../report/consultation-totals.ts";
import { round } from "../report/numbers.ts";
import type { ConsultationBilled, UsageSplit } from "../report/replay-report.ts";

function splitOf(usage: TokenCounts): UsageSplit {
	return {
		prompt: promptTokensOf(usage),
		input: usage.input,
		cacheRead: usage.cacheRead,
		cacheWrite: usage.cacheWrite,
		output: usage.output,
	};
}

/** Tokens at the model's prices, as pi-ai bills them: the report prices every bill at its one model. */
export function usdAtPrice(price: Model<Api>, split: UsageSplit): number {
	const usage: Usage = {
		input: split.input,
		output: split.output,
		cacheRead: split.cacheRead,
		cacheWrite: split.cacheWrite,
		totalTokens: split.prompt + split.output,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
	return round(calculateCost(price, usage).total, 6);
}

/** The billed usage the advisor result at a point recorded, if any: the spend fold's record of it. */
export function billedAt(result: ToolResultEvent | undefined, price: Model<Api>): ConsultationBilled | undefined {
	if (result === undefined) return undefined;
	const record: SpendRecord | undefined = spendOf([result]).records[0];
	if (record === undefined) return undefined;
	const total = splitOf(record.usage);
	if (total.prompt + total.output === 0) return undefined;
	const billed: ConsultationBilled = { ...total, usd: usdAtPrice(price, total) };
	if (record.model !== undefined) billed.model = record.model;
	const details = parseAdvisorDetails(result.details);
	if (details.request !== undefined) billed.sentTokens = details.request.estimatedTokens;
	// Without details.attempts the record's one request is the aggregate: no first request to tell apart.
	const attempts = details.attempts;
	if (attempts !== undefined && attempts.length > 0 && record.requests.length === attempts.length) {
		const [first, ...rest] = record.requests.map(splitOf);
		billed.requests = record.requests.length;
		billed.first = first!;
		billed.followUps = rest.reduce(addUsageSplit, emptyUsageSplit());
		billed.firstUsd = usdAtPrice(price, billed.first);
	}
	return billed;
}
