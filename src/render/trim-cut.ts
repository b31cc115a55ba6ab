/**
 * Where a trim anchor cuts the ledger, and the part that stands in for what it leaves out.
 *
 * The ledger is read as one sequence of items: each closed segment's blocks, then the segment's
 * close (its advisor result or review), then the open segment's blocks. The anchor names the LAST
 * item left out; everything up to and including it goes, everything after it stays as it was.
 * Because blocks are append-only, the items before a fixed anchor never change as the branch
 * grows, so neither does the stand-in part: the prefix invariant holds under a fixed anchor.
 *
 * Left out: cards, executor prose, notes, shell runs, summaries, and whole segments with their
 * question and advice. Never left out: the user's words — every user message in the span, and the
 * words a branch summary in it re-stated, are re-stated verbatim in the stand-in part.
 */

import { assertNever } from "../events/index.ts";
import {
	backtickedNames,
	type Block,
	commandFact,
	type LedgerState,
	type Round,
	shellCommand,
	splitCd,
	trackWork,
} from "../reducers/index.ts";
import { carriedWork, renderBlock, summaryWords } from "./blocks.ts";
import type { LedgerConfig } from "./ledger-section.ts";
import {
	COMMANDS_RUN,
	EARLIER_ADVICE,
	LEFT_OUT_END,
	LEFT_OUT_INTRO,
	NAMES_USED,
	NO_HIDDEN_WORDS,
} from "./model-text.ts";
import { neutralise } from "./neutralise.ts";
import { ordinalId } from "./ordinal.ts";
import { clip, oneLine } from "./text-shape.ts";

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
 * The part that stands in for the left-out span (docs/request-format.md, "The log's size"): the
 * user's words verbatim and in order, then what the span did, each fact once — files changed and
 * read (by folder), the commands run with their newest result (by folder), test summaries, failures
 * not fixed within the span (as cards, with their error lines), the names the executor wrote, the
 * start of each piece of advice — and the newest compaction in the span with its horizon mark. It
 * depends on the span alone, so it stays the same while the cut does. `render` renders a block as
 * the log would (the renderer passes its memo).
 */
export function trimmedPart(
	state: LedgerState,
	cut: TrimCut,
	config: LedgerConfig,
	render: (block: Block) => string = (block) => renderBlock(block, config),
): string {
	let words = "";
	const work = trackWork();
	const commands = commandList(state.cwd);
	const names = new Set<string>();
	let compaction: Block | undefined;
	for (const block of droppedBlocks(state, cut)) {
		switch (block.kind) {
			case "user":
				words += render(block);
				break;
			case "round":
				work.add(block.round, block);
				commands.add(block.round);
				break;
			case "prose":
				for (const name of backtickedNames(block.text)) names.add(name);
				break;
			case "summary":
				for (const w of block.words) words += summaryWords(w, config);
				break;
			case "compaction":
				compaction = block;
				break;
			case "note":
			case "shell":
				break;
			default:
				assertNever(block, "block");
		}
	}
	let advice = "";
	for (let s = 0; s < cut.firstSegment && s < state.closed.length; s++) {
		const segment = state.closed[s]!;
		for (const name of backtickedNames(segment.question)) names.add(name);
		advice += `#${ordinalId(segment.closingPos)} ${clip(oneLine(neutralise(segment.advice)), ADVICE_START)}\n`;
	}
	const last = cut.droppedItems === 0 ? "1" : lastDroppedId(state, cut);
	let out = `${LEFT_OUT_INTRO(last)}\n${words.length > 0 ? words : `${NO_HIDDEN_WORDS}\n`}`;
	out += carriedWork(work.files(), work.reads(), work.tests(), work.failures(), state.cwd);
	out += commands.text();
	if (names.size > 0) out += `${NAMES_USED} ${[...names].map((n) => oneLine(neutralise(n))).join(", ")}\n`;
	if (advice.length > 0) out += `${EARLIER_ADVICE}\n${advice}`;
	if (compaction !== undefined) out += render(compaction);
	return `${out}${LEFT_OUT_END}\n`;
}

/** How much of each piece of earlier advice the stand-in keeps: its verdict and first sentences. */
const ADVICE_START = 240;

/** The path id of the last item a cut leaves out (a segment's close shows its closing entry). */
function lastDroppedId(state: LedgerState, cut: TrimCut): string {
	if (cut.firstBlock > 0) {
		const blocks = cut.firstSegment < state.closed.length ? state.closed[cut.firstSegment]!.blocks : undefined;
		const block = blocks === undefined ? state.open.at(cut.firstBlock - 1) : blocks[cut.firstBlock - 1];
		if (block !== undefined) return ordinalId(block.pos);
	}
	const closed = state.closed[cut.firstSegment - 1];
	return closed === undefined ? "1" : ordinalId(closed.closingPos);
}

/** The span's shell commands, each once (where it ran and what it ran), with its newest result. */
function commandList(cwd: string | undefined): { add(round: Round): void; text(): string } {
	// Folder → command → result; re-inserted on every run so both keep the order of newest runs.
	const byFolder = new Map<string, Map<string, string>>();
	return {
		add(round) {
			const command = shellCommand(round.call);
			if (command === undefined) return;
			const at = splitCd(command, cwd);
			const folder = at.dir ?? "";
			const fact = commandFact(command, cwd);
			if (fact.length === 0) return;
			const runs = byFolder.get(folder) ?? new Map<string, string>();
			byFolder.delete(folder);
			byFolder.set(folder, runs);
			runs.delete(fact);
			runs.set(fact, round.status === "ok" ? "✓" : round.status === "error" ? "✗" : "…");
		},
		text() {
			if (byFolder.size === 0) return "";
			const groups = [...byFolder].map(([folder, runs]) => {
				const list = [...runs].map(([fact, result]) => `${oneLine(neutralise(fact))} ${result}`).join("; ");
				return folder === "" ? list : `${/\s/.test(folder) ? JSON.stringify(folder) : folder}$ ${list}`;
			});
			return `${COMMANDS_RUN} ${groups.join("; ")}\n`;
		},
	};
}
