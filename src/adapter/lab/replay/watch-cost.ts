/**
 * What a watch review and the executor's turns cost, as `replay --watch` prices them (docs/cli.md,
 * "replay --watch"). A review is priced as the replay prices a consultation's first request — the
 * share of the previous advisor request it repeats (policy `reuseShares`) read from the cache where
 * both reach the model's minimum, the rest uncached (token prefix) or written (breakpoints), at the
 * report's price model (baseline/cache-split.ts, as report/cache-totals.ts does for the points) — plus
 * an output allowance. The executor's turns: the token counts its messages recorded, at the same
 * model's prices (pi-ai's `calculateCost`, as the billed consultations are priced).
 */

import type { Api, Model } from "@mariozechner/pi-ai";
import { minCachedTokens, reuseShares } from "../../../policy/index.ts";
import type { WatchFacts } from "../../../reducers/index.ts";
import type { LedgerRequest } from "../../../render/index.ts";
import { cachedPrefix, type PromptPrices, priceSplit, splitPrompt } from "../../extension/baseline/cache-split.ts";
import { round } from "../report/numbers.ts";
import type { PointShares } from "../report/replay-report.ts";
import type { ExecutorSpend, WatchUsd } from "../report/watch-report.ts";
import { usdAtPrice } from "./point-bill.ts";

/**
 * Output tokens a review is priced with: its reasoning and a short note (WATCH_INSTRUCTION asks for
 * a severity line and, only for a concern or a blocker, what to do instead). Not the output cap
 * (`advice.maxOutputTokens`, 16,384): that is what one could bill at most, not what a review is
 * expected to (docs/decisions.md, "The watch's defaults, measured", says what the cap would change).
 */
export const WATCH_OUTPUT_TOKENS = 2_000;

export interface ReviewCost {
	tokens: number;
	/** Shares of the previous advisor request this one repeats (absent: none before it). */
	shares: PointShares | undefined;
	usd: WatchUsd;
}

function promptPrices(price: Model<Api>): PromptPrices {
	return { input: price.cost.input, cacheRead: price.cost.cacheRead, cacheWrite: price.cost.cacheWrite };
}

/** One watch request after `previous` (the branch's newest advisor request before it), with its output allowance. */
export function reviewCost(
	previous: LedgerRequest | undefined,
	request: LedgerRequest,
	price: Model<Api>,
	outputTokens: number = WATCH_OUTPUT_TOKENS,
): ReviewCost {
	const shares = previous === undefined ? undefined : reuseShares(previous, request);
	const minTokens = minCachedTokens(price);
	const prices = promptPrices(price);
	const output = (outputTokens * price.cost.output) / 1e6;
	const priced = (model: "tokenPrefix" | "breakpoint") => {
		const cached = cachedPrefix(previous?.tokens, shares?.[model], request.tokens);
		const kind = model === "tokenPrefix" ? "token-prefix" : "breakpoint";
		return round(priceSplit(splitPrompt(kind, request.tokens, cached, minTokens), prices) + output, 6);
	};
	return {
		tokens: request.tokens,
		shares,
		usd: { tokenPrefix: priced("tokenPrefix"), breakpoint: priced("breakpoint") },
	};
}

/** The executor's recorded token counts at the report's price model. */
export function executorSpend(executor: WatchFacts["executor"], price: Model<Api>): ExecutorSpend {
	const { input, output, cacheRead, cacheWrite } = executor;
	return {
		input,
		output,
		cacheRead,
		cacheWrite,
		usd: usdAtPrice(price, { prompt: input + cacheRead + cacheWrite, input, cacheRead, cacheWrite, output }),
		recordedUsd: round(executor.usd, 6),
	};
}
