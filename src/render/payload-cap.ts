/**
 * Never larger than the executor's context (docs/request-format.md, "Never larger than the executor's
 * context"): a request may not outgrow the payload it stands in for — the executor's context as the host
 * measured it — beyond the amount by which the advisor's fixed head (system prompt, declarations,
 * catalogue, framing and instruction) is larger than the executor's own. The log is held by its cut
 * (log-cut.ts), whose decisions stay put so the cached prefix does; what is left to give is the
 * appendix, the one volatile part: its oldest entries go first, the newest too when they must, and
 * the appendix says so.
 */

import { tokensForChars } from "./estimate.ts";
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
