/**
 * Request assembly (docs/request-format.md): system prompt, tool declarations, the catalogue, one user message
 * per closed segment followed by its advice, then the open segment ending on the instruction.
 *
 * Every block is its own content part, rendered once when it enters the log (tool rounds as cards,
 * older prose capped), so a request rendered at one point of a branch is, part for part, the head
 * of every later one: the stable portion. After it come only the volatile parts: the appendix (the
 * newest rounds verbatim, the newest prose whole, the current reasoning), the question and the
 * instruction. The assembled messages are measured into units by request-units.ts.
 */

import type { AssistantMessage, TextContent, Tool, UserMessage } from "@mariozechner/pi-ai";
import { assertNever } from "../events/index.ts";
import {
	type Block,
	type ChunkedList,
	type ClosedSegment,
	editedProse,
	editedRound,
	type Instruction,
	type LedgerState,
	listOf,
	type PendingCall,
	type PendingConsultation,
	type RenderTrim,
	type Round,
	standingInstructions,
	unansweredRound,
	type WatchFinding,
} from "../reducers/index.ts";
import { proseBlock, reasoningBlock, renderBlock, verbatimRound } from "./blocks.ts";
import { cardLine } from "./card.ts";
import type { CatalogueEntry } from "./catalogue.ts";
import { estimateToolsTokens, tokensForChars } from "./estimate.ts";
import { type InstructionSource, renderInstructions } from "./instructions-part.ts";
import type { LedgerConfig } from "./ledger-section.ts";
import { logCut } from "./log-cut.ts";
import type { LogCut } from "./log-items.ts";
import {
	type AdvisorToolsMode,
	advisorSystemPrompt,
	CONSULT_INSTRUCTION,
	CONTEXT_OMITTED,
	DEFAULT_QUESTION,
	LOG_CLOSE,
	LOG_OPEN,
	REVIEW_INSTRUCTION,
	REVIEW_MARKER,
	TAGS,
	WATCH_INSTRUCTION,
	WATCH_MARKER,
} from "./model-text.ts";
import { neutralise } from "./neutralise.ts";
import { ordinalId } from "./ordinal.ts";
import { cutToPayload, fitAppendix, type Held, heldToPayload, type Payload, requestBudget } from "./payload-cap.ts";
import { configKey, type RenderedSegment, type RenderMemo, sharedMemo } from "./render-memo.ts";
import { type Assembled, type LedgerRequest, measure, whole } from "./request-units.ts";
import { standInFor } from "./stand-in.ts";
import { capWithGap } from "./text-shape.ts";
import { zeroUsage } from "./usage.ts";
import { watchReason } from "./watch-note.ts";

/** A consultation the executor asked for, a completion review, or a review the watch woke (docs/configuration.md#the-watch). */
export type RequestMode = "consult" | "review" | "watch";

export interface RenderOptions {
	config: LedgerConfig;
	/** Every tool registered in the executor's session (name + description). */
	catalogue: readonly CatalogueEntry[];
	/** The advisor's own tool declarations, sent as provider tools. */
	tools: readonly Tool[];
	toolsMode: AdvisorToolsMode;
	mode: RequestMode;
	/** The advisor call being answered; defaults to the newest one without a result. */
	inFlightCallId?: string;
	/** Mode "watch": why the watch woke; the request names it before the instruction. */
	watch?: WatchFinding;
	/**
	 * The user's standing instructions as the host gave them, for a session that does not record its
	 * system prompt (Pi 0.73); a branch that records one (Pi 1.x) uses its own.
	 */
	instructions?: readonly Instruction[];
	/**
	 * Trim to fit the context budget: the ledger up to and including the anchor is left
	 * out, its user words re-stated verbatim ahead of a fixed omission marker; `tailCaps` caps the
	 * verbatim tail's parts. An anchor that names no ledger item renders untrimmed.
	 */
	trim?: RenderTrim;
	/**
	 * The executor's context this request stands in for, as the host measured it: the request is held
	 * within it, beyond what the advisor's fixed head has over the executor's (payload-cap.ts).
	 */
	payload?: Payload;
}

const ZERO_USAGE: AssistantMessage["usage"] = Object.freeze(zeroUsage());

