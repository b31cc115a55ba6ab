/**
 * One renderer per block kind (a round's is its card, card.ts). Each returns a complete text part
 * ending in "\n", so parts can be concatenated by a provider without running into each other. Executor content always passes
 * through `neutralise` and is capped: nothing unbounded reaches the request.
 */

import type { ContentPart } from "../events/index.ts";
import { assertNever } from "../events/index.ts";
import type { Block, CarriedFailure, CarriedTest, Round, SummaryWords } from "../reducers/index.ts";
import { failureLine, shellCommand, testSummary } from "../reducers/index.ts";
import { cardLine, ERROR_LINE_MAX, SUMMARY_LINE_MAX, TOOL_NAME_MAX, toolName } from "./card.ts";
import { commandShownWhole, imagePath, relativePath } from "./card-argument.ts";
import type { LedgerConfig } from "./ledger-section.ts";
import {
	BLOCK_GAP,
	BRANCH_SUMMARY_INTRO,
	BRANCH_WORDS_INTRO,
	COMPACTION_HORIZON,
	COMPACTION_SUMMARY_INTRO,
	FILES_CHANGED,
	FILES_READ,
	MESSAGE_IMAGE,
	NO_HIDDEN_WORDS,
	OPEN_FAILURES,
	PASTED_IMAGE,
	PROSE_GAP,
	PROSE_MARK,
	REASONING_INTRO,
	RESULT_MISSING,
	RESULT_RUNNING,
	TEST_RUNS,
	TOOL_IMAGE_NO_PATH,
	TOOL_IMAGE_WITH_PATH,
} from "./model-text.ts";
import { neutralise } from "./neutralise.ts";
import { displayId, ordinalId } from "./ordinal.ts";
import { capWithGap, clip, jsonText, oneLine, safeHead, splitAtGap } from "./text-shape.ts";

/** The `!` command of a user shell block (not a card: the user's own action keeps more of it). */
const SHELL_COMMAND_MAX = 120;

export function userBody(parts: readonly ContentPart[], config: LedgerConfig): string {
	const body = parts.map((p) => (p.type === "text" ? neutralise(p.text) : PASTED_IMAGE(p.mimeType))).join("\n");
	return capWithGap(body, config.userMessageMaxChars, undefined);
}

/** `[user #id]` and the words; `id` is the shown id (the ordinal of a message on the branch). */
export function userWords(id: string, parts: readonly ContentPart[], config: LedgerConfig): string {
	return `[user #${displayId(id)}]\n${userBody(parts, config)}\n`;
}

/** Words a summary re-states: by ordinal when they are on this path, else (an abandoned branch's) by entry id. */
export function summaryWords(words: SummaryWords, config: LedgerConfig): string {
	return userWords(words.pos === undefined ? words.id : ordinalId(words.pos), words.parts, config);
}

function statusText(round: Round): string {
	switch (round.status) {
		case "ok":
			return "ok";
		case "error":
			return "error";
		case "no-result":
			return "no result";
		default:
			return assertNever(round.status, "round status");
	}
}

function resultBody(round: Round): string {
	const path = imagePath(round.call);
	return round.resultParts
		.map((p) => {
			if (p.type === "text") return neutralise(p.text);
			return path === undefined ? TOOL_IMAGE_NO_PATH(p.mimeType) : TOOL_IMAGE_WITH_PATH(p.mimeType, path);
		})
		.join("\n");
}

/**
 * Does the card already show every argument of the call as written? Then the appendix does not
 * repeat them: a read of a path (and line range), an ls, a short one-line command.
 */
function cardShowsCall(round: Round): boolean {
	const args = round.call.arguments;
	const keys = Object.keys(args);
	const asWritten = (key: string) =>
		typeof args[key] === "string" && relativePath(args[key] as string, round.cwd) === args[key];
	const onlyNumbers = (...names: string[]) => names.every((k) => args[k] === undefined || typeof args[k] === "number");
	switch (round.call.name) {
		case "read":
			return (
				keys.every((k) => k === "path" || k === "offset" || k === "limit") &&
				asWritten("path") &&
				onlyNumbers("offset", "limit")
			);
		case "ls":
			return keys.every((k) => k === "path") && (keys.length === 0 || asWritten("path"));
		default: {
			// A shell run whose only argument is its command, shown whole on the card.
			const command = shellCommand(round.call);
			return command !== undefined && keys.length === 1 && commandShownWhole(command, round.cwd);
		}
	}
}

