/**
 * Where the log is cut, and why (docs/request-format.md, "The log's size"; the figures behind it in
 * docs/decisions.md). Everything before the cut is left out of the request and one part stands in
 * for it (stand-in.ts); everything after stays as it was. Two rules place a cut, and the one that
 * leaves more out wins (`logCut`):
 *
 * 1. The log's own size (`cutBySize`). The ledger keeps every entry, compactions included, so a long
 *    session's log would grow without end; the request holds it to `ledger.logTargetTokens` instead:
 *    - the items of the log (log-items.ts) are taken in order, each with its rendered size; once those
 *      kept since the cut pass the target, the cut moves forward in one large step, until what is kept
 *      is KEPT_AFTER_CUT of the target — so the cached prefix is rewritten rarely, and the stand-in
 *      keeps the left-out span's facts;
 *    - at a compaction, the target is at most COMPACTION_SHARE of what Pi's context then holds, so the
 *      request stays below the executor's own context right after Pi shrank it;
 *    - the newest MIN_KEPT_ITEMS items are never left out, nor the newest `tailToolCalls` rounds: the
 *      verbatim tail's cards stay in the log.
 * 2. A budget trim's sticky anchor (policy/budget/trim.ts, `locateCut`): the log up to the anchor.
 *
 * Every decision of the size rule depends only on the items up to where it is made, so the cut of a
 * branch's prefix is the cut its extension had at that point, and a trim's anchor stays where it was
 * put: consecutive requests share their prefix, stand-in included (it depends on the left-out span
 * alone), while the cut stays, which is what the cache reads. The scan is kept per item in the render
 * memo, so each request scans only the items new since the last.
 */

import type { LedgerState, RenderTrim } from "../reducers/index.ts";
import { tokensForChars } from "./estimate.ts";
import type { LedgerConfig } from "./ledger-section.ts";
import {
	cutAfter,
	firstItem,
	type ItemAt,
	itemAfter,
	itemBefore,
	itemObject,
	type LogCut,
	lastItem,
} from "./log-items.ts";
import { configKey, type RenderMemo, sharedMemo } from "./render-memo.ts";
import { standInFor } from "./stand-in.ts";

/**
 * Where a request of `state` cuts the log: the log's own size, or a budget trim's anchor when that
 * leaves out more (an anchor that names no ledger item is no cut). `options` are the request's.
 */
export function logCut(
	state: LedgerState,
	options: { config: LedgerConfig; trim?: RenderTrim },
	memo: RenderMemo = sharedMemo,
): LogCut | undefined {
	const bySize = cutBySize(state, options.config, memo);
	const anchor = options.trim?.anchorEntryId;
	const byAnchor = anchor === undefined ? undefined : locateCut(state, anchor);
	if (bySize === undefined || byAnchor === undefined) return bySize ?? byAnchor;
	return byAnchor.droppedItems > bySize.droppedItems ? byAnchor : bySize;
}

/** What a cut keeps of the target: a large step, so the next one comes late. */
export const KEPT_AFTER_CUT = 0.05;
/** At a compaction, the log is held to this share of Pi's context after it. */
export const COMPACTION_SHARE = 0.5;
/** The newest items are never left out, whatever their size. */
export const MIN_KEPT_ITEMS = 8;

/** The scan of the log up to one item: where the cut is, and what is kept since. */
interface Scan {
	/** The item's place in the sequence (1-based count of items through it). */
	count: number;
	/** Items left out (0: none). */
	dropped: number;
	/** The first item kept: where the cut moves on from. */
	keptFrom: ItemAt;
	/** Tokens of the items kept, through this one. */
	keptTokens: number;
	/** Tool rounds among the items kept. */
	keptRounds: number;
}

function isRound(state: LedgerState, at: ItemAt): boolean {
	const item = itemObject(state, at)!;
	return "kind" in item && item.kind === "round";
}

/** An item's rendered size in tokens: a block as the log shows it; a segment's close as its question and advice. */
function itemTokens(state: LedgerState, at: ItemAt, config: LedgerConfig, memo: RenderMemo): number {
	const item = itemObject(state, at)!;
	if ("kind" in item) return tokensForChars(memo.block(item, config).length);
	const chars =
		Math.min(item.question.length, config.tailMaxChars) + Math.min(item.advice.length, config.tailMaxChars);
	return tokensForChars(chars + CLOSE_FRAMING_CHARS);
}

