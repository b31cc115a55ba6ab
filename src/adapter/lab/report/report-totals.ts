/**
 * The replay report's aggregation: statistics over points, what a list of points sums to (alike for
 * one session and for the whole report), and the whole report assembled from its sessions. The
 * schema is replay-report.ts; one session's report is put together in replay/branch-report.ts.
 */

import { DEFAULT_MIN_CACHED_TOKENS } from "../../../policy/index.ts";
import { addCounts, emptyCounts, type FactCounts } from "../audit/index.ts";
import type { UnreadableInput } from "../cli/inputs.ts";
import { addCacheTotals, priceReport, reuseShareStats } from "./cache-totals.ts";
import { billedTotalsOf, estimatesOf } from "./consultation-totals.ts";
import { addDiagnostics, emptyDiagnostics } from "./diagnostics.ts";
import { ratio, round } from "./numbers.ts";
import {
	type CacheTotals,
	cacheRule,
	type FactSurvival,
	type FileDiagnostics,
	type PointFacts,
	type PointReport,
	type PriceModel,
	REPORT_VERSION,
	type ReplayReport,
	type ReportTotals,
	type SessionReport,
	type Timing,
	type TokenStats,
} from "./replay-report.ts";

/** Nearest-rank percentile of a list (0 for an empty one). */
export function percentile(values: readonly number[], p: number): number {
	if (values.length === 0) return 0;
	const sorted = [...values].sort((a, b) => a - b);
	const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
	return sorted[rank - 1]!;
}

function tokenStats(values: readonly number[]): TokenStats {
	let total = 0;
	let max = 0;
	for (const v of values) {
		total += v;
		if (v > max) max = v;
	}
	return { total, p50: percentile(values, 50), p90: percentile(values, 90), max };
}

/** `mismatches`: points where the incremental and the from-scratch request differed, counted by the caller. */
function timingOf(points: readonly PointReport[], mismatches: number): Timing {
	let incrementalMs = 0;
	let scratchMs = 0;
	let matchedIncremental = 0;
	let scratchPoints = 0;
	for (const p of points) {
		incrementalMs += p.incrementalMs;
		if (p.scratchMs !== undefined) {
			scratchMs += p.scratchMs;
			matchedIncremental += p.incrementalMs;
			scratchPoints++;
		}
	}
	return {
		incrementalMs: round(incrementalMs, 3),
		scratchMs: round(scratchMs, 3),
		scratchPoints,
		ratio: scratchMs > 0 ? round(matchedIncremental / scratchMs) : null,
		mismatches,
	};
}

function shareOf(counts: FactCounts): number | null {
	let total = 0;
	let carried = 0;
	for (const tally of Object.values(counts)) {
		total += tally.total;
		carried += tally.carried;
	}
	return total === 0 ? null : round(carried / total);
}

function factSurvivalOf(points: readonly PointFacts[]): FactSurvival {
	const ledger = emptyCounts();
	const baseline = emptyCounts();
	const lost = { ledger: { total: 0, carried: 0 }, baseline: { total: 0, carried: 0 } };
	for (const p of points) {
		addCounts(ledger, p.ledger);
		addCounts(baseline, p.baseline);
		if (p.lost === undefined) continue;
		for (const side of ["ledger", "baseline"] as const) {
			lost[side].total += p.lost[side].total;
			lost[side].carried += p.lost[side].carried;
		}
	}
	const lostShare = (t: { total: number; carried: number }) => (t.total === 0 ? null : round(t.carried / t.total));
	return {
		ledger,
		baseline,
		ledgerShare: shareOf(ledger),
		baselineShare: shareOf(baseline),
		lost: { ...lost, ledgerShare: lostShare(lost.ledger), baselineShare: lostShare(lost.baseline) },
	};
}

/** Points of one branch, in order, whose request left out more of the log than the point before. */
export function logCutsOf(points: readonly PointReport[]): number {
	let cuts = 0;
	for (let i = 1; i < points.length; i++) if ((points[i]!.leftOut ?? 0) > (points[i - 1]!.leftOut ?? 0)) cuts++;
	return cuts;
}

/**
 * What a list of points sums to: a session's points, or every session's for the whole report. The
 * cache figures and the mismatches come from the caller — a session caches its own consultations,
 * the whole report adds the sessions' up — and the lists are the caller's to gather.
 */
export function pointTotals(
	points: readonly PointReport[],
	from: { cache: CacheTotals; mismatches: number },
): Omit<ReportTotals, "largerThanBaseline" | "userMessages" | "diagnostics"> {
	const baseline = tokenStats(points.map((p) => p.baseline));
	const ledger = tokenStats(points.map((p) => p.ledger));
	const masked = tokenStats(points.map((p) => p.masked));
	return {
		tokens: {
			baseline,
			ledger,
			masked,
			ratio: ratio(ledger.total, baseline.total),
			maskedRatio: ratio(masked.total, baseline.total),
		},
		billed: billedTotalsOf(points),
		estimate: estimatesOf(points),
		cacheShare: reuseShareStats(points),
		baselineCacheShare: reuseShareStats(points, "baseline"),
		maskedCacheShare: reuseShareStats(points, "masked"),
		cache: from.cache,
		facts: factSurvivalOf(points.map((p) => p.facts)),
		logCuts: logCutsOf(points),
		timing: timingOf(points, from.mismatches),
	};
}

export function buildReport(
	sessions: SessionReport[],
	files: readonly FileDiagnostics[],
	unreadable: UnreadableInput[],
	options: ReplayReport["options"],
	price?: PriceModel,
): ReplayReport {
	const points = sessions.flatMap((s) => s.points);
	const cache = addCacheTotals(sessions.map((s) => s.cache));
	const totals = pointTotals(points, { cache, mismatches: sessions.reduce((n, s) => n + s.timing.mismatches, 0) });
	const diagnostics = emptyDiagnostics();
	for (const f of files) {
		addDiagnostics(diagnostics, f.reader);
		addDiagnostics(diagnostics, f.branches);
	}
	const missingMessages = sessions.flatMap((s) => s.userMessages.missingMessages);
	return {
		version: REPORT_VERSION,
		sessions,
		points: points.length,
		tokens: totals.tokens,
		billed: totals.billed,
		estimate: totals.estimate,
		largerThanBaseline: sessions.flatMap((s) => s.largerThanBaseline),
		userMessages: {
			total: sessions.reduce((n, s) => n + s.userMessages.total, 0),
			missing: missingMessages.length,
			missingMessages,
		},
		cacheShare: totals.cacheShare,
		baselineCacheShare: totals.baselineCacheShare,
		maskedCacheShare: totals.maskedCacheShare,
		cache,
		cacheRule: cacheRule(price?.minTokens ?? DEFAULT_MIN_CACHED_TOKENS),
		facts: totals.facts,
		// Counted per branch: a cut between two sessions' points is no rewrite.
		logCuts: sessions.reduce((n, s) => n + s.logCuts, 0),
		...(price === undefined ? {} : { price: priceReport(cache, price) }),
		timing: totals.timing,
		diagnostics: {
			...diagnostics,
			files: files.length,
			filesWithoutPoints: files.filter((f) => !f.hasPoints).map((f) => f.file),
			unreadable,
		},
		options,
	};
}
