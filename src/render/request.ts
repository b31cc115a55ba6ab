/**
 * Request assembly (SPEC §2): system prompt, tool declarations, the catalogue, one user message
 * per closed segment followed by its advice, then the open segment ending on the instruction.
 *
 * Every block is its own content part and never changes once rendered, so a request rendered at
 * one point of a branch is, part for part, the head of every later one: the stable portion. Only
 * the verbatim tail, the question and the instruction (the volatile parts) sit after it.
 */

import type { AssistantMessage, Context, Message, TextContent, Tool, UserMessage } from "@mariozechner/pi-ai";
import {
	type Block,
	type ClosedSegment,
	type LedgerState,
	type PendingCall,
	type PendingConsultation,
	type Round,
	unansweredRound,
} from "../reducers/state.ts";
import { cardLine, displayId, reasoningBlock, renderBlock, verbatimRound } from "./blocks.ts";
import { type CatalogueEntry, renderCatalogue } from "./catalogue.ts";
import type { LedgerConfig } from "./config.ts";
import {
	type AdvisorToolsMode,
	advisorSystemPrompt,
	CONSULT_INSTRUCTION,
	DEFAULT_QUESTION,
	LOG_CLOSE,
	LOG_OPEN,
	REVIEW_INSTRUCTION,
	REVIEW_MARKER,
	TAGS,
} from "./constants.ts";
import { estimateToolsTokens, tokensForChars } from "./estimate.ts";
import { chainHash, hashString } from "./hash.ts";
import { neutralise } from "./neutralise.ts";
import { capWithGap } from "./text.ts";
import { locateCut, type RenderTrim, trimmedPart } from "./trim-cut.ts";
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
	 * Trim to fit the context budget (issue 6): the ledger up to and including the anchor is left
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
	lastUnits: MeasuredUnits | undefined;
	/** The last request's open segment as rendered: a later one whose stable blocks start the same reuses it. */
	lastOpen: RenderedOpen | undefined;
}

/** What `measure` keeps of the last request. */
export interface MeasuredUnits {
	markers: string[];
	parts: string[];
	units: RequestUnit[];
	/** Per message: its parts array, the index of its first unit and its role. */
	partsOf: readonly (readonly string[])[];
	starts: number[];
	roles: string[];
}

/** The open segment's message as the last request rendered it, up to its last stable part. */
export interface RenderedOpen {
	config: LedgerConfig;
	/** The state's open blocks it was rendered from, and the range made into parts. */
	blocks: readonly Block[];
	from: number;
	to: number;
	/** LOG_OPEN and one part per block of [from, to), and their content objects. */
	parts: string[];
	content: TextContent[];
}

/** A closed segment as two messages, with the part texts each was made from. */
export interface RenderedSegment {
	log: UserMessage;
	logParts: string[];
	advice: AssistantMessage;
	adviceParts: string[];
}

function configKey(config: LedgerConfig): string {
	return `${config.tailToolCalls}:${config.tailMaxChars}:${config.userMessageMaxChars}:${config.customPreviewChars}`;
}

