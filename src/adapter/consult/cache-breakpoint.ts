/**
 * A cache breakpoint at the end of the request's stable portion (docs/architecture.md), for
 * Anthropic-style payloads. pi-ai marks the system prompt, the last tool and the last user block;
 * only a prefix that ends on a breakpoint written by an earlier request is a hit, so without a
 * mark where the stable part ends, the next consultation (whose last block is elsewhere) would
 * read nothing from cache. Other APIs cache by token prefix and are left alone.
 */

import type { Api, Context, Message, Model } from "@mariozechner/pi-ai";
import { isRecord } from "../../events/index.ts";
import type { StablePortion } from "../../render/index.ts";

/** Anthropic accepts at most this many cache_control markers per request. */
export const MAX_BREAKPOINTS = 4;

export const BREAKPOINT_APIS: ReadonlySet<string> = new Set(["anthropic-messages"]);

type Json = Record<string, unknown>;

/** pi-ai drops text blocks that are only whitespace, and messages left with nothing. */
function keptParts(message: Message): number[] {
	if (typeof message.content === "string") return message.content.trim().length > 0 ? [0] : [];
	const kept: number[] = [];
	message.content.forEach((part, index) => {
		if (part.type !== "text" || part.text.trim().length > 0) kept.push(index);
	});
	return kept;
}

function partText(message: Message, index: number): string | undefined {
	if (typeof message.content === "string") return index === 0 ? message.content : undefined;
	const part = message.content[index];
	return part?.type === "text" ? part.text : undefined;
}

interface Marker {
	holder: Json;
	/** Prefix order: tools, then system, then messages. */
	rank: number;
}

function markersIn(payload: Json): Marker[] {
	const markers: Marker[] = [];
	let rank = 0;
	const scan = (list: unknown) => {
		if (!Array.isArray(list)) return;
		for (const item of list) {
			if (isRecord(item) && item.cache_control !== undefined) markers.push({ holder: item, rank });
			rank++;
		}
	};
	scan(payload.tools);
	scan(payload.system);
	if (Array.isArray(payload.messages)) {
		for (const message of payload.messages) if (isRecord(message)) scan(message.content);
	}
	return markers;
}

/**
 * Returns a copy of `payload` with a breakpoint on the block that ends the stable portion, or
 * undefined to leave the payload as it is: caching is off (no marker to copy), the block is
 * already marked, or the payload does not have the shape this was written against.
 */
export function withStableBreakpoint(
	payload: unknown,
	context: Pick<Context, "messages">,
	stable: Pick<StablePortion, "messageIndex" | "partCount">,
): unknown {
	if (!isRecord(payload) || !Array.isArray(payload.messages)) return undefined;
	const source = context.messages[stable.messageIndex];
	if (source === undefined || source.role !== "user" || stable.partCount < 1) return undefined;

	let payloadIndex = 0;
	for (let i = 0; i < stable.messageIndex; i++) if (keptParts(context.messages[i]!).length > 0) payloadIndex++;
	const kept = keptParts(source).filter((index) => index < stable.partCount);
	const lastStable = kept[kept.length - 1];
	if (lastStable === undefined) return undefined;
	const blockIndex = kept.length - 1;
	const expectedText = partText(source, lastStable);

	const existing = markersIn(payload);
	const template = existing[existing.length - 1]?.holder.cache_control;
	if (template === undefined) return undefined;

	const copy = structuredClone(payload) as Json;
	const target = (copy.messages as unknown[])[payloadIndex];
	if (!isRecord(target) || target.role !== "user" || !Array.isArray(target.content)) return undefined;
	const block = target.content[blockIndex];
	if (!isRecord(block) || block.type !== "text" || block.text !== expectedText) return undefined;
	if (block.cache_control !== undefined) return undefined;

	// Keep within the limit by dropping the earliest marks: a later breakpoint covers their prefix too.
	const markers = markersIn(copy).sort((a, b) => a.rank - b.rank);
	for (let i = 0; markers.length - i >= MAX_BREAKPOINTS; i++) delete markers[i]!.holder.cache_control;
	block.cache_control = structuredClone(template);
	return copy;
}

/** The onPayload hook for one consultation; undefined for APIs that need none. */
export function cacheBreakpointHook(
	model: Pick<Model<Api>, "api">,
	context: Pick<Context, "messages">,
	stable: Pick<StablePortion, "messageIndex" | "partCount">,
): ((payload: unknown) => unknown) | undefined {
	if (!BREAKPOINT_APIS.has(model.api)) return undefined;
	return (payload) => withStableBreakpoint(payload, context, stable);
}