/**
 * A tail round: the call's arguments and the result text, each capped around an expandable gap.
 * The call line is left out when the round's card, in the log above, shows the whole call.
 */
export function verbatimRound(id: string, round: Round, config: LedgerConfig, running: boolean): string {
	const shownId = displayId(id);
	// Like a card, the header names the status only when the call did not succeed.
	const status = running ? "running" : statusText(round);
	const head = `[tool #${shownId}] ${toolName(round.call.name)}${status === "ok" ? "" : ` · ${status}`}\n`;
	let result: string;
	if (running) result = RESULT_RUNNING;
	else if (round.status === "no-result") result = RESULT_MISSING;
	else result = capWithGap(resultBody(round), config.tailResultMaxChars, undefined);
	// A call still running has no card yet: it keeps its call line.
	if (!running && cardShowsCall(round)) return `${head}result:\n${result}\n`;
	const call = capWithGap(neutralise(jsonText(round.call.arguments) || "{}"), config.tailMaxChars, undefined);
	return `${head}call: ${call}\nresult:\n${result}\n`;
}

function preview(parts: readonly ContentPart[], max: number): string {
	const text = parts.map((p) => (p.type === "text" ? neutralise(p.text) : MESSAGE_IMAGE(p.mimeType))).join("\n");
	if (text.length <= max) return text;
	const head = safeHead(text, max);
	return `${head}\n${BLOCK_GAP(text.length - head.length)}`;
}

export function reasoningBlock(id: string, thinking: string, config: LedgerConfig): string {
	const shownId = displayId(id);
	return `[reasoning #${shownId}] ${REASONING_INTRO}\n${capWithGap(neutralise(thinking), config.tailMaxChars, undefined)}\n`;
}

/**
 * Executor prose, capped at `max` around an expandable gap (the log caps older prose tighter than the
 * appendix). Only capped prose names its entry: whole prose has nothing left to expand.
 */
export function proseBlock(id: string, text: string, max: number): string {
	const body = neutralise(text);
	const cap = Math.max(1, max);
	if (body.length <= cap) return `${PROSE_MARK} ${body}\n`;
	// The mark, the id and the gap line count against the cap: a capped block is about `max` chars in all.
	const mark = `${PROSE_MARK}#${displayId(id)} `;
	const gapLine = BLOCK_GAP(body.length).length + 2;
	const room = Math.max(1, cap - gapLine - mark.length);
	// The names the cut hides stay: they are what the executor reasoned about. They take their room
	// from the head and tail (down to PROSE_MIN_KEPT), so a capped block stays about as long.
	let cut = splitAtGap(body, room);
	let names = cutNames(body, `${cut.head}\n${cut.tail}`);
	if (names.length > 0) {
		const listed = PROSE_GAP(cut.omitted.length, names).length - gapLine + 2;
		cut = splitAtGap(body, Math.max(Math.min(room, PROSE_MIN_KEPT), room - listed));
		names = cutNames(body, `${cut.head}\n${cut.tail}`);
	}
	return `${mark}${cut.head}\n${PROSE_GAP(cut.omitted.length, names)}\n${cut.tail}\n`;
}

const BACKTICKED = /`([^`\s]{2,80})`/g;
/** Capped prose keeps at least this much of its head and tail when names take room from them. */
const PROSE_MIN_KEPT = 120;

/** Backticked names of `text` that `kept` (its head and tail) does not show whole, each once, in order. */
export function cutNames(text: string, kept: string): string[] {
	const names: string[] = [];
	for (const match of text.matchAll(BACKTICKED)) {
		const name = match[1]!;
		if (!/[A-Za-z_]/.test(name) || names.includes(name) || kept.includes(`\`${name}\``)) continue;
		names.push(name);
	}
	return names;
}

