/**
 * The masked baseline (docs/cli.md, docs/eval.md): Pi's context with observation masking, the
 * baseline of Lindenbauer et al. 2025 ("The Complexity Trap"): every tool result older than the
 * newest MASK_KEEP_TURNS assistant turns is replaced by one line saying how many lines it had.
 * Everything else — the user's words, the executor's prose, reasoning and calls, the recent
 * results — stays. `eval` sends it as its masked arm; `replay` measures it as a column.
 */

import type { Message, ToolResultMessage } from "@mariozechner/pi-ai";
import { partitionPoint } from "../../../events/index.ts";
import { estimateMessageTokens, MASKED_OUTPUT } from "../../../render/index.ts";
import { type BaselineRequest, messageChars } from "../../extension/baseline/baseline-reuse.ts";
import type { BaselineCursor } from "../../extension/baseline/track.ts";
import { type MessageView, type Piece, viewAt, viewMessages, viewOf } from "../../extension/baseline/view.ts";

/** Tool results of the newest this-many assistant turns are kept whole. */
export const MASK_KEEP_TURNS = 10;

/** Lines of a result's text (an empty text is one line, as an editor shows it); images count none. */
export function outputLines(message: ToolResultMessage): number {
	let lines = 0;
	for (const part of message.content) if (part.type === "text") lines += part.text.split("\n").length;
	return lines;
}

// A result is masked the same way at every point: the same object, so cache shares see it repeat.
const maskedMemo = new WeakMap<ToolResultMessage, ToolResultMessage>();

function masked(message: ToolResultMessage): ToolResultMessage {
	let out = maskedMemo.get(message);
	if (out === undefined) {
		out = { ...message, content: [{ type: "text", text: MASKED_OUTPUT(outputLines(message)) }] };
		maskedMemo.set(message, out);
	}
	return out;
}

/**
 * Where masking stops: the index of the keep-th newest assistant message (results before it are
 * older), or 0 when there are fewer assistant messages than that (nothing is masked).
 */
export function maskBoundary(messages: readonly Message[], keep: number = MASK_KEEP_TURNS): number {
	let seen = 0;
	for (let i = messages.length - 1; i >= 0; i--) {
		if (messages[i]!.role !== "assistant") continue;
		if (++seen === keep) return i;
	}
	return 0;
}

/**
 * The messages with older tool results masked. A result is older when it comes before the keep-th
 * newest assistant message: by position, as the paper masks observations by turn. Messages that are
 * not masked are the same objects.
 */
export function maskOldOutputs(messages: readonly Message[], keep: number = MASK_KEEP_TURNS): Message[] {
	const boundary = maskBoundary(messages, keep);
	return messages.map((message, i) => (i < boundary ? maskedOrSame(message) : message));
}

function maskedOrSame(message: Message): Message {
	return message.role === "toolResult" ? masked(message) : message;
}

/** A backing list's items indexed so far: its assistant messages' positions, and its masked twin. */
interface ListMasks {
	/** Positions of the assistant messages, ascending. */
	assistants: number[];
	/** Each item masked when it is a tool result, else itself: a list that only grows too. */
	twin: Message[];
}

// Items of a backing list never change once pushed (track.ts), so what is indexed stays true.
const listMasks = new WeakMap<readonly Message[], ListMasks>();

function masksUpTo(list: readonly Message[], count: number): ListMasks {
	let masks = listMasks.get(list);
	if (masks === undefined) {
		masks = { assistants: [], twin: [] };
		listMasks.set(list, masks);
	}
	for (let i = masks.twin.length; i < count; i++) {
		const message = list[i]!;
		if (message.role === "assistant") masks.assistants.push(i);
		masks.twin.push(maskedOrSame(message));
	}
	return masks;
}

/** How many of the ascending `positions` are below `limit` (binary search). */
function countBelow(positions: readonly number[], limit: number): number {
	return partitionPoint(positions.length, (i) => positions[i]! < limit);
}

/**
 * `maskBoundary` of a view, counting backwards: pieces on the cursor's `list` by its index of
 * assistant messages, the others one by one.
 */
