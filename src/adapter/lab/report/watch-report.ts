/**
 * What `replay --watch` adds to the replay report (docs/cli.md, "replay --watch"): the watch run over
 * every replayed branch as if it had been on, each review it would have asked for priced as the
 * replay prices a consultation's first request, plus an output allowance, beside what the executor's
 * own turns cost at the same prices. A session's `watch` lists its reviews; the report's sums every
 * session's. Filled by replay/watch-replay.ts; absent from the report without `--watch`.
 */

import { WATCH_SIGNALS, type WatchSignal } from "../../../events/index.ts";
import type { WatchSettings } from "../../../policy/index.ts";
import { ratio, round, roundOrNull } from "./numbers.ts";
import type { PointShares } from "./point-shares.ts";

/** Dollars under each of the two cache models the replay prices consultations with. */
export interface WatchUsd {
	tokenPrefix: number;
	breakpoint: number;
}

/** One review the watch would have asked for. */
export interface WatchReviewReport {
	/** The entry whose turn woke the watch, and its id as the request names it (`#N`). */
	atEntryId: string;
	card: string;
	signal: WatchSignal;
	/** Why it woke, as the request says it (render/watch-note.ts `watchReason`). */
	reason: string;
	/** The watch request's tokens (chars/4). */
	tokens: number;
	/** Shares of the previous advisor request on the branch (a consultation's or a review's) this one repeats. */
	cacheShare?: PointShares;
	/** Token-prefix share of the previous watch review's request this one repeats (absent on the first). */
	reuse?: number;
	/** Its request and the output allowance, under each cache model. */
	usd: WatchUsd;
}

/** Findings the watch found but did not review, by the rule that held it back (policy/watch/decision.ts). */
export interface WatchSkips {
	cooldown: number;
	promptCap: number;
	overShare: number;
}

/** What the executor's own turns cost: the token counts its messages recorded, priced at the report's model. */
export interface ExecutorSpend {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	/** These tokens at the report's price model. */
	usd: number;
	/** What the session itself recorded (many record $0). */
	recordedUsd: number;
}

export interface ReuseStats {
	/** Consecutive watch reviews measured. */
	pairs: number;
	p50: number | null;
	mean: number | null;
	min: number | null;
}

/** What a session's watch and the whole report's both hold. */
export interface WatchSummary {
	reviews: number;
	bySignal: Record<WatchSignal, number>;
	skipped: WatchSkips;
	/** The reviews' dollars, each at the dearer of the two cache models: what the decision weighed. */
	usd: number;
	byCacheModel: WatchUsd;
	executor: ExecutorSpend;
	/** usd / executor.usd (null when the executor's tokens price to nothing). */
	share: number | null;
	/** Token-prefix reuse between consecutive watch reviews. */
	reuse: ReuseStats;
}

export interface SessionWatch extends WatchSummary {
	reviewed: WatchReviewReport[];
}

export interface ReplayWatch extends WatchSummary {
	/** advisor.json's `watch` section as replayed (`enabled` is the flag's). */
	settings: WatchSettings;
	/** Output tokens each review is priced with (replay/watch-cost.ts). */
	outputTokens: number;
}

const emptyBySignal = (): Record<WatchSignal, number> =>
	Object.fromEntries(WATCH_SIGNALS.map((signal) => [signal, 0])) as Record<WatchSignal, number>;

export const emptySkips = (): WatchSkips => ({ cooldown: 0, promptCap: 0, overShare: 0 });

function median(sorted: readonly number[]): number | null {
	if (sorted.length === 0) return null;
	const mid = sorted.length >> 1;
	return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function reuseStats(values: readonly number[]): ReuseStats {
	const sorted = [...values].sort((a, b) => a - b);
	const mean = values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
	return {
		pairs: values.length,
		p50: roundOrNull(median(sorted)),
		mean: roundOrNull(mean),
		min: roundOrNull(sorted[0] ?? null),
	};
}

/** The dearer of a review's two figures: what the decision weighs it at, so its cap holds under both. */
export function dearer(usd: WatchUsd): number {
	return Math.max(usd.tokenPrefix, usd.breakpoint);
}

function summaryOf(
	reviewed: readonly WatchReviewReport[],
	skipped: WatchSkips,
	executor: ExecutorSpend,
	reuse: readonly number[],
): WatchSummary {
	const bySignal = emptyBySignal();
	let usd = 0;
	const byCacheModel: WatchUsd = { tokenPrefix: 0, breakpoint: 0 };
	for (const review of reviewed) {
		bySignal[review.signal]++;
		usd += dearer(review.usd);
		byCacheModel.tokenPrefix += review.usd.tokenPrefix;
		byCacheModel.breakpoint += review.usd.breakpoint;
	}
	return {
		reviews: reviewed.length,
		bySignal,
		skipped,
		usd: round(usd, 6),
		byCacheModel: { tokenPrefix: round(byCacheModel.tokenPrefix, 6), breakpoint: round(byCacheModel.breakpoint, 6) },
		executor,
		share: ratio(usd, executor.usd),
		reuse: reuseStats(reuse),
	};
}

/** One branch's watch from its reviews, what it held back, and the executor's spend. */
export function sessionWatch(
	reviewed: WatchReviewReport[],
	skipped: WatchSkips,
	executor: ExecutorSpend,
): SessionWatch {
	const reuse = reviewed.flatMap((r) => (r.reuse === undefined ? [] : [r.reuse]));
	return { ...summaryOf(reviewed, skipped, executor, reuse), reviewed };
}

/** The whole report's watch: every session's summed (each branch watched on its own). */
export function watchTotals(
	sessions: readonly SessionWatch[],
	settings: WatchSettings,
	outputTokens: number,
): ReplayWatch {
	const skipped = emptySkips();
	const executor: ExecutorSpend = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, usd: 0, recordedUsd: 0 };
	for (const s of sessions) {
		skipped.cooldown += s.skipped.cooldown;
		skipped.promptCap += s.skipped.promptCap;
		skipped.overShare += s.skipped.overShare;
		executor.input += s.executor.input;
		executor.output += s.executor.output;
		executor.cacheRead += s.executor.cacheRead;
		executor.cacheWrite += s.executor.cacheWrite;
		executor.usd += s.executor.usd;
		executor.recordedUsd += s.executor.recordedUsd;
	}
	executor.usd = round(executor.usd, 6);
	executor.recordedUsd = round(executor.recordedUsd, 6);
	const reviewed = sessions.flatMap((s) => s.reviewed);
	const reuse = reviewed.flatMap((r) => (r.reuse === undefined ? [] : [r.reuse]));
	return { settings, outputTokens, ...summaryOf(reviewed, skipped, executor, reuse) };
}
