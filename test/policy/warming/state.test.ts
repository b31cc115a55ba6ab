/**
 * The warming chain: the pure state machine, then a tiny driver under fake timers that
 * executes its actions the way the adapter will (one timer, one refresh at a time).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { WarmingDecision } from "../../../src/policy/warming/decision.ts";
import {
	idleWarming,
	WARMING_CANCEL_REASONS,
	type WarmingAction,
	type WarmingCancelReason,
	type WarmingEvent,
	type WarmingState,
	type WarmingStep,
	warmingReducer,
} from "../../../src/policy/warming/state.ts";

const T0 = 1_700_000_000_000;
const TARGET = { consultationId: "call-7", payloadHash: "p-hash" };

const warm = (atMs: number): WarmingDecision => ({
	warm: true,
	atMs,
	ttlSec: 300,
	expectedSavingsUsd: 0.06,
	grossSavingsUsd: 0.135,
	refreshCostUsd: 0.075,
	coldCostUsd: 0.94,
	promptTokens: 150_000,
});
const cold = (reason: Extract<WarmingDecision, { warm: false }>["reason"]): WarmingDecision => ({
	warm: false,
	reason,
});

function run(events: WarmingEvent[], from: WarmingState = idleWarming()): WarmingStep[] {
	const steps: WarmingStep[] = [];
	let state = from;
	for (const event of events) {
		const step = warmingReducer(state, event);
		steps.push(step);
		state = step.state;
	}
	return steps;
}

const consulted = (decision: WarmingDecision, nowMs = T0): WarmingEvent => ({
	type: "consulted",
	target: TARGET,
	decision,
	nowMs,
});

describe("arming after a consultation", () => {
	it("a warm decision schedules the refresh", () => {
		const [step] = run([consulted(warm(T0 + 270_000))]);
		expect(step!.state).toEqual({ phase: "armed", seq: 0, target: TARGET, atMs: T0 + 270_000, refreshes: 0 });
		expect(step!.actions).toEqual([{ type: "schedule", atMs: T0 + 270_000, delayMs: 270_000 }]);
	});

	it("a cold decision leaves it idle and says why", () => {
		const [step] = run([consulted(cold("below-min-savings"))]);
		expect(step!.state.phase).toBe("idle");
		expect(step!.actions).toEqual([]);
		expect(step!.ended).toEqual({ by: "decision", reason: "below-min-savings" });
	});

	it("a newer consultation replaces the chain (timer replaced; an in-flight refresh aborted)", () => {
		const armed = run([consulted(warm(T0 + 270_000)), consulted(warm(T0 + 400_000), T0 + 130_000)]);
		expect(armed[1]!.actions).toEqual([
			{ type: "clearTimer" },
			{ type: "schedule", atMs: T0 + 400_000, delayMs: 270_000 },
		]);
		const inFlight = run([
			consulted(warm(T0 + 270_000)),
			{ type: "tick", nowMs: T0 + 270_000 },
			consulted(cold("below-min-prompt")),
		]);
		expect(inFlight[2]!.actions).toEqual([{ type: "abort", refreshId: 1, reason: "consultation" }]);
		expect(inFlight[2]!.state.phase).toBe("idle");
	});
});

describe("ticks", () => {
	it("at or after atMs: send the refresh of the target", () => {
		const steps = run([consulted(warm(T0 + 270_000)), { type: "tick", nowMs: T0 + 270_000 }]);
		expect(steps[1]!.actions).toEqual([{ type: "refresh", refreshId: 1, target: TARGET }]);
		expect(steps[1]!.state).toMatchObject({ phase: "refreshing", refreshId: 1 });
	});

	it("early: re-arm for the rest", () => {
		const steps = run([consulted(warm(T0 + 270_000)), { type: "tick", nowMs: T0 + 200_000 }]);
		expect(steps[1]!.actions).toEqual([{ type: "schedule", atMs: T0 + 270_000, delayMs: 70_000 }]);
		expect(steps[1]!.state.phase).toBe("armed");
	});

	it("idle or refreshing: nothing (a stale timer)", () => {
		expect(run([{ type: "tick", nowMs: T0 }])[0]!.actions).toEqual([]);
		const steps = run([consulted(warm(T0)), { type: "tick", nowMs: T0 }, { type: "tick", nowMs: T0 + 1 }]);
		expect(steps[2]!.actions).toEqual([]);
	});
});

describe("the chain", () => {
	const fired = (): WarmingEvent[] => [consulted(warm(T0 + 270_000)), { type: "tick", nowMs: T0 + 270_000 }];

	it("a hit with a warm next decision re-arms; refreshes are counted", () => {
		const steps = run([
			...fired(),
			{ type: "refreshDone", refreshId: 1, outcome: "hit", next: warm(T0 + 540_000), nowMs: T0 + 272_000 },
			{ type: "tick", nowMs: T0 + 540_000 },
		]);
		expect(steps[2]!.state).toMatchObject({ phase: "armed", atMs: T0 + 540_000, refreshes: 1 });
		expect(steps[2]!.actions).toEqual([{ type: "schedule", atMs: T0 + 540_000, delayMs: 268_000 }]);
		expect(steps[3]!.actions).toEqual([{ type: "refresh", refreshId: 2, target: TARGET }]);
	});

	it("a hit whose next decision is cold ends it (e.g. maxDurationSec reached)", () => {
		const steps = run([
			...fired(),
			{ type: "refreshDone", refreshId: 1, outcome: "hit", next: cold("expired"), nowMs: T0 },
		]);
		expect(steps[2]!.state.phase).toBe("idle");
		expect(steps[2]!.ended).toEqual({ by: "decision", reason: "expired" });
	});

	it.each(["miss", "error", "aborted"] as const)("a %s ends it", (outcome) => {
		const steps = run([...fired(), { type: "refreshDone", refreshId: 1, outcome, nowMs: T0 }]);
		expect(steps[2]!.state.phase).toBe("idle");
		expect(steps[2]!.actions).toEqual([]);
		expect(steps[2]!.ended).toEqual({ by: "outcome", outcome });
	});

	it("a refresh settling after its chain was cancelled changes nothing", () => {
		const steps = run([
			...fired(),
			{ type: "cancel", reason: "agent_end" },
			consulted(warm(T0 + 900_000), T0 + 600_000),
			{ type: "refreshDone", refreshId: 1, outcome: "hit", next: warm(T0 + 999_999), nowMs: T0 + 600_001 },
		]);
		expect(steps[4]!.state).toBe(steps[3]!.state);
		expect(steps[4]!.state.phase).toBe("armed");
		expect(steps[4]!.actions).toEqual([]);
	});

	it("refresh ids never repeat across chains", () => {
		const steps = run([
			...fired(),
			{ type: "cancel", reason: "consultation" },
			consulted(warm(T0 + 900_000), T0 + 600_000),
			{ type: "tick", nowMs: T0 + 900_000 },
		]);
		expect(steps[4]!.actions).toEqual([{ type: "refresh", refreshId: 2, target: TARGET }]);
	});
});

describe("cancellation by each event", () => {
	it("covers every event of the issue", () => {
		expect([...WARMING_CANCEL_REASONS].sort()).toEqual(
			[
				"advisor_command",
				"agent_end",
				"consultation",
				"model_select",
				"session_before_compact",
				"session_before_fork",
				"session_before_switch",
				"session_before_tree",
				"session_shutdown",
				"thinking_level_select",
			].sort(),
		);
	});

	it.each(WARMING_CANCEL_REASONS)("%s while armed: clear the timer", (reason) => {
		const steps = run([consulted(warm(T0 + 270_000)), { type: "cancel", reason }]);
		expect(steps[1]!.state.phase).toBe("idle");
		expect(steps[1]!.actions).toEqual([{ type: "clearTimer" }]);
		expect(steps[1]!.ended).toEqual({ by: "cancel", reason });
	});

	it.each(WARMING_CANCEL_REASONS)("%s while a refresh is in flight: abort it", (reason) => {
		const steps = run([consulted(warm(T0)), { type: "tick", nowMs: T0 }, { type: "cancel", reason }]);
		expect(steps[2]!.state.phase).toBe("idle");
		expect(steps[2]!.actions).toEqual([{ type: "abort", refreshId: 1, reason }]);
	});

	it.each(WARMING_CANCEL_REASONS)("%s while idle: nothing", (reason) => {
		expect(run([{ type: "cancel", reason }])[0]).toEqual({ state: idleWarming(), actions: [] });
	});
});

/**
 * The adapter's side, in miniature: a timer per "schedule", a pretend request per "refresh" that
 * settles after `latencyMs`, aborts honoured. Real timers are faked; no provider is involved.
 */
