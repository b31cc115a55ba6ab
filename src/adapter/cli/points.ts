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
