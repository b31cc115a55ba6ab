/**
 * Where a trim anchor cuts the ledger, and the part that stands in for what it leaves out.
 *
 * The ledger is read as one sequence of items: each closed segment's blocks, then the segment's
 * close (its advisor result or review), then the open segment's blocks. The anchor names the LAST
 * item left out; everything up to and including it goes, everything after it stays as it was.
 * Because blocks are append-only, the items before a fixed anchor never change as the branch
 * grows, so neither does the stand-in part: the prefix invariant holds under a fixed anchor.
 *
 * Left out: cards and verbatim rounds, executor prose, notes, shell runs, summaries (their
 * paraphrase), and whole segments with their question and advice. Never left out: the user's
 * words — every user message in the span, and the user words a summary in the span re-stated,
 * are re-stated verbatim in the stand-in part, ahead of the omission marker.
 */

import { type Block, type LedgerState, trackWork } from "../reducers/index.ts";
import { carriedWork, renderBlock, summaryWords } from "./blocks.ts";
import type { LedgerConfig } from "./ledger-section.ts";
import { NO_HIDDEN_WORDS, TRIM_OMISSION_MARKER, TRIM_WORDS_INTRO } from "./model-text.ts";

export interface TrimCut {
	/** Closed segments before this index are left out whole; `closed.length` = the cut is in the open segment. */
	firstSegment: number;
	/** Blocks before this index of that segment are left out. */
	firstBlock: number;
	/** Blocks and closes left out. */
	droppedItems: number;
}

/** One item of the ledger sequence. */
export interface LedgerItem {
	id: string;
	/** Segment index; `closed.length` for the open segment. */
	segment: number;
	/** Block index within the segment, or -1 for a segment's close. */
	block: number;
}

/** Every item of the ledger in order (the anchor candidates, before any tail selection). */
export function ledgerItems(state: LedgerState): LedgerItem[] {
	const items: LedgerItem[] = [];
	state.closed.forEach((segment, s) => {
		segment.blocks.forEach((block, b) => {
			items.push({ id: block.id, segment: s, block: b });
		});
		items.push({ id: segment.closingId, segment: s, block: -1 });
	});
	state.open.toArray().forEach((block, b) => {
		items.push({ id: block.id, segment: state.closed.length, block: b });
	});
	return items;
}

function cutAfter(item: LedgerItem, droppedItems: number): TrimCut {
	if (item.block === -1) return { firstSegment: item.segment + 1, firstBlock: 0, droppedItems };
	return { firstSegment: item.segment, firstBlock: item.block + 1, droppedItems };
}

/**
 * The cut for an anchor: right after the FIRST item with that id (ids can repeat — an assistant
 * message's prose and its calls that never got a result share its id — and the first occurrence is
 * the one that can never move as the branch grows). Undefined when no item has that id.
 */
export function locateCut(state: LedgerState, anchorEntryId: string): TrimCut | undefined {
	let n = 0;
	for (let s = 0; s < state.closed.length; s++) {
		const segment = state.closed[s]!;
		for (let b = 0; b < segment.blocks.length; b++) {
			n++;
			if (segment.blocks[b]!.id === anchorEntryId) return cutAfter({ id: anchorEntryId, segment: s, block: b }, n);
		}
		n++;
		if (segment.closingId === anchorEntryId) return cutAfter({ id: anchorEntryId, segment: s, block: -1 }, n);
	}
	for (let b = 0; b < state.open.length; b++) {
		n++;
		if (state.open.at(b)!.id === anchorEntryId)
			return cutAfter({ id: anchorEntryId, segment: state.closed.length, block: b }, n);
	}
	return undefined;
}

/** Blocks left out by a cut, in order. */
export function droppedBlocks(state: LedgerState, cut: TrimCut): Block[] {
	const out: Block[] = [];
	for (let s = 0; s < cut.firstSegment && s < state.closed.length; s++) out.push(...state.closed[s]!.blocks);
	const partial =
		cut.firstSegment < state.closed.length ? state.closed[cut.firstSegment]!.blocks : state.open.toArray();
	for (let b = 0; b < cut.firstBlock && b < partial.length; b++) out.push(partial[b]!);
	return out;
}

/**
 * The stand-in part: the left-out span's user words, verbatim and in order, then the omission
 * marker. `render` renders a user block as the log would (the renderer passes its memo).
 */
export function trimmedPart(
	state: LedgerState,
	cut: TrimCut,
	config: LedgerConfig,
	render: (block: Block) => string = (block) => renderBlock(block, config),
): string {
	let words = "";
	const work = trackWork();
	for (const block of droppedBlocks(state, cut)) {
		if (block.kind === "user") words += render(block);
		else if (block.kind === "round") work.add(block.round, block);
		else if (block.kind === "summary") {
			for (const w of block.words) words += summaryWords(w, config);
			for (const file of block.files) work.addFile(file);
			for (const read of block.reads) work.addRead(read);
			for (const test of block.tests) work.addTest(test);
			for (const failure of block.failures) work.add(failure.round, failure);
		}
	}
	const carried = carriedWork(work.files(), work.reads(), work.tests(), work.failures(), "trim", state.cwd);
	return `${TRIM_WORDS_INTRO}\n${words.length > 0 ? words : `${NO_HIDDEN_WORDS}\n`}${carried}${TRIM_OMISSION_MARKER}\n`;
}