function userMessage(parts: readonly string[]): UserMessage {
	return { role: "user", content: parts.map((text) => ({ type: "text" as const, text })), timestamp: 0 };
}

/** Past advice, replayed as the advisor's own turn. Fixed metadata keeps the bytes independent of who answered. */
function adviceMessage(text: string): AssistantMessage {
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		api: "advisor-ledger",
		provider: "advisor-ledger",
		model: "past-advice",
		usage: ZERO_USAGE,
		stopReason: "stop",
		timestamp: 0,
	};
}

interface TailSelection {
	/** The newest finished rounds of the open segment, shown verbatim in the appendix (their cards stay in the log). */
	rounds: { pos: number; round: Round }[];
	/** Index in `open` of the oldest of those rounds (`open.length` when there is none). */
	firstTail: number;
	/** Pending calls rendered verbatim (in the tail) or as running cards (older than the tail). */
	pendingTail: PendingCall[];
	pendingCards: PendingCall[];
	/** Reasoning of the messages that made the tail rounds, by the message's path position, in order. */
	reasoning: { pos: number; thinking: string }[];
}

/**
 * The newest `tailToolCalls` rounds of the open segment, for the appendix. Rounds are ordered by
 * where they sit in the log; calls still running come after every finished round.
 */
function selectTail(state: LedgerState, config: LedgerConfig, from = 0): TailSelection {
	const want = Math.max(0, Math.floor(config.tailToolCalls));
	const pending = state.pendingCalls.toArray();
	const pendingInTail = Math.min(want, pending.length);
	const pendingTail = pending.slice(pending.length - pendingInTail);
	const pendingCards = pending.slice(0, pending.length - pendingInTail);
	let needBlocks = want - pendingInTail;
	const rounds: { pos: number; round: Round }[] = [];
	let firstTail = state.open.length;
	for (let i = state.open.length - 1; i >= from && needBlocks > 0; i--) {
		const block = state.open.at(i)!;
		if (block.kind !== "round") continue;
		firstTail = i;
		// Verbatim as the executor's context holds it now: a context edit after its card was made shows here.
		rounds.unshift({ pos: block.pos, round: editedRound(block.round, state.contextEdits, CONTEXT_OMITTED) });
		needBlocks--;
	}
	const reasoning: { pos: number; thinking: string }[] = [];
	const seen = new Set<number>();
	for (const round of [...rounds.map((r) => r.round), ...pendingTail.map(unansweredRound)]) {
		if (round.reasoning.trim().length === 0 || seen.has(round.callPos)) continue;
		seen.add(round.callPos);
		reasoning.push({ pos: round.callPos, thinking: round.reasoning });
	}
	return { rounds, firstTail, pendingTail, pendingCards, reasoning };
}

/**
 * How many leading blocks of the open segment come before the verbatim tail: what a trim may leave
 * out (every block is in the stable portion, but the tail rounds are never trimmed).
 */
export function stableOpenBlocks(state: LedgerState, config: LedgerConfig): number {
	return selectTail(state, config).firstTail;
}

/** Where the newest prose block of the branch sits: segment index (`closed.length` = open) and block index. */
interface ProseAt {
	segment: number;
	block: number;
	/** Path position of the entry a capped copy names. */
	pos: number;
	text: string;
	/** The question of a closed consultation: shown whole in its own message unless a trim left it out. */
	question: boolean;
}

function newestProse(state: LedgerState): ProseAt | undefined {
	for (let s = state.closed.length; s >= 0; s--) {
		const closed = s === state.closed.length ? undefined : state.closed[s]!;
		const count = closed === undefined ? state.open.length : closed.blocks.length;
		// The prose beside a completed advisor call comes after the segment's blocks.
		if (closed !== undefined && closed.closedBy === "consultation" && closed.question.trim().length > 0)
			return { segment: s, block: count, pos: closed.questionPos, text: closed.question, question: true };
		for (let b = count - 1; b >= 0; b--) {
			const block = closed === undefined ? state.open.at(b)! : closed.blocks[b]!;
			if (block.kind === "prose") return { segment: s, block: b, pos: block.pos, text: block.text, question: false };
		}
	}
	return undefined;
}

