/**
 * The watch and the advisor's background answers, in `/advisor stats` and `advisor-ledger stats`
 * (docs/configuration.md#the-watch): what the watch reviewed and why, what became of its answers,
 * what it skipped and why, what it cost beside the executor's own spend; and an advisor whose last
 * background reviews (completion reviews and the watch's) answered nothing usable. Read from the
 * session's own records, like the rest of the stats.
 */

import {
	CUSTOM_TYPES,
	type LedgerEvent,
	parseUsageRecordData,
	SEVERITIES,
	type Severity,
	WATCH_DELIVERIES,
	WATCH_SIGNALS,
	type WatchDelivery,
	type WatchSignal,
} from "../../../events/index.ts";
import { parseUsage } from "../../../reducers/index.ts";

/** Why a watch finding was not reviewed: the watch's own guards, or the budget gate before any request. */
export const WATCH_SKIPS = ["cooldown", "prompt-cap", "over-share", "budget"] as const;
export type WatchSkip = (typeof WATCH_SKIPS)[number];

/** The background reviews that answered nothing usable in a row before it is said. */
export const UNUSABLE_STREAK = 3;

type Counts<K extends string> = Record<K, number>;

export interface WatchStats {
	/** Watch reviews sent (a finding skipped before any request is not one). */
	reviews: number;
	bySignal: Counts<WatchSignal>;
	/** Of the reviews that answered: the answer's severity, and what became of it. */
	bySeverity: Counts<Severity>;
	byDelivery: Counts<Exclude<WatchDelivery, "not-reviewed">>;
	/** Reviews that did not answer. */
	failed: number;
	timeout: number;
	cancelled: number;
	skipped: Counts<WatchSkip>;
	/** What the watch cost, and what the executor's own turns recorded (their messages' usage). */
	usd: number;
	executorUsd: number;
}

/** The newest background reviews that answered nothing usable, one after the other. */
export interface Unusable {
	count: number;
	failed: number;
	timeout: number;
	/** Answered, but with no text. */
	empty: number;
}

function zero<K extends string>(keys: readonly K[]): Counts<K> {
	return Object.fromEntries(keys.map((k) => [k, 0])) as Counts<K>;
}

export function emptyWatchStats(): WatchStats {
	return {
		reviews: 0,
		bySignal: zero(WATCH_SIGNALS),
		bySeverity: zero(SEVERITIES),
		byDelivery: zero(
			WATCH_DELIVERIES.filter((d): d is Exclude<WatchDelivery, "not-reviewed"> => d !== "not-reviewed"),
		),
		failed: 0,
		timeout: 0,
		cancelled: 0,
		skipped: zero(WATCH_SKIPS),
		usd: 0,
		executorUsd: 0,
	};
}

/** The watch's own guards, as its records name them (background/watch.ts); anything else skipped is the gate's. */
function skipOf(errorMessage: string | undefined): WatchSkip {
	return errorMessage === "cooldown" || errorMessage === "prompt-cap" || errorMessage === "over-share"
		? errorMessage
		: "budget";
}

type Record_ = NonNullable<ReturnType<typeof parseUsageRecordData>>;

function countWatch(out: WatchStats, record: Record_): void {
	out.usd += parseUsage(record.usage)?.usd ?? 0;
	if (record.outcome === "skipped") {
		out.skipped[skipOf(record.errorMessage)]++;
		return;
	}
	out.reviews++;
	if (record.signal !== undefined) out.bySignal[record.signal]++;
	switch (record.outcome) {
		case "failed":
			out.failed++;
			return;
		case "timeout":
			out.timeout++;
			return;
		case "cancelled":
			out.cancelled++;
			return;
		default:
			if (record.severity !== undefined) out.bySeverity[record.severity]++;
			if (record.delivery !== undefined && record.delivery !== "not-reviewed") out.byDelivery[record.delivery]++;
	}
}

/** One background review's answer, for the streak: usable, not, or not the advisor's doing (a skip, a cancel). */
function answerOf(record: Record_): "usable" | "failed" | "timeout" | "empty" | undefined {
	if (record.kind === "warming") return undefined;
	switch (record.outcome) {
		case "advice":
		case undefined:
			return "usable";
		case "timeout":
			return "timeout";
		case "failed":
			// An empty answer leaves no error message (background/review-outcome.ts `outcomeOf`).
			return record.errorMessage === undefined ? "empty" : "failed";
		default:
			return undefined;
	}
}

/** The watch's figures and the newest run of unusable background answers, from a scope's events. */
export function backgroundStats(events: readonly LedgerEvent[]): { watch: WatchStats; unusable: Unusable } {
	const watch = emptyWatchStats();
	let unusable: Unusable = { count: 0, failed: 0, timeout: 0, empty: 0 };
	for (const event of events) {
		if (event.kind === "assistant") {
			watch.executorUsd += parseUsage(event.usage)?.usd ?? 0;
			continue;
		}
		if (event.kind !== "custom" || event.customType !== CUSTOM_TYPES.usage) continue;
		const record = parseUsageRecordData(event.data);
		if (record === undefined) continue;
		if (record.kind === "watch") countWatch(watch, record);
		const answer = answerOf(record);
		if (answer === "usable") unusable = { count: 0, failed: 0, timeout: 0, empty: 0 };
		else if (answer !== undefined)
			unusable = { ...unusable, count: unusable.count + 1, [answer]: unusable[answer] + 1 };
	}
	return { watch, unusable };
}

/** Several scopes' watch figures added up. */
export function sumWatchStats(all: readonly WatchStats[]): WatchStats {
	const out = emptyWatchStats();
	const add = <K extends string>(into: Counts<K>, from: Counts<K>) => {
		for (const key of Object.keys(into) as K[]) into[key] += from[key];
	};
	for (const s of all) {
		out.reviews += s.reviews;
		add(out.bySignal, s.bySignal);
		add(out.bySeverity, s.bySeverity);
		add(out.byDelivery, s.byDelivery);
		out.failed += s.failed;
		out.timeout += s.timeout;
		out.cancelled += s.cancelled;
		add(out.skipped, s.skipped);
		out.usd += s.usd;
		out.executorUsd += s.executorUsd;
	}
	return out;
}
