/**
 * How much of an earlier request a later one can reuse, in the two caching models providers use
 * (docs/architecture.md, docs/request-format.md §7). Both are pure functions of the two requests' units.
 */

import { commonUnits, type LedgerRequest, unitAt, unitCount } from "../../render/index.ts";
import { LOOKBACK_BLOCKS, requestMarks, type StableEnd, withinReach } from "./breakpoint-placement.ts";

function commonPrefixLength(a: string, b: string): number {
	const n = Math.min(a.length, b.length);
	let i = 0;
	while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
	return i;
}

/** Token-prefix model (OpenAI-style): characters of the longest common prefix of the flattened requests. */
export function tokenPrefixChars(previous: LedgerRequest, next: LedgerRequest): number {
	const k = commonUnits(previous, next);
	const before = k === 0 ? 0 : unitAt(previous, k - 1)!.prefixChars;
	if (k >= unitCount(previous) || k >= unitCount(next)) return before;
	return before + commonPrefixLength(unitAt(previous, k)!.text, unitAt(next, k)!.text);
}

/**
 * Breakpoint model (Anthropic-style, docs/request-format.md §7): the longest prefix the earlier
 * request wrote at one of its breakpoints that ends at most the lookback before one of the later
 * request's breakpoints. The later request's marks include the bridge to the earlier one's stable
 * end when `bridges` is set; the earlier one's entries are its own marks (its bridge left out: it
 * ends before its stable end, which the later request reaches whenever it reaches the bridge).
 */
export function breakpointChars(
	previous: LedgerRequest,
	next: LedgerRequest,
	bridges: boolean,
	lookback: number = LOOKBACK_BLOCKS,
): number {
	const written = requestMarks(previous, undefined, { bridges: false, lookback });
	const end: StableEnd = { stableUnits: previous.stable.unitCount, stableHash: previous.stable.hash };
	const mine = requestMarks(next, end, { bridges, lookback });
	let best = 0;
	for (const unit of written) {
		const theirs = unitAt(previous, unit)!;
		if (unit >= unitCount(next) || unitAt(next, unit)!.prefixHash !== theirs.prefixHash) continue;
		if (withinReach(unit, mine, lookback)) best = Math.max(best, theirs.prefixChars);
	}
	return best;
}

export function totalChars(request: LedgerRequest): number {
	const count = unitCount(request);
	return count === 0 ? 0 : unitAt(request, count - 1)!.prefixChars;
}

/**
 * Shares of the earlier request reused by the later one, 0…1: token prefix; breakpoints with the
 * lookback and the bridges the extension sets; the same without bridges.
 */
export function reuseShares(
	previous: LedgerRequest,
	next: LedgerRequest,
): { tokenPrefix: number; breakpoint: number; breakpointNoBridges: number } {
	const total = totalChars(previous);
	if (total === 0) return { tokenPrefix: 0, breakpoint: 0, breakpointNoBridges: 0 };
	return {
		tokenPrefix: tokenPrefixChars(previous, next) / total,
		breakpoint: breakpointChars(previous, next, true) / total,
		breakpointNoBridges: breakpointChars(previous, next, false) / total,
	};
}
