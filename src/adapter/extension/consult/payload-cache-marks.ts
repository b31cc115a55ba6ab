/**
 * The extension's own cache marks on provider payloads that take Anthropic-style marks
 * (docs/request-format.md §7): the end of the stable portion, which the next consultation reads,
 * and a bridge at the previous consultation's stable end when that lies beyond Anthropic's
 * 20-block lookback. Where they go is decided in policy/budget/breakpoint-placement.ts; this file finds the
 * blocks in the payload pi-ai built, on each of the three routes, as pi-ai 0.73 and 1.x build them:
 *
 * - `anthropic-messages`: `cache_control` on a block. pi-ai marks the last tool, the system prompt
 *   (with an OAuth key, both of its system blocks) and the last block of the last user message;
 *   it drops text blocks that are only whitespace and messages left with nothing, merges
 *   consecutive tool results into one message, and 1.x may add system-role messages.
 * - `openai-completions` with Anthropic marks (OpenRouter's `anthropic/…`, or
 *   `compat.cacheControlFormat: "anthropic"`): `cache_control` on a tool or a text part. pi-ai marks
 *   the last tool, the system message and the last text part of the last message; user parts are
 *   kept as they are.
 * - `bedrock-converse-stream`: a `cachePoint` block right after the block it ends. pi-ai puts one
 *   after the system prompt and one at the end of the last user message, only for the Claude
 *   models it knows to cache (none on tools).
 *
 * A mark is a copy of pi-ai's own (its retention and ttl hold); a payload without any is left
 * alone: caching is off. Beyond four marks (Anthropic's limit; Bedrock's is the same), the earliest
 * of pi-ai's go first — the last tool's, then the system prompt's: a later mark within the
 * lookback reads their prefix too. A payload that does not line up with the context (a pi-ai this
 * was not written against) gets no mark of ours rather than a wrong one. Other APIs cache by
 * token prefix and are left alone.
 *
 * The same alignment gives the warming form (`warmingForm`): the payload cut after the stable
 * portion, marks left out — what a cache-warming refresh sends there, and what it is checked against.
 */

import type { Api, Context, Message, Model } from "@mariozechner/pi-ai";
import { isRecord } from "../../../events/index.ts";
import {
	anthropicStyleMarks,
	extensionMarks,
	MAX_BREAKPOINTS,
	type StableEnd,
	unitPosition,
} from "../../../policy/index.ts";
import type { LedgerRequest } from "../../../render/index.ts";

export { MAX_BREAKPOINTS };

type Json = Record<string, unknown>;

/** The block that ends the first `partCount` parts of context message `messageIndex` (StablePortion's shape). */
export interface MarkTarget {
	messageIndex: number;
	partCount: number;
}

/** The extension's marks on `request`: the bridge to `previous`'s stable end when needed, then the stable end. */
export function markTargets(request: LedgerRequest, previous: StableEnd | undefined): MarkTarget[] {
	const stable = { messageIndex: request.stable.messageIndex, partCount: request.stable.partCount };
	const { bridge } = extensionMarks(request, previous);
	const at = bridge === undefined ? undefined : unitPosition(request, bridge);
	return at === undefined ? [stable] : [at, stable];
}

// ---------------------------------------------------------------------------------------------
// What pi-ai keeps of a context message
// ---------------------------------------------------------------------------------------------

const blank = (text: string) => text.trim().length === 0;

function partsOf(message: Message): readonly { type: string; text?: string; thinking?: string; redacted?: boolean }[] {
	return typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
}

/** pi-ai drops text that is only whitespace (user and assistant) and empty thinking; keeps calls and images. */
function keepsPart(part: { type: string; text?: string; thinking?: string; redacted?: boolean }): boolean {
	if (part.type === "text") return !blank(part.text ?? "");
	if (part.type === "thinking") return part.redacted === true || !blank(part.thinking ?? "");
	return true;
}

/** Anthropic and Bedrock: an assistant message left with no block is not sent. */
const keepsAssistant = (message: Message) => partsOf(message).some(keepsPart);

interface Route {
	/** The payload messages made from context messages, in order. */
	conversation(payload: Json): Json[] | undefined;
	/** Whether pi-ai sends a payload message for this user or assistant message. */
	keeps(message: Message): boolean;
	/** Consecutive tool results become one payload message. */
	groupsToolResults: boolean;
	/** User text parts that are only whitespace are not sent. */
	dropsBlankText: boolean;
	/** Index, among the route's content blocks of the user message, of the block ending `partCount` parts. */
	blockIndex(source: Message, partCount: number): number | undefined;
	/** Where that block sits in the payload message's content (Bedrock skips its cachePoint blocks). */
	contentIndex(content: unknown[], block: number): number | undefined;
	isMarked(content: unknown[], index: number): boolean;
	mark(content: unknown[], index: number, template: unknown): void;
	/** Every mark, in prompt order (tools, system, messages): its settings and how to take it away. */
	marks(payload: Json): { template: unknown; remove(): void }[];
	/** Takes every mark out (the warming form). */
	strip(payload: Json): void;
}

