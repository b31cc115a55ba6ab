/**
 * The watch's timeline (policy/watch/timeline.ts) over generated branches (test/support/watch-gen.ts:
 * failures, passes, edits, consultations, reviews, notes): replaying a session yields the reviews
 * living it did. Two ways of saying it:
 *
 * - causal: its decisions over a prefix of a branch are the prefix of its decisions over the branch
 *   (nothing after a turn changes what the watch decided at it);
 * - the same as lived: at every turn end, the decision the extension makes from the session as
 *   recorded so far — its own usage records included, folded from scratch — is the timeline's.
 *
 * Runs per property: 200, or FC_RUNS.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CUSTOM_TYPES, type LedgerEvent } from "../../../src/events/index.ts";
import {
	createWatchTimeline,
	type WatchMoment,
	type WatchPricing,
	type WatchSettings,
	watchDecision,
	watchUsageRecord,
} from "../../../src/policy/index.ts";
import { type WatchFacts, watchFactsOf } from "../../../src/reducers/index.ts";
import { RUNS } from "../../support/session-gen.ts";
import { watchBranch, watchStepsArb } from "../../support/watch-gen.ts";

const settingsArb: fc.Arbitrary<WatchSettings> = fc.record({
	enabled: fc.constant(true),
	failureStreak: fc.nat(4),
	untestedFiles: fc.nat(5),
	longRunRounds: fc.nat(12),
	cooldownRounds: fc.nat(4),
	maxNotesPerPrompt: fc.nat(3),
	maxShare: fc.constantFrom(0, 0.05, 0.5, 5),
});

/** Pricing that reads only what living and replaying share (never a path position). */
const pricing: WatchPricing = {
	executorUsd: (facts) => facts.executor.usd,
	expectedUsd: (facts) => 0.0001 * ((facts.rounds % 7) + 1),
};

/** Whether a review answered, and what it cost: from the facts both ways share. */
const answered = (facts: WatchFacts) => facts.rounds % 3 !== 0;

/** The timeline over `events`, telling it of every review it asks for. */
function timelineMoments(events: readonly LedgerEvent[], settings: WatchSettings): WatchMoment[] {
	const timeline = createWatchTimeline(settings, pricing);
	const moments: WatchMoment[] = [];
	for (const event of events) {
		const moment = timeline.push(event);
		if (moment === undefined) continue;
		moments.push(moment);
		if (moment.decision.review)
			timeline.reviewed(moment, pricing.expectedUsd(timeline.facts()), answered(timeline.facts()));
	}
	return moments;
}

/** What a decision says, without the positions only one of the two ways counts. */
function said(atEntryId: string, decision: WatchMoment["decision"]) {
	return {
		atEntryId,
		review: decision.review,
		reason: decision.review ? undefined : decision.reason,
		finding: decision.finding?.key,
	};
}

/**
 * The extension's way: at the end of every executor turn, the session as recorded so far folded from
 * scratch and decided on; every review it runs and every finding it holds back appended as the usage
 * record it writes.
 */
function lived(events: readonly LedgerEvent[], settings: WatchSettings): ReturnType<typeof said>[] {
	const recorded: LedgerEvent[] = [];
	const out: ReturnType<typeof said>[] = [];
	let rounds = 0;
	for (const event of events) {
		recorded.push(event);
		const facts = watchFactsOf(recorded);
		const turn = facts.turn;
		const endsTurn =
			event.kind === "toolResult" && facts.rounds > rounds && turn !== undefined && turn.rounds === turn.calls;
		rounds = facts.rounds;
		if (!endsTurn) continue;
		const decision = watchDecision({
			facts,
			settings,
			executorUsd: pricing.executorUsd(facts),
			expectedUsd: pricing.expectedUsd(facts),
		});
		out.push(said(event.id, decision));
		if (decision.finding === undefined) continue;
		const usd = decision.review ? pricing.expectedUsd(facts) : 0;
		const outcome = decision.review && answered(facts) ? "advice" : "skipped";
		const data = watchUsageRecord({
			model: "anthropic:opus",
			usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { total: usd } },
			finding: decision.finding,
			atEntryId: event.id,
			outcome,
			delivery: decision.review ? "none" : "not-reviewed",
			timestampMs: 0,
		});
		recorded.push({
			kind: "custom",
			id: `${event.id}:watch`,
			parentId: event.id,
			customType: CUSTOM_TYPES.usage,
			data,
		});
	}
	return out;
}

describe("the watch's timeline over generated branches", () => {
	it("decides over a branch's prefix as it decided over the whole branch, up to the prefix's end", () => {
		fc.assert(
			fc.property(watchStepsArb, settingsArb, fc.double({ min: 0, max: 1, noNaN: true }), (steps, settings, cut) => {
				const events = watchBranch(steps);
				const k = Math.floor(cut * events.length);
				const whole = timelineMoments(events, settings);
				const prefix = timelineMoments(events.slice(0, k), settings);
				expect(prefix).toEqual(whole.filter((m) => m.pos <= k));
			}),
			{ numRuns: RUNS },
		);
	});

	it("replaying a branch yields the decisions living it made, reviews and held-back findings alike", () => {
		fc.assert(
			fc.property(watchStepsArb, settingsArb, (steps, settings) => {
				const events = watchBranch(steps);
				const replayed = timelineMoments(events, settings).map((m) => said(m.atEntryId, m.decision));
				expect(replayed).toEqual(lived(events, settings));
			}),
			{ numRuns: RUNS },
		);
	});

	it("the generated branches reach every signal, reviewed and held back (the properties are not vacuous)", () => {
		const seen = new Set<string>();
		fc.assert(
			fc.property(watchStepsArb, settingsArb, (steps, settings) => {
				for (const m of timelineMoments(watchBranch(steps), settings)) {
					const d = m.decision;
					if (d.finding !== undefined) seen.add(`${d.finding.signal}:${d.review ? "review" : d.reason}`);
				}
			}),
			{ numRuns: RUNS },
		);
		for (const signal of ["failure-streak", "untested-edits", "long-run"])
			expect([...seen].filter((s) => s.startsWith(`${signal}:review`))).not.toEqual([]);
		for (const reason of ["cooldown", "prompt-cap", "over-share"])
			expect(
				[...seen].some((s) => s.endsWith(`:${reason}`)),
				reason,
			).toBe(true);
	});
});
