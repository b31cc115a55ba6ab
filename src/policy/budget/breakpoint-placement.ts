/**
 * Cache breakpoints on the routes that take Anthropic-style marks (docs/request-format.md §7): where
 * pi-ai and the extension put them on a request, and which earlier entry a request can read. Pure:
 * positions are unit indices of a LedgerRequest (0 the system prompt, 1 the tool declarations,
 * then every content part in order), and a unit stands for one content block.
 *
 * The rule, as Anthropic documents it: a breakpoint writes the prefix ending with its block; a
 * request reads the longest prefix written before that ends at its own breakpoint or at one of the
 * 20 block boundaries before it. At most four breakpoints per request.
 *
 * pi-ai marks the system prompt, the last tool and the last user block. The extension adds the
 * end of the stable portion, which the next consultation reads, and — when the previous
 * consultation's stable end lies more than the lookback before this one's — a bridge: a mark right
 * there, so the entry the previous consultation wrote is found. Beyond four, the earliest marks go:
 * a later mark within the lookback reads their prefix too.
 */

import { buildContext, declarationCount, type LedgerRequest, unitAt, unitCount } from "../../render/index.ts";

/** Anthropic's limit of cache_control blocks per request (more is a 400). */
export const MAX_BREAKPOINTS = 4;
/** How many block boundaries before a breakpoint Anthropic checks for an earlier entry. */
export const LOOKBACK_BLOCKS = 20;

/** What a recorded request keeps of its stable portion (RequestRecord, RequestFingerprint). */
export interface StableEnd {
	stableUnits: number;
	stableHash: string;
}

export interface ExtensionMarks {
	/** The last unit of the stable portion. */
	stable: number;
	/** The previous request's stable end, when this request repeats it more than the lookback before `stable`. */
	bridge: number | undefined;
}

/** True when `request` starts with the prefix `end` records. */
export function repeatsStableEnd(request: LedgerRequest, end: StableEnd): boolean {
	const unit = end.stableUnits - 1;
	return unit >= 0 && unit < unitCount(request) && unitAt(request, unit)!.prefixHash === end.stableHash;
}

/**
 * The extension's own marks on `request`: its stable end, and a bridge to the stable end of
 * `previous` (the newest request of the same model on the branch) when that is needed.
 */
export function extensionMarks(
	request: LedgerRequest,
	previous: StableEnd | undefined,
	lookback: number = LOOKBACK_BLOCKS,
): ExtensionMarks {
	const stable = request.stable.unitCount - 1;
	if (previous === undefined || !repeatsStableEnd(request, previous)) return { stable, bridge: undefined };
	const bridge = previous.stableUnits - 1;
	// The head (system prompt, tools) carries pi-ai's own marks.
	const needed = bridge >= 2 && stable - bridge > lookback;
	return { stable, bridge: needed ? bridge : undefined };
}

export interface MarkOptions {
	/** Add the bridge when it is needed (false: the stable end only, as before bridges). */
	bridges: boolean;
	lookback?: number;
}

/**
 * Every mark of `request` as sent, ascending, at most four: pi-ai's (the system prompt, the tool
 * declarations when there are any, the last unit) and the extension's; the earliest dropped first.
 */
export function requestMarks(request: LedgerRequest, previous: StableEnd | undefined, options: MarkOptions): number[] {
	const own = extensionMarks(request, options.bridges ? previous : undefined, options.lookback);
	const count = unitCount(request);
	const marks = new Set<number>([0, count - 1, own.stable]);
	if (declarationCount(request) > 0) marks.add(1);
	if (own.bridge !== undefined) marks.add(own.bridge);
	const sorted = [...marks].filter((u) => u >= 0 && u < count).sort((a, b) => a - b);
	return sorted.slice(Math.max(0, sorted.length - MAX_BREAKPOINTS));
}

/** True when one of `marks` lies at `unit` or at most `lookback` units after it. */
export function withinReach(unit: number, marks: readonly number[], lookback: number = LOOKBACK_BLOCKS): boolean {
	return marks.some((b) => b >= unit && b - unit <= lookback);
}

/** Where a unit sits in the request's messages: the message, and how many of its parts end with it. */
export function unitPosition(
	request: LedgerRequest,
	unit: number,
): { messageIndex: number; partCount: number } | undefined {
	let first = 2;
	const { messages } = buildContext(request);
	for (let m = 0; m < messages.length; m++) {
		const content = messages[m]!.content;
		const parts = typeof content === "string" ? 1 : content.length;
		if (unit < first + parts) return unit >= first ? { messageIndex: m, partCount: unit - first + 1 } : undefined;
		first += parts;
	}
	return undefined;
}
