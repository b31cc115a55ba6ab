/**
 * What stands in for the entries a cut leaves out (docs/request-format.md, "The log's size"): one
 * part, opening the first log message kept. Nothing of the user's is ever left out, and each fact an
 * advisor needs is kept at a fraction of the cards' cost.
 */

import { assertNever } from "../events/index.ts";
import {
	type Block,
	commandFact,
	type LedgerState,
	type RoundStatus,
	shellCommand,
	splitCd,
	testSummary,
	trackWork,
} from "../reducers/index.ts";
import { backtickedNames } from "./backticked-names.ts";
import { carriedWork, renderBlock, summaryWords } from "./blocks.ts";
import type { LedgerConfig } from "./ledger-section.ts";
import { droppedBlocks, itemObject, type LogCut, lastDropped } from "./log-items.ts";
import {
	ADVICE_START_LINE,
	COMMANDS_RUN,
	EARLIER_ADVICE,
	LEFT_OUT_END,
	LEFT_OUT_INTRO,
	NAMES_USED,
	NO_HIDDEN_WORDS,
} from "./model-text.ts";
import { neutralise } from "./neutralise.ts";
import { ordinalId } from "./ordinal.ts";
import { configKey, type RenderMemo } from "./render-memo.ts";
import { clip, oneLine } from "./text-shape.ts";

/**
 * The part that stands in for the left-out span (docs/request-format.md, "The log's size"): the
 * user's words verbatim and in order, then what the span did, each fact once — files changed and
 * read (by folder), the commands run with their newest result (by folder), test summaries, failures
 * not fixed within the span (as cards, with their error lines), the names the executor wrote, the
 * start of each piece of advice — and the newest compaction in the span with its horizon mark. It
 * depends on the span alone, so it stays the same while the cut does. `render` renders a block as
 * the log would (the renderer passes its memo).
 */
export function standInPart(
	state: LedgerState,
	cut: LogCut,
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
			case "round": {
				work.add(block.round, block);
				const command = shellCommand(block.round.call);
				if (command !== undefined) commands.add(command, block.round.cwd, block.round.status);
				break;
			}
			case "shell": {
				// The user's own `!` run: a command the branch ran too, and a test run when it says so.
				const summary = testSummary(block.command, block.output);
				if (summary !== undefined) work.addTest({ command: commandFact(block.command, state.cwd), summary });
				commands.add(
					block.command,
					state.cwd,
					block.exitCode === 0 ? "ok" : block.exitCode === undefined ? "no-result" : "error",
				);
				break;
			}
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
				break;
			default:
				assertNever(block, "block");
		}
	}
	let advice = "";
	for (let s = 0; s < cut.firstSegment && s < state.closed.length; s++) {
		const segment = state.closed[s]!;
		// The executor's question names what it reasoned about; a watch note's reason is the watch's words.
		if (segment.closedBy === "consultation") for (const name of backtickedNames(segment.question)) names.add(name);
		advice += `${ADVICE_START_LINE(ordinalId(segment.closingPos), clip(oneLine(neutralise(segment.advice)), ADVICE_START_CHARS))}\n`;
	}
	const last = lastDroppedId(state, cut);
	let out = `${LEFT_OUT_INTRO}\n${words.length > 0 ? words : `${NO_HIDDEN_WORDS}\n`}`;
	out += carriedWork(work.files(), work.reads(), work.tests(), work.failures(), state.cwd);
	out += commands.text();
	if (names.size > 0) out += `${NAMES_USED} ${[...names].map((n) => oneLine(neutralise(n))).join(", ")}\n`;
	if (advice.length > 0) out += `${EARLIER_ADVICE}\n${advice}`;
	if (compaction !== undefined) out += render(compaction);
	return `${out}${LEFT_OUT_END(last)}\n`;
}

/**
 * How much of each piece of earlier advice the stand-in keeps: its verdict and first sentences, and
 * the mark of the cut. The fact audit judges advice on one character less (its `JUDGED_CHARS`).
 */
export const ADVICE_START_CHARS = 201;

/** The path id of the last item a cut leaves out (a segment's close shows its closing entry). */
function lastDroppedId(state: LedgerState, cut: LogCut): string {
	const at = lastDropped(cut);
	const item = at === undefined ? undefined : itemObject(state, at);
	if (item === undefined) return "1";
	return ordinalId("kind" in item ? item.pos : item.closingPos);
}

/** The span's shell commands, each once (where it ran and what it ran), with its newest result. */
function commandList(sessionCwd: string | undefined): {
	add(command: string, cwd: string | undefined, status: RoundStatus): void;
	text(): string;
} {
	// Folder → command → result; re-inserted on every run so both keep the order of newest runs.
	const byFolder = new Map<string, Map<string, string>>();
	return {
		add(command, cwd, status) {
			const at = splitCd(command, cwd ?? sessionCwd);
			const folder = at.dir ?? "";
			const fact = commandFact(command, cwd ?? sessionCwd);
			if (fact.length === 0) return;
			const runs = byFolder.get(folder) ?? new Map<string, string>();
			byFolder.delete(folder);
			byFolder.set(folder, runs);
			runs.delete(fact);
			runs.set(fact, status === "ok" ? "✓" : status === "error" ? "✗" : "…");
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

/** The stand-in of a cut, made once per cut and config (it depends on the left-out span alone). */
export function standInFor(state: LedgerState, cut: LogCut, config: LedgerConfig, memo: RenderMemo): string {
	const at = lastDropped(cut);
	const owner = at === undefined ? undefined : itemObject(state, at);
	const make = () => standInPart(state, cut, config, (b) => memo.block(b, config));
	return owner === undefined ? make() : memo.held(owner, `stand-in:${configKey(config)}:${cut.droppedItems}`, make);
}
