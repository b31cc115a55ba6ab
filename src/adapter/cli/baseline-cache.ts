/**
 * How much of the previous baseline request a consultation could read from a prompt cache, in
 * the same two caching models the ledger is measured with (token prefix and breakpoints), so
 * both sides of the comparison are cached the same way (docs/cli.md).
 *
 * The baseline is Pi's context plus the tool inventory, and Pi's context only grows between
 * compactions, so consecutive baselines usually share everything but the new turns. Breakpoints
 * are placed where they favour the baseline: after the tool inventory (the head every request
 * repeats) and at the end of the context, as if the caller marked it before appending its question.
 */

import type { Message } from "@mariozechner/pi-ai";
import { estimateMessageTokens, IMAGE_TOKENS } from "../../render/index.ts";

/** One content part as the cache sees it. */
interface BaselineUnit {
	/** Identity of the part: message role and ids, then the part as sent. */
	key: string;
	/** Characters the token estimate counts for the part (an image counts its token allowance × 4). */
	chars: number;
}

export interface BaselineRequest {
	units: BaselineUnit[];
	/** Unit count of the first message (the tool inventory): the head's breakpoint. */
	headUnits: number;
	/** The estimate the replay reports for this baseline (Pi's chars/4 rule, per message). */
	tokens: number;
}

function partChars(part: unknown): number {
	if (typeof part !== "object" || part === null) return 0;
	const p = part as Record<string, unknown>;
	switch (p.type) {
		case "text":
			return typeof p.text === "string" ? p.text.length : 0;
		case "thinking":
			return typeof p.thinking === "string" ? p.thinking.length : 0;
		case "toolCall":
			return (typeof p.name === "string" ? p.name.length : 0) + (JSON.stringify(p.arguments ?? {})?.length ?? 0);
		case "image":
			return IMAGE_TOKENS * 4;
		default:
			return 0;
	}
}

function messageMarker(message: Message): string {
	switch (message.role) {
		case "toolResult":
			return `\u0001toolResult\u0000${message.toolCallId}\u0000${message.toolName}\u0000${message.isError}\u0000`;
		case "user":
		case "assistant":
			return `\u0001${message.role}\u0000`;
		default: {
			const never: never = message;
			return String(never);
		}
	}
}

export function baselineRequest(messages: readonly Message[]): BaselineRequest {
	const units: BaselineUnit[] = [];
	let headUnits = 0;
	let tokens = 0;
	messages.forEach((message, index) => {
		const marker = messageMarker(message);
		const parts: readonly unknown[] =
			typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
		parts.forEach((part, p) => {
			units.push({ key: (p === 0 ? marker : "\u0000") + JSON.stringify(part), chars: partChars(part) });
		});
		if (index === 0) headUnits = units.length;
		tokens += estimateMessageTokens(message);
	});
	return { units, headUnits, tokens };
}

function totalChars(request: BaselineRequest, unitCount = request.units.length): number {
	let chars = 0;
	for (let i = 0; i < unitCount; i++) chars += request.units[i]!.chars;
	return chars;
}

function commonUnits(previous: BaselineRequest, next: BaselineRequest): number {
	const n = Math.min(previous.units.length, next.units.length);
	let k = 0;
	while (k < n && previous.units[k]!.key === next.units[k]!.key) k++;
	return k;
}

/**
 * Shares of the previous baseline reused by the next one, 0…1 of the previous request's chars.
 * Token prefix: every whole part both share from the start (a part that differs is not cached
 * in part: its key starts with the role marker, so a partial match says nothing about the text).
 * Breakpoints: the whole previous request when it is a prefix of the next, else its head when
 * that is, else nothing.
 */
export function baselineShares(
	previous: BaselineRequest,
	next: BaselineRequest,
): { tokenPrefix: number; breakpoint: number } {
	const total = totalChars(previous);
	if (total === 0) return { tokenPrefix: 0, breakpoint: 0 };
	const common = commonUnits(previous, next);
	const prefix = totalChars(previous, common);
	const breakpoint =
		common === previous.units.length
			? total
			: common >= previous.headUnits
				? totalChars(previous, previous.headUnits)
				: 0;
	return { tokenPrefix: prefix / total, breakpoint: breakpoint / total };
}
