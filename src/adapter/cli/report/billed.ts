/**
 * The replay report's consultation figures (docs/cli.md, "Billed and estimated"): per point, what the
 * session recorded the consultation was billed and what the extension estimates for it; per session
 * and overall, their sums and the billed / estimated ratios.
 */

import { ratio, round } from "./numbers.ts";

/** Tokens of one or more requests as the provider billed them. */
export interface UsageSplit {
	/** input + cacheRead + cacheWrite. */
	prompt: number;
	/** Prompt tokens neither read from the cache nor written to it. */
	input: number;
	cacheRead: number;
	cacheWrite: number;
	output: number;
}

/** What an advisor result recorded it was billed: every request of the consultation. */
export interface Billed extends UsageSplit {
	/** The advisor model the result records (`provider:modelId`). */
	model?: string;
	/** These tokens at the report's price model (pi-ai's calculateCost). */
	usd: number;
	/** Requests sent; with `first`, `followUps` and `firstUsd`, only when the result recorded each (`details.attempts`). */
	requests?: number;
	first?: UsageSplit;
	/** The requests after the first, summed: investigation rounds, the request after the allowance, retries. */
	followUps?: UsageSplit;
	firstUsd?: number;
	/** The first request's tokens (chars/4) as the extension sent it then (`details.request.estimatedTokens`). */
	sentTokens?: number;
}

/** The extension's estimate of the consultation at a point, at the report's price model. */
export interface PointEstimate {
	/** The advisor model whose recorded consultations (and newest request) the estimate reads. */
	model: string;
	/** "history": the branch's recorded consultations of that model before the point; "prior": none. */
	basis: "history" | "prior";
	/** The first request: its prompt as estimated, and its dollars with the expected answer. */
	first: { promptTokens: number; cacheReadTokens: number; cacheWriteTokens: number; usd: number };
	/** Follow-up requests expected (a mean). */
	followUps: number;
	/** The first request and the follow-ups expected. */
	usd: number;
	/** The most the loop allows (every round, every answer at the output cap, one retry). */
	atMostUsd: number;
}

/** Estimates summed over points of one kind. */
export interface EstimateTotals {
	points: number;
	/** Points estimated from recorded consultations (the rest from the prior). */
	history: number;
	followUps: number;
	firstUsd: number;
	usd: number;
	atMostUsd: number;
}

export interface EstimatesByKind {
	advisor: EstimateTotals;
	simulated: EstimateTotals;
}

/** The points whose result recorded every request: first requests apart from follow-ups. */
export interface BilledByRequest {
	points: number;
	requests: number;
	/** The ledger request's tokens the replay renders at these points (chars/4). */
	ledger: number;
	/** The first requests' tokens (chars/4) as sent then; null unless every one of these points recorded it. */
	sentTokens: number | null;
	first: UsageSplit & { usd: number };
	followUps: UsageSplit & { usd: number };
	/** The estimate at the same points: the first request's prompt tokens and dollars, the whole consultation's dollars. */
	estimate: { firstPrompt: number; firstUsd: number; usd: number };
	/** Billed / estimated (null when the estimate is 0): first prompt tokens, first request's dollars, whole consultation's dollars. */
	ratio: { firstPrompt: number | null; first: number | null; consultation: number | null };
}

export interface BilledTotals extends UsageSplit {
	/** Points whose result records billed usage. */
	points: number;
	usd: number;
	/** The ledger request's tokens (chars/4, no headroom) summed over the same points. */
	ledgerEstimate: number;
	/** The extension's estimate of the whole consultation over the same points, and billed / estimated. */
	estimateUsd: number;
	ratio: number | null;
	byRequest: BilledByRequest;
}

/** The part of a point report these figures are summed from. */
export interface CostedPoint {
	kind: "advisor" | "simulated";
	ledger: number;
	billed?: Billed;
	estimate?: PointEstimate;
}

const usdRound = (n: number) => round(n, 6);

export const emptySplit = (): UsageSplit => ({ prompt: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0 });

export function addSplit(a: UsageSplit, b: UsageSplit): UsageSplit {
	return {
		prompt: a.prompt + b.prompt,
		input: a.input + b.input,
		cacheRead: a.cacheRead + b.cacheRead,
		cacheWrite: a.cacheWrite + b.cacheWrite,
		output: a.output + b.output,
	};
}

function byRequestOf(points: readonly CostedPoint[]): BilledByRequest {
	let first = emptySplit();
	let followUps = emptySplit();
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
		first = addSplit(first, b.first);
		followUps = addSplit(followUps, b.followUps);
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
	let split = emptySplit();
	let n = 0;
	let usd = 0;
	let ledgerEstimate = 0;
	let estimateUsd = 0;
	for (const p of points) {
		if (p.billed === undefined) continue;
		n++;
		split = addSplit(split, p.billed);
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
