/**
 * The replay report's consultation figures summed (docs/cli.md, "Billed and estimated"): per session
 * and overall, what the sessions recorded their consultations were billed, what the extension
 * estimates for them, and the billed / estimated ratios. The per-point figures:
 * replay/point-bill.ts and replay/point-estimate.ts; their schema: replay-report.ts.
 */

import { sumFields, zeroFields } from "../../../events/index.ts";
import { ratio, round } from "./numbers.ts";
import type {
	BilledByRequest,
	BilledTotals,
	EstimatesByKind,
	EstimateTotals,
	PointReport,
	UsageSplit,
} from "./replay-report.ts";

/** The part of a point report these figures are summed from. */
export type CostedPoint = Pick<PointReport, "kind" | "ledger" | "billed" | "estimate">;

const usdRound = (n: number) => round(n, 6);

/** A usage split's keys, in the order the report writes them. */
const USAGE_SPLIT_FIELDS = ["prompt", "input", "cacheRead", "cacheWrite", "output"] as const;

export const emptyUsageSplit = (): UsageSplit => zeroFields(USAGE_SPLIT_FIELDS);

export function addUsageSplit(a: UsageSplit, b: UsageSplit): UsageSplit {
	return sumFields(USAGE_SPLIT_FIELDS, a, b);
}

function byRequestOf(points: readonly CostedPoint[]): BilledByRequest {
	let first = emptyUsageSplit();
	let followUps = emptyUsageSplit();
	let firstUsd = 0;
	let followUpsUsd = 0;
	const estimate = { firstPrompt: 0, firstUsd: 0, usd: 0 };
	let n = 0;
	let requests = 0;
	let ledger = 0;
	let sent: number | null = 0;
	for (const p of points) {
		const b = p.billed;
		if (b?.first === undefined || b.followUps === undefined || b.requests === undefined) continue;
		n++;
		requests += b.requests;
		ledger += p.ledger;
		sent = sent === null || b.sentTokens === undefined ? null : sent + b.sentTokens;
		first = addUsageSplit(first, b.first);
		followUps = addUsageSplit(followUps, b.followUps);
		firstUsd += b.firstUsd ?? 0;
		followUpsUsd += b.usd - (b.firstUsd ?? 0);
		estimate.firstPrompt += p.estimate?.first.promptTokens ?? 0;
		estimate.firstUsd += p.estimate?.first.usd ?? 0;
		estimate.usd += p.estimate?.usd ?? 0;
	}
	return {
		points: n,
		requests,
		ledger,
		sentTokens: n === 0 ? null : sent,
		first: { ...first, usd: usdRound(firstUsd) },
		followUps: { ...followUps, usd: usdRound(followUpsUsd) },
		estimate: {
			firstPrompt: estimate.firstPrompt,
			firstUsd: usdRound(estimate.firstUsd),
			usd: usdRound(estimate.usd),
		},
		ratio: {
			firstPrompt: ratio(first.prompt, estimate.firstPrompt),
			first: ratio(firstUsd, estimate.firstUsd),
			consultation: ratio(firstUsd + followUpsUsd, estimate.usd),
		},
	};
}

export function billedTotalsOf(points: readonly CostedPoint[]): BilledTotals {
	let split = emptyUsageSplit();
	let n = 0;
	let usd = 0;
	let ledgerEstimate = 0;
	let estimateUsd = 0;
	for (const p of points) {
		if (p.billed === undefined) continue;
		n++;
		split = addUsageSplit(split, p.billed);
		usd += p.billed.usd;
		ledgerEstimate += p.ledger;
		estimateUsd += p.estimate?.usd ?? 0;
	}
	return {
		points: n,
		...split,
		usd: usdRound(usd),
		ledgerEstimate,
		estimateUsd: usdRound(estimateUsd),
		ratio: ratio(usd, estimateUsd),
		byRequest: byRequestOf(points),
	};
}

function estimateTotals(points: readonly CostedPoint[]): EstimateTotals {
	const totals: EstimateTotals = { points: 0, history: 0, followUps: 0, firstUsd: 0, usd: 0, atMostUsd: 0 };
	for (const p of points) {
		if (p.estimate === undefined) continue;
		totals.points++;
		if (p.estimate.basis === "history") totals.history++;
		totals.followUps += p.estimate.followUps;
		totals.firstUsd += p.estimate.first.usd;
		totals.usd += p.estimate.usd;
		totals.atMostUsd += p.estimate.atMostUsd;
	}
	return {
		...totals,
		followUps: round(totals.followUps, 4),
		firstUsd: usdRound(totals.firstUsd),
		usd: usdRound(totals.usd),
		atMostUsd: usdRound(totals.atMostUsd),
	};
}

export function estimatesOf(points: readonly CostedPoint[]): EstimatesByKind {
	return {
		advisor: estimateTotals(points.filter((p) => p.kind === "advisor")),
		simulated: estimateTotals(points.filter((p) => p.kind === "simulated")),
	};
}
