/**
 * The footer status: `Advisor $<branch spend> · cache <pct>%`. User-facing, not
 * model-facing, so its text lives here rather than in constants.ts.
 *
 * The cache share is over the whole branch — cache-read tokens / prompt tokens (input + cacheRead
 * + cacheWrite) of every record the spend is made of (consultations, reviews, warming) — so both
 * numbers describe the same bill. It is left out while no prompt token is on record.
 */

import type { SpendState } from "../../reducers/index.ts";

export function formatUsd(amount: number): string {
	const value = Number.isFinite(amount) ? Math.max(0, amount) : 0;
	return value > 0 && value < 0.01 ? `$${value.toFixed(3)}` : `$${value.toFixed(2)}`;
}

/** The status text, or undefined when the branch has no advisor spend. */
export function formatAdvisorStatus(
	spend: Pick<SpendState, "totalUsd" | "promptTokens" | "cacheReadTokens">,
): string | undefined {
	if (!(spend.totalUsd > 0)) return undefined;
	const money = `Advisor ${formatUsd(spend.totalUsd)}`;
	if (!(spend.promptTokens > 0)) return money;
	const pct = Math.round((100 * Math.min(spend.cacheReadTokens, spend.promptTokens)) / spend.promptTokens);
	return `${money} · cache ${pct}%`;
}
