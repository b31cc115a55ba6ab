/**
 * What the full-context request would have cost at the points where the ledger was consulted: the
 * replay's baseline (adapter/baseline: Pi's own context with the in-flight call stripped, plus a tool
 * inventory with JSON schemas — what rpiv-advisor 2.11 sends) at each consultation whose first request
 * was billed (one cancelled before then is on neither side), priced at that consultation's advisor
 * prices and cached against the baseline of the previous such point on the same path, from the
 * model's minimum up, the way the replay prices it. Only first requests' prompts
 * are compared: the answer, and the investigation rounds that grow from the first request, would come
 * on top of either side.
 */

import type { UserMessage } from "@mariozechner/pi-ai";
import type { EntryRecord } from "../../../events/index.ts";
import { selectBranch } from "../../../events/index.ts";
import { cachingModelFor, minCachedTokens } from "../../../policy/index.ts";
import { promptTokensOf, type SpendRecord } from "../../../reducers/index.ts";
import { type BaselineRequest, baselineShares } from "../baseline/baseline-reuse.ts";
import {
	type CacheSplitModel,
	cachedPrefix,
	type PromptPrices,
	priceSplit,
	priceUncached,
	splitPrompt,
} from "../baseline/cache-split.ts";
import { advanceBaseline, type BaselineCursor, emptyBaseline, pointRequest } from "../baseline/track.ts";
import { parseModelKey } from "../pi/model-key.ts";

/** A model's prompt prices and how its provider caches ("none": no cache price listed), from what length up. */
export interface PointPrice {
	prices: PromptPrices;
	caching: CacheSplitModel | "none";
	/** The model's minimum cacheable prompt (docs/configuration.md, "Minimum cacheable lengths"). */
	minTokens: number;
}

/** Looks a recorded `provider:modelId` up; undefined when it has no prices. */
export type PriceOf = (model: string) => PointPrice | undefined;

/** A registry model's prompt prices and caching model (policy/budget's, as the estimate uses it). */
export function pointPrice(model: Parameters<typeof cachingModelFor>[0]): PointPrice | undefined {
	const { cost } = model;
	if (!(cost.input > 0)) return undefined;
	const caching = cachingModelFor(model);
	return {
		prices: { input: cost.input, cacheRead: cost.cacheRead, cacheWrite: cost.cacheWrite },
		caching: caching.kind === "breakpoints" ? "breakpoint" : caching.kind,
		minTokens: minCachedTokens(model),
	};
}

/** `provider:modelId` (or `provider/modelId`) → a registry lookup's price. */
export function priceOf(find: (provider: string, id: string) => Parameters<typeof pointPrice>[0] | undefined): PriceOf {
	return (model) => {
		const key = parseModelKey(model);
		if (key === undefined) return undefined;
		const found = find(key.provider, key.modelId);
		return found === undefined ? undefined : pointPrice(found);
	};
}

export interface FullContextCost {
	/** Consultations whose first request was billed: the points compared. */
	points: number;
	/** Of those, the ones whose model has prices (only they are in the sums below). */
	priced: number;
	/** Prompt tokens of the ledger's first requests, as billed, and of the full-context requests (estimated). */
	ledgerTokens: number;
	baselineTokens: number;
	/** What the ledger's first requests' prompts were billed, and what the full-context ones would have cost. */
	ledgerUsd: number;
	baselineUsd: number;
}

/** Baseline cursors after each entry, shared by every path that holds it (a session's paths share their trunk). */
export type CursorMemo = Map<string, BaselineCursor>;

function cursorBefore(path: readonly EntryRecord[], index: number, memo: CursorMemo): BaselineCursor {
	let from = index - 1;
	while (from >= 0 && !memo.has(path[from]!.id)) from--;
	let cursor = from >= 0 ? memo.get(path[from]!.id)! : emptyBaseline;
	for (let k = from + 1; k < index; k++) {
		cursor = advanceBaseline(cursor, path, k, k + 1);
		memo.set(path[k]!.id, cursor);
	}
	return cursor;
}

function callIdOf(record: EntryRecord | undefined): string | undefined {
	if (record === undefined || record.kind === "opaque") return undefined;
	const message = (record.entry as { message?: { toolCallId?: unknown } }).message;
	return typeof message?.toolCallId === "string" ? message.toolCallId : undefined;
}

function priceBaseline(price: PointPrice, now: BaselineRequest, previous: BaselineRequest | undefined): number {
	if (price.caching === "none") return priceUncached(now.tokens, price.prices);
	const share =
		previous === undefined
			? undefined
			: baselineShares(previous, now)[price.caching === "breakpoint" ? "breakpoint" : "tokenPrefix"];
	const cached = cachedPrefix(previous?.tokens, share, now.tokens);
	return priceSplit(splitPrompt(price.caching, now.tokens, cached, price.minTokens), price.prices);
}

export interface FullContextInput {
	/** Every entry of the session, in file order. */
	entries: readonly EntryRecord[];
	/** The path the records lie on; absent: each record's own path (the whole session). */
	path?: readonly EntryRecord[];
	/** The records to compare, in file order (spend records of consultations). */
	records: readonly SpendRecord[];
	inventory: UserMessage;
	price: PriceOf;
	memo?: CursorMemo;
}

export function fullContextCost(input: FullContextInput): FullContextCost {
	const memo = input.memo ?? new Map();
	const out: FullContextCost = {
		points: 0,
		priced: 0,
		ledgerTokens: 0,
		baselineTokens: 0,
		ledgerUsd: 0,
		baselineUsd: 0,
	};
	// The baseline request at each point already measured, by its result's entry id: the next point's cache candidate.
	const measured = new Map<string, BaselineRequest>();
	for (const record of input.records) {
		const first = record.requests[0];
		if (record.source !== "consultation" || first === undefined || record.model === undefined) continue;
		// Cancelled (or failed) before the provider billed its first request: the ledger's side would be
		// $0 beside a priced full context, so the point is left out on both sides, and a later point's
		// baseline is not cached from it either (docs/configuration.md, "What the advisor has cost").
		if (!(promptTokensOf(first) > 0)) continue;
		const path = input.path ?? selectBranch(input.entries, record.entryId).path;
		const index = path.findIndex((e) => e.id === record.entryId);
		if (index === -1) continue;
		out.points++;
		const now = pointRequest(cursorBefore(path, index, memo), input.inventory, callIdOf(path[index]));
		let previous: BaselineRequest | undefined;
		for (let k = index - 1; k >= 0 && previous === undefined; k--) previous = measured.get(path[k]!.id);
		measured.set(record.entryId, now);
		const price = input.price(record.model);
		if (price === undefined) continue;
		out.priced++;
		out.ledgerTokens += promptTokensOf(first);
		out.ledgerUsd += Math.max(0, first.usd - first.outputUsd);
		out.baselineTokens += now.tokens;
		out.baselineUsd += priceBaseline(price, now, previous);
	}
	return out;
}
