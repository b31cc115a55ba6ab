/**
 * The watch's signals (docs/configuration.md#the-watch): what, in the facts the branch folds into
 * (reducers/watch-facts.ts), is worth a review nobody asked for. Each is a pure function of the
 * facts at the end of an executor turn, and names the facts it fired on, so the same facts are
 * reviewed once:
 *
 * - `failure-streak`: one run — the same test, build or check run of the same files, the same
 *   program, the same tool on the same path — or one error line failed `failureStreak` times with
 *   no pass between; it fires at the turn that brings the count to a multiple of `failureStreak`
 *   (three, then six …), so a run that keeps failing after the advice is looked at again, not at
 *   every failure.
 * - `untested-edits`: `untestedFiles` files changed since the newest test, build or check run, on a
 *   branch that has run one (so the project has something to run).
 * - `long-run`: `longRunRounds` tool rounds, some of them changing files, since the advisor last
 *   looked (a completed consultation, a completion review or a watch review), and every
 *   `longRunRounds` after that while it does not look.
 */

import { assertNever } from "../../events/index.ts";
import type { WatchFacts, WatchFinding } from "../../reducers/index.ts";

/** The `watch` keys of advisor.json the signals read (the adapter's section fits this). */
export interface WatchSignalSettings {
	/** Failures of one run with no pass between; 0 = off. */
	failureStreak: number;
	/** Tool rounds since the advisor last looked; 0 = off. */
	longRunRounds: number;
	/** Files changed since the newest test, build or check run; 0 = off. */
	untestedFiles: number;
}

/** How many of a streak's failures the request names by id. */
const NAMED_FAILURES = 4;
/** How many changed files the request names. */
const NAMED_FILES = 12;

/**
 * Failure streaks that reach a multiple of the threshold at this turn, longest first; of two as
 * long, a run's before an error line's (the same failures, most often: the run names what was run,
 * and its reason quotes the error line anyway).
 */
function failureStreaks(facts: WatchFacts, threshold: number, turnPos: number): WatchFinding[] {
	if (threshold <= 0) return [];
	const out: (WatchFinding & { signal: "failure-streak" })[] = [];
	for (const streak of facts.streaks.values()) {
		const newest = streak.rounds.at(-1);
		if (newest === undefined || newest.pos <= turnPos) continue;
		if (streak.count < threshold || streak.count % threshold !== 0) continue;
		out.push({
			signal: "failure-streak",
			key: `failure-streak\u0000${streak.key}\u0000${streak.first.id}\u0000${streak.count}`,
			streak: streak.key,
			by: streak.key.startsWith("error\u0000") ? "error" : "run",
			firstId: streak.first.id,
			label: streak.label,
			count: streak.count,
			rounds: streak.rounds.slice(-NAMED_FAILURES),
			error: streak.error,
		});
	}
	// The longest first; of two as long, the one by run (it says what failed; the error line says why).
	return out.sort(
		(a, b) => b.count - a.count || (a.by === b.by ? a.key.localeCompare(b.key) : a.by === "run" ? -1 : 1),
	);
}

function untestedEdits(facts: WatchFacts, threshold: number): WatchFinding[] {
	const { verify } = facts;
	if (threshold <= 0 || verify.runs === 0 || verify.editedSince.length < threshold) return [];
	return [
		{
			signal: "untested-edits",
			key: `untested-edits\u0000${verify.runs}`,
			verifyRuns: verify.runs,
			files: verify.editedSince.slice(0, NAMED_FILES),
			fileCount: verify.editedSince.length,
			editRounds: verify.editRoundsSince,
		},
	];
}

function longRun(facts: WatchFacts, threshold: number): WatchFinding[] {
	const since = facts.rounds - facts.opinion.lastRound;
	if (threshold <= 0 || since < threshold || facts.opinion.editRounds === 0) return [];
	const step = Math.floor(since / threshold);
	return [
		{
			signal: "long-run",
			key: `long-run\u0000${facts.opinion.lastRound}\u0000${step}`,
			rounds: since,
			editRounds: facts.opinion.editRounds,
			sinceStart: facts.opinion.count === 0,
		},
	];
}

/**
 * Every signal that fires at the end of the newest turn, most pressing first: a failure streak,
 * then edits left untested, then a long run; already reviewed findings are left out.
 */
export function watchFindings(facts: WatchFacts, settings: WatchSignalSettings): WatchFinding[] {
	const turn = facts.turn;
	if (turn === undefined) return [];
	const all = [
		...failureStreaks(facts, settings.failureStreak, turn.pos),
		...untestedEdits(facts, settings.untestedFiles),
		...longRun(facts, settings.longRunRounds),
	];
	return all.filter((finding) => !facts.watch.keys.has(finding.key));
}

/**
 * Whether what woke the watch still holds on the branch as it is now (a review settles a few turns
 * later): the streak has had no pass since, no test, build or check has run since the edits. A long
 * run is a checkpoint: it always holds.
 */
export function findingHolds(finding: WatchFinding, facts: WatchFacts): boolean {
	switch (finding.signal) {
		case "failure-streak":
			return facts.streaks.get(finding.streak)?.first.id === finding.firstId;
		case "untested-edits":
			return facts.verify.runs === finding.verifyRuns;
		case "long-run":
			return true;
		default:
			return assertNever(finding, "watch finding");
	}
}
