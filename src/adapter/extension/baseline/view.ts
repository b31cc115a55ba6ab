/**
 * A list of messages made of pieces, so that a replay point's baseline is never copied
 * (docs/decisions.md, "A replay's memory follows the branch"): runs of a shared, append-only list
 * — a baseline cursor's backing list (track.ts) or its masked twin (masked.ts), whose items never
 * change once pushed — and small arrays of the point's own (the tool inventory, the newest messages
 * with the in-flight call left out). Two views over the same list at the same positions hold the
 * same messages, so what two points share is found without comparing it message by message.
 */

import type { Message } from "@mariozechner/pi-ai";

/** `list[from..to)`. */
export interface Piece {
	list: readonly Message[];
	from: number;
	to: number;
}

export interface MessageView {
	readonly pieces: readonly Piece[];
	readonly length: number;
}

/** A view of the pieces, the empty ones left out. */
export function viewOf(pieces: readonly Piece[]): MessageView {
	const kept = pieces.filter((p) => p.to > p.from);
	return { pieces: kept, length: kept.reduce((n, p) => n + p.to - p.from, 0) };
}

/** A view of a whole array (its items must not change while the view is used). */
export function arrayView(messages: readonly Message[]): MessageView {
	return viewOf([{ list: messages, from: 0, to: messages.length }]);
}

export function viewAt(view: MessageView, index: number): Message | undefined {
	let at = index;
	for (const piece of view.pieces) {
		const size = piece.to - piece.from;
		if (at < size) return piece.list[piece.from + at];
		at -= size;
	}
	return undefined;
}

/** The messages in order, as one array (for the callers that send or print them). */
export function viewMessages(view: MessageView): Message[] {
	const out: Message[] = [];
	for (const piece of view.pieces) for (let i = piece.from; i < piece.to; i++) out.push(piece.list[i]!);
	return out;
}

/** Position in a view: the piece, and the index in its list. */
interface Cursor {
	piece: number;
	index: number;
}

function advance(view: MessageView, at: Cursor, step: number): void {
	at.index += step;
	const piece = view.pieces[at.piece];
	if (piece !== undefined && at.index >= piece.to) {
		at.piece++;
		at.index = view.pieces[at.piece]?.from ?? 0;
	}
}

/**
 * How many leading messages two views share (the same message objects). Where both read the same
 * list at the same position, the whole run they have in common is shared at once; elsewhere
 * messages are compared one by one.
 */
export function commonPrefix(a: MessageView, b: MessageView): number {
	const at: Cursor = { piece: 0, index: a.pieces[0]?.from ?? 0 };
	const bt: Cursor = { piece: 0, index: b.pieces[0]?.from ?? 0 };
	let shared = 0;
	while (at.piece < a.pieces.length && bt.piece < b.pieces.length) {
		const pa = a.pieces[at.piece]!;
		const pb = b.pieces[bt.piece]!;
		let step = 1;
		if (pa.list === pb.list && at.index === bt.index) step = Math.min(pa.to - at.index, pb.to - bt.index);
		else if (pa.list[at.index] !== pb.list[bt.index]) return shared;
		shared += step;
		advance(a, at, step);
		advance(b, bt, step);
	}
	return shared;
}
