/**
 * `/advisor stats` and `advisor-ledger stats`: what the advisor has cost, for the current branch and
 * for the whole session (every branch of the file), read from the session's own records — the spend
 * fold's records summed (reducers/spend-summary.ts) — and what the full-context request would have
 * cost at the same consultations (full-context.ts). docs/configuration.md, "What the advisor has cost".
 */

import type { UserMessage } from "@mariozechner/pi-ai";
import { type EntryRecord, normalizeBranch } from "../../events/index.ts";
import { cacheShareOf, type SpendRecord, type SpendSummary, spendOf, summarizeSpend } from "../../reducers/index.ts";
import { ordinalId } from "../../render/index.ts";
import { type CursorMemo, type FullContextCost, fullContextCost, type PriceOf } from "./full-context.ts";

/** How many of the costliest consultations are listed. */
export const BIGGEST = 3;

export interface CostlyConsultation {
	/** The result's (or a review's usage record's) entry id. */
	entryId: string;
	/** How the request names the entry (`#2u`) when it is on the current branch; else null. */
	ordinal: string | null;
	kind: "consultation" | "review";
	model: string | null;
	usd: number;
	requests: number;
	cacheShare: number | null;
}

export interface ScopeStats extends Omit<SpendSummary, "biggest"> {
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
		kind: record.source === "review" ? "review" : "consultation",
		model: record.model ?? null,
		usd: record.usage.costUsd,
		requests: record.requests.length,
		cacheShare: cacheShareOf(record.usage),
	};
}

function scope(
	input: StatsInput,
	onPath: readonly EntryRecord[],
	positions: ReadonlyMap<string, number>,
	memo: CursorMemo,
	path: readonly EntryRecord[] | undefined,
): ScopeStats {
	const spend = spendOf(normalizeBranch(onPath, input.entries));
	const summary = summarizeSpend(spend, BIGGEST);
	const fullContext = fullContextCost({
		entries: input.entries,
		...(path !== undefined ? { path } : {}),
		records: spend.records,
		inventory: input.inventory,
		price: input.price,
		memo,
	});
	return { ...summary, fullContext, biggest: summary.biggest.map((record) => costly(record, positions)) };
}

/** Several scopes added up (several sessions' totals): every count and sum; the costliest are left out, they name entries of different files. */
export function sumScopes(scopes: readonly ScopeStats[]): ScopeStats {
	const out: ScopeStats = {
		consultations: { total: 0, ok: 0, failed: 0, skipped: 0 },
		reviews: 0,
		warming: 0,
		requests: 0,
		tokens: { fresh: 0, cacheRead: 0, cacheWrite: 0, output: 0 },
		usd: 0,
		cacheShare: null,
		fullContext: { points: 0, priced: 0, ledgerTokens: 0, baselineTokens: 0, ledgerUsd: 0, baselineUsd: 0 },
		biggest: [],
	};
	const add = <T extends Record<K, number>, K extends keyof T>(into: T, from: T, keys: readonly K[]) => {
		for (const key of keys) (into[key] as number) += from[key];
	};
	for (const s of scopes) {
		add(out.consultations, s.consultations, ["total", "ok", "failed", "skipped"]);
		add(out, s, ["reviews", "warming", "requests", "usd"]);
		add(out.tokens, s.tokens, ["fresh", "cacheRead", "cacheWrite", "output"]);
		add(out.fullContext, s.fullContext, [
			"points",
			"priced",
			"ledgerTokens",
			"baselineTokens",
			"ledgerUsd",
			"baselineUsd",
		]);
	}
	out.cacheShare = cacheShareOf({
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
