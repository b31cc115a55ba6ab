/** Output caps shared by every investigation tool: `tools.maxResultChars` and its fair split. */

import { safeHead, safeTail, TOOL_TEXT } from "../../../render/index.ts";

/** Share of the budget that goes to the head: tools put what matters first, notices last. */
const HEAD_SHARE = 2 / 3;

/**
 * At most `max` UTF-16 units: head and tail around a marker on its own line saying how much
 * was dropped. The tail survives because Pi's tools end on their continuation notices
 * ("Use offset=… to continue").
 */
export function clipHeadTail(text: string, max: number): string {
	if (text.length <= max) return text;
	// Size the marker for the largest possible count so the result never exceeds max.
	const markerLen = TOOL_TEXT.clipped(text.length).length + 2;
	const budget = max - markerLen;
	if (budget <= 0) return safeHead(text, Math.max(0, max));
	const head = safeHead(text, Math.ceil(budget * HEAD_SHARE));
	const tail = safeTail(text, budget - head.length);
	return `${head}\n${TOOL_TEXT.clipped(text.length - head.length - tail.length)}\n${tail}`;
}

/**
 * Split `total` among items of the given lengths, water-filling: nobody gets more than it
 * needs, and what short items leave over goes to the long ones in equal parts.
 */
export function fairShares(lengths: readonly number[], total: number): number[] {
	const shares = lengths.map(() => 0);
	const order = lengths.map((len, i) => ({ len, i })).sort((a, b) => a.len - b.len || a.i - b.i);
	let remaining = Math.max(0, Math.floor(total));
	order.forEach(({ len, i }, k) => {
		const share = Math.floor(remaining / (order.length - k));
		const given = Math.min(len, share);
		shares[i] = given;
		remaining -= given;
	});
	return shares;
}
