/**
 * The watch over a whole branch, entry by entry, as if it had been on (docs/configuration.md#the-watch):
 * what `advisor-ledger replay --watch` prices, and what a property holds equal to the decisions made
 * while living the branch. Pure: the caller prices (what the executor's turns cost, what a review is
 * expected to cost) and tells what each review it ran cost; the timeline folds the branch, decides at
 * the end of every executor turn, and folds a record of each review it asked for — as the extension
 * writes one — so cooldowns and "each finding once" hold as they would live.
 */

import { CUSTOM_TYPES, type LedgerEvent } from "../../events/index.ts";
import { emptyWatchFacts, foldWatchFacts, type WatchFacts, type WatchFinding } from "../../reducers/index.ts";
import { type WatchDecision, type WatchSettings, watchDecision } from "./decision.ts";
import { watchUsageRecord } from "./delivery.ts";

export interface WatchPricing {
	/** What the executor's turns cost so far, in dollars (the facts hold their token counts). */
	executorUsd(facts: WatchFacts): number;
	/** What a review is expected to cost now, in dollars. */
	expectedUsd(facts: WatchFacts): number;
}

/** A decision the watch made, at the end of the turn that ends with entry `atEntryId`. */
export interface WatchMoment {
	atEntryId: string;
	/** Path position of that entry. */
	pos: number;
	decision: WatchDecision;
}

export interface WatchTimeline {
	/**
	 * Folds one entry's event; when it ends an executor turn, decides. A review asked for must be
	 * told with `reviewed` before the next push; a skipped finding is recorded here.
	 */
	push(event: LedgerEvent): WatchMoment | undefined;
	/** The review the newest decision asked for was run, and cost `usd` (`advice`: it answered). */
	reviewed(moment: WatchMoment, usd: number, answered: boolean): void;
	facts(): WatchFacts;
}

/** The usage record the extension would write for a finding, folded as the entry after the decision. */
function recordEvent(
	moment: WatchMoment,
	finding: WatchFinding,
	usd: number,
	outcome: "advice" | "skipped",
	reason?: string,
): LedgerEvent {
	const data = watchUsageRecord({
		model: "watch:timeline",
		usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { total: usd } },
		finding,
		atEntryId: moment.atEntryId,
		outcome,
		delivery: outcome === "skipped" ? "not-reviewed" : "none",
		timestampMs: 0,
		...(reason !== undefined ? { errorMessage: reason } : {}),
	});
	return {
		kind: "custom",
		id: `${moment.atEntryId}:watch`,
		parentId: moment.atEntryId,
		customType: CUSTOM_TYPES.usage,
		data,
	};
}

export function createWatchTimeline(settings: WatchSettings, pricing: WatchPricing, cwd?: string): WatchTimeline {
	let facts = emptyWatchFacts(cwd);
	// The record is folded without a path position of its own: it sits at the decision's entry.
	const fold = (event: LedgerEvent) => {
		const position = facts.position;
		facts = { ...foldWatchFacts(facts, [event]), position };
	};
	return {
		push(event) {
			const rounds = facts.rounds;
			facts = foldWatchFacts(facts, [event]);
			const turn = facts.turn;
			const endsTurn =
				event.kind === "toolResult" && facts.rounds > rounds && turn !== undefined && turn.rounds === turn.calls;
			if (!endsTurn) return undefined;
			const decision = watchDecision({
				facts,
				settings,
				executorUsd: pricing.executorUsd(facts),
				expectedUsd: pricing.expectedUsd(facts),
			});
			const moment = { atEntryId: event.id, pos: facts.position, decision };
			if (!decision.review && decision.finding !== undefined)
				fold(recordEvent(moment, decision.finding, 0, "skipped", decision.reason));
			return moment;
		},
		reviewed(moment, usd, answered) {
			if (!moment.decision.review) return;
			fold(recordEvent(moment, moment.decision.finding, usd, answered ? "advice" : "skipped"));
		},
		facts: () => facts,
	};
}