function viewBoundary(view: MessageView, list: readonly Message[], keep: number): number {
	let seen = 0;
	let end = view.length;
	for (let k = view.pieces.length - 1; k >= 0; k--) {
		const piece = view.pieces[k]!;
		const start = end - (piece.to - piece.from);
		if (piece.list === list) {
			const assistants = masksUpTo(list, piece.to).assistants;
			const below = countBelow(assistants, piece.to);
			const inPiece = below - countBelow(assistants, piece.from);
			if (seen + inPiece >= keep) return start + assistants[below - (keep - seen)]! - piece.from;
			seen += inPiece;
		} else {
			for (let i = piece.to - 1; i >= piece.from; i--) {
				if (piece.list[i]!.role === "assistant" && ++seen === keep) return start + i - piece.from;
			}
		}
		end = start;
	}
	return 0;
}

/** The view with the tool results before `boundary` masked: the cursor's list read through its masked twin. */
function maskedView(view: MessageView, boundary: number, list: readonly Message[]): MessageView {
	const pieces: Piece[] = [];
	let start = 0;
	for (const piece of view.pieces) {
		const cut = Math.min(piece.to, Math.max(piece.from, piece.from + boundary - start));
		if (cut > piece.from) {
			if (piece.list === list) pieces.push({ list: masksUpTo(list, cut).twin, from: piece.from, to: cut });
			else pieces.push({ list: piece.list.slice(piece.from, cut).map(maskedOrSame), from: 0, to: cut - piece.from });
		}
		if (piece.to > cut) pieces.push({ list: piece.list, from: cut, to: piece.to });
		start += piece.to - piece.from;
	}
	return viewOf(pieces);
}

/** Running sums over a cursor's backing list of what masking each message saves, in tokens and chars. */
interface Savings {
	tokens: number[];
	chars: number[];
}

// Items of a backing list never change once pushed (track.ts), so its running sums only grow.
const savingsMemo = new WeakMap<Message[], Savings>();

function savingsUpTo(list: Message[], count: number): { tokens: number; chars: number } {
	let sums = savingsMemo.get(list);
	if (sums === undefined) {
		sums = { tokens: [0], chars: [0] };
		savingsMemo.set(list, sums);
	}
	for (let i = sums.tokens.length - 1; i < count; i++) {
		const message = list[i]!;
		let tokens = 0;
		let chars = 0;
		if (message.role === "toolResult") {
			const short = masked(message);
			tokens = estimateMessageTokens(message) - estimateMessageTokens(short);
			chars = messageChars(message) - messageChars(short);
		}
		sums.tokens.push(sums.tokens[i]! + tokens);
		sums.chars.push(sums.chars[i]! + chars);
	}
	return { tokens: sums.tokens[count]!, chars: sums.chars[count]! };
}

/**
 * The masked request at a replay point, from the baseline request built there (`sent`: the
 * inventory, then the cursor's messages, the in-flight call left out). Its size comes from the
 * running sums, not a pass over every message; its messages are a view (view.ts) for the cache
 * shares, the cursor's list read through its masked twin.
 */
export function maskedPointRequest(cursor: BaselineCursor, sent: BaselineRequest): BaselineRequest {
	const boundary = viewBoundary(sent.view, cursor.list, MASK_KEEP_TURNS);
	if (boundary === 0) return { view: sent.view, tokens: sent.tokens, chars: sent.chars };
	const view = maskedView(sent.view, boundary, cursor.list);
	// sent's message at boundary − 1 is cursor.list[boundary − 2] when nothing before it was left
	// out or changed: the inventory comes first, and the in-flight call is stripped from a newer
	// message than the keep-th newest assistant one.
	if (boundary === 1 || viewAt(sent.view, boundary - 1) === cursor.list[boundary - 2]) {
		const saved = savingsUpTo(cursor.list, boundary - 1);
		return { view, tokens: sent.tokens - saved.tokens, chars: sent.chars - saved.chars };
	}
	let tokens = 0;
	let chars = 0;
	for (const message of viewMessages(view)) {
		tokens += estimateMessageTokens(message);
		chars += messageChars(message);
	}
	return { view, tokens, chars };
}
