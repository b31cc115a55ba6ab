/**
 * Resuming across leaves (docs/decisions.md, "A replay's memory follows the branch"). With
 * `--all-leaves` a branch starts from the last point it shares with the branch replayed before it,
 * so the trunk is replayed once. A point leaves its figures in the branch's trail; its folded
 * state and requests stay only at the points a later branch will resume from.
 */

import type { EntryRecord } from "../../../events/index.ts";
import { partitionPoint, sharedPrefixLength } from "../../../events/index.ts";
import type { LedgerState, SpendState } from "../../../reducers/index.ts";
import type { LedgerConfig, LedgerRequest } from "../../../render/index.ts";
import type { BaselineRequest } from "../../extension/baseline/baseline-reuse.ts";
import type { BaselineCursor } from "../../extension/baseline/track.ts";
import type { FactState, HorizonFacts } from "../audit/index.ts";
import type { PointReport } from "../report/replay-report.ts";
import type { ConsultationPoint } from "./points.ts";
import type { SessionTools } from "./tool-set.ts";
import type { FoundUsers } from "./user-checks.ts";

/** The folds a branch carries from point to point, each folded up to the point. */
export interface PointFolds {
	state: LedgerState;
	/** What the branch holds for the fact audit. */
	facts: FactState;
	/** What it holds from the executor's newest horizon on: what the executor still has (none before a compaction). */
	since: HorizonFacts | undefined;
	/** The advisor's spend on the branch: what the estimate learns from. */
	spend: SpendState;
	baseline: BaselineCursor;
	/** Where each user message was found in the request. */
	found: FoundUsers;
}

/** The requests measured at a point: the next point's cache shares are of these. */
export interface PointRequests {
	ledger: LedgerRequest;
	baseline: BaselineRequest;
	/** The masked baseline (baseline/masked.ts). */
	masked: BaselineRequest;
}

/** Everything a point leaves for the next one: what a branch resuming at it continues from. */
export interface PointResume {
	folds: PointFolds;
	requests: PointRequests;
}

/**
 * What a point leaves in its branch's trail: figures, never the request or the state they were
 * measured on. A point's requests and folds are dropped once the next point is measured, except at
 * the points later branches resume from (resumeLengths).
 */
export interface PointStep {
	point: ConsultationPoint;
	/** What the request was rendered with (declarations and catalogue). */
	tools: SessionTools;
	config: LedgerConfig;
	report: PointReport;
	/** Users missing at this point (ids). */
	missing: string[];
	mismatch: boolean;
	/** Where a later branch sharing this point resumes: kept only at a point one will resume from. */
	resume?: PointResume;
}

/**
 * For each branch replayed in this order, the path lengths later branches resume at that lie on
 * it: branch j resumes where it parts from branch j − 1, and that point is on every branch between
 * that shares so much with both (a branch's common prefix with a later one is the least of the
 * consecutive ones in between). Each branch's list: the lengths where the next branch parts from it,
 * then those of later branches not longer than every one before them.
 */
export function resumeLengths(paths: readonly (readonly EntryRecord[])[]): number[][] {
	const lengths: number[][] = paths.map(() => []);
	// Kept from the last branch backwards: longest on top, never longer than the one below.
	const stack: number[] = [];
	for (let k = paths.length - 2; k >= 0; k--) {
		const parting = sharedPrefixLength(paths[k]!, paths[k + 1]!);
		while (stack.length > 0 && stack.at(-1)! > parting) stack.pop();
		stack.push(parting);
		lengths[k] = [...stack];
	}
	return lengths;
}

/** Whether a later branch resumes at point `index`: the last point at or before one of `keep`. */
export function resumedPoints(
	points: readonly ConsultationPoint[],
	keep: readonly number[],
): (index: number) => boolean {
	const lengths = [...keep].sort((a, b) => a - b);
	return (index) => {
		const upTo = points[index]!.upTo;
		const next = points[index + 1]?.upTo ?? Number.POSITIVE_INFINITY;
		// The smallest length at or after this point must come before the next point.
		const low = partitionPoint(lengths.length, (i) => lengths[i]! < upTo);
		return low < lengths.length && lengths[low]! < next;
	};
}

/** Drops a point's resume state; its figures stay. */
export function releaseResume(step: PointStep): undefined {
	delete step.resume;
	return undefined;
}

function samePoint(a: ConsultationPoint, b: ConsultationPoint): boolean {
	return a.upTo === b.upTo && a.kind === b.kind && a.callId === b.callId && a.result === b.result;
}

/**
 * The points this branch shares with the branch replayed before it (`last`): the same point on the
 * same entries (the same objects) gives the same request, baseline and report. `common` is the
 * length of the shared path.
 */
export function reusedPoints(
	input: { path: readonly EntryRecord[]; tools: SessionTools },
	points: readonly ConsultationPoint[],
	last: { path: readonly EntryRecord[]; trail: readonly PointStep[] },
	config: LedgerConfig,
): { common: number; reused: number; trail: PointStep[] } {
	const common = sharedPrefixLength(input.path, last.path);
	let reused = 0;
	while (
		reused < points.length &&
		reused < last.trail.length &&
		points[reused]!.upTo <= common &&
		samePoint(points[reused]!, last.trail[reused]!.point) &&
		// The tools are per file, the options per run: a replay with other ones starts over.
		last.trail[reused]!.tools === input.tools &&
		last.trail[reused]!.config === config
	)
		reused++;
	// A branch resumes where a point kept its state (the one the previous branch expected this one
	// to share); before it, the previous branch's figures are this branch's too.
	while (reused > 0 && last.trail[reused - 1]!.resume === undefined) reused--;
	return { common, reused, trail: last.trail.slice(0, reused) };
}
