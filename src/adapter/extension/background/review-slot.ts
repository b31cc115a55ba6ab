/**
 * One background review at a time, for the completion review and the watch alike
 * (docs/configuration.md#the-watch): the slot both start their work in, what both need to know of
 * Pi's run, and how a change of session ends the work in flight. The completion review
 * (completion-review.ts) and the watch (watch.ts) each decide what to review and what their answer
 * becomes; this file only runs and ends:
 *
 * - `start`: the work runs in the background, never awaited by the host's event; while it runs
 *   nothing else starts (the caller is told, and decides whether to wait). When the work is done
 *   (its usage recorded, its answer delivered) the slot is free again and its listeners are told,
 *   inside the work's promise, so a review that waited is in flight before that promise resolves.
 * - The run: an `agent_start` seen without its `agent_end` (`running`), or the host not idle
 *   (`runActive`); the executor turn a headless blocker started (`woke`), which a quitting
 *   session waits for.
 * - Without a UI (`pi -p`, JSON mode) nobody is left to see what settles after the run, so the
 *   run waits: Pi 1.x's `agent_before_settle` awaits every headless review in turn
 *   (`beforeSettle`); Pi 0.73 has no such event, so `session_shutdown` ("quit", the agent idle)
 *   lets the run's `agent_end` arrive, the reviews finish and the woken turn end (`interrupted`).
 * - Compaction, tree navigation, a session switch, a fork and any other shutdown abort the work in
 *   flight and wait for it: its owner records its usage, in the session it belonged to, and shows
 *   nothing (`cancel`).
 */

import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { InterruptReason } from "./interrupt.ts";

/** Whose work is in flight. */
export type BackgroundKind = "review" | "watch";

export interface Flight {
	readonly kind: BackgroundKind;
	readonly controller: AbortController;
	/** Resolves once the work is done and the slot is free (a review that waited may be in flight by then). */
	promise: Promise<void>;
	/** Set when the session changed under it: its owner records it and shows nothing. */
	cancelledBy: InterruptReason | undefined;
	/** Started without a UI: delivered as part of the run. */
	readonly headless: boolean;
}

export interface ReviewSlot {
	/** agent_start. */
	runStarted(): void;
	/**
	 * agent_end: the run is over. `then` runs first (the completion review decides there); a
	 * shutdown waiting for this end, or for the turn a blocker woke, goes on after it.
	 */
	runEnded(then?: () => void): void;
	/** An agent_start seen without its agent_end. */
	running(): boolean;
	/** `running`, or the host not idle (a context that cannot say counts as running). */
	runActive(ctx: ExtensionContext): boolean;
	current(): Flight | undefined;
	/** Starts `work` in the background; undefined (and nothing started) while another is in flight. */
	start(kind: BackgroundKind, headless: boolean, work: (flight: Flight) => Promise<void>): Flight | undefined;
	/** Told each time a flight is done, the slot already free. */
	onDone(listener: (flight: Flight) => void): void;
	/** Sends a headless review's message as part of the run (see `sendHeadless`). */
	sendHeadless(pi: Pick<ExtensionAPI, "sendMessage">, ctx: ExtensionContext, message: Note, wake: boolean): void;
	/** agent_before_settle (Pi 1.x): every review started without a UI, one after the other. */
	beforeSettle(): Promise<void>;
	/** Aborts the work in flight; resolves once it is done (its usage recorded). */
	cancel(reason: InterruptReason): Promise<void>;
	/**
	 * The session is about to change or end. A headless session that is quitting with the agent
	 * idle lets the work finish (and the turn a blocker starts); anything else cancels.
	 */
	interrupted(reason: InterruptReason, ctx: ExtensionContext, shutdownReason?: string): Promise<void>;
	/** Resolves when nothing is in flight (tests). */
	idle(): Promise<void>;
}

/** A message a review sends (`advisor-review`, `advisor-watch`). */
export type Note = Parameters<ExtensionAPI["sendMessage"]>[0];

/** A promise and its resolver. */
interface Signal {
	promise: Promise<void>;
	resolve: () => void;
}

function signal(): Signal {
	let resolve = () => {};
	const promise = new Promise<void>((r) => {
		resolve = r;
	});
	return { promise, resolve };
}

/** No UI to show anything in; false when the context cannot say (a stale one: nothing to finish). */
export function headless(ctx: ExtensionContext): boolean {
	try {
		return !ctx.hasUI;
	} catch {
		return false;
	}
}

/** `ctx.isIdle()`, false when the context cannot say (a stale one). */
export function hostIdle(ctx: ExtensionContext): boolean {
	try {
		return ctx.isIdle();
	} catch {
		return false;
	}
}

interface SlotState {
	running: boolean;
	flight: Flight | undefined;
	/** Resolved by the next agent_end (a shutdown that overtook it waits on this). */
	nextEnd: Signal | undefined;
	/** A headless review started an executor turn that has not ended yet. */
	woken: Signal | undefined;
	readonly listeners: ((flight: Flight) => void)[];
}

