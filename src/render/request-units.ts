/**
 * A request's units and their encoding (docs/request-format.md §7): how a content part becomes a unit
 * of the provider-neutral flattened form (role marker, message-start mark, part text, chained prefix
 * hash and characters), how an assembled request is measured into units, and the request they make.
 *
 * A request is read through the functions here only — `unitCount`, `unitAt`, `commonUnits`,
 * `declarationCount`, `flatten`, `buildContext` — and its parts sit under a key no other module can
 * name. A replay measures a request at every point and sends none, and a long branch's request is one
 * content part per block (docs/decisions.md, "A replay's memory follows the branch"): the units stay a
 * chunked list shared with the previous request's, and what the provider is sent is built only when
 * `buildContext` is called.
 */

import type { AssistantMessage, Context, Message, TextContent, Tool, UserMessage } from "@mariozechner/pi-ai";
import { assertNever, countMarks, partitionPoint } from "../events/index.ts";
import { type ChunkedList, emptyList, listBuilder, listOf } from "../reducers/index.ts";
import { estimateToolsTokens, tokensForChars } from "./estimate.ts";
import { chainHash, hashString } from "./hash.ts";
import { jsonText } from "./text-shape.ts";

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

const SOURCE: unique symbol = Symbol("request source");

/** A rendered request: its figures, and what it is made from, read through the functions of this module. */
export interface LedgerRequest {
	readonly stable: StablePortion;
	/** Hash of the whole request (all units). */
	readonly hash: string;
	readonly tokens: number;
	readonly messageCount: number;
	readonly [SOURCE]: RequestSource;
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

/** What a request is made from. */
interface RequestSource {
	systemPrompt: string | undefined;
	tools: Tool[] | undefined;
	/** The messages the renderer assembled. */
	messages: readonly Assembled[];
	/** The messages after them as pi-ai holds them: the tool loop's, or a request made outside the ledger. */
	after: readonly Message[];
	units: ChunkedList<RequestUnit>;
}

/** What `buildContext` built, by source: a request's parts never change, so neither does what it sends. */
const builtContexts = new WeakMap<RequestSource, Context>();

const MESSAGE_START = "\u0001";

/** Role marker of a message's parts in the flattened form; the first part also carries a message-start mark. */
function roleMarker(role: Message["role"]): string {
	return role === "assistant" ? "a\u0000" : "u\u0000";
}

/** What precedes part `part` of a message in its unit. */
function partMarker(role: Message["role"], part: number): string {
	return part === 0 ? MESSAGE_START + roleMarker(role) : roleMarker(role);
}

/** Characters the markers of a message's first `parts` parts add. */
function markerChars(role: Message["role"], parts: number): number {
	return parts === 0 ? 0 : MESSAGE_START.length + parts * roleMarker(role).length;
}

/** Where a chain of units has got to: the chained hash and characters of every unit so far. */
export type UnitChain = Pick<RequestUnit, "prefixHash" | "prefixChars">;

/**
 * The unit after `chain`: `marker` then `text`. The text is hashed on its own (`textHash`, which a
 * caller may memoise by content) and chained beside the marker, so equal chains mean equal units.
 */
function nextUnit(chain: UnitChain, marker: string, text: string, textHash: string): RequestUnit {
	return {
		prefixHash: chainHash(chain.prefixHash, marker, textHash),
		prefixChars: chain.prefixChars + marker.length + text.length,
		text: marker + text,
	};
}

/** The flattened texts of a pi-ai message's parts: a part that is not text is named by a `\u0002` line. */
function partTexts(message: Message): string[] {
	switch (message.role) {
		case "user":
			if (typeof message.content === "string") return [message.content];
			return message.content.map((p) => (p.type === "text" ? p.text : `\u0002image ${p.mimeType}`));
		case "assistant":
			return message.content.map((p) => {
				switch (p.type) {
					case "text":
						return p.text;
					case "thinking":
						return `\u0002thinking ${p.thinking}`;
					case "toolCall":
						return `\u0002call ${p.id} ${p.name} ${jsonText(p.arguments)}`;
					default:
						return assertNever(p, "assistant content part");
				}
			});
		case "toolResult":
			return [
				`\u0002result ${message.toolCallId} ${message.isError ? "error" : "ok"}`,
				...message.content.map((p) => (p.type === "text" ? p.text : `\u0002image ${p.mimeType}`)),
			];
		default:
			return assertNever(message, "message role");
	}
}

/** A pi-ai message's parts as the units after `chain`, in the same encoding as every other unit. */
export function messageUnits(chain: UnitChain, message: Message): RequestUnit[] {
	const out: RequestUnit[] = [];
	let last = chain;
	partTexts(message).forEach((text, p) => {
		// A part the tool loop appends is new in every round: its hash is not memoised.
		const unit = nextUnit(last, partMarker(message.role, p), text, hashString(text));
		out.push(unit);
		last = unit;
	});
	return out;
}

/** A message's parts: every message the renderer makes has text parts only. */
function textParts(message: Message): readonly TextContent[] {
	return message.content as readonly TextContent[];
}

/** A message made whole, as assembled. */
export function whole(message: UserMessage | AssistantMessage): Assembled {
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

function requestOf(
	source: RequestSource,
	stable: StablePortion,
	totals: { hash: string; tokens: number },
): LedgerRequest {
	return {
		stable,
		hash: totals.hash,
		tokens: totals.tokens,
		messageCount: source.messages.length + source.after.length,
		[SOURCE]: source,
	};
}

/**
 * A request made outside the renderer from a context as it is and units measured elsewhere (the
 * eval's full-context arms send one with no units; tests and scripts make their own).
 */
export function requestFromContext(
	context: Context,
	units: readonly RequestUnit[],
	stable: StablePortion,
	totals: { hash: string; tokens: number },
): LedgerRequest {
	return sending(context, listOf(units), stable, totals);
}

/** `request` sending `context` instead of what it was rendered from (the eval redacts it): its units and figures stay. */
export function withContext(request: LedgerRequest, context: Context): LedgerRequest {
	return sending(context, request[SOURCE].units, request.stable, request);
}

function sending(
	context: Context,
	units: ChunkedList<RequestUnit>,
	stable: StablePortion,
	totals: { hash: string; tokens: number },
): LedgerRequest {
	const source: RequestSource = {
		systemPrompt: context.systemPrompt,
		tools: context.tools,
		messages: [],
		after: context.messages,
		units,
	};
	builtContexts.set(source, context);
	return requestOf(source, stable, totals);
}

/**
 * `request` with `messages` after its own and `units` (theirs, chained after its units) after its
 * units: the stable portion is the same, the totals cover the whole conversation.
 */
export function requestAppended(
	request: LedgerRequest,
	messages: readonly Message[],
	units: readonly RequestUnit[],
	tokens: number,
): LedgerRequest {
	const source = request[SOURCE];
	return requestOf(
		{ ...source, after: [...source.after, ...messages], units: source.units.appended(units) },
		request.stable,
		{ hash: units.at(-1)?.prefixHash ?? request.hash, tokens },
	);
}

/** True for a value made by this module as a request. */
export function isLedgerRequest(value: unknown): value is LedgerRequest {
	return typeof value === "object" && value !== null && SOURCE in value;
}

/** How many units a request has. */
export function unitCount(request: LedgerRequest): number {
	return request[SOURCE].units.length;
}

/** A request's unit by index. */
export function unitAt(request: LedgerRequest, index: number): RequestUnit | undefined {
	// A list's `at` counts a negative index from the end; a unit index never does.
	return index < 0 ? undefined : request[SOURCE].units.at(index);
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

/** How many tool declarations a request sends. */
export function declarationCount(request: LedgerRequest): number {
	return request[SOURCE].tools?.length ?? 0;
}

/** The provider-neutral flattened form of the first `count` units: what the prefix invariant compares. */
export function flatten(request: LedgerRequest, count = unitCount(request)): string {
	let out = "";
	for (let i = 0; i < count; i++) out += unitAt(request, i)!.text;
	return out;
}

/**
 * What the provider is sent: the system prompt, every message, the declarations. Built on the first
 * call (the open message's parts copied out of their chunked list), the same object after.
 */
export function buildContext(request: LedgerRequest): Context {
	const source = request[SOURCE];
	let context = builtContexts.get(source);
	if (context === undefined) {
		const messages = [...source.messages.map(messageOf), ...source.after];
		context = { systemPrompt: source.systemPrompt, messages, tools: source.tools };
		builtContexts.set(source, context);
	}
	return context;
}

/**
 * The request cut right after its stable portion, measured the same way: what a cache-warming
 * refresh sends where only a marked prefix is cached, so it reads (and keeps alive) exactly the
 * entry the next consultation reads (docs/request-format.md §7).
 */
export function stablePrefixRequest(request: LedgerRequest): LedgerRequest {
	const { stable } = request;
	const source = request[SOURCE];
	const at = stable.messageIndex;
	const own = source.messages.length;
	const cut: RequestSource = {
		...source,
		messages:
			at < own
				? [...source.messages.slice(0, at), cutAssembled(source.messages[at]!, stable.partCount)]
				: source.messages,
		after:
			at < own
				? []
				: source.after.slice(0, at - own + 1).map((m, i) => (i === at - own ? cutMessage(m, stable.partCount) : m)),
		units: source.units.prefix(stable.unitCount),
	};
	return requestOf(cut, stable, { hash: stable.hash, tokens: stable.tokens });
}

/** A user message's first `count` parts (the stable portion ends inside the open message, a user message). */
function cutMessage(message: Message, count: number): Message {
	return message.role === "user" && Array.isArray(message.content)
		? { ...message, content: message.content.slice(0, count) }
		: message;
}

function cutAssembled(message: Assembled, count: number): Assembled {
	if (count >= partCount(message)) return message;
	if (message.message !== undefined) {
		const cut = cutMessage(message.message, count);
		return cut === message.message ? message : whole(cut as UserMessage);
	}
	return count <= message.log.length
		? { ...message, log: message.log.prefix(count), tail: [] }
		: { ...message, tail: message.tail.slice(0, count - message.log.length) };
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

/** What a request's units were made from (RenderMemo.lastUnits). */
export interface MeasuredUnits {
	/** The system prompt and the declarations' JSON: units 0 and 1. */
	head: readonly [string, string];
	messages: readonly Assembled[];
	units: ChunkedList<RequestUnit>;
}

/** What measuring reads and keeps in the render memo (render-memo.ts). */
export interface UnitMemo {
	/** The hash of a part's text, memoised by content. */
	partHash(text: string): string;
	lastUnits: MeasuredUnits | undefined;
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
export function measure(
	systemPrompt: string,
	tools: Tool[],
	messages: readonly Assembled[],
	stablePartCount: number,
	memo: UnitMemo,
): LedgerRequest {
	const head: [string, string] = [systemPrompt, JSON.stringify(tools)];
	const previous = memo.lastUnits;
	const shared = sharedUnits(previous, head, messages);
	const units = listBuilder(previous?.units ?? emptyList<RequestUnit>(), shared);
	let last: UnitChain = shared === 0 ? { prefixHash: "", prefixChars: 0 } : units.at(shared - 1)!;
	const addUnit = (marker: string, text: string, volatile: boolean) => {
		// A volatile part changes at every point: memoising its hash would keep every version.
		const unit = nextUnit(last, marker, text, volatile ? hashString(text) : memo.partHash(text));
		units.push(unit);
		last = unit;
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
		for (let p = Math.max(0, shared - first); p < parts; p++) {
			const volatile = m === lastMessage && p >= stablePartCount;
			addUnit(partMarker(message.role, p), partAt(message, p).text, volatile);
		}
		// The message's characters without the markers, from the chained counts.
		const charsBefore = units.at(first - 1)!.prefixChars;
		if (m === lastMessage && stablePartCount > 0 && stablePartCount <= parts) {
			const end = units.at(first + stablePartCount - 1)!;
			const chars = end.prefixChars - charsBefore - markerChars(message.role, stablePartCount);
			stable = {
				units: first + stablePartCount,
				hash: end.prefixHash,
				chars: end.prefixChars,
				tokens: tokens + tokensForChars(chars),
			};
		}
		const end = parts === 0 ? undefined : units.at(first + parts - 1)!;
		tokens += tokensForChars(
			end === undefined ? 0 : end.prefixChars - charsBefore - markerChars(message.role, parts),
		);
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
	const source: RequestSource = { systemPrompt, tools, messages, after: [], units: list };
	return requestOf(source, portion, { hash: last.prefixHash, tokens });
}
