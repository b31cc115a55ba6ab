/**
 * The replay's figures put in the report's shape (report/replay-report.ts): one point's, from what
 * the point loop measured, and one branch's, from its trail of points.
 */

import { reuseShares } from "../../../policy/index.ts";
import { type BaselineRequest, baselineShares } from "../../extension/baseline/baseline-reuse.ts";
import { cacheOf } from "../report/cache-totals.ts";
import { mergeDiagnostics } from "../report/diagnostics.ts";
import { round } from "../report/numbers.ts";
import type {
	ConsultationBilled,
	MissingUserMessage,
	PointEstimate,
	PointFacts,
	PointReport,
	PointShares,
	SessionReport,
} from "../report/replay-report.ts";
import { pointTotals } from "../report/report-totals.ts";
import type { BranchInput } from "./file-branches.ts";
import type { PointRequests, PointStep } from "./point-resume.ts";
import type { ConsultationPoint } from "./points.ts";

/** What the point loop measured at one point. */
export interface PointMeasures {
	point: ConsultationPoint;
	/** The entry the request is dispatched after. */
	atEntryId: string;
	requests: PointRequests;
	/** The previous point's requests on this branch (none at its first point). */
	previous: PointRequests | undefined;
	billed: ConsultationBilled | undefined;
	estimate: PointEstimate;
	facts: PointFacts;
	/** Oldest log entries the ledger request leaves out (docs/request-format.md, "The log's size"). */
	leftOut: number;
	/** Fold + render, ms: incrementally, and from scratch at a sampled point. */
	incrementalMs: number;
	scratchMs: number | undefined;
}

/** Shares rounded as the report keeps them. */
function roundShares(shares: PointShares): PointShares {
	return {
		tokenPrefix: round(shares.tokenPrefix),
		breakpoint: round(shares.breakpoint),
		breakpointNoBridges: round(shares.breakpointNoBridges),
	};
}

/** Shares of the previous baseline request reused by the next. */
function sharesOf(previous: BaselineRequest | undefined, next: BaselineRequest): PointShares | undefined {
	return previous === undefined ? undefined : roundShares(baselineShares(previous, next));
}

export function pointReport(m: PointMeasures): PointReport {
	const { point, requests, previous } = m;
	const report: PointReport = {
		atEntryId: m.atEntryId,
		kind: point.kind,
		baseline: requests.baseline.tokens,
		masked: requests.masked.tokens,
		ledger: requests.ledger.tokens,
		ledgerStable: requests.ledger.stable.tokens,
		incrementalMs: round(m.incrementalMs, 3),
		facts: m.facts,
	};
	if (point.callId !== undefined) report.callId = point.callId;
	if (previous !== undefined) report.cacheShare = roundShares(reuseShares(previous.ledger, requests.ledger));
	const baselineShare = sharesOf(previous?.baseline, requests.baseline);
	if (baselineShare !== undefined) report.baselineCacheShare = baselineShare;
	const maskedShare = sharesOf(previous?.masked, requests.masked);
	if (maskedShare !== undefined) report.maskedCacheShare = maskedShare;
	if (m.billed !== undefined) report.billed = m.billed;
	report.estimate = m.estimate;
	if (m.scratchMs !== undefined) report.scratchMs = round(m.scratchMs, 3);
	if (m.leftOut > 0) report.leftOut = m.leftOut;
	return report;
}

/**
 * The branch's report from its points: totals, the lists, and each user message missing at its first
 * point. `minTokens`: the price model's minimum cacheable prompt, which the cache figures apply.
 */
export function branchReport(
	input: BranchInput,
	points: readonly ConsultationPoint[],
	trail: readonly PointStep[],
	userIndex: readonly number[],
	minTokens: number,
): SessionReport {
	const { file } = input;
	const leafId = input.leafId ?? null;
	// A user message counts as missing at the first point where its block is not in the request.
	const missing = new Map<string, MissingUserMessage>();
	for (const step of trail) {
		for (const id of step.missing) {
			if (!missing.has(id)) missing.set(id, { file, leafId, entryId: id, atEntryId: step.report.atEntryId });
		}
	}
	const reports = trail.map((step) => step.report);
	const missingMessages = [...missing.values()];
	const totals = pointTotals(reports, {
		cache: cacheOf(reports, minTokens),
		mismatches: trail.filter((step) => step.mismatch).length,
	});
	const checkedUsers = points.length === 0 ? 0 : userIndex.filter((i) => i < points.at(-1)!.upTo).length;
	return {
		file,
		sessionId: input.sessionId,
		leafId,
		pathEntries: input.path.length,
		pointKind: points.length === 0 ? "none" : points[0]!.kind,
		points: reports,
		...totals,
		largerThanBaseline: reports
			.filter((p) => p.ledger > p.baseline)
			.map((p) => ({ file, leafId, atEntryId: p.atEntryId, kind: p.kind, baseline: p.baseline, ledger: p.ledger })),
		userMessages: { total: checkedUsers, missing: missingMessages.length, missingMessages },
		diagnostics: mergeDiagnostics(input.readerDiagnostics, input.branchDiagnostics),
	};
}
