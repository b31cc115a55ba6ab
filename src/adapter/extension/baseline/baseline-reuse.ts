/**
 * How much of the previous baseline request a consultation could read from a prompt cache, in
 * the same two caching models the ledger is measured with (token prefix and breakpoints), so
 * both sides of the comparison are cached the same way (docs/cli.md).
 *
 * The baseline is Pi's context plus the tool inventory, and Pi's context only grows between
 * compactions, so consecutive baselines usually share everything but the new turns. Breakpoints
 * are pi-ai's own on such a request (docs/request-format.md §7): one after the head every request
 * repeats (the tool inventory, standing for the system prompt and tools pi-ai marks on the caller's
 * request) and one on the last block, as if the caller marked it before appending its question; no
 * bridge (no caller of pi-ai adds one). A prefix is read only when it ends at one of the previous
 * request's breakpoints and one of this request's lies at most the lookback (20 blocks) after it.
 */

import type { Message } from "@mariozechner/pi-ai";
import { assertNever } from "../../../events/index.ts";
import { LOOKBACK_BLOCKS } from "../../../policy/index.ts";
import { estimateMessageTokens, IMAGE_TOKENS } from "../../../render/index.ts";
import { arrayView, commonPrefix, type MessageView, viewAt } from "./view.ts";

/** A message's content parts as the cache sees them: their sizes (their identities are made on demand, partKeys). */
interface MessageUnits {
	/** Characters the token estimate counts for each part (an image counts its token allowance × 4). */
	chars: number[];
	total: number;
	/** Content blocks the message is on Anthropic's wire: a tool result is one, text that is only whitespace none. */
	blocks: number;
}

export interface BaselineRequest {
	/** Its messages: a view (view.ts), so that a replay point's request is not a copy of the branch. */
	view: MessageView;
	/** The estimate the replay reports for this baseline (Pi's chars/4 rule, per message). */
	tokens: number;
	/** Characters of every part, as the shares count them. */
	chars: number;
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
		default:
			return assertNever(message, "message role");
	}
}

/** Blocks pi-ai sends for these parts: a tool result is one; empty text and thinking are dropped. */
function blocksOf(message: Message, parts: readonly unknown[]): number {
	if (message.role === "toolResult") return 1;
	let n = 0;
	for (const part of parts) {
		const p = part as Record<string, unknown>;
		if (p.type === "text" && typeof p.text === "string" && p.text.trim().length === 0) continue;
		if (p.type === "thinking" && typeof p.thinking === "string" && p.thinking.trim().length === 0) continue;
		n++;
	}
	return n;
}

function partsOf(message: Message): readonly unknown[] {
	return typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
}

/**
 * A message's part sizes, made when asked: a replay asks once for each message it adds and for
 * the few around where two points' requests part, so nothing is kept (a memo would hold an entry
 * per message of the branch; docs/decisions.md).
 */
function unitsOf(message: Message): MessageUnits {
	const parts = partsOf(message);
	const chars: number[] = [];
	let total = 0;
	for (const part of parts) {
		const n = partChars(part);
		chars.push(n);
		total += n;
	}
	return { chars, total, blocks: blocksOf(message, parts) };
}

/** Identity of each part: the message role and ids on the first, then the part as sent. */
function partKeys(message: Message): string[] {
	const marker = messageMarker(message);
	return partsOf(message).map((part, p) => (p === 0 ? marker : "\u0000") + JSON.stringify(part));
}

/** Characters a message's parts count in the cache model. */
export function messageChars(message: Message): number {
	return unitsOf(message).total;
}

/** A baseline request; `sums` when the caller already has them (the replay's running totals). */
export function baselineRequest(
	messages: readonly Message[],
	sums?: { tokens: number; chars: number },
): BaselineRequest {
	const view = arrayView(messages);
	if (sums !== undefined) return { view, tokens: sums.tokens, chars: sums.chars };
	let tokens = 0;
	let chars = 0;
	for (const message of messages) {
		tokens += estimateMessageTokens(message);
		chars += messageChars(message);
	}
	return { view, tokens, chars };
}

export interface BaselineShares {
	tokenPrefix: number;
	/** Breakpoints with the lookback: pi-ai's marks only. */
	breakpoint: number;
	/** The same: the baseline has no bridges to leave out. */
	breakpointNoBridges: number;
}

/**
 * Shares of the previous baseline reused by the next one, 0…1 of the previous request's chars.
 * Token prefix: every whole part both share from the start (a part that differs is not cached
 * in part: its key starts with the role marker, so a partial match says nothing about the text).
 * Breakpoints: the whole previous request when it is a prefix of the next and the next's last block
 * lies at most the lookback after its end, else its head (the first message, the tool inventory)
 * when that is repeated, else nothing.
 */
export function baselineShares(
	previous: BaselineRequest,
	next: BaselineRequest,
	lookback: number = LOOKBACK_BLOCKS,
): BaselineShares {
	const total = previous.chars;
	if (total === 0) return { tokenPrefix: 0, breakpoint: 0, breakpointNoBridges: 0 };
	const before = previous.view;
	const after = next.view;
	const at = (view: MessageView, i: number) => viewAt(view, i)!;
	// The same message objects are the same parts: skip them by identity, compare parts after that.
	let m = commonPrefix(before, after);
	const n = Math.min(before.length, after.length);
	let prefix = total;
	for (let i = m; i < before.length; i++) prefix -= unitsOf(at(before, i)).total;
	let whole = m === before.length;
	let headMatched = m >= 1;
	// Blocks the next request adds after the previous one's last: what the lookback must span.
	let added = 0;
	for (; m < n; m++) {
		const a = unitsOf(at(before, m));
		const b = unitsOf(at(after, m));
		const aKeys = partKeys(at(before, m));
		const bKeys = partKeys(at(after, m));
		let u = 0;
		while (u < aKeys.length && u < bKeys.length && aKeys[u] === bKeys[u]) prefix += a.chars[u++]!;
		if (u < aKeys.length) break;
		// Every part of the previous message is repeated: a breakpoint after it is read.
		if (m === 0) headMatched = true;
		if (m === before.length - 1) {
			whole = true;
			// The parts this message gains (an assistant turn's further calls) come before the rest.
			added += Math.max(0, b.blocks - a.blocks);
		}
		// Parts the next message adds come before anything that follows: the prefix ends here.
		if (u < bKeys.length) break;
	}
	if (whole) for (let i = before.length; i < after.length; i++) added += unitsOf(at(after, i)).blocks;
	const reached = whole && added <= lookback;
	const breakpoint = reached ? total : headMatched && before.length > 0 ? unitsOf(at(before, 0)).total : 0;
	const share = breakpoint / total;
	return { tokenPrefix: prefix / total, breakpoint: share, breakpointNoBridges: share };
}