/** Keeps the indices of the parts pi-ai sends (text that is not only whitespace, anything else). */
function keptParts(message: Message, partCount: number): number[] {
	const kept: number[] = [];
	partsOf(message).forEach((part, index) => {
		if (index < partCount && keepsPart(part)) kept.push(index);
	});
	return kept;
}

const lastIndex = (n: number) => (n > 0 ? n - 1 : undefined);

function messagesOf(payload: Json, skipRoles: readonly string[]): Json[] | undefined {
	if (!Array.isArray(payload.messages)) return undefined;
	return payload.messages.filter((m): m is Json => isRecord(m) && !skipRoles.includes(String(m.role)));
}

/** `cache_control` marks on items of the given lists, in order. */
function cacheControlMarks(lists: unknown[]): { template: unknown; remove(): void }[] {
	const out: { template: unknown; remove(): void }[] = [];
	for (const list of lists) {
		if (!Array.isArray(list)) continue;
		for (const item of list) {
			if (isRecord(item) && item.cache_control !== undefined) {
				out.push({ template: item.cache_control, remove: () => delete item.cache_control });
			}
		}
	}
	return out;
}

function messageContents(payload: Json): unknown[] {
	return Array.isArray(payload.messages) ? payload.messages.map((m) => (isRecord(m) ? m.content : undefined)) : [];
}

const cacheControlRoute = (
	skipRoles: readonly string[],
	keeps: (m: Message) => boolean,
	grouped: boolean,
	filtered: boolean,
): Route => ({
	conversation: (payload) => messagesOf(payload, skipRoles),
	keeps,
	groupsToolResults: grouped,
	dropsBlankText: filtered,
	blockIndex: (source, partCount) =>
		filtered
			? lastIndex(keptParts(source, partCount).length)
			: lastIndex(Math.min(partCount, partsOf(source).length)),
	contentIndex: (content, block) => (block < content.length ? block : undefined),
	isMarked: (content, index) => isRecord(content[index]) && (content[index] as Json).cache_control !== undefined,
	mark: (content, index, template) => {
		(content[index] as Json).cache_control = structuredClone(template);
	},
	marks: (payload) => cacheControlMarks([payload.tools, payload.system, ...messageContents(payload)]),
	strip: (payload) => {
		for (const mark of cacheControlMarks([payload.tools, payload.system, ...messageContents(payload)])) mark.remove();
	},
});

const isCachePoint = (block: unknown) => isRecord(block) && block.cachePoint !== undefined;

/** Bedrock's cachePoint blocks in the given lists, in order; removing one splices it out. */
function cachePointMarks(lists: unknown[]): { template: unknown; remove(): void }[] {
	const out: { template: unknown; remove(): void }[] = [];
	for (const list of lists) {
		if (!Array.isArray(list)) continue;
		for (const item of list) {
			if (isCachePoint(item)) {
				out.push({
					template: (item as Json).cachePoint,
					remove: () => {
						const at = list.indexOf(item);
						if (at >= 0) list.splice(at, 1);
					},
				});
			}
		}
	}
	return out;
}

function bedrockLists(payload: Json): unknown[] {
	const tools = isRecord(payload.toolConfig) ? payload.toolConfig.tools : undefined;
	return [tools, payload.system, ...messageContents(payload)];
}

const bedrockRoute: Route = {
	conversation: (payload) => messagesOf(payload, []),
	keeps: (message) => message.role === "user" || keepsAssistant(message),
	groupsToolResults: true,
	dropsBlankText: false,
	blockIndex: (source, partCount) => lastIndex(Math.min(partCount, partsOf(source).length)),
	contentIndex: (content, block) => {
		let seen = -1;
		for (let i = 0; i < content.length; i++) {
			if (isCachePoint(content[i])) continue;
			if (++seen === block) return i;
		}
		return undefined;
	},
	isMarked: (content, index) => isCachePoint(content[index + 1]),
	mark: (content, index, template) => {
		content.splice(index + 1, 0, { cachePoint: structuredClone(template) });
	},
	marks: (payload) => cachePointMarks(bedrockLists(payload)),
	strip: (payload) => {
		for (const mark of cachePointMarks(bedrockLists(payload))) mark.remove();
	},
};

const ROUTES: Readonly<Record<string, Route>> = {
	"anthropic-messages": cacheControlRoute(["system"], (m) => keepsAssistant(m), true, true),
	// OpenAI-style messages: a user message is always sent; an assistant one when it has text or calls.
	"openai-completions": cacheControlRoute(
		["system", "developer"],
		(m) => m.role === "user" || keepsAssistant(m),
		false,
		false,
	),
	"bedrock-converse-stream": bedrockRoute,
};

