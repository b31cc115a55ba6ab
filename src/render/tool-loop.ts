/**
 * The advisor's investigation loop grows the conversation: each round appends the advisor's reply
 * (tool calls) and the tool results to the request it answered. Every request of the loop is
 * estimated afresh, so it is measured the same way as the ledger request: one unit per content
 * part in the same encoding (request-units.ts), chained after the request's units; chars/4 tokens
 * (1200 per image).
 */

import type { Context } from "@mariozechner/pi-ai";
import { estimateMessageTokens } from "./estimate.ts";
import {
	type LedgerRequest,
	messageUnits,
	type RequestUnit,
	requestAppended,
	type UnitChain,
	unitAt,
	unitCount,
} from "./request-units.ts";

/**
 * The request `context` as it has grown in the tool loop: `request` (the ledger request as
 * rendered) with every message of `context` after the request's own appended as new units. The
 * stable portion is unchanged; `hash`, the units, `tokens` and `messageCount` cover the whole
 * conversation. `context.messages` must start with the request's messages (the loop only appends).
 */
export function extendRequest(request: LedgerRequest, context: Pick<Context, "messages">): LedgerRequest {
	const added = context.messages.slice(request.messageCount);
	if (added.length === 0) return request;
	const units: RequestUnit[] = [];
	let last: UnitChain = {
		prefixHash: request.hash,
		prefixChars: unitAt(request, unitCount(request) - 1)?.prefixChars ?? 0,
	};
	let tokens = request.tokens;
	for (const message of added) {
		for (const unit of messageUnits(last, message)) {
			units.push(unit);
			last = unit;
		}
		tokens += estimateMessageTokens(message);
	}
	return requestAppended(request, added, units, tokens);
}