export function createRenderMemo(): RenderMemo {
	const byConfig = new Map<string, WeakMap<Block, string>>();
	const segments = new Map<string, WeakMap<ClosedSegment, RenderedSegment>>();
	const hashes = new Map<string, string>();
	let lastCatalogue: { entries: readonly CatalogueEntry[]; key: string; text: string } | undefined;
	let lastBlockConfig: LedgerConfig | undefined;
	let lastBlockMemo: WeakMap<Block, string> | undefined;
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
			// Called for every block of every request: the key string is built once per config object.
			let memo = config === lastBlockConfig ? lastBlockMemo : undefined;
			if (memo === undefined) {
				const key = configKey(config);
				memo = byConfig.get(key);
				if (memo === undefined) {
					memo = new WeakMap();
					byConfig.set(key, memo);
				}
				lastBlockConfig = config;
				lastBlockMemo = memo;
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
	/** Index in `open` of the first block that is not stable. */
	firstVolatile: number;
	/** Pending calls rendered verbatim (in the tail) or as running cards (older than the tail). */
	pendingTail: PendingCall[];
	pendingCards: PendingCall[];
	/** Reasoning of the messages that made the tail rounds, by entry id, in order. */
	reasoning: { id: string; thinking: string }[];
}

/**
 * The newest `tailToolCalls` rounds of the open segment stay verbatim. Rounds are ordered by where
 * they sit in the log; calls still running come after every finished round.
 */
function selectTail(state: LedgerState, config: LedgerConfig, from = 0): TailSelection {
	const want = Math.max(0, Math.floor(config.tailToolCalls));
	const pending = state.pendingCalls;
	const pendingInTail = Math.min(want, pending.length);
	const pendingTail = pending.slice(pending.length - pendingInTail);
	const pendingCards = pending.slice(0, pending.length - pendingInTail);
	let needBlocks = want - pendingInTail;
	let firstVolatile = state.open.length;
	const tailRounds: Round[] = [];
	for (let i = state.open.length - 1; i >= from && needBlocks > 0; i--) {
		const block = state.open[i]!;
		if (block.kind !== "round") continue;
		firstVolatile = i;
		tailRounds.unshift(block.round);
		needBlocks--;
	}
	const reasoning: { id: string; thinking: string }[] = [];
	const seen = new Set<string>();
	for (const round of [...tailRounds, ...pendingTail.map(unansweredRound)]) {
		if (round.reasoning.trim().length === 0 || seen.has(round.callEntryId)) continue;
		seen.add(round.callEntryId);
		reasoning.push({ id: round.callEntryId, thinking: round.reasoning });
	}
	return { firstVolatile, pendingTail, pendingCards, reasoning };
}

/** How many leading blocks of the open segment are stable (rendered as cards/blocks, not verbatim tail). */
export function stableOpenBlocks(state: LedgerState, config: LedgerConfig): number {
	return selectTail(state, config).firstVolatile;
}

function questionSection(question: string, id: string, config: LedgerConfig): string {
	const text =
		question.trim().length > 0 ? capWithGap(neutralise(question.trim()), config.tailMaxChars, id) : DEFAULT_QUESTION;
	return `<${TAGS.question}>\n${text}\n</${TAGS.question}>\n`;
}

function reviewSection(): string {
	return `<${TAGS.review}>\n${REVIEW_MARKER}\n</${TAGS.review}>\n`;
}

function inFlight(state: LedgerState, callId: string | undefined): PendingConsultation | undefined {
	const all = state.pendingConsultations;
	if (callId !== undefined) return all.find((p) => p.callId === callId);
	return all[all.length - 1];
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
	push(userMessage(catalogue), catalogue);

	// Trimming: the stand-in part opens the first log message that is kept.
	const anchor = options.trim?.anchorEntryId;
	const cut = anchor === undefined ? undefined : locateCut(state, anchor);
	let trimPart = cut === undefined ? undefined : trimmedPart(state, cut, config, (b) => memo.block(b, config));
	const tailConfig =
		options.trim?.tailCaps === undefined
			? config
			: { ...config, tailMaxChars: Math.max(1, Math.min(config.tailMaxChars, Math.floor(options.trim.tailCaps))) };

	for (let s = cut?.firstSegment ?? 0; s < state.closed.length; s++) {
		const segment = state.closed[s]!;
		const from = cut !== undefined && s === cut.firstSegment ? cut.firstBlock : 0;
		const build = (lead: string | undefined): RenderedSegment => {
			const parts = [LOG_OPEN];
			if (lead !== undefined) parts.push(lead);
			for (let b = from; b < segment.blocks.length; b++) parts.push(memo.block(segment.blocks[b]!, config));
			parts.push(
				LOG_CLOSE +
					(segment.closedBy === "review"
						? reviewSection()
						: questionSection(segment.question, displayId(segment.closingId), config)),
			);
			// Neutralised too: a review arrives as a custom message, which any extension could write.
			const advice = [capWithGap(neutralise(segment.advice), config.tailMaxChars, displayId(segment.closingId))];
			return { log: userMessage(parts), logParts: parts, advice: adviceMessage(advice[0]!), adviceParts: advice };
		};
		// Only a segment rendered whole is memoised; the one a trim cuts into is built each time.
		const rendered =
			from === 0 && trimPart === undefined ? memo.segment(segment, config, () => build(undefined)) : build(trimPart);
		trimPart = undefined;
		push(rendered.log, rendered.logParts);
		push(rendered.advice, rendered.adviceParts);
	}

	const openFrom = cut !== undefined && cut.firstSegment === state.closed.length ? cut.firstBlock : 0;
	const tail = selectTail(state, config, openFrom);
	const open = [LOG_OPEN];
	if (trimPart !== undefined) open.push(trimPart);
	// The open segment only grows between consultations: its stable blocks are the previous request's
	// (the very same block objects) plus a few new ones. Those are reused as they were rendered,
	// which keeps a request's cost in its new blocks, not in the length of the segment.
	const last = memo.lastOpen;
	let i = openFrom;
	if (last !== undefined && trimPart === undefined && last.config === config && last.from === openFrom) {
		const n = Math.min(tail.firstVolatile, last.to);
		while (i < n && state.open[i] === last.blocks[i]) i++;
		for (let k = 1; k <= i - openFrom; k++) open.push(last.parts[k]!);
	}
	const reusedParts = last !== undefined && i > openFrom ? open.length : 0;
	for (; i < tail.firstVolatile; i++) open.push(memo.block(state.open[i]!, config));
	const stablePartCount = open.length;

	let volatile = "";
	for (let i = tail.firstVolatile; i < state.open.length; i++) {
		const block = state.open[i]!;
		volatile +=
			block.kind === "round"
				? verbatimRound(block.id, block.round, tailConfig, false)
				: memo.block(block, tailConfig);
	}
	for (const pending of tail.pendingCards)
		volatile += cardLine(pending.callEntryId, unansweredRound(pending), "running");
	for (const pending of tail.pendingTail)
		volatile += verbatimRound(pending.callEntryId, unansweredRound(pending), tailConfig, true);

	const consultation = options.mode === "consult" ? inFlight(state, options.inFlightCallId) : undefined;
	const reasoning = [...tail.reasoning];
	if (consultation !== undefined && consultation.reasoning.trim().length > 0) {
		if (!reasoning.some((r) => r.id === consultation.callEntryId)) {
			reasoning.push({ id: consultation.callEntryId, thinking: consultation.reasoning });
		}
	}
	for (const r of reasoning) volatile += reasoningBlock(r.id, r.thinking, tailConfig);
	if (volatile.length > 0) open.push(volatile);

	if (options.mode === "consult") {
		open.push(
			LOG_CLOSE +
				questionSection(
					consultation?.question ?? "",
					displayId(consultation?.callEntryId ?? "question"),
					tailConfig,
				),
		);
		open.push(CONSULT_INSTRUCTION);
	} else {
		open.push(LOG_CLOSE);
		open.push(REVIEW_INSTRUCTION);
	}
	// The reused parts keep their content objects too.
	const content: TextContent[] = reusedParts > 0 ? last!.content.slice(0, reusedParts) : [];
	for (let k = content.length; k < open.length; k++) content.push({ type: "text", text: open[k]! });
	push({ role: "user", content, timestamp: 0 }, open);
	memo.lastOpen =
		trimPart === undefined
			? {
					config,
					blocks: state.open,
					from: openFrom,
					to: tail.firstVolatile,
					parts: open.slice(0, stablePartCount),
					content: content.slice(0, stablePartCount),
				}
			: undefined;

	const systemPrompt = advisorSystemPrompt(options.toolsMode);
	const tools = [...options.tools];
	const context: Context = { systemPrompt, messages, tools };
	return measure(context, partsOf, stablePartCount, memo, reusedParts);
}

/** Characters of the markers of a message's first `count` units: `\u0001` + role on the first, the role after. */
function markerChars(count: number): number {
	return count === 0 ? 0 : 3 + 2 * (count - 1);
}

/**
 * Units, hashes and token counts of an assembled request.
 * @param openReused leading parts of the last message known to be the previous request's (renderRequest saw
 *   the same blocks): while everything before them is reused, they are copied without comparing.
 */
function measure(
	context: Context,
	partsOf: readonly (readonly string[])[],
	stablePartCount: number,
	memo: RenderMemo,
	openReused = 0,
): LedgerRequest {
	const units: RequestUnit[] = [];
	const markers: string[] = [];
	const parts: string[] = [];
	let prefixHash = "";
	let prefixChars = 0;
	// While this request repeats the previous one part for part (the usual case: the ledger only
	// grows), its units are reused as they are; hashing starts at the first part that differs.
	// A new part's text is hashed on its own (memoised by content) with the role marker chained
	// beside it. Whole messages known to be the same (the same memoised parts array at the same
	// place) are copied without comparing their parts.
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
	const copy = (from: MeasuredUnits, start: number, count: number) => {
		for (let i = start; i < start + count; i++) {
			units.push(from.units[i]!);
			markers.push(from.markers[i]!);
			parts.push(from.parts[i]!);
		}
		const lastUnit = units[units.length - 1]!;
		prefixHash = lastUnit.prefixHash;
		prefixChars = lastUnit.prefixChars;
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
	const starts: number[] = [];
	const roles: string[] = [];
	for (let m = 0; m < partsOf.length; m++) {
		const role = context.messages[m]!.role === "assistant" ? "a\u0000" : "u\u0000";
		const list = partsOf[m]!;
		const start = units.length;
		starts.push(start);
		roles.push(role);
		let p = 0;
		if (reusing && previous !== undefined && previous.starts[m] === start && previous.roles[m] === role) {
			const whole = previous.partsOf[m] === list;
			const open = m === lastMessage && previous.partsOf.length - 1 === m ? Math.min(openReused, list.length) : 0;
			const known = whole ? list.length : open;
			if (known > 0) {
				copy(previous, start, known);
				p = known;
			}
		}
		for (; p < list.length; p++) addUnit(p === 0 ? `\u0001${role}` : role, list[p]!);
		// A message's characters, from the running totals: its units' span minus their markers.
		const before = start === 0 ? 0 : units[start - 1]!.prefixChars;
		const charsOf = (count: number) =>
			count === 0 ? 0 : units[start + count - 1]!.prefixChars - before - markerChars(count);
		if (m === lastMessage && stablePartCount > 0 && stablePartCount <= list.length) {
			stableUnits = start + stablePartCount;
			const stable = units[stableUnits - 1]!;
			stableHash = stable.prefixHash;
			stableChars = stable.prefixChars;
			stableTokens = tokens + tokensForChars(charsOf(stablePartCount));
		}
		tokens += tokensForChars(charsOf(list.length));
	}
	memo.lastUnits = { markers, parts, units, partsOf, starts, roles };
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