function driver(opts: { latencyMs: number; outcome: () => "hit" | "miss"; next: (nowMs: number) => WarmingDecision }) {
	let state = idleWarming();
	let timer: ReturnType<typeof setTimeout> | undefined;
	const inFlight = new Map<number, ReturnType<typeof setTimeout>>();
	const log: string[] = [];
	const feed = (event: WarmingEvent) => {
		const step = warmingReducer(state, event);
		state = step.state;
		for (const action of step.actions) execute(action);
	};
	const execute = (action: WarmingAction) => {
		switch (action.type) {
			case "schedule":
				clearTimeout(timer);
				timer = setTimeout(() => feed({ type: "tick", nowMs: Date.now() }), action.delayMs);
				return;
			case "clearTimer":
				clearTimeout(timer);
				timer = undefined;
				return;
			case "refresh": {
				const sentMs = Date.now();
				log.push(`refresh ${action.refreshId} @${(sentMs - T0) / 1000}s`);
				inFlight.set(
					action.refreshId,
					setTimeout(() => {
						inFlight.delete(action.refreshId);
						const outcome = opts.outcome();
						log.push(`usage ${action.refreshId} ${outcome}`);
						feed(
							outcome === "hit"
								? {
										type: "refreshDone",
										refreshId: action.refreshId,
										outcome,
										next: opts.next(sentMs),
										nowMs: Date.now(),
									}
								: { type: "refreshDone", refreshId: action.refreshId, outcome, nowMs: Date.now() },
						);
					}, opts.latencyMs),
				);
				return;
			}
			case "abort": {
				clearTimeout(inFlight.get(action.refreshId));
				inFlight.delete(action.refreshId);
				// The adapter records the aborted refresh's usage here, before the session changes.
				log.push(`usage ${action.refreshId} aborted (${action.reason})`);
				feed({ type: "refreshDone", refreshId: action.refreshId, outcome: "aborted", nowMs: Date.now() });
				return;
			}
			default: {
				const never: never = action;
				throw new Error(String(never));
			}
		}
	};
	return {
		feed,
		log,
		get state() {
			return state;
		},
		pending: () => vi.getTimerCount(),
	};
}