/**
 * The appendix's entries, oldest first: the one volatile part of the open log. The newest prose is
 * repeated in full only when the log shows less of it (capped there, or left out by a trim).
 */
function appendixEntries(
	state: LedgerState,
	tail: TailSelection,
	reasoning: readonly { pos: number; thinking: string }[],
	config: LedgerConfig,
	tailConfig: LedgerConfig,
	cut: { firstSegment: number; firstBlock: number } | undefined,
): string[] {
	const body: string[] = [];
	for (const r of tail.rounds) body.push(verbatimRound(ordinalId(r.pos), r.round, tailConfig, false));
	for (const pending of tail.pendingCards)
		body.push(cardLine(ordinalId(pending.callPos), unansweredRound(pending), "running"));
	for (const pending of tail.pendingTail)
		body.push(verbatimRound(ordinalId(pending.callPos), unansweredRound(pending), tailConfig, true));
	const prose = newestProse(state);
	const last = state.lastProse;
	// The newest prose a compaction hid (the in-flight question is shown as the question).
	const hidden =
		last !== undefined &&
		(prose === undefined || prose.pos < last.pos) &&
		!state.pendingConsultations.toArray().some((p) => p.callEntryId === last.id);
	if (hidden) body.push(proseBlock(ordinalId(last.pos), last.text, tailConfig.tailMaxChars));
	else if (prose !== undefined) {
		const trimmed =
			cut !== undefined &&
			(prose.segment < cut.firstSegment || (prose.segment === cut.firstSegment && prose.block < cut.firstBlock));
		// Repeated as the executor's context holds it now; not at all when a context edit took it out.
		const id = state.events.at(prose.pos - 1)?.id;
		const text = id === undefined ? prose.text : editedProse(id, prose.text, state.contextEdits);
		if (
			text !== undefined &&
			(trimmed || (!prose.question && neutralise(prose.text).length > Math.max(1, config.proseMaxChars)))
		) {
			body.push(proseBlock(ordinalId(prose.pos), text, tailConfig.tailMaxChars));
		}
	}
	for (const r of reasoning) body.push(reasoningBlock(ordinalId(r.pos), r.thinking, tailConfig));
	return body;
}

/**
 * Blocks `start`… of a segment kept from `from` on, as parts. When a cut left out the blocks before
 * `from`, the first card kept (after nothing but prose) cannot point at the card above it, which is
 * gone: it shows its own path.
 */
function keptBlocks(
	blocks: { readonly length: number; at(index: number): Block | undefined },
	from: number,
	start: number,
	config: LedgerConfig,
	memo: RenderMemo,
): string[] {
	const out: string[] = [];
	let afterCut = from > 0;
	for (let b = from; b < start && afterCut; b++) if (blocks.at(b)!.kind !== "prose") afterCut = false;
	for (let b = start; b < blocks.length; b++) {
		const block = blocks.at(b)!;
		if (afterCut && block.kind === "round" && block.previous !== undefined)
			out.push(renderBlock({ kind: "round", id: block.id, pos: block.pos, round: block.round }, config));
		else out.push(memo.block(block, config));
		if (block.kind !== "prose") afterCut = false;
	}
	return out;
}

function textPart(text: string): TextContent {
	return { type: "text", text };
}

/**
 * The open message's log: the log opening, the stand-in when the cut is in the open segment, then
 * the blocks kept. The parts the previous open message had for the blocks it shares with this one
 * are shared, not copied (chunked.ts), when the cut is the same; new parts follow them.
 */
function openLog(
	blocks: ChunkedList<Block>,
	from: number,
	lead: string | undefined,
	config: LedgerConfig,
	memo: RenderMemo,
): ChunkedList<TextContent> {
	const key = `${configKey(config)}:${from}:${lead === undefined ? "" : memo.partHash(lead)}`;
	const last = memo.lastOpen?.key === key ? memo.lastOpen : undefined;
	const head = lead === undefined ? [LOG_OPEN] : [LOG_OPEN, lead];
	// The blocks the previous render had too: the chunks both hold are skipped whole.
	const same = last === undefined ? from : Math.max(from, last.blocks.sharedPrefix(blocks));
	const fresh = keptBlocks(blocks, from, same, config, memo).map(textPart);
	const log =
		last === undefined
			? listOf([...head.map(textPart), ...fresh])
			: last.log.prefix(head.length + same - from).appended(fresh);
	memo.lastOpen = { key, blocks, log };
	return log;
}

