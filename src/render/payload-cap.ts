/**
 * Never larger than the executor's context (docs/request-format.md, "Never larger than the executor's
 * context"): a request may not outgrow the payload it stands in for — the executor's context as the host
 * measured it — beyond the amount by which the advisor's fixed head (system prompt, declarations,
 * catalogue, framing and instruction) is larger than the executor's own. The log is held by its cut
 * (log-cut.ts), whose decisions stay put so the cached prefix does; what is left to give is the
 * appendix, the one volatile part: its oldest entries go first, the newest too when they must, and
 * the appendix says so. Only when the appendix has given all it has — after a compaction that left
 * Pi's context smaller than the log's newest items, which Pi does not make — does the log's cut move
 * further, as few items as fit, the stand-in saying what it left out; that cut is this request's
 * alone, so the next request's prefix may differ from it.
 */

import type { LedgerState } from "../reducers/index.ts";
import { tokensForChars } from "./estimate.ts";
import { cutAfter, firstItem, firstKept, itemAfter, type LogCut } from "./log-items.ts";
import { APPENDIX_HEADER, APPENDIX_LEFT_OUT } from "./model-text.ts";
import type { LedgerRequest } from "./request-units.ts";

/** The executor's context a request stands in for, as the host measured it. */
export interface Payload {
	/** The whole context: system prompt, tool declarations and messages. */
	tokens: number;
	/** Of that, its fixed head: the system prompt and the tool declarations. */
	headTokens: number;
}

/** The most a request may take: the payload, plus what the advisor's fixed head has over the executor's. */
export function requestBudget(payload: Payload, advisorHeadTokens: number): number {
	return payload.tokens + Math.max(0, advisorHeadTokens - payload.headTokens);
}

/** The appendix part from its entries (oldest first): whole when it fits `room` tokens, else its newest that fit and the note. */
export function fitAppendix(entries: readonly string[], room: number): string | undefined {
	if (entries.length === 0) return undefined;
	const whole = `${APPENDIX_HEADER}\n${entries.join("")}`;
	if (tokensForChars(whole.length) <= room) return whole;
	let from = 1;
	let chars = whole.length - APPENDIX_HEADER.length - 1 - entries[0]!.length;
	const framing = (left: number) => APPENDIX_HEADER.length + APPENDIX_LEFT_OUT(left).length + 2;
	while (from < entries.length && tokensForChars(framing(from) + chars) > room) {
		chars -= entries[from]!.length;
		from++;
	}
	return `${APPENDIX_HEADER}\n${APPENDIX_LEFT_OUT(from)}\n${entries.slice(from).join("")}`;
}

/**
 * The request with its whole appendix, or, when that is over `budget` tokens, with as much of the
 * appendix as fits. `assemble` makes the request with a given appendix part.
 */
export function heldToPayload(
	entries: readonly string[],
	budget: number,
	assemble: (appendix: string | undefined) => LedgerRequest,
): LedgerRequest {
	let appendix = fitAppendix(entries, Number.POSITIVE_INFINITY);
	let request = assemble(appendix);
	if (appendix === undefined) return request;
	// The appendix's room: the budget less the rest of the request. A message's tokens are rounded as a
	// whole, so the room is narrowed by what is still over until it fits or nothing is left to give.
	let room = budget - (request.tokens - Math.floor(appendix.length / 4));
	const least = fitAppendix(entries, Number.NEGATIVE_INFINITY);
	while (request.tokens > budget && appendix !== least) {
		const fitted = fitAppendix(entries, room);
		if (fitted !== appendix) {
			appendix = fitted;
			request = assemble(appendix);
		}
		room -= Math.max(1, request.tokens - budget);
	}
	return request;
}

/**
 * The cut `k` items further than `cut` (none: from the first item), or undefined when fewer than one
 * item would be left: what the request gives when the appendix has nothing more to give.
 */
export function furtherCut(state: LedgerState, cut: LogCut | undefined, k: number): LogCut | undefined {
	let next = cut === undefined ? firstItem(state) : firstKept(state, cut);
	let dropped = cut?.droppedItems ?? 0;
	for (let i = 0; i < k; i++) {
		if (next === undefined) return undefined;
		const after = itemAfter(state, next);
		if (after === undefined) return undefined;
		if (i === k - 1) return cutAfter(next, dropped + 1);
		dropped++;
		next = after;
	}
	return cut;
}

/** A request rendered against the budget, and whether it is still larger. */
export interface Held {
	request: LedgerRequest;
	over: boolean;
}

/**
 * The request with the log cut at `base`, or, when that is still larger than the budget with its
 * appendix given up, cut further: as few items as fit (a doubling search, then a bisection, so a long
 * log costs a logarithmic number of renders), or all but the newest item when nothing fits.
 */
export function cutToPayload(
	state: LedgerState,
	base: LogCut | undefined,
	render: (cut: LogCut | undefined) => Held,
): LedgerRequest {
	const first = render(base);
	if (!first.over) return first.request;
	const at = (k: number) => furtherCut(state, base, k);
	let fits: { k: number; request: LedgerRequest } | undefined;
	let over = 0;
	for (let k = 1; fits === undefined && at(k) !== undefined; k *= 2) {
		const tried = render(at(k));
		if (tried.over) over = k;
		else fits = { k, request: tried.request };
	}
	if (fits === undefined) {
		// Past the last doubling: the most that can go (all but the newest item), if more than tried.
		let most = over;
		while (at(most + 1) !== undefined) most++;
		if (most === over) return over === 0 ? first.request : render(at(over)).request;
		const tried = render(at(most));
		if (tried.over) return tried.request;
		fits = { k: most, request: tried.request };
	}
	let [low, high] = [over, fits.k];
	while (high - low > 1) {
		const mid = Math.floor((low + high) / 2);
		const tried = render(at(mid));
		if (tried.over) low = mid;
		else [high, fits] = [mid, { k: mid, request: tried.request }];
	}
	return fits.request;
}