describe("driven by timers (fake)", () => {
	afterEach(() => vi.useRealTimers());

	/** 90% of a 300 s TTL after the last touch, within one hour of the consultation. */
	const next = (touchMs: number): WarmingDecision =>
		touchMs + 270_000 <= T0 + 3_600_000 ? warm(touchMs + 270_000) : cold("expired");

	it("refreshes every 270 s while hits continue, and stops at maxDurationSec", () => {
		vi.useFakeTimers({ now: T0 });
		const d = driver({ latencyMs: 2000, outcome: () => "hit", next });
		d.feed({ type: "consulted", target: TARGET, decision: next(T0), nowMs: T0 });
		vi.advanceTimersByTime(2 * 3_600_000);
		expect(d.log.filter((l) => l.startsWith("refresh"))).toHaveLength(13);
		expect(d.log[0]).toBe("refresh 1 @270s");
		// The next refresh counts from when the previous one was sent (the cache was touched then).
		expect(d.log[2]).toBe("refresh 2 @540s");
		expect(d.state.phase).toBe("idle");
		expect(d.pending()).toBe(0);
	});

	it("a miss ends the chain", () => {
		vi.useFakeTimers({ now: T0 });
		const d = driver({ latencyMs: 1000, outcome: () => "miss", next });
		d.feed({ type: "consulted", target: TARGET, decision: next(T0), nowMs: T0 });
		vi.advanceTimersByTime(3_600_000);
		expect(d.log).toEqual(["refresh 1 @270s", "usage 1 miss"]);
		expect(d.pending()).toBe(0);
	});

	it.each<WarmingCancelReason>(["agent_end", "session_before_compact", "thinking_level_select"])(
		"%s mid-refresh aborts it and records its usage; nothing fires afterwards",
		(reason) => {
			vi.useFakeTimers({ now: T0 });
			const d = driver({ latencyMs: 5000, outcome: () => "hit", next });
			d.feed({ type: "consulted", target: TARGET, decision: next(T0), nowMs: T0 });
			vi.advanceTimersByTime(272_000);
			d.feed({ type: "cancel", reason });
			vi.advanceTimersByTime(3_600_000);
			expect(d.log).toEqual(["refresh 1 @270s", `usage 1 aborted (${reason})`]);
			expect(d.state.phase).toBe("idle");
			expect(d.pending()).toBe(0);
		},
	);

	it("a cancel before the timer fires sends nothing", () => {
		vi.useFakeTimers({ now: T0 });
		const d = driver({ latencyMs: 1000, outcome: () => "hit", next });
		d.feed({ type: "consulted", target: TARGET, decision: next(T0), nowMs: T0 });
		vi.advanceTimersByTime(100_000);
		d.feed({ type: "cancel", reason: "model_select" });
		vi.advanceTimersByTime(3_600_000);
		expect(d.log).toEqual([]);
		expect(d.pending()).toBe(0);
	});
});
