/**
 * Whether the watch reviews at the end of an executor turn (docs/configuration.md#the-watch): a
 * pure function of the branch's watch facts, the settings, and two figures the adapter prices (what
 * the executor's turns have cost, what a review is expected to cost). Zero model calls when nothing
 * fires. The rules, in order:
 *
 * 1. `watch.enabled` (else "disabled").
 * 2. The newest executor turn ran tools and every call has its result ("no-new-round"): the turn
 *    that ends in a final answer is the completion review's, and a half-finished turn has nothing
 *    to judge yet.
 * 3. Not the turn a watch note caused ("own-note"): the executor's answer to a note never wakes the
 *    watch.
 * 4. A signal fires on facts not reviewed before (else "quiet"); the most pressing wins.
 * 5. `cooldownRounds` tool rounds since the newest watch review ("cooldown").
 * 6. Fewer than `maxNotesPerPrompt` notes steered in since the user's last message ("prompt-cap").
 * 7. Its expected cost keeps the watch within `maxShare` of the executor's spend ("over-share").
 *
 * A finding skipped at 5–7 is recorded by the adapter, so it is not tried again and /advisor stats
 * can say why; one skipped at 1–4 is not a finding at all.
 */

import type { WatchFacts, WatchFinding } from "../../reducers/index.ts";
import { type WatchSignalSettings, watchFindings } from "./signals.ts";

/** The `watch` keys of advisor.json (the adapter's section fits this). */
export interface WatchSettings extends WatchSignalSettings {
	enabled: boolean;
	/** Tool rounds between two watch reviews. */
	cooldownRounds: number;
	/** Notes steered into the executor's context per user prompt. */
	maxNotesPerPrompt: number;
	/** The watch's spend as a share of the executor's, at most; 0 = no cap. */
	maxShare: number;
}

export type WatchSkipReason =
	| "disabled"
	| "no-new-round"
	| "own-note"
	| "quiet"
	| "cooldown"
	| "prompt-cap"
	| "over-share";

export interface WatchDecisionInput {
	facts: WatchFacts;
	settings: WatchSettings;
	/** What the executor's turns on this branch cost so far, in dollars. */
	executorUsd: number;
	/** What a review is expected to cost now, in dollars. */
	expectedUsd: number;
}

export type WatchDecision =
	| { review: true; finding: WatchFinding }
	| { review: false; reason: WatchSkipReason; finding?: WatchFinding };

export function watchDecision(input: WatchDecisionInput): WatchDecision {
	const { facts, settings } = input;
	if (!settings.enabled) return { review: false, reason: "disabled" };
	const turn = facts.turn;
	if (turn === undefined || turn.calls === 0 || turn.rounds < turn.calls)
		return { review: false, reason: "no-new-round" };
	if (facts.watch.turnsSinceNote !== undefined && facts.watch.turnsSinceNote <= 1)
		return { review: false, reason: "own-note" };
	const finding = watchFindings(facts, settings)[0];
	if (finding === undefined) return { review: false, reason: "quiet" };
	const last = facts.watch.lastReviewRound;
	if (last !== undefined && facts.rounds - last < settings.cooldownRounds)
		return { review: false, reason: "cooldown", finding };
	if (facts.prompt.notes >= settings.maxNotesPerPrompt) return { review: false, reason: "prompt-cap", finding };
	if (settings.maxShare > 0 && facts.watch.usd + input.expectedUsd > settings.maxShare * input.executorUsd)
		return { review: false, reason: "over-share", finding };
	return { review: true, finding };
}
