/**
 * `/advisor stats` and `advisor-ledger stats`: what the advisor has cost, for the current branch and
 * for the whole session (every branch of the file), read from the session's own records — the spend
 * fold's records summed (reducers/spend-summary.ts) — and what the full-context request would have
 * cost at the same consultations (full-context.ts), and the watch's figures with the background
 * reviews' health (watch-stats.ts). docs/configuration.md, "What the advisor has cost".
 */

import type { UserMessage } from "@mariozechner/pi-ai";
import { type EntryRecord, normalizeBranch, sumFields, zeroFields } from "../../../events/index.ts";
import {
	cacheReadShare,
	emptySpendSummary,
	type SpendRecord,
	type SpendSummary,
	spendOf,
	summarizeSpend,
} from "../../../reducers/index.ts";
import { ordinalId } from "../../../render/index.ts";
import { type CursorMemo, type FullContextCost, fullContextCost, type PriceOf } from "./full-context.ts";
import { backgroundStats, sumWatchStats, type Unusable, type WatchStats } from "./watch-stats.ts";

/** How many of the costliest consultations are listed. */
export const BIGGEST = 3;

export interface CostlyConsultation {
	/** The result's (or a review's usage record's) entry id. */
	entryId: string;
	/** How the request names the entry (`#2u`) when it is on the current branch; else null. */
	ordinal: string | null;
	kind: "consultation" | "review" | "watch";
	model: string | null;
	usd: number;
	requests: number;
	cacheShare: number | null;
}

export interface ScopeStats extends Omit<SpendSummary, "biggest"> {
	watch: WatchStats;
	/** The newest background reviews that answered nothing usable, in a row; null in a sum of sessions. */
	unusable: Unusable | null;
	fullContext: FullContextCost;
	biggest: CostlyConsultation[];
}

export interface SessionStats {
	branch: ScopeStats;
	/** Every branch of the session; null when the session is that one branch (the figures would repeat). */
	session: ScopeStats | null;
}

export interface StatsInput {
	/** Every entry of the session, in file order. */
	entries: readonly EntryRecord[];
	/** The current branch, root → leaf. */
	path: readonly EntryRecord[];
	/** The full-context request's tool inventory (the executor's tools with their JSON schemas). */
	inventory: UserMessage;
	price: PriceOf;
}

function costly(record: SpendRecord, positions: ReadonlyMap<string, number>): CostlyConsultation {
	const position = positions.get(record.entryId);
	return {
		entryId: record.entryId,
		ordinal: position === undefined ? null : `#${ordinalId(position + 1)}`,
		kind: record.source === "review" || record.source === "watch" ? record.source : "consultation",
		model: record.model ?? null,
		usd: record.usage.usd,
		requests: record.requests.length,
		cacheShare: cacheReadShare(record.usage),
	};
}

function scope(
	input: StatsInput,
	onPath: readonly EntryRecord[],
	positions: ReadonlyMap<string, number>,
	memo: CursorMemo,
	path: readonly EntryRecord[] | undefined,
): ScopeStats {
	const events = normalizeBranch(onPath, input.entries);
	const spend = spendOf(events);
	const summary = summarizeSpend(spend, BIGGEST);
	const background = backgroundStats(events);
	const fullContext = fullContextCost({
		entries: input.entries,
		...(path !== undefined ? { path } : {}),
		records: spend.records,
		inventory: input.inventory,
		price: input.price,
		memo,
	});
	const { biggest, ...figures } = summary;
	return { ...figures, ...background, fullContext, biggest: biggest.map((record) => costly(record, positions)) };
}

/** The figures a sum of scopes adds, each record's keys in the order stats --json writes them. */
const CONSULTATION_FIELDS = ["total", "ok", "failed", "skipped"] as const;
const COUNT_FIELDS = ["reviews", "warming", "requests", "usd"] as const;
const TOKEN_FIELDS = ["fresh", "cacheRead", "cacheWrite", "output"] as const;
const FULL_CONTEXT_FIELDS = ["points", "priced", "ledgerTokens", "baselineTokens", "ledgerUsd", "baselineUsd"] as const;

/** Several scopes added up (several sessions' totals): every count and sum; the costliest are left out, they name entries of different files. */
export function sumScopes(scopes: readonly ScopeStats[]): ScopeStats {
	// The costliest come last in a sum, after the full-context figures.
	const { biggest: _costliest, ...empty } = emptySpendSummary();
	const out: ScopeStats = {
		...empty,
		watch: sumWatchStats(scopes.map((s) => s.watch)),
		// A streak is one session's: several sessions' say nothing about the newest answers.
		unusable: null,
		fullContext: zeroFields(FULL_CONTEXT_FIELDS),
		biggest: [],
	};
	for (const s of scopes) {
		out.consultations = sumFields(CONSULTATION_FIELDS, out.consultations, s.consultations);
		Object.assign(out, sumFields(COUNT_FIELDS, out, s));
		out.tokens = sumFields(TOKEN_FIELDS, out.tokens, s.tokens);
		out.fullContext = sumFields(FULL_CONTEXT_FIELDS, out.fullContext, s.fullContext);
	}
	out.cacheShare = cacheReadShare({
		input: out.tokens.fresh,
		cacheRead: out.tokens.cacheRead,
		cacheWrite: out.tokens.cacheWrite,
	});
	return out;
}

export function sessionStats(input: StatsInput): SessionStats {
	const positions = new Map(input.path.map((entry, index) => [entry.id, index]));
	const memo: CursorMemo = new Map();
	const branch = scope(input, input.path, positions, memo, input.path);
	const whole = input.entries.length > input.path.length;
	return { branch, session: whole ? scope(input, input.entries, positions, memo, undefined) : null };
}
