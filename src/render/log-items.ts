/**
 * The ledger read as one sequence of items, and the places a cut can be made in it (where the log is
 * cut, and why, is log-cut.ts). The items are each closed segment's blocks, then the segment's close
 * (its advisor result or review), then the open segment's blocks. Because blocks are append-only,
 * the items before a fixed cut never change as the branch grows.
 */

import type { Block, ClosedSegment, LedgerState } from "../reducers/index.ts";

export interface LogCut {
	/** Closed segments before this index are left out whole; `closed.length` = the cut is in the open segment. */
	firstSegment: number;
	/** Blocks before this index of that segment are left out. */
	firstBlock: number;
	/** Blocks and closes left out. */
	droppedItems: number;
}

/** Where an item sits: segment index (`closed.length` for the open segment) and block index, -1 for a segment's close. */
export interface ItemAt {
	segment: number;
	block: number;
}

/** One item of the ledger sequence. */
export interface LedgerItem extends ItemAt {
	id: string;
}

/** The item at `at`: a block, or the closed segment whose close it is. */
export function itemObject(state: LedgerState, at: ItemAt): Block | ClosedSegment | undefined {
	if (at.segment >= state.closed.length) return state.open.at(at.block);
	const segment = state.closed[at.segment]!;
	return at.block === -1 ? segment : segment.blocks[at.block];
}

/** The item after `at`, or undefined at the end of the ledger. */
export function itemAfter(state: LedgerState, at: ItemAt): ItemAt | undefined {
	if (at.segment >= state.closed.length)
		return at.block + 1 < state.open.length ? { segment: at.segment, block: at.block + 1 } : undefined;
	if (at.block === -1) return firstItemFrom(state, at.segment + 1);
	const blocks = state.closed[at.segment]!.blocks.length;
	return { segment: at.segment, block: at.block + 1 < blocks ? at.block + 1 : -1 };
}

/** The first item of segment `segment` or of a later one (its close, for a segment without blocks). */
function firstItemFrom(state: LedgerState, segment: number): ItemAt | undefined {
	if (segment < state.closed.length) return { segment, block: state.closed[segment]!.blocks.length > 0 ? 0 : -1 };
	return state.open.length > 0 ? { segment: state.closed.length, block: 0 } : undefined;
}

/** The first item of the ledger. */
export function firstItem(state: LedgerState): ItemAt | undefined {
	return firstItemFrom(state, 0);
}

/** The item before `at`, or undefined at the start. */
export function itemBefore(state: LedgerState, at: ItemAt): ItemAt | undefined {
	if (at.block > 0) return { segment: at.segment, block: at.block - 1 };
	if (at.block === -1) {
		const blocks = state.closed[at.segment]!.blocks.length;
		return blocks > 0 ? { segment: at.segment, block: blocks - 1 } : closeBefore(at.segment);
	}
	return closeBefore(at.segment);
}

function closeBefore(segment: number): ItemAt | undefined {
	return segment === 0 ? undefined : { segment: segment - 1, block: -1 };
}

/** The last item of the ledger. */
export function lastItem(state: LedgerState): ItemAt | undefined {
	if (state.open.length > 0) return { segment: state.closed.length, block: state.open.length - 1 };
	return closeBefore(state.closed.length);
}

/** The cut right after the item at `at`, which is the `droppedItems`-th item. */
export function cutAfter(at: ItemAt, droppedItems: number): LogCut {
	if (at.block === -1) return { firstSegment: at.segment + 1, firstBlock: 0, droppedItems };
	return { firstSegment: at.segment, firstBlock: at.block + 1, droppedItems };
}

/** The item a cut starts with (undefined when it leaves everything out). */
export function firstKept(state: LedgerState, cut: LogCut): ItemAt | undefined {
	if (cut.firstSegment >= state.closed.length)
		return cut.firstBlock < state.open.length ? { segment: state.closed.length, block: cut.firstBlock } : undefined;
	const blocks = state.closed[cut.firstSegment]!.blocks.length;
	return { segment: cut.firstSegment, block: cut.firstBlock < blocks ? cut.firstBlock : -1 };
}

/** The last item a cut leaves out. */
export function lastDropped(cut: LogCut): ItemAt | undefined {
	if (cut.droppedItems === 0) return undefined;
	if (cut.firstBlock > 0) return { segment: cut.firstSegment, block: cut.firstBlock - 1 };
	return closeBefore(cut.firstSegment);
}

/** Every item of the ledger in order (the trim's anchor candidates). */
export function ledgerItems(state: LedgerState): LedgerItem[] {
	const items: LedgerItem[] = [];
	state.closed.forEach((segment, s) => {
		segment.blocks.forEach((block, b) => {
			items.push({ id: block.id, segment: s, block: b });
		});
		items.push({ id: segment.closingId, segment: s, block: -1 });
	});
	for (let b = 0; b < state.open.length; b++)
		items.push({ id: state.open.at(b)!.id, segment: state.closed.length, block: b });
	return items;
}

/** Blocks left out by a cut, in order. */
export function droppedBlocks(state: LedgerState, cut: LogCut): Block[] {
	const out: Block[] = [];
	for (let s = 0; s < cut.firstSegment && s < state.closed.length; s++) out.push(...state.closed[s]!.blocks);
	if (cut.firstSegment < state.closed.length)
		out.push(...state.closed[cut.firstSegment]!.blocks.slice(0, cut.firstBlock));
	else for (let b = 0; b < cut.firstBlock && b < state.open.length; b++) out.push(state.open.at(b)!);
	return out;
}
