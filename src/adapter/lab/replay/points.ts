/**
 * Consultation points of one branch: where a replay dispatches an advisor request.
 *
 * - Every real `advisor` call on the branch is a point. Its dispatch is the branch up to, not
 *   including, the call's result: the first result for its id after it (the whole branch when
 *   none arrived).
 * - A branch without any advisor call gets simulated points: one after every `every`-th tool
 *   round and one at the last entry. A tool round is one assistant message with tool calls; it
 *   ends when the last of its results lands (or when the next assistant message gives up on the
 *   missing ones), so a point never splits a batch of parallel calls.
 */

import type { LedgerEvent, ToolResultEvent } from "../../../events/index.ts";
import { ADVISOR_TOOL_NAME, partitionPoint, sharedPrefixLength } from "../../../events/index.ts";

export interface ConsultationPoint {
	/** How many events of the branch the request is built from (events[0..upTo)). */
	upTo: number;
	kind: "advisor" | "simulated";
	/** The in-flight advisor call (real points only). */
	callId?: string;
	/** Its result, when the branch holds one (real billed usage lives in its details). */
	result?: ToolResultEvent;
}

/** An advisor call of the branch and where its result is (undefined: not on the branch). */
interface AdvisorCall {
	id: string;
	index: number;
	resultAt: number | undefined;
}

/**
 * What a scan of a branch's events found, kept so that the next branch — which shares a prefix of
 * events with this one (`--all-leaves`) — scans only its own events.
 */
export interface PointScan {
	events: readonly LedgerEvent[];
	/** Advisor calls in event order. */
	calls: AdvisorCall[];
	/** Where tool rounds end, in event order. */
	ends: number[];
}

const emptyScan: PointScan = { events: [], calls: [], ends: [] };

/** How many leading items of a list sorted by `key` have a key below `limit` (binary search). */
function countBelow<T>(items: readonly T[], limit: number, key: (item: T) => number): number {
	return partitionPoint(items.length, (i) => key(items[i]!) < limit);
}

/**
 * Scans a branch for advisor calls, their results and tool-round ends, reusing what `previous`
 * found on the events both share: a call before the fork whose result is before it too is
 * settled; every other call looks for its result among the events after the fork.
 */
export function scanPoints(events: readonly LedgerEvent[], previous: PointScan = emptyScan): PointScan {
	const common = sharedPrefixLength(previous.events, events);
	const calls: AdvisorCall[] = [];
	const open = new Map<string, AdvisorCall[]>();
	const wait = (call: AdvisorCall) => {
		const list = open.get(call.id);
		if (list === undefined) open.set(call.id, [call]);
		else list.push(call);
	};
	for (const call of previous.calls.slice(
		0,
		countBelow(previous.calls, common, (c) => c.index),
	)) {
		// Settled before the fork: the same object serves both branches (a scan never changes it again).
		if (call.resultAt !== undefined && call.resultAt < common) {
			calls.push(call);
			continue;
		}
		const kept: AdvisorCall = { id: call.id, index: call.index, resultAt: undefined };
		calls.push(kept);
		wait(kept);
	}
	// A round end at e was found from the events before e (e − 1 for a result, e for the next
	// assistant message), and no call is pending right after it: the scan restarts there.
	const ends = previous.ends.slice(
		0,
		countBelow(previous.ends, common, (e) => e),
	);
	const pending = new Set<string>();
	const restart = Math.min(common, ends.at(-1) ?? 0);
	for (let index = restart; index < events.length; index++) {
		const event = events[index]!;
		if (event.kind === "assistant") {
			if (pending.size > 0) ends.push(index);
			pending.clear();
			for (const call of event.calls) {
				pending.add(call.id);
				if (index >= common && call.name === ADVISOR_TOOL_NAME) {
					const found: AdvisorCall = { id: call.id, index, resultAt: undefined };
					calls.push(found);
					wait(found);
				}
			}
		} else if (event.kind === "toolResult") {
			if (pending.delete(event.callId) && pending.size === 0) ends.push(index + 1);
			if (index >= common) {
				const waiting = open.get(event.callId);
				if (waiting !== undefined) {
					for (const call of waiting) call.resultAt = index;
					open.delete(event.callId);
				}
			}
		}
	}
	return { events, calls, ends };
}

function advisorPointsOf(scan: PointScan): ConsultationPoint[] {
	const points: ConsultationPoint[] = [];
	for (const call of scan.calls) {
		const point: ConsultationPoint = {
			upTo: call.resultAt ?? scan.events.length,
			kind: "advisor",
			callId: call.id,
		};
		const result = call.resultAt === undefined ? undefined : scan.events[call.resultAt];
		if (result?.kind === "toolResult") point.result = result;
		points.push(point);
	}
	return points.sort((a, b) => a.upTo - b.upTo);
}

function simulatedPointsOf(scan: PointScan, every: number): ConsultationPoint[] {
	const { ends, events } = scan;
	const points: ConsultationPoint[] = [];
	for (let round = every; round <= ends.length; round += every) {
		points.push({ upTo: ends[round - 1]!, kind: "simulated" });
	}
	if (events.length > 0 && points.at(-1)?.upTo !== events.length)
		points.push({ upTo: events.length, kind: "simulated" });
	return points;
}

export function advisorPoints(events: readonly LedgerEvent[]): ConsultationPoint[] {
	return advisorPointsOf(scanPoints(events));
}

export function simulatedPoints(events: readonly LedgerEvent[], every: number): ConsultationPoint[] {
	return simulatedPointsOf(scanPoints(events), every);
}

/** Real points when the branch has advisor calls, simulated ones otherwise. */
export function pointsOfScan(scan: PointScan, every: number): ConsultationPoint[] {
	return scan.calls.length > 0 ? advisorPointsOf(scan) : simulatedPointsOf(scan, every);
}

/** Real points when the branch has advisor calls, simulated ones otherwise. */
export function consultationPoints(events: readonly LedgerEvent[], every: number): ConsultationPoint[] {
	return pointsOfScan(scanPoints(events), every);
}
