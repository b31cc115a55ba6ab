/**
 * The footer status: `Advisor $<branch spend> · cache <pct>%`. User-facing, not
 * model-facing, so its text lives here rather than in constants.ts.
 *
 * The cache share is over the whole branch — cache-read tokens / prompt tokens (input + cacheRead
 * + cacheWrite) of every record the spend is made of (consultations, reviews, warming) — so both
 * numbers describe the same bill. It is left out while no prompt token is on record.
 */

import type { SpendState } from "../../reducers/index.ts";
import { formatDollars } from "../../render/index.ts";

/** The user-facing dollar rule (render's formatDollars); a non-finite amount reads as zero. */
export function formatUsd(amount: number): string {
	return formatDollars(Number.isFinite(amount) ? amount : 0);
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