/** What a left-out span did that must stay visible: paths changed and read, test summaries, then open failures as cards. */
export function carriedWork(
	files: readonly string[],
	reads: readonly string[],
	tests: readonly CarriedTest[],
	failures: readonly CarriedFailure[],
	cwd: string | undefined,
): string {
	let out = "";
	const shown = (paths: readonly string[]) => [
		...new Set(paths.map((f) => oneLine(neutralise(relativePath(f, cwd))))),
	];
	const changed = shown(files);
	if (changed.length > 0) out += `${FILES_CHANGED} ${groupPaths(changed)}\n`;
	const read = shown(reads).filter((path) => !changed.includes(path));
	if (read.length > 0) out += `${FILES_READ} ${groupPaths(read)}\n`;
	if (tests.length > 0) {
		const runs = tests.map(
			(t) => `${oneLine(neutralise(t.command))} · ${clip(oneLine(neutralise(t.summary)), SUMMARY_LINE_MAX)}`,
		);
		out += `${TEST_RUNS} ${runs.join("; ")}\n`;
	}
	if (failures.length > 0)
		out += `${OPEN_FAILURES}\n${failures.map((f) => cardLine(ordinalId(f.pos), f.round)).join("")}`;
	return out;
}

/**
 * Paths listed by folder, so a long list stays short: `src/a.ts, src/b.ts` → `src/{a.ts, b.ts}`
 * (a folder's files where the folder first appears; a lone file keeps its whole path).
 */
export function groupPaths(paths: readonly string[]): string {
	const byFolder = new Map<string, string[]>();
	for (const path of paths) {
		const slash = path.lastIndexOf("/");
		const folder = slash <= 0 || path.includes("{") || path.includes(",") ? path : path.slice(0, slash);
		const list = byFolder.get(folder);
		if (list === undefined) byFolder.set(folder, [path]);
		else list.push(path);
	}
	return [...byFolder.entries()]
		.map(([folder, list]) =>
			list.length === 1 ? list[0]! : `${folder}/{${list.map((p) => p.slice(folder.length + 1)).join(", ")}}`,
		)
		.join(", ");
}

/** The stable rendering of a block: rounds as cards. A block shows its path ordinal, fixed when it was folded. */
export function renderBlock(block: Block, config: LedgerConfig): string {
	const id = ordinalId(block.pos);
	switch (block.kind) {
		case "user":
			return userWords(id, block.parts, config);
		case "prose":
			return proseBlock(id, block.text, config.proseMaxChars);
		case "round":
			return cardLine(id, block.round, block.round.status, block.previous);
		case "summary": {
			const summary = capWithGap(neutralise(block.summary), config.tailMaxChars, undefined);
			if (block.summaryKind === "compaction") return `[compaction #${id}] ${COMPACTION_SUMMARY_INTRO}\n${summary}\n`;
			const words =
				block.words.length === 0
					? `${NO_HIDDEN_WORDS}\n`
					: block.words.map((w) => summaryWords(w, config)).join("");
			return `[branch summary #${id}] ${BRANCH_WORDS_INTRO}\n${words}${BRANCH_SUMMARY_INTRO}\n${summary}\n`;
		}
		case "compaction": {
			const summary = capWithGap(neutralise(block.summary), config.tailMaxChars, undefined);
			const kept = block.keptPos === undefined ? undefined : ordinalId(block.keptPos);
			return `[compaction #${id}] ${COMPACTION_HORIZON(kept)}\n${summary}\n`;
		}
		case "note":
			return `[note #${id} · ${clip(oneLine(neutralise(block.customType)), TOOL_NAME_MAX)}]\n${preview(block.parts, config.customPreviewChars)}\n`;
		case "shell": {
			let header = `[shell #${id}] the user ran: ${clip(oneLine(neutralise(block.command)), SHELL_COMMAND_MAX)} · exit ${block.exitCode ?? "?"}`;
			if (block.cancelled) header += " · cancelled";
			if (block.truncated) header += " · truncated";
			const output = neutralise(block.output);
			// Capped like older prose: the whole output is one advisor_expand away, and the header
			// names what a cut may hide: a test run's summary line, a failed run's error line.
			if (output.length > config.proseMaxChars) {
				const summary = testSummary(block.command, block.output);
				const said = summary === undefined ? "" : clip(oneLine(neutralise(summary)), SUMMARY_LINE_MAX);
				if (said.length > 0) header += ` · ${said}`;
				if (block.exitCode !== undefined && block.exitCode !== null && block.exitCode !== 0) {
					const error = clip(oneLine(neutralise(failureLine(output))), ERROR_LINE_MAX);
					if (error.length > 0 && error !== said) header += ` · ✗ ${error}`;
				}
			}
			return `${header}\n${capWithGap(output, config.proseMaxChars, undefined)}\n`;
		}
		default:
			return assertNever(block, "block");
	}
}
