/**
 * How much of an earlier request a later one can reuse, in the two caching models providers use
 * (docs/architecture.md). Both are pure functions of the two requests' units.
 */

import type { LedgerRequest } from "../../render/index.ts";

/**
 * Units both requests share from the start, compared by chained hash. A unit's hash covers every
 * unit before it, so equal hashes at k mean equal prefixes up to k: a binary search finds the end.
 */
function commonUnits(previous: LedgerRequest, next: LedgerRequest): number {
	let low = 0;
	let high = Math.min(previous.units.length, next.units.length);
	while (low < high) {
		const mid = (low + high) >> 1;
		if (previous.units[mid]!.prefixHash === next.units[mid]!.prefixHash) low = mid + 1;
		else high = mid;
	}
	return low;
}

function commonPrefixLength(a: string, b: string): number {
	const n = Math.min(a.length, b.length);
	let i = 0;
	while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
	return i;
}

/** Token-prefix model (OpenAI-style): characters of the longest common prefix of the flattened requests. */
export function tokenPrefixChars(previous: LedgerRequest, next: LedgerRequest): number {
	const k = commonUnits(previous, next);
	const before = k === 0 ? 0 : previous.units[k - 1]!.prefixChars;
	if (k >= previous.units.length || k >= next.units.length) return before;
	return before + commonPrefixLength(previous.units[k]!.text, next.units[k]!.text);
}

/**
 * Where a request writes cache breakpoints: pi-ai marks the system prompt, the last tool and the
 * last user message; the adapter adds one at the end of the stable portion. Unit indices (inclusive).
 */
export function breakpointUnits(request: LedgerRequest): number[] {
	const points = new Set<number>([0, 1, request.stable.unitCount - 1, request.units.length - 1]);
	return [...points].filter((i) => i >= 0 && i < request.units.length).sort((a, b) => a - b);
}

/** Breakpoint model (Anthropic-style): the longest prefix ending at a breakpoint the earlier request wrote. */
export function breakpointChars(previous: LedgerRequest, next: LedgerRequest): number {
	let best = 0;
	for (const unit of breakpointUnits(previous)) {
		const mine = previous.units[unit]!;
		if (unit < next.units.length && next.units[unit]!.prefixHash === mine.prefixHash)
			best = Math.max(best, mine.prefixChars);
	}
	return best;
}

export function totalChars(request: LedgerRequest): number {
	return request.units.length === 0 ? 0 : request.units[request.units.length - 1]!.prefixChars;
}

/** Shares of the earlier request reused by the later one, 0…1. */
export function cacheShares(previous: LedgerRequest, next: LedgerRequest): { tokenPrefix: number; breakpoint: number } {
	const total = totalChars(previous);
	if (total === 0) return { tokenPrefix: 0, breakpoint: 0 };
	return {
		tokenPrefix: tokenPrefixChars(previous, next) / total,
		breakpoint: breakpointChars(previous, next) / total,
	};
}