// ---------------------------------------------------------------------------------------------
// Finding the block, marking it, cutting after it
// ---------------------------------------------------------------------------------------------

interface Located {
	/** Index into `payload.messages`. */
	message: number;
	content: unknown[];
	/** Index into `content`. */
	index: number;
}

function partText(message: Message, block: number, filtered: boolean, partCount: number): string | undefined {
	const parts = partsOf(message);
	const index = filtered ? keptParts(message, partCount)[block] : block;
	const part = index === undefined ? undefined : parts[index];
	return part?.type === "text" ? part.text : undefined;
}

/** The payload block that ends the target's parts, when the payload lines up with the context there. */
function locate(
	route: Route,
	payload: Json,
	context: Pick<Context, "messages">,
	target: MarkTarget,
): Located | undefined {
	const source = context.messages[target.messageIndex];
	if (source === undefined || source.role !== "user" || target.partCount < 1) return undefined;
	const conversation = route.conversation(payload);
	if (conversation === undefined) return undefined;
	let k = 0;
	for (let i = 0; i < target.messageIndex; i++) {
		const message = context.messages[i]!;
		if (message.role === "toolResult") {
			if (!route.groupsToolResults || context.messages[i - 1]?.role !== "toolResult") k++;
		} else if (route.keeps(message)) k++;
	}
	const sent = conversation[k];
	if (sent === undefined || sent.role !== "user" || !Array.isArray(sent.content)) return undefined;
	const block = route.blockIndex(source, target.partCount);
	if (block === undefined) return undefined;
	const index = route.contentIndex(sent.content, block);
	if (index === undefined) return undefined;
	const expected = partText(source, block, route.dropsBlankText, target.partCount);
	const found = sent.content[index];
	if (expected === undefined || !isRecord(found) || found.text !== expected) return undefined;
	const message = (payload.messages as unknown[]).indexOf(sent);
	return { message, content: sent.content, index };
}

/**
 * A copy of `payload` with the extension's marks at `targets`, or undefined to leave it as it is:
 * caching is off (no mark of pi-ai's to copy), every target is already marked, or none lines up.
 */
export function withCacheMarks(
	payload: unknown,
	context: Pick<Context, "messages">,
	targets: readonly MarkTarget[],
	api: string,
): unknown {
	const route = ROUTES[api];
	if (route === undefined || !isRecord(payload)) return undefined;
	const existing = route.marks(payload);
	const template = existing[existing.length - 1]?.template;
	if (template === undefined) return undefined;
	const copy = structuredClone(payload);
	const wanted = targets.filter((target) => {
		const at = locate(route, copy, context, target);
		return at !== undefined && !route.isMarked(at.content, at.index);
	});
	if (wanted.length === 0) return undefined;
	// Room within four: the earliest of pi-ai's marks go (a later one within the lookback covers them).
	const marks = route.marks(copy);
	for (let i = 0; i < marks.length + wanted.length - MAX_BREAKPOINTS; i++) marks[i]!.remove();
	// Last target first: a Bedrock cachePoint inserted earlier would move the blocks after it.
	for (const target of [...wanted].reverse()) {
		const at = locate(route, copy, context, target);
		if (at !== undefined) route.mark(at.content, at.index, template);
	}
	return copy;
}

/** The onPayload edit for one consultation's requests; undefined for APIs that take no marks. */
export function cacheMarksHook(
	model: Pick<Model<Api>, "api">,
	context: Pick<Context, "messages">,
	targets: readonly MarkTarget[],
): ((payload: unknown) => unknown) | undefined {
	if (ROUTES[model.api] === undefined || targets.length === 0) return undefined;
	return (payload) => withCacheMarks(payload, context, targets, model.api);
}

/**
 * What a cache-warming refresh must match, from a payload as sent: where pi-ai sends
 * Anthropic-style marks, the payload cut right after the stable portion with every mark left out
 * (the refresh sends that cut: policy/warming/decision.ts `refreshRequest`; marks differ between
 * the two by design — the cut request's last block is pi-ai's own); elsewhere the payload itself.
 * Undefined when the payload does not line up with the context: nothing can be guarded.
 */
export function warmingForm(
	payload: unknown,
	model: Pick<Model<Api>, "api" | "provider" | "id" | "compat">,
	context: Pick<Context, "messages">,
	stable: MarkTarget,
): unknown {
	if (!anthropicStyleMarks(model)) return payload;
	const route = ROUTES[model.api];
	if (route === undefined || !isRecord(payload)) return undefined;
	const copy = structuredClone(payload);
	const at = locate(route, copy, context, stable);
	if (at === undefined) return undefined;
	const messages = copy.messages as Json[];
	messages.length = at.message + 1;
	messages[at.message]!.content = at.content.slice(0, at.index + 1);
	route.strip(copy);
	return copy;
}
