/**
 * Request assembly (docs/request-format.md): system prompt, tool declarations, the catalogue, one user message
 * per closed segment followed by its advice, then the open segment ending on the instruction.
 *
 * Every block is its own content part, rendered once when it enters the log (tool rounds as cards,
 * older prose capped), so a request rendered at one point of a branch is, part for part, the head
 * of every later one: the stable portion. After it come only the volatile parts: the appendix (the
 * newest rounds verbatim, the newest prose whole, the current reasoning), the question and the
 * instruction.
 */

import type { AssistantMessage, Context, Message, TextContent, Tool, UserMessage } from "@mariozechner/pi-ai";
import { countMarks, partitionPoint } from "../events/index.ts";
import {
	type Block,
	type ChunkedList,
	type ClosedSegment,
	editedProse,
	editedRound,
	emptyList,
	type Instruction,
	type LedgerState,
	listBuilder,
	listOf,
	type PendingCall,
	type PendingConsultation,
	type RenderTrim,
	type Round,
	standingInstructions,
	unansweredRound,
} from "../reducers/index.ts";
import { proseBlock, reasoningBlock, renderBlock, verbatimRound } from "./blocks.ts";
import { cardLine } from "./card.ts";
import { type CatalogueEntry, renderCatalogue } from "./catalogue.ts";
import { estimateToolsTokens, tokensForChars } from "./estimate.ts";
import { chainHash, hashString } from "./hash.ts";
import { type InstructionSource, renderInstructions } from "./instructions-part.ts";
import type { LedgerConfig } from "./ledger-section.ts";
import {
	type AdvisorToolsMode,
	APPENDIX_HEADER,
	advisorSystemPrompt,
	CONSULT_INSTRUCTION,
	CONTEXT_OMITTED,
	DEFAULT_QUESTION,
	LOG_CLOSE,
	LOG_OPEN,
	REVIEW_INSTRUCTION,
	REVIEW_MARKER,
	TAGS,
} from "./model-text.ts";
import { neutralise } from "./neutralise.ts";
import { ordinalId } from "./ordinal.ts";
import { capWithGap } from "./text-shape.ts";
import { locateCut, trimmedPart } from "./trim-cut.ts";
import { zeroUsage } from "./usage.ts";

export type RequestMode = "consult" | "review";

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
}

/** One content part (or the system prompt / the declarations) as the cache sees it. */
export interface RequestUnit {
	/** Chained hash of every unit up to and including this one. */
	prefixHash: string;
	/** Characters of every unit up to and including this one (flattened form). */
	prefixChars: number;
	/** The flattened text of this unit: a message-start mark and role marker, then the part text. */
	text: string;
}

export interface StablePortion {
	/** The message holding the last stable part (the open segment's message). */
	messageIndex: number;
	/** How many leading parts of that message are stable. */
	partCount: number;
	/** Units (system prompt, declarations, parts) in the stable portion. */
	unitCount: number;
	/** Chained hash at the end of the stable portion. */
	hash: string;
	chars: number;
	tokens: number;
}

/**
 * A rendered request. `context` and `units` are made when first read (docs/decisions.md, "A
 * replay's memory follows the branch"): a replay measures a request at every point and sends none,
 * and a long branch's request is one content part per block; `unitAt`/`unitCount` read the units
 * without making the array.
 */