function questionSection(question: string, id: string, config: LedgerConfig): string {
	const text =
		question.trim().length > 0 ? capWithGap(neutralise(question.trim()), config.tailMaxChars, id) : DEFAULT_QUESTION;
	return `<${TAGS.question}>\n${text}\n</${TAGS.question}>\n`;
}

function reviewSection(): string {
	return `<${TAGS.review}>\n${REVIEW_MARKER}\n</${TAGS.review}>\n`;
}

function watchSection(text: string): string {
	return `<${TAGS.watch}>\n${text}\n</${TAGS.watch}>\n`;
}

/** What closes a closed segment's log: the question asked, the review marker, or why the watch woke. */
function closingSection(segment: ClosedSegment, config: LedgerConfig): string {
	switch (segment.closedBy) {
		case "consultation":
			return questionSection(segment.question, ordinalId(segment.questionPos), config);
		case "review":
			return reviewSection();
		case "watch":
			return watchSection(WATCH_MARKER(neutralise(segment.question)));
		default:
			return assertNever(segment.closedBy, "segment close");
	}
}

/** The branch's own system prompt when it recorded one, else what the host gave. */
function instructionSource(state: LedgerState, options: RenderOptions): InstructionSource {
	if (state.system !== undefined) return { pos: state.system.pos, items: standingInstructions(state.system) };
	return { items: options.instructions ?? [] };
}

function inFlight(state: LedgerState, callId: string | undefined): PendingConsultation | undefined {
	const all = state.pendingConsultations;
	if (callId !== undefined) return all.toArray().find((p) => p.callId === callId);
	return all.last;
}

/** The config the appendix and the question are capped with: a trim may lower the tail caps. */
function trimmedTailConfig(config: LedgerConfig, tailCaps: number | undefined): LedgerConfig {
	if (tailCaps === undefined) return config;
	const cap = (max: number) => Math.max(1, Math.min(max, Math.floor(tailCaps)));
	return { ...config, tailMaxChars: cap(config.tailMaxChars), tailResultMaxChars: cap(config.tailResultMaxChars) };
}

/**
 * A closed segment as two messages: its log (from block `from`, after the trim's stand-in `lead`
 * when it is the first segment kept), closed by its question or the review marker, and the advice
 * as the advisor's own turn.
 */
function closedSegment(
	segment: ClosedSegment,
	from: number,
	lead: string | undefined,
	config: LedgerConfig,
	memo: RenderMemo,
): RenderedSegment {
	const parts = [LOG_OPEN];
	if (lead !== undefined) parts.push(lead);
	parts.push(...keptBlocks(segment.blocks, from, from, config, memo));
	parts.push(LOG_CLOSE + closingSection(segment, config));
	// Neutralised too: a review arrives as a custom message, which any extension could write.
	const advice = [capWithGap(neutralise(segment.advice), config.tailMaxChars, ordinalId(segment.closingPos))];
	return { log: userMessage(parts), logParts: parts, advice: adviceMessage(advice[0]!), adviceParts: advice };
}

/** What ends the request: the in-flight question and the consult instruction, the review instruction, or why the watch woke and its instruction. */
function closingParts(
	options: RenderOptions,
	consultation: PendingConsultation | undefined,
	tailConfig: LedgerConfig,
): string[] {
	switch (options.mode) {
		case "consult": {
			const id = consultation === undefined ? "question" : ordinalId(consultation.callPos);
			return [LOG_CLOSE + questionSection(consultation?.question ?? "", id, tailConfig), CONSULT_INSTRUCTION];
		}
		case "review":
			return [LOG_CLOSE, REVIEW_INSTRUCTION];
		case "watch":
			return [
				LOG_CLOSE + (options.watch === undefined ? "" : watchSection(watchReason(options.watch))),
				WATCH_INSTRUCTION,
			];
		default:
			return assertNever(options.mode, "request mode");
	}
}

