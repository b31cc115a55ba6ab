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
import { countMarks } from "../events/index.ts";
import {
	type Block,
	type ClosedSegment,
	editedProse,
	editedRound,
	type Instruction,
	type LedgerState,
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
import type { LedgerConfig } from "./config.ts";
import { estimateToolsTokens, tokensForChars } from "./estimate.ts";
import { chainHash, hashString } from "./hash.ts";
import { type InstructionSource, renderInstructions } from "./instructions.ts";
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
import { capWithGap } from "./text.ts";
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
	 * The units of the last request measured with this memo, with the marker and part text each
	 * was made from: a later request that starts with the same parts reuses their chained hashes.
	 */
	lastUnits: { markers: string[]; parts: string[]; units: RequestUnit[] } | undefined;
	/**
	 * The open segment's blocks as last rendered untrimmed, with their part texts and the open
	 * message's content objects: the next request compares block identities (cheap) instead of
	 * looking every block up again, so a replay of a long branch stays linear.
	 */
	lastOpen: { key: string; blocks: readonly Block[]; parts: string[]; content: TextContent[] } | undefined;
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
	const pending = state.pendingCalls;
	const pendingInTail = Math.min(want, pending.length);
	const pendingTail = pending.slice(pending.length - pendingInTail);
	const pendingCards = pending.slice(0, pending.length - pendingInTail);
	let needBlocks = want - pendingInTail;
	const rounds: { pos: number; round: Round }[] = [];
	let firstTail = state.open.length;
	for (let i = state.open.length - 1; i >= from && needBlocks > 0; i--) {
		const block = state.open[i]!;
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
		const blocks = closed === undefined ? state.open : closed.blocks;
		// The prose beside a completed advisor call comes after the segment's blocks.
		if (closed !== undefined && closed.closedBy === "consultation" && closed.question.trim().length > 0)
			return { segment: s, block: blocks.length, pos: closed.questionPos, text: closed.question, question: true };
		for (let b = blocks.length - 1; b >= 0; b--) {
			const block = blocks[b]!;
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
		!state.pendingConsultations.some((p) => p.callEntryId === last.id);
	if (hidden) body += proseBlock(ordinalId(last.pos), last.text, tailConfig.tailMaxChars);
	else if (prose !== undefined) {
		const trimmed =
			cut !== undefined &&
			(prose.segment < cut.firstSegment || (prose.segment === cut.firstSegment && prose.block < cut.firstBlock));
		// Repeated as the executor's context holds it now; not at all when a context edit took it out.
		const id = state.events[prose.pos - 1]?.id;
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

/**
 * The open segment's blocks when nothing is trimmed: the leading blocks the previous request
 * rendered (the same block objects, the reducers never change one) keep their texts.
 */
function openBlocks(blocks: readonly Block[], config: LedgerConfig, memo: RenderMemo): string[] {
	const last = memo.lastOpen?.key === configKey(config) ? memo.lastOpen : undefined;
	let same = 0;
	if (last !== undefined) {
		const n = Math.min(last.blocks.length, blocks.length);
		while (same < n && last.blocks[same] === blocks[same]) same++;
	}
	const out = same === 0 ? [] : last!.parts.slice(0, same);
	for (let b = same; b < blocks.length; b++) out.push(memo.block(blocks[b]!, config));
	return out;
}

/** The open message, reusing the previous open message's content objects for the parts it repeats. */
function openMessage(parts: readonly string[], memo: RenderMemo): { message: UserMessage; content: TextContent[] } {
	const previous = memo.lastOpen?.content;
	const content: TextContent[] = [];
	for (let i = 0; i < parts.length; i++) {
		const text = parts[i]!;
		const old = previous?.[i];
		content.push(old !== undefined && old.text === text ? old : { type: "text", text });
	}
	return { message: { role: "user", content, timestamp: 0 }, content };
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
	if (callId !== undefined) return all.find((p) => p.callId === callId);
	return all[all.length - 1];
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
	const messages: Message[] = [];
	const partsOf: string[][] = [];
	const push = (message: Message, parts: string[]) => {
		messages.push(message);
		partsOf.push(parts);
	};

	const catalogue = [memo.catalogue(options.catalogue)];
	const instructions = renderInstructions(instructionSource(state, options), config, state.cwd);
	if (instructions !== undefined) catalogue.push(instructions);
	push(userMessage(catalogue), catalogue);

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
		push(rendered.log, rendered.logParts);
		push(rendered.advice, rendered.adviceParts);
	}

	const openFrom = cut !== undefined && cut.firstSegment === state.closed.length ? cut.firstBlock : 0;
	const open = [LOG_OPEN];
	if (trimPart !== undefined) open.push(trimPart);
	const untrimmed = openFrom === 0 && trimPart === undefined;
	const logged = untrimmed ? openBlocks(state.open, config, memo) : keptBlocks(state.open, openFrom, config, memo);
	for (const part of logged) open.push(part);
	const stablePartCount = open.length;

	const tail = selectTail(state, config, openFrom);
	const consultation = options.mode === "consult" ? inFlight(state, options.inFlightCallId) : undefined;
	const reasoning = [...tail.reasoning];
	if (consultation !== undefined && consultation.reasoning.trim().length > 0) {
		if (!reasoning.some((r) => r.pos === consultation.callPos)) {
			reasoning.push({ pos: consultation.callPos, thinking: consultation.reasoning });
		}
	}
	const appendix = appendixPart(state, tail, reasoning, config, tailConfig, cut);
	if (appendix !== undefined) open.push(appendix);

	for (const part of closingParts(options.mode, consultation, tailConfig)) open.push(part);
	if (untrimmed) {
		const { message, content } = openMessage(open, memo);
		memo.lastOpen = { key: configKey(config), blocks: state.open, parts: logged, content };
		push(message, open);
	} else push(userMessage(open), open);

	const systemPrompt = advisorSystemPrompt(options.toolsMode);
	const tools = [...options.tools];
	const context: Context = { systemPrompt, messages, tools };
	return measure(context, partsOf, stablePartCount, memo);
}

/** Units, hashes and token counts of an assembled request. */
function measure(
	context: Context,
	partsOf: readonly string[][],
	stablePartCount: number,
	memo: RenderMemo,
): LedgerRequest {
	const units: RequestUnit[] = [];
	const markers: string[] = [];
	const parts: string[] = [];
	let prefixHash = "";
	let prefixChars = 0;
	// While this request repeats the previous one part for part (the usual case: the ledger only
	// grows), its units are reused as they are; hashing starts at the first part that differs.
	// A new part's text is hashed on its own (memoised by content) with the role marker chained
	// beside it.
	const previous = memo.lastUnits;
	let reusing = previous !== undefined;
	const addUnit = (marker: string, text: string) => {
		const i = units.length;
		markers.push(marker);
		parts.push(text);
		if (
			reusing &&
			previous !== undefined &&
			i < previous.units.length &&
			previous.markers[i] === marker &&
			previous.parts[i] === text
		) {
			const unit = previous.units[i]!;
			prefixHash = unit.prefixHash;
			prefixChars = unit.prefixChars;
			units.push(unit);
			return;
		}
		reusing = false;
		prefixHash = chainHash(prefixHash, marker + memo.partHash(text));
		prefixChars += marker.length + text.length;
		units.push({ prefixHash, prefixChars, text: marker + text });
	};
	const systemPrompt = context.systemPrompt ?? "";
	const toolsJson = JSON.stringify(context.tools ?? []);
	addUnit("", systemPrompt);
	addUnit("", toolsJson);

	let tokens = tokensForChars(systemPrompt.length) + estimateToolsTokens(context.tools ?? []);
	const lastMessage = partsOf.length - 1;
	let stableTokens = tokens;
	let stableUnits = 0;
	let stableHash = "";
	let stableChars = 0;
	for (let m = 0; m < partsOf.length; m++) {
		const role = context.messages[m]!.role === "assistant" ? "a\u0000" : "u\u0000";
		const parts = partsOf[m]!;
		let messageChars = 0;
		for (let p = 0; p < parts.length; p++) {
			const text = parts[p]!;
			addUnit(p === 0 ? `\u0001${role}` : role, text);
			messageChars += text.length;
			if (m === lastMessage && p === stablePartCount - 1) {
				stableUnits = units.length;
				stableHash = prefixHash;
				stableChars = prefixChars;
				stableTokens = tokens + tokensForChars(messageChars);
			}
		}
		tokens += tokensForChars(messageChars);
	}
	memo.lastUnits = { markers, parts, units };
	return {
		context,
		stable: {
			messageIndex: lastMessage,
			partCount: stablePartCount,
			unitCount: stableUnits,
			hash: stableHash,
			chars: stableChars,
			tokens: stableTokens,
		},
		units,
		hash: prefixHash,
		tokens,
		messageCount: context.messages.length,
	};
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