export interface LedgerRequest {
	context: Context;
	stable: StablePortion;
	units: RequestUnit[];
	/** Hash of the whole request (all units). */
	hash: string;
	tokens: number;
	messageCount: number;
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

/**
 * Memo of rendered blocks, by block identity. The reducers never change a block once made, so
 * after an incremental fold only the new blocks are rendered. One memo per ledger config.
 */
export interface RenderMemo {
	block(block: Block, config: LedgerConfig): string;
	partHash(text: string): string;
	catalogue(entries: readonly CatalogueEntry[]): string;
	/**
	 * A closed segment rendered whole: its log message and its advice turn. A closed segment never
	 * changes, so later requests reuse the very same message objects and part strings.
	 */
	segment(segment: ClosedSegment, config: LedgerConfig, build: () => RenderedSegment): RenderedSegment;
	/**
	 * The units of the last request measured with this memo, with the head and messages they were
	 * made from: a later request that starts with the same parts shares their units.
	 */
	lastUnits: MeasuredUnits | undefined;
	/**
	 * The open segment's blocks as last rendered untrimmed, with the open message's log parts (the log
	 * opening, then one part per block): the next request shares the parts of the blocks it still
	 * has (chunked lists, reducers/chunked.ts), so a replay of a long branch stays linear.
	 */
	lastOpen: { key: string; blocks: ChunkedList<Block>; log: ChunkedList<TextContent> } | undefined;
}

/** What a request's units were made from (RenderMemo.lastUnits). */
export interface MeasuredUnits {
	/** The system prompt and the declarations' JSON: units 0 and 1. */
	head: readonly [string, string];
	messages: readonly Assembled[];
	units: ChunkedList<RequestUnit>;
}

/**
 * A message of a request as assembled: one made whole (`message`: the catalogue, a closed segment's
 * log or advice), or the open message, whose log parts are a chunked list shared with the previous
 * request's and whose volatile parts (`tail`) follow.
 */
export interface Assembled {
	role: "user" | "assistant";
	message: Message | undefined;
	log: ChunkedList<TextContent>;
	tail: readonly TextContent[];
}

function whole(message: UserMessage | AssistantMessage): Assembled {
	return { role: message.role, message, log: emptyList(), tail: textParts(message) };
}

function partCount(message: Assembled): number {
	return message.log.length + message.tail.length;
}

function partAt(message: Assembled, p: number): TextContent {
	return p < message.log.length ? message.log.at(p)! : message.tail[p - message.log.length]!;
}

/** The message as pi-ai takes it. */
function messageOf(message: Assembled): Message {
	return message.message ?? { role: "user", content: [...message.log.toArray(), ...message.tail], timestamp: 0 };
}

/** A closed segment as two messages, with the part texts each was made from. */
export interface RenderedSegment {
	log: UserMessage;
	logParts: string[];
	advice: AssistantMessage;
	adviceParts: string[];
}

function configKey(config: LedgerConfig): string {
	return `${config.tailToolCalls}:${config.tailMaxChars}:${config.tailResultMaxChars}:${config.userMessageMaxChars}:${config.customPreviewChars}:${config.proseMaxChars}`;
}

export function createRenderMemo(): RenderMemo {
	const byConfig = new Map<string, WeakMap<Block, string>>();
	const segments = new Map<string, WeakMap<ClosedSegment, RenderedSegment>>();
	const hashes = new Map<string, string>();
	let lastCatalogue: { entries: readonly CatalogueEntry[]; key: string; text: string } | undefined;
	return {
		lastUnits: undefined,
		lastOpen: undefined,
		segment(segment, config, build) {
			const key = configKey(config);
			let memo = segments.get(key);
			if (memo === undefined) {
				memo = new WeakMap();
				segments.set(key, memo);
			}
			let rendered = memo.get(segment);
			if (rendered === undefined) {
				rendered = build();
				memo.set(segment, rendered);
			}
			return rendered;
		},
		block(block, config) {
			const key = configKey(config);
			let memo = byConfig.get(key);
			if (memo === undefined) {
				memo = new WeakMap();
				byConfig.set(key, memo);
			}
			let text = memo.get(block);
			if (text === undefined) {
				text = renderBlock(block, config);
				memo.set(block, text);
			}
			return text;
		},
		partHash(text) {
			let hash = hashes.get(text);
			if (hash === undefined) {
				hash = hashString(text);
				// Bounded: the working set is one branch's parts; past that, start over rather than grow.
				if (hashes.size > 200_000) hashes.clear();
				hashes.set(text, hash);
			}
			return hash;
		},
		catalogue(entries) {
			if (lastCatalogue?.entries === entries) return lastCatalogue.text;
			const key = JSON.stringify(entries.map((e) => [e.name, e.description]));
			if (lastCatalogue?.key !== key) lastCatalogue = { entries, key, text: renderCatalogue(entries) };
			else lastCatalogue = { ...lastCatalogue, entries };
			return lastCatalogue.text;
		},
	};
}

const sharedMemo = createRenderMemo();

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
 * The appendix: the one volatile part of the open log. The newest prose is repeated in full only
 * when the log shows less of it (capped there, or left out by a trim).
 */
function appendixPart(
	state: LedgerState,
	tail: TailSelection,
	reasoning: readonly { pos: number; thinking: string }[],
	config: LedgerConfig,
	tailConfig: LedgerConfig,
	cut: { firstSegment: number; firstBlock: number } | undefined,
): string | undefined {
	let body = "";
	for (const r of tail.rounds) body += verbatimRound(ordinalId(r.pos), r.round, tailConfig, false);
	for (const pending of tail.pendingCards)
		body += cardLine(ordinalId(pending.callPos), unansweredRound(pending), "running");
	for (const pending of tail.pendingTail)
		body += verbatimRound(ordinalId(pending.callPos), unansweredRound(pending), tailConfig, true);
	const prose = newestProse(state);
	const last = state.lastProse;
	// The newest prose a compaction hid (the in-flight question is shown as the question).
	const hidden =
		last !== undefined &&
		(prose === undefined || prose.pos < last.pos) &&
		!state.pendingConsultations.toArray().some((p) => p.callEntryId === last.id);
	if (hidden) body += proseBlock(ordinalId(last.pos), last.text, tailConfig.tailMaxChars);
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
			body += proseBlock(ordinalId(prose.pos), text, tailConfig.tailMaxChars);
		}
	}
	for (const r of reasoning) body += reasoningBlock(ordinalId(r.pos), r.thinking, tailConfig);
	return body.length === 0 ? undefined : `${APPENDIX_HEADER}\n${body}`;
}

