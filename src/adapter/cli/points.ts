/**
 * Consultation points of one branch: where a replay dispatches an advisor request.
 *
 * - Every real `advisor` call on the branch is a point. Its dispatch is the branch up to, not
 *   including, the call's result (the whole branch when the result never arrived).
 * - A branch without any advisor call gets simulated points: one after every `every`-th tool
 *   round and one at the last entry. A tool round is one assistant message with tool calls; it
 *   ends when the last of its results lands (or when the next assistant message gives up on the
 *   missing ones), so a point never splits a batch of parallel calls.
 */

import type { LedgerEvent, ToolResultEvent } from "../../events/index.ts";
import { ADVISOR_TOOL_NAME } from "../../events/index.ts";

/** Simulated points: one every this many tool rounds, by default. */
export const DEFAULT_EVERY = 10;

export interface ConsultationPoint {
	/** How many events of the branch the request is built from (events[0..upTo)). */
	upTo: number;
	kind: "advisor" | "simulated";
	/** The in-flight advisor call (real points only). */
	callId?: string;
	/** Its result, when the branch holds one (real billed usage lives in its details). */
	result?: ToolResultEvent;
}

export function advisorPoints(events: readonly LedgerEvent[]): ConsultationPoint[] {
	// Loops, not a map of every result: this runs once per replayed branch, over the whole branch.
	const calls: { id: string; index: number }[] = [];
	for (let index = 0; index < events.length; index++) {
		const event = events[index]!;
		if (event.kind !== "assistant" || event.calls.length === 0) continue;
		for (const call of event.calls) if (call.name === ADVISOR_TOOL_NAME) calls.push({ id: call.id, index });
	}
	if (calls.length === 0) return [];
	const wanted = new Set(calls.map((c) => c.id));
	const resultAt = new Map<string, number>();
	for (let index = 0; index < events.length; index++) {
		const event = events[index]!;
		if (event.kind === "toolResult" && wanted.has(event.callId) && !resultAt.has(event.callId))
			resultAt.set(event.callId, index);
	}
	const points: ConsultationPoint[] = [];
	for (const call of calls) {
		const at = resultAt.get(call.id);
		const result = at !== undefined && at > call.index ? events[at] : undefined;
		const point: ConsultationPoint = {
			upTo: result === undefined ? events.length : at!,
			kind: "advisor",
			callId: call.id,
		};
		if (result?.kind === "toolResult") point.result = result;
		points.push(point);
	}
	return points.sort((a, b) => a.upTo - b.upTo);
}

export function simulatedPoints(events: readonly LedgerEvent[], every: number): ConsultationPoint[] {
	const ends: number[] = [];
	const pending = new Set<string>();
	events.forEach((event, index) => {
		if (event.kind === "assistant") {
			if (pending.size > 0) {
				ends.push(index);
				pending.clear();
			}
			for (const call of event.calls) pending.add(call.id);
		} else if (event.kind === "toolResult" && pending.delete(event.callId) && pending.size === 0) {
			ends.push(index + 1);
		}
	});
	const points: ConsultationPoint[] = [];
	for (let round = every; round <= ends.length; round += every) {
		points.push({ upTo: ends[round - 1]!, kind: "simulated" });
	}
	if (events.length > 0 && points.at(-1)?.upTo !== events.length)
		points.push({ upTo: events.length, kind: "simulated" });
	return points;
}

/** Real points when the branch has advisor calls, simulated ones otherwise. */
export function consultationPoints(events: readonly LedgerEvent[], every: number): ConsultationPoint[] {
	const real = advisorPoints(events);
	return real.length > 0 ? real : simulatedPoints(events, every);
}

// ---------------------------------------------------------------------------------------------
// The same points, tracked entry by entry (shared by every branch through an entry)
// ---------------------------------------------------------------------------------------------

/** An immutable list, newest first: a prefix's list is its parent's plus at most one cell. */
export interface Cons<T> {
	head: T;
	tail: Cons<T> | undefined;
}

export function consToArray<T>(list: Cons<T> | undefined): T[] {
	const out: T[] = [];
	for (let cell = list; cell !== undefined; cell = cell.tail) out.push(cell.head);
	return out.reverse();
}

/**
 * What consultationPoints needs to know about a prefix of a branch, built from the prefix one
 * entry shorter: replaying many leaves of one trunk then lists each leaf's points without
 * scanning the trunk again. Never mutated, so branches share it.
 */
export interface PointTrack {
	/** Tool rounds finished so far. */
	rounds: number;
	/** Calls of the last assistant message still without a result. */
	pending: readonly string[];
	/** Where every `every`-th round ended (simulated points). */
	simulated: Cons<number> | undefined;
	/** Advisor calls, with the index of the message that made them. */
	advisorCalls: Cons<{ id: string; index: number }> | undefined;
	/** Results whose call id is an advisor call's anywhere in the file (a result may precede its call). */
	advisorResults: Cons<{ callId: string; index: number }> | undefined;
}

const EMPTY_TRACK: PointTrack = {
	rounds: 0,
	pending: [],
	simulated: undefined,
	advisorCalls: undefined,
	advisorResults: undefined,
};

/** The track after events[index], mirroring advisorPoints and simulatedPoints step for step. */
export function trackPoints(
	previous: PointTrack | undefined,
	event: LedgerEvent,
	index: number,
	every: number,
	advisorCallIds: ReadonlySet<string>,
): PointTrack {
	const track = previous ?? EMPTY_TRACK;
	let { rounds, pending, simulated, advisorCalls, advisorResults } = track;
	const roundEnds = (end: number) => {
		rounds++;
		if (rounds % every === 0) simulated = { head: end, tail: simulated };
	};
	if (event.kind === "assistant") {
		if (pending.length > 0) roundEnds(index);
		pending = event.calls.length === 0 ? [] : [...new Set(event.calls.map((c) => c.id))];
		for (const call of event.calls) {
			if (call.name === ADVISOR_TOOL_NAME) advisorCalls = { head: { id: call.id, index }, tail: advisorCalls };
		}
	} else if (event.kind === "toolResult") {
		if (pending.includes(event.callId)) {
			pending = pending.filter((id) => id !== event.callId);
			if (pending.length === 0) roundEnds(index + 1);
		}
		if (advisorCallIds.has(event.callId))
			advisorResults = { head: { callId: event.callId, index }, tail: advisorResults };
	} else return track;
	return { rounds, pending, simulated, advisorCalls, advisorResults };
}

/** consultationPoints of a branch of `length` events whose last track is `track`. */
export function trackedPoints(
	track: PointTrack | undefined,
	length: number,
	eventAt: (index: number) => LedgerEvent,
): ConsultationPoint[] {
	const calls = consToArray(track?.advisorCalls);
	if (calls.length > 0) {
		const resultAt = new Map<string, number>();
		for (const r of consToArray(track?.advisorResults)) if (!resultAt.has(r.callId)) resultAt.set(r.callId, r.index);
		const points = calls.map((call): ConsultationPoint => {
			const at = resultAt.get(call.id);
			const result = at !== undefined && at > call.index ? eventAt(at) : undefined;
			const point: ConsultationPoint = {
				upTo: result === undefined ? length : at!,
				kind: "advisor",
				callId: call.id,
			};
			if (result?.kind === "toolResult") point.result = result;
			return point;
		});
		return points.sort((a, b) => a.upTo - b.upTo);
	}
	const points = consToArray(track?.simulated).map((upTo): ConsultationPoint => ({ upTo, kind: "simulated" }));
	if (length > 0 && points.at(-1)?.upTo !== length) points.push({ upTo: length, kind: "simulated" });
	return points;
}