/** @param timeoutMs the reviews' own bound (`budget.timeoutSec`): how long a quitting session waits for a run's end. */
export function createReviewSlot(timeoutMs: () => number): ReviewSlot {
	const state: SlotState = { running: false, flight: undefined, nextEnd: undefined, woken: undefined, listeners: [] };
	const slot: ReviewSlot = {
		runStarted() {
			state.running = true;
		},
		runEnded(then) {
			state.running = false;
			const ended = state.nextEnd;
			state.nextEnd = undefined;
			const wake = state.woken;
			state.woken = undefined;
			try {
				then?.();
			} finally {
				ended?.resolve();
				wake?.resolve();
			}
		},
		running: () => state.running,
		runActive(ctx) {
			if (state.running) return true;
			try {
				return !ctx.isIdle();
			} catch {
				return true;
			}
		},
		current: () => state.flight,
		start: (kind, unattended, work) => start(state, kind, unattended, work),
		onDone(listener) {
			state.listeners.push(listener);
		},
		sendHeadless: (pi, ctx, message, wake) => sendHeadless(state, pi, ctx, message, wake),
		async beforeSettle() {
			while (state.flight?.headless) await state.flight.promise;
		},
		cancel: (reason) => cancel(state, reason),
		async interrupted(reason, ctx, shutdownReason) {
			const finishing = reason === "session_shutdown" && shutdownReason === "quit" && headless(ctx) && hostIdle(ctx);
			if (finishing) await finish(state, timeoutMs());
			await cancel(state, reason);
		},
		idle: () => state.flight?.promise ?? Promise.resolve(),
	};
	return slot;
}

function start(
	state: SlotState,
	kind: BackgroundKind,
	unattended: boolean,
	work: (flight: Flight) => Promise<void>,
): Flight | undefined {
	if (state.flight !== undefined) return undefined;
	const flight: Flight = {
		kind,
		controller: new AbortController(),
		promise: Promise.resolve(),
		cancelledBy: undefined,
		headless: unattended,
	};
	state.flight = flight;
	flight.promise = (async () => {
		try {
			await work(flight);
		} catch {
			// The owner records and delivers inside `work`; a throw past it frees the slot all the same.
		} finally {
			if (state.flight === flight) state.flight = undefined;
			for (const listener of state.listeners) {
				try {
					listener(flight);
				} catch {
					// One listener failing never keeps the others from starting their work.
				}
			}
		}
	})();
	return flight;
}

async function cancel(state: SlotState, reason: InterruptReason): Promise<void> {
	const flight = state.flight;
	if (flight === undefined) return;
	flight.cancelledBy = reason;
	flight.controller.abort(new Error(`aborted: ${reason}`));
	await flight.promise;
	// A review that waited for this one and started meanwhile belongs to the old session too.
	if (state.flight !== undefined && state.flight !== flight) await cancel(state, reason);
}

/** Headless and quitting: the run's end, every review in turn, then the executor turn a blocker woke. */
async function finish(state: SlotState, timeoutMs: number): Promise<void> {
	// Pi 0.73 may dispose before the run's agent_end reached the extension: let it arrive (it is
	// already queued), within the reviews' own bound.
	if (state.running) {
		state.nextEnd ??= signal();
		await boundedBy(state.nextEnd.promise, timeoutMs);
	}
	while (state.flight !== undefined) await state.flight.promise;
	await state.woken?.promise;
}

/**
 * A headless review's message, as part of the run (see the header): a blocker's turn as a
 * follow-up that continues the run (Pi 1.x, inside `agent_before_settle`) or starts one more (Pi
 * 0.73, idle); anything else queued for a next prompt while the run is still open (appended, it
 * would become the run's last message, which print mode prints only when it is the executor's),
 * or simply stored once the run is over.
 */
function sendHeadless(
	state: SlotState,
	pi: Pick<ExtensionAPI, "sendMessage">,
	ctx: ExtensionContext,
	message: Note,
	wake: boolean,
): void {
	if (wake) state.woken ??= signal();
	const inRun = !hostIdle(ctx);
	pi.sendMessage(
		message,
		wake ? { triggerTurn: true, deliverAs: "followUp" } : inRun ? { deliverAs: "nextTurn" } : { triggerTurn: false },
	);
	// Nothing started (the host refused): nothing to wait for.
	if (wake && hostIdle(ctx)) {
		state.woken?.resolve();
		state.woken = undefined;
	}
}

/** `promise`, or nothing after `ms`: a guard against an event that never arrives. */
async function boundedBy(promise: Promise<void>, ms: number): Promise<void> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const expired = new Promise<void>((resolve) => {
		timer = setTimeout(resolve, ms);
	});
	try {
		await Promise.race([promise, expired]);
	} finally {
		clearTimeout(timer);
	}
}