/**
 * The blocks of a segment from `from` on. When a trim left out the blocks before `from`, the first
 * card kept (after nothing but prose) cannot point at the card above it, which is gone: it shows its
 * own path, rendered each time like the rest of a trimmed segment's first message.
 */
function keptBlocks(blocks: readonly Block[], from: number, config: LedgerConfig, memo: RenderMemo): string[] {
	const out: string[] = [];
	let afterCut = from > 0;
	for (let b = from; b < blocks.length; b++) {
		const block = blocks[b]!;
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
 * The open message's log when nothing is trimmed: the parts the previous open message had for the
 * blocks it shares with this one (shared, not copied: chunked.ts), new parts after them.
 */
function untrimmedOpen(blocks: ChunkedList<Block>, config: LedgerConfig, memo: RenderMemo): ChunkedList<TextContent> {
	const last = memo.lastOpen?.key === configKey(config) ? memo.lastOpen : undefined;
	// The blocks the previous render had too: the chunks both hold are skipped whole.
	const same = last === undefined ? 0 : last.blocks.sharedPrefix(blocks);
	const fresh: TextContent[] = last === undefined ? [textPart(LOG_OPEN)] : [];
	for (let b = same; b < blocks.length; b++) fresh.push(textPart(memo.block(blocks.at(b)!, config)));
	return last === undefined ? listOf(fresh) : last.log.prefix(1 + same).appended(fresh);
}

function questionSection(question: string, id: string, config: LedgerConfig): string {
	const text =
		question.trim().length > 0 ? capWithGap(neutralise(question.trim()), config.tailMaxChars, id) : DEFAULT_QUESTION;
	return `<${TAGS.question}>\n${text}\n</${TAGS.question}>\n`;
}

function reviewSection(): string {
	return `<${TAGS.review}>\n${REVIEW_MARKER}\n</${TAGS.review}>\n`;
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
	parts.push(...keptBlocks(segment.blocks, from, config, memo));
	parts.push(
		LOG_CLOSE +
			(segment.closedBy === "review"
				? reviewSection()
				: questionSection(segment.question, ordinalId(segment.questionPos), config)),
	);
	// Neutralised too: a review arrives as a custom message, which any extension could write.
	const advice = [capWithGap(neutralise(segment.advice), config.tailMaxChars, ordinalId(segment.closingPos))];
	return { log: userMessage(parts), logParts: parts, advice: adviceMessage(advice[0]!), adviceParts: advice };
}

/** What ends the request: the in-flight question and the consult instruction, or the review instruction. */
function closingParts(
	mode: RequestMode,
	consultation: PendingConsultation | undefined,
	tailConfig: LedgerConfig,
): string[] {
	if (mode !== "consult") return [LOG_CLOSE, REVIEW_INSTRUCTION];
	const id = consultation === undefined ? "question" : ordinalId(consultation.callPos);
	return [LOG_CLOSE + questionSection(consultation?.question ?? "", id, tailConfig), CONSULT_INSTRUCTION];
}

export function renderRequest(
	state: LedgerState,
	options: RenderOptions,
	memo: RenderMemo = sharedMemo,
): LedgerRequest {
	const { config } = options;
	const messages: Assembled[] = [];

	const catalogue = [memo.catalogue(options.catalogue)];
	const instructions = renderInstructions(instructionSource(state, options), config, state.cwd);
	if (instructions !== undefined) catalogue.push(instructions);
	messages.push(whole(userMessage(catalogue)));

	// Trimming: the stand-in part opens the first log message that is kept.
	const anchor = options.trim?.anchorEntryId;
	const cut = anchor === undefined ? undefined : locateCut(state, anchor);
	let trimPart = cut === undefined ? undefined : trimmedPart(state, cut, config, (b) => memo.block(b, config));
	const tailConfig = trimmedTailConfig(config, options.trim?.tailCaps);

	for (let s = cut?.firstSegment ?? 0; s < state.closed.length; s++) {
		const segment = state.closed[s]!;
		const from = cut !== undefined && s === cut.firstSegment ? cut.firstBlock : 0;
		// Only a segment rendered whole is memoised; the one a trim cuts into is built each time.
		const rendered =
			from === 0 && trimPart === undefined
				? memo.segment(segment, config, () => closedSegment(segment, 0, undefined, config, memo))
				: closedSegment(segment, from, trimPart, config, memo);
		trimPart = undefined;
		messages.push(whole(rendered.log), whole(rendered.advice));
	}

	const openFrom = cut !== undefined && cut.firstSegment === state.closed.length ? cut.firstBlock : 0;
	const untrimmed = openFrom === 0 && trimPart === undefined;
	const log = untrimmed
		? untrimmedOpen(state.open, config, memo)
		: listOf(
				[
					LOG_OPEN,
					...(trimPart === undefined ? [] : [trimPart]),
					...keptBlocks(state.open.toArray(), openFrom, config, memo),
				].map(textPart),
			);
	const tail = volatileParts(state, options, cut, openFrom, tailConfig).map(textPart);
	messages.push({ role: "user", message: undefined, log, tail });
	if (untrimmed) memo.lastOpen = { key: configKey(config), blocks: state.open, log };
	return measure(advisorSystemPrompt(options.toolsMode), [...options.tools], messages, log.length, memo);
}

/** What follows the open log: the appendix (if any), then the question and instruction, or the review instruction. */
function volatileParts(
	state: LedgerState,
	options: RenderOptions,
	cut: ReturnType<typeof locateCut>,
	openFrom: number,
	tailConfig: LedgerConfig,
): string[] {
	const { config } = options;
	const tail = selectTail(state, config, openFrom);
	const consultation = options.mode === "consult" ? inFlight(state, options.inFlightCallId) : undefined;
	const reasoning = [...tail.reasoning];
	if (consultation !== undefined && consultation.reasoning.trim().length > 0) {
		if (!reasoning.some((r) => r.pos === consultation.callPos)) {
			reasoning.push({ pos: consultation.callPos, thinking: consultation.reasoning });
		}
	}
	const appendix = appendixPart(state, tail, reasoning, config, tailConfig, cut);
	const closing = closingParts(options.mode, consultation, tailConfig);
	return appendix === undefined ? closing : [appendix, ...closing];
}

/** Role marker of a message's parts in the flattened form; the first part also carries a message-start mark. */
function roleMarker(role: Message["role"]): string {
	return role === "assistant" ? "a\u0000" : "u\u0000";
}

const MESSAGE_START = "\u0001";

/** A message's parts: every message the renderer makes has text parts only. */
function textParts(message: Message): readonly TextContent[] {
	return message.content as readonly TextContent[];
}

/**
 * How many leading units a request shares with the one measured before it: the same head, then
 * message by message the same role and part texts (a message made whole is the same object when
 * the memo made it, skipped whole; the open message's log parts shared with the previous one's are
 * the same chunks). A part that differs ends the shared run.
 */
function sharedUnits(
	previous: MeasuredUnits | undefined,
	head: readonly [string, string],
	messages: readonly Assembled[],
): number {
	if (previous === undefined || previous.head[0] !== head[0]) return 0;
	if (previous.head[1] !== head[1]) return 1;
	let count = 2;
	const shown = Math.min(messages.length, previous.messages.length);
	for (let m = 0; m < shown; m++) {
		const a = previous.messages[m]!;
		const b = messages[m]!;
		const before = partCount(a);
		const after = partCount(b);
		if (a.message !== undefined && a.message === b.message) {
			count += after;
			continue;
		}
		if (roleMarker(a.role) !== roleMarker(b.role)) return count;
		const n = Math.min(before, after);
		let p = Math.min(a.log.sharedPrefix(b.log), n);
		while (p < n && partAt(a, p).text === partAt(b, p).text) p++;
		count += p;
		// A message with more or fewer parts moves the next message's start: nothing after is shared.
		if (p < before || p < after) return count;
	}
	return count;
}

/** Where the stable portion ends, as `measure` finds it. */
interface StableEnd {
	units: number;
	hash: string;
	chars: number;
	tokens: number;
}

/**
 * Units, hashes and token counts of an assembled request. While this request repeats the previous
 * one part for part (the usual case: the ledger only grows), its units are the previous request's,
 * shared (a chunked list); hashing starts at the first part that differs. A new part's text is
 * hashed on its own (memoised by content, unless volatile) with the role marker chained beside it.
 */
function measure(
	systemPrompt: string,
	tools: Tool[],
	messages: readonly Assembled[],
	stablePartCount: number,
	memo: RenderMemo,
): LedgerRequest {
	const head: [string, string] = [systemPrompt, JSON.stringify(tools)];
	const previous = memo.lastUnits;
	const shared = sharedUnits(previous, head, messages);
	const units = listBuilder(previous?.units ?? emptyList<RequestUnit>(), shared);
	let prefixHash = shared === 0 ? "" : units.at(shared - 1)!.prefixHash;
	let prefixChars = shared === 0 ? 0 : units.at(shared - 1)!.prefixChars;
	const addUnit = (marker: string, text: string, volatile: boolean) => {
		// A volatile part changes at every point: memoising its hash would keep every version.
		prefixHash = chainHash(prefixHash, marker, volatile ? hashString(text) : memo.partHash(text));
		prefixChars += marker.length + text.length;
		units.push({ prefixHash, prefixChars, text: marker + text });
	};
	for (let u = shared; u < 2; u++) addUnit("", head[u]!, false);

	const headTokens = tokensForChars(systemPrompt.length) + estimateToolsTokens(tools);
	let tokens = headTokens;
	const lastMessage = messages.length - 1;
	let stable: StableEnd = { units: 0, hash: "", chars: 0, tokens: headTokens };
	let first = 2;
	for (let m = 0; m < messages.length; m++) {
		const message = messages[m]!;
		const parts = partCount(message);
		const marker = roleMarker(message.role);
		for (let p = Math.max(0, shared - first); p < parts; p++) {
			const volatile = m === lastMessage && p >= stablePartCount;
			addUnit(p === 0 ? MESSAGE_START + marker : marker, partAt(message, p).text, volatile);
		}
		// The message's characters without the markers, from the chained counts.
		const charsBefore = units.at(first - 1)!.prefixChars;
		const markers = (count: number) => (count === 0 ? 0 : MESSAGE_START.length + count * marker.length);
		if (m === lastMessage && stablePartCount > 0 && stablePartCount <= parts) {
			const end = units.at(first + stablePartCount - 1)!;
			const chars = end.prefixChars - charsBefore - markers(stablePartCount);
			stable = {
				units: first + stablePartCount,
				hash: end.prefixHash,
				chars: end.prefixChars,
				tokens: tokens + tokensForChars(chars),
			};
		}
		const end = parts === 0 ? undefined : units.at(first + parts - 1)!;
		tokens += tokensForChars(end === undefined ? 0 : end.prefixChars - charsBefore - markers(parts));
		first += parts;
	}
	const list = units.done();
	memo.lastUnits = { head, messages, units: list };
	const portion: StablePortion = {
		messageIndex: lastMessage,
		partCount: stablePartCount,
		unitCount: stable.units,
		hash: stable.hash,
		chars: stable.chars,
		tokens: stable.tokens,
	};
	return requestOf({ systemPrompt, tools, messages, units: list }, portion, { hash: prefixHash, tokens });
}

/** What a request is made from, for the arrays made when first read. */
interface RequestParts {
	systemPrompt: string;
	tools: Tool[];
	messages: readonly Assembled[];
	units: ChunkedList<RequestUnit>;
}

const partsOfRequest = new WeakMap<object, RequestParts>();

function requestOf(
	parts: RequestParts,
	stable: StablePortion,
	totals: { hash: string; tokens: number },
): LedgerRequest {
	let context: Context | undefined;
	let units: RequestUnit[] | undefined;
	const request: LedgerRequest = {
		get context() {
			context ??= { systemPrompt: parts.systemPrompt, messages: parts.messages.map(messageOf), tools: parts.tools };
			return context;
		},
		stable,
		get units() {
			units ??= parts.units.toArray();
			return units;
		},
		hash: totals.hash,
		tokens: totals.tokens,
		messageCount: parts.messages.length,
	};
	partsOfRequest.set(request, parts);
	return request;
}

/** How many units a request has, without making its array of units. */
export function unitCount(request: Pick<LedgerRequest, "units">): number {
	return partsOfRequest.get(request)?.units.length ?? request.units.length;
}

/** A request's unit by index, without making its array of units. */
export function unitAt(request: Pick<LedgerRequest, "units">, index: number): RequestUnit | undefined {
	// Not from the end, as `at` would: an index before the first unit has none.
	if (index < 0) return undefined;
	const parts = partsOfRequest.get(request);
	return parts === undefined ? request.units[index] : parts.units.at(index);
}

/**
 * Leading units two requests share. A unit's chained hash covers every unit before it, so equal
 * hashes at k mean equal prefixes up to k: a binary search finds the end.
 */
export function commonUnits(a: LedgerRequest, b: LedgerRequest): number {
	return partitionPoint(
		Math.min(unitCount(a), unitCount(b)),
		(k) => unitAt(a, k)!.prefixHash === unitAt(b, k)!.prefixHash,
	);
}

/** How many tool declarations a request sends, without making its context. */
export function declarationCount(request: Pick<LedgerRequest, "context">): number {
	return partsOfRequest.get(request)?.tools.length ?? request.context.tools?.length ?? 0;
}

/** The provider-neutral flattened form: what the prefix invariant compares. */
export function flatten(request: LedgerRequest, unitCount = request.units.length): string {
	let out = "";
	for (let i = 0; i < unitCount; i++) out += request.units[i]!.text;
	return out;
}

/**
 * The request cut right after its stable portion, measured the same way: what a cache-warming
 * refresh sends where only a marked prefix is cached, so it reads (and keeps alive) exactly the
 * entry the next consultation reads (docs/request-format.md §7).
 */
export function stablePrefixRequest(request: LedgerRequest): LedgerRequest {
	const { stable } = request;
	const messages = request.context.messages.slice(0, stable.messageIndex + 1);
	const last = messages[stable.messageIndex];
	if (last !== undefined && last.role === "user" && Array.isArray(last.content))
		messages[stable.messageIndex] = { ...last, content: last.content.slice(0, stable.partCount) };
	return {
		context: { ...request.context, messages },
		stable,
		units: request.units.slice(0, stable.unitCount),
		hash: stable.hash,
		tokens: stable.tokens,
		messageCount: messages.length,
	};
}

/**
 * The credential marks (docs/privacy.md) in what is sent: the system prompt and the given messages'
 * text. `details.redactions` and `render`'s header say it. A mark the user typed counts too.
 */
export function redactionCount(messages: readonly Message[], systemPrompt = ""): number {
	let count = countMarks(systemPrompt);
	for (const message of messages) {
		if (typeof message.content === "string") {
			count += countMarks(message.content);
			continue;
		}
		for (const part of message.content) {
			if (part.type === "text") count += countMarks(part.text);
			else if (part.type === "thinking") count += countMarks(part.thinking);
			else if (part.type === "toolCall") count += countMarks(JSON.stringify(part.arguments));
		}
	}
	return count;
}