export function renderRequest(
	state: LedgerState,
	options: RenderOptions,
	memo: RenderMemo = sharedMemo,
): LedgerRequest {
	const catalogue = [memo.catalogue(options.catalogue)];
	const instructions = renderInstructions(instructionSource(state, options), options.config, state.cwd);
	if (instructions !== undefined) catalogue.push(instructions);
	const system = advisorSystemPrompt(options.toolsMode);
	const cut = logCut(state, options, memo);
	const payload = options.payload;
	if (payload === undefined) return renderCut(state, options, memo, catalogue, cut).request;
	// Never larger than the payload (payload-cap.ts): the advisor's fixed head is the system prompt, the
	// declarations, the catalogue, the log's opening, the question and the instruction.
	const budget = (closing: readonly string[]) =>
		requestBudget(
			payload,
			tokensForChars(system.length) +
				estimateToolsTokens([...options.tools]) +
				tokensForChars(catalogue.join("").length) +
				tokensForChars(LOG_OPEN.length + closing.join("").length),
		);
	return cutToPayload(state, cut, (at) => renderCut(state, options, memo, catalogue, at, budget));
}

/**
 * The request with the log cut at `cut` (none: whole): the catalogue message, the closed segments
 * kept, the open message. With `budget`, the appendix is held to it, and `over` says whether the
 * request is still larger.
 */
function renderCut(
	state: LedgerState,
	options: RenderOptions,
	memo: RenderMemo,
	catalogue: readonly string[],
	cut: LogCut | undefined,
	budget?: (closing: readonly string[]) => number,
): Held {
	const { config } = options;
	const messages: Assembled[] = [whole(userMessage(catalogue))];
	// The stand-in part opens the first log message that is kept.
	let lead = cut === undefined ? undefined : standInFor(state, cut, config, memo);
	const tailConfig = trimmedTailConfig(config, options.trim?.tailCaps);
	for (let s = cut?.firstSegment ?? 0; s < state.closed.length; s++) {
		const segment = state.closed[s]!;
		const from = cut !== undefined && s === cut.firstSegment ? cut.firstBlock : 0;
		const shown = lead;
		const rendered =
			shown === undefined
				? memo.segment(segment, config, () => closedSegment(segment, 0, undefined, config, memo))
				: memo.held(segment, `cut:${configKey(config)}:${from}:${memo.partHash(shown)}`, () =>
						closedSegment(segment, from, shown, config, memo),
					);
		lead = undefined;
		messages.push(whole(rendered.log), whole(rendered.advice));
	}
	const openFrom = cut !== undefined && cut.firstSegment === state.closed.length ? cut.firstBlock : 0;
	const log = openLog(state.open, openFrom, lead, config, memo);
	const { entries, closing } = volatileParts(state, options, cut, openFrom, tailConfig);
	const system = advisorSystemPrompt(options.toolsMode);
	const assemble = (appendix: string | undefined) => {
		const tail = (appendix === undefined ? closing : [appendix, ...closing]).map(textPart);
		const open: Assembled = { role: "user", message: undefined, log, tail };
		return measure(system, [...options.tools], [...messages, open], log.length, memo);
	};
	if (budget === undefined) return { request: assemble(fitAppendix(entries, Number.POSITIVE_INFINITY)), over: false };
	const most = budget(closing);
	const request = heldToPayload(entries, most, assemble);
	return { request, over: request.tokens > most };
}

/** What follows the open log: the appendix's entries (if any), then the question and instruction, or the review instruction. */
function volatileParts(
	state: LedgerState,
	options: RenderOptions,
	cut: LogCut | undefined,
	openFrom: number,
	tailConfig: LedgerConfig,
): { entries: string[]; closing: string[] } {
	const { config } = options;
	const tail = selectTail(state, config, openFrom);
	const consultation = options.mode === "consult" ? inFlight(state, options.inFlightCallId) : undefined;
	const reasoning = [...tail.reasoning];
	if (consultation !== undefined && consultation.reasoning.trim().length > 0) {
		if (!reasoning.some((r) => r.pos === consultation.callPos)) {
			reasoning.push({ pos: consultation.callPos, thinking: consultation.reasoning });
		}
	}
	const entries = appendixEntries(state, tail, reasoning, config, tailConfig, cut);
	return { entries, closing: closingParts(options, consultation, tailConfig) };
}
