/**
 * What a branch's — or a whole session's — advisor records add up to: the figures `/advisor stats`
 * and `advisor-ledger stats` show (docs/configuration.md, "What the advisor has cost"). Every figure
 * is a sum over the records the spend fold read (spend.ts), so it is exactly what the session says.
 */

import type { SpendRecord, SpendState } from "./spend.ts";
import { cacheReadShare } from "./token-usage.ts";

export interface SpendSummary {
	/** advisor() results, by outcome. */
	consultations: { total: number; ok: number; failed: number; skipped: number };
	/** Completion reviews (their usage records). */
	reviews: number;
	/** Cache-warming refreshes that were sent. */
	warming: number;
	/** Requests sent, over consultations, reviews and refreshes (every retry and investigation round counts). */
	requests: number;
	/** Billed tokens: prompt tokens neither read from nor written to the cache, read, written; output. */
	tokens: { fresh: number; cacheRead: number; cacheWrite: number; output: number };
	usd: number;
	/** Share of the billed prompt tokens read from the cache; null when none were billed. */
	cacheShare: number | null;
	/** Consultations and reviews by cost, highest first (ties: the earlier first), at most the `top` asked. */
	biggest: SpendRecord[];
}

/** Nothing recorded: what a summary, and a sum of summaries, start from. */
export function emptySpendSummary(): SpendSummary {
	return {
		consultations: { total: 0, ok: 0, failed: 0, skipped: 0 },
		reviews: 0,
		warming: 0,
		requests: 0,
		tokens: { fresh: 0, cacheRead: 0, cacheWrite: 0, output: 0 },
		usd: 0,
		cacheShare: null,
		biggest: [],
	};
}

export function summarizeSpend(spend: Pick<SpendState, "records">, top = 3): SpendSummary {
	const out = emptySpendSummary();
	for (const record of spend.records) {
		if (record.source === "consultation") {
			out.consultations.total++;
			out.consultations[record.outcome]++;
		} else if (record.source === "review") out.reviews++;
		// Watch reviews are counted by the stats' own watch figures; their spend is in the sums below.
		else if (record.source === "warming") out.warming++;
		out.requests += record.requests.length;
		out.tokens.fresh += record.usage.input;
		out.tokens.cacheRead += record.usage.cacheRead;
		out.tokens.cacheWrite += record.usage.cacheWrite;
		out.tokens.output += record.usage.output;
		out.usd += record.usage.usd;
	}
	out.cacheShare = cacheReadShare({
		input: out.tokens.fresh,
		cacheRead: out.tokens.cacheRead,
		cacheWrite: out.tokens.cacheWrite,
	});
	out.biggest = spend.records
		.map((record, index) => ({ record, index }))
		.filter(({ record }) => record.source !== "warming" && record.usage.usd > 0)
		.sort((a, b) => b.record.usage.usd - a.record.usage.usd || a.index - b.index)
		.slice(0, top)
		.map(({ record }) => record);
	return out;
}