/** The log's closing and opening tags, the question's and the advice's framing around a close. */
const CLOSE_FRAMING_CHARS = 60;

/**
 * The target at an item. At a compaction, Pi's context became small: the whole request — the
 * stand-in of the cut so far and the log kept — must fit in COMPACTION_SHARE of it.
 */
function targetAt(
	state: LedgerState,
	at: ItemAt,
	before: Scan | undefined,
	config: LedgerConfig,
	memo: RenderMemo,
): number {
	const target = config.logTargetTokens;
	const item = itemObject(state, at)!;
	if (!("kind" in item) || item.kind !== "compaction") return target;
	const room = Math.floor(COMPACTION_SHARE * tokensForChars(item.contextChars));
	if (before === undefined || before.dropped === 0) return Math.min(target, room);
	const cut = cutAfter(itemBefore(state, before.keptFrom)!, before.dropped);
	return Math.min(target, room - tokensForChars(standInFor(state, cut, config, memo).length));
}

/** The scan after `at`, from the scan before it (undefined: `at` is the first item). */
function step(state: LedgerState, before: Scan | undefined, at: ItemAt, config: LedgerConfig, memo: RenderMemo): Scan {
	const count = (before?.count ?? 0) + 1;
	let dropped = before?.dropped ?? 0;
	let keptFrom = before?.keptFrom ?? at;
	let keptTokens = (before?.keptTokens ?? 0) + itemTokens(state, at, config, memo);
	let keptRounds = (before?.keptRounds ?? 0) + (isRound(state, at) ? 1 : 0);
	const target = targetAt(state, at, before, config, memo);
	if (keptTokens > target) {
		const keep = KEPT_AFTER_CUT * Math.max(0, target);
		while (keptTokens > keep && count - dropped > MIN_KEPT_ITEMS) {
			const round = isRound(state, keptFrom);
			if (round && keptRounds <= config.tailToolCalls) break;
			keptTokens -= itemTokens(state, keptFrom, config, memo);
			if (round) keptRounds--;
			dropped++;
			keptFrom = itemAfter(state, keptFrom)!;
		}
	}
	return { count, dropped, keptFrom, keptTokens, keptRounds };
}

/**
 * Where the log's own size cuts it for a request of `state`: undefined while it fits (or with
 * `logTargetTokens` 0). Incremental: the scan resumes from the newest item the memo has one for.
 */
export function cutBySize(state: LedgerState, config: LedgerConfig, memo: RenderMemo): LogCut | undefined {
	if (config.logTargetTokens <= 0) return undefined;
	const key = `size:${configKey(config)}`;
	const end = lastItem(state);
	if (end === undefined) return undefined;
	// Back to the newest item already scanned, then forward again to the end.
	const pending: ItemAt[] = [];
	let at: ItemAt | undefined = end;
	let scan: Scan | undefined;
	while (at !== undefined) {
		scan = memo.findHeld<Scan>(itemObject(state, at)!, key);
		if (scan !== undefined) break;
		pending.push(at);
		at = itemBefore(state, at);
	}
	for (let i = pending.length - 1; i >= 0; i--) {
		const next = step(state, scan, pending[i]!, config, memo);
		scan = memo.held(itemObject(state, pending[i]!)!, key, () => next);
	}
	if (scan === undefined || scan.dropped === 0) return undefined;
	const last = itemBefore(state, scan.keptFrom) ?? firstItem(state)!;
	return cutAfter(last, scan.dropped);
}

/**
 * The cut for a trim anchor: right after the FIRST item with that id (ids can repeat — an assistant
 * message's prose and its calls that never got a result share its id — and the first occurrence is
 * the one that can never move as the branch grows). Undefined when no item has that id.
 */
export function locateCut(state: LedgerState, anchorEntryId: string): LogCut | undefined {
	let n = 0;
	for (let s = 0; s < state.closed.length; s++) {
		const segment = state.closed[s]!;
		for (let b = 0; b < segment.blocks.length; b++) {
			n++;
			if (segment.blocks[b]!.id === anchorEntryId) return cutAfter({ segment: s, block: b }, n);
		}
		n++;
		if (segment.closingId === anchorEntryId) return cutAfter({ segment: s, block: -1 }, n);
	}
	for (let b = 0; b < state.open.length; b++) {
		n++;
		if (state.open.at(b)!.id === anchorEntryId) return cutAfter({ segment: state.closed.length, block: b }, n);
	}
	return undefined;
}
