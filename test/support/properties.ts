/**
 * Shared pieces of the prefix properties: where a branch may be cut so that the earlier request
 * is a true prefix of the later one, and the assertion that it is.
 */
import fc from "fast-check";
import { expect } from "vitest";
import { type LedgerEvent, readSession } from "../../src/events/index.ts";
import {
	APPENDIX_HEADER,
	buildContext,
	flatten,
	type LedgerRequest,
	unitAt,
	unitCount,
} from "../../src/render/index.ts";
import { LOG_CLOSE } from "../../src/render/model-text.ts";
import { type PlanOptions, sessionArb } from "./session-gen.ts";

/** A number in [0, 1]: a position along a list, scaled by its length. */
export const fractionArb = fc.double({ min: 0, max: 1, noNaN: true });

/** An index into a list of `n` from a fraction in [0, 1]. */
export const pickIndex = (fraction: number, n: number): number => Math.min(n - 1, Math.floor(fraction * n));

export const eventsOf = (jsonl: string): LedgerEvent[] => readSession(jsonl).events;

/** A compaction that rebuilds the ledger, or a branch summary: the stable part starts over after it. */
export const isBoundary = (e: LedgerEvent): boolean =>
	(e.kind === "compaction" && e.resets) || e.kind === "branchSummary";

/**
 * Where to cut `events` at `fraction` so that no boundary follows the cut: anywhere from just after
 * the last boundary to the end, both included.
 */
export function prefixCut(events: readonly LedgerEvent[], fraction: number): number {
	let start = 0;
	events.forEach((e, i) => {
		if (isBoundary(e)) start = i + 1;
	});
	return start + Math.floor(fraction * (events.length - start + 1));
}

/** A generated session's events and a prefix of them cut by `prefixCut`. */
export function prefixCutArb(
	options?: PlanOptions,
): fc.Arbitrary<{ events: LedgerEvent[]; cut: number; prefix: LedgerEvent[] }> {
	return fc.tuple(sessionArb(options), fractionArb).map(([session, at]) => {
		const events = eventsOf(session.jsonl);
		const cut = prefixCut(events, at);
		return { events, cut, prefix: events.slice(0, cut) };
	});
}

/** The stable part of `earlier` is a byte prefix of `later`, and its chained hash is found at the same unit. */
export function expectStablePrefix(earlier: LedgerRequest, later: LedgerRequest): void {
	expect(flatten(later).startsWith(flatten(earlier, earlier.stable.unitCount))).toBe(true);
	const n = earlier.stable.unitCount;
	expect(unitCount(later)).toBeGreaterThanOrEqual(n);
	if (n > 0) expect(unitAt(later, n - 1)!.prefixHash).toBe(earlier.stable.hash);
}

/** The stable units of `earlier` appear whole and in place in `later`. */
export function expectStableUnitsInPlace(earlier: LedgerRequest, later: LedgerRequest): void {
	const n = earlier.stable.unitCount;
	expect(unitCount(later)).toBeGreaterThanOrEqual(n);
	for (let u = 0; u < n; u++) expect(unitAt(later, u)!.text).toBe(unitAt(earlier, u)!.text);
	expectStablePrefix(earlier, later);
}

/** The text of each unit after the stable portion (the marker stripped): appendix?, LOG_CLOSE + question, instruction. */
export function volatileParts(request: LedgerRequest): string[] {
	const last = buildContext(request).messages.at(-1)!;
	const parts =
		typeof last.content === "string" ? [last.content] : last.content.map((p) => (p.type === "text" ? p.text : ""));
	return parts.slice(request.stable.partCount);
}

/**
 * The v2 prefix statement: `later` starts with all of `earlier` except its appendix, question and
 * instruction (token-prefix flattening), and what `earlier` had after its stable portion is exactly
 * those: an optional appendix part opening with the header, then the log close with the question
 * (or the review close), then the instruction.
 */
export function expectExtendsMinusAppendix(earlier: LedgerRequest, later: LedgerRequest): void {
	const tail = volatileParts(earlier);
	expect(earlier.stable.messageIndex).toBe(buildContext(earlier).messages.length - 1);
	expect(tail.length === 2 || tail.length === 3).toBe(true);
	if (tail.length === 3) expect(tail[0]!.startsWith(`${APPENDIX_HEADER}\n`)).toBe(true);
	expect(tail.at(-2)!.startsWith(LOG_CLOSE)).toBe(true);
	expect(unitCount(earlier) - earlier.stable.unitCount).toBe(tail.length);
	expectStablePrefix(earlier, later);
}
