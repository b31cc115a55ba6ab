/**
 * The cache-warming chain as a pure state machine: the adapter feeds it events and
 * carries out the actions it returns — one timer, one refresh request at a time — so every
 * cancellation rule is testable without timers or a provider.
 *
 *   idle ──consulted(decision warm)──▶ armed(atMs) ──tick ≥ atMs──▶ refreshing(id)
 *     ▲                                  ▲    │                        │
 *     │                                  └────┼──refreshDone(hit, next decision warm)
 *     └── consulted(not warm) / cancel(any) ◀─┴── refreshDone(miss | error | aborted | hit + not warm)
 *
 * Adapter contract:
 * - `consulted`: after every completed consultation (the advisor tool returned advice), with
 *   `warmingDecision(…)` computed for its first request (lastTouchMs = its last request). A
 *   consultation that failed or was skipped: feed `cancel("consultation")` only.
 * - `cancel`: at agent_end, model_select (not "restore"), thinking_level_select, the start of a
 *   consultation, the /advisor command, and session_before_compact|tree|switch|fork and
 *   session_shutdown. An "abort" action must be awaited there: abort the refresh, let it settle,
 *   record its usage (`advisor-usage`, kind "warming") and only then return from the hook.
 * - `tick`: when the timer fires (and whenever else convenient — a tick before `atMs` re-arms).
 * - `refreshDone`: when the refresh settles, with `refreshOutcome(usage, stopReason)`; on a hit,
 *   with the next `warmingDecision` (lastTouchMs = when the refresh was sent, spend including it).
 *   The refresh's usage is recorded whatever the outcome. A stale id (an aborted refresh settling
 *   after its chain ended) changes nothing.
 *
 * Actions: "schedule" (re)places the single timer; "clearTimer" clears it; "refresh" sends the
 * first request of `target.consultationId` again with maxTokens 16, no retry, no dialog, guarded
 * in its onPayload by `refreshGuard` against `target.payloadHash`; "abort" aborts refresh `refreshId`.
 *
 * Plain objects rather than immer: each state is a handful of scalars, replaced whole.
 */

import { assertNever } from "../../events/index.ts";
import type { RefreshOutcome, WarmingDecision, WarmingSkipReason } from "./decision.ts";

/** What ends or pre-empts a chain, named after the Pi event (or the action) that causes it. */
export type WarmingCancelReason =
	| "agent_end"
	| "model_select"
	| "thinking_level_select"
	/** A new consultation starts: it touches the cache itself and then arms its own chain. */
	| "consultation"
	| "advisor_command"
	| "session_before_compact"
	| "session_before_tree"
	| "session_before_switch"
	| "session_before_fork"
	| "session_shutdown";

export const WARMING_CANCEL_REASONS: readonly WarmingCancelReason[] = Object.freeze([
	"agent_end",
	"model_select",
	"thinking_level_select",
	"consultation",
	"advisor_command",
	"session_before_compact",
	"session_before_tree",
	"session_before_switch",
	"session_before_fork",
	"session_shutdown",
]);

/** The consultation whose first request is kept warm. The adapter keeps its Context by `consultationId`. */
export interface WarmingTarget {
	/** The advisor tool call id (or result entry id) of the consultation. */
	consultationId: string;
	/** `payloadHash(first request payload as sent, api)`. */
	payloadHash: string;
}

export type WarmingState =
	| { phase: "idle"; seq: number }
	| { phase: "armed"; seq: number; target: WarmingTarget; atMs: number; refreshes: number }
	| { phase: "refreshing"; seq: number; target: WarmingTarget; refreshId: number; refreshes: number };

export type WarmingEvent =
	| { type: "consulted"; target: WarmingTarget; decision: WarmingDecision; nowMs: number }
	| { type: "tick"; nowMs: number }
	| { type: "refreshDone"; refreshId: number; outcome: "hit"; next: WarmingDecision; nowMs: number }
	| { type: "refreshDone"; refreshId: number; outcome: Exclude<RefreshOutcome, "hit">; nowMs: number }
	| { type: "cancel"; reason: WarmingCancelReason };

export type WarmingAction =
	| { type: "schedule"; atMs: number; delayMs: number }
	| { type: "clearTimer" }
	| { type: "refresh"; refreshId: number; target: WarmingTarget }
	| { type: "abort"; refreshId: number; reason: WarmingCancelReason };

/** Why a chain ended (or never started), for logs and tests. */
export type WarmingEnd =
	| { by: "decision"; reason: WarmingSkipReason }
	| { by: "cancel"; reason: WarmingCancelReason }
	| { by: "outcome"; outcome: Exclude<RefreshOutcome, "hit"> };

export interface WarmingStep {
	state: WarmingState;
	actions: WarmingAction[];
	ended?: WarmingEnd;
}

export function idleWarming(): WarmingState {
	return { phase: "idle", seq: 0 };
}

function schedule(atMs: number, nowMs: number): WarmingAction {
	return { type: "schedule", atMs, delayMs: Math.max(0, atMs - nowMs) };
}

/** Leave whatever is running: clear the timer or abort the refresh. */
function stop(state: WarmingState, reason: WarmingCancelReason): WarmingAction[] {
	switch (state.phase) {
		case "idle":
			return [];
		case "armed":
			return [{ type: "clearTimer" }];
		case "refreshing":
			return [{ type: "abort", refreshId: state.refreshId, reason }];
		default:
			return assertNever(state, "warming state");
	}
}

export function warmingReducer(state: WarmingState, event: WarmingEvent): WarmingStep {
	switch (event.type) {
		case "consulted": {
			// Normally preceded by cancel("consultation"); if not, whatever ran belongs to an older one.
			const actions = stop(state, "consultation");
			const { decision } = event;
			if (!decision.warm) {
				return {
					state: { phase: "idle", seq: state.seq },
					actions,
					ended: { by: "decision", reason: decision.reason },
				};
			}
			return {
				state: { phase: "armed", seq: state.seq, target: event.target, atMs: decision.atMs, refreshes: 0 },
				actions: [...actions, schedule(decision.atMs, event.nowMs)],
			};
		}
		case "tick": {
			if (state.phase !== "armed") return { state, actions: [] };
			if (event.nowMs < state.atMs) return { state, actions: [schedule(state.atMs, event.nowMs)] };
			const refreshId = state.seq + 1;
			return {
				state: { phase: "refreshing", seq: refreshId, target: state.target, refreshId, refreshes: state.refreshes },
				actions: [{ type: "refresh", refreshId, target: state.target }],
			};
		}
		case "refreshDone": {
			if (state.phase !== "refreshing" || state.refreshId !== event.refreshId) return { state, actions: [] };
			const idle: WarmingState = { phase: "idle", seq: state.seq };
			if (event.outcome !== "hit")
				return { state: idle, actions: [], ended: { by: "outcome", outcome: event.outcome } };
			if (!event.next.warm)
				return { state: idle, actions: [], ended: { by: "decision", reason: event.next.reason } };
			return {
				state: {
					phase: "armed",
					seq: state.seq,
					target: state.target,
					atMs: event.next.atMs,
					refreshes: state.refreshes + 1,
				},
				actions: [schedule(event.next.atMs, event.nowMs)],
			};
		}
		case "cancel": {
			if (state.phase === "idle") return { state, actions: [] };
			return {
				state: { phase: "idle", seq: state.seq },
				actions: stop(state, event.reason),
				ended: { by: "cancel", reason: event.reason },
			};
		}
		default:
			return assertNever(event, "warming event");
	}
}
