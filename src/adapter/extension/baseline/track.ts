/**
 * The baseline of every point of a branch in one pass (docs/cli.md): Pi's resolved context grows
 * entry by entry, so the context at entry k is the context at k − 1 plus the messages entry k
 * adds — except at a compaction, where Pi restarts from the summary and the kept entries. Each
 * step is Pi's own builder run on the entries it concerns; `baselineMessages` (the whole build at
 * one point) is the reference the track is tested against.
 *
 * Cursors are persistent: advancing one never changes what another sees, so a replay of many
 * leaves resumes each branch from the point state it shares with the previous one. Cursors on
 * one line of growth share one backing array (a cursor owns its first `length` items).
 */

import type { Message, UserMessage } from "@mariozechner/pi-ai";
import { buildSessionContext, convertToLlm, type SessionEntry } from "@mariozechner/pi-coding-agent";
import type { EntryRecord } from "../../../events/index.ts";
import { estimateMessageTokens } from "../../../render/index.ts";
import { type BaselineRequest, messageChars } from "./baseline-reuse.ts";
import { llmMessages } from "./messages.ts";
import { viewMessages, viewOf } from "./view.ts";

export interface BaselineCursor {
	/** Backing store; only the first `length` items belong to this cursor. */
	list: Message[];
	length: number;
	/** Sums over the cursor's messages: Pi's chars/4 estimate, and chars as the cache model counts them. */
	tokens: number;
	chars: number;
}

export const emptyBaseline: BaselineCursor = Object.freeze({
	list: [],
	length: 0,
	tokens: 0,
	chars: 0,
}) as BaselineCursor;

/** An entry as Pi's builder sees it, alone: no parent, so the builder's walk is that entry only. */
function alone(record: EntryRecord): SessionEntry {
	if (record.kind === "opaque") {
		return {
			type: "custom",
			customType: "advisor-ledger:opaque",
			id: record.id,
			parentId: null,
			timestamp: "",
		} as SessionEntry;
	}
	const entry = record.entry as unknown as SessionEntry;
	return entry.parentId === null ? entry : ({ ...entry, parentId: null } as SessionEntry);
}

const added = new WeakMap<EntryRecord, readonly Message[]>();
const summaries = new WeakMap<EntryRecord, Message[]>();
const NONE: readonly Message[] = Object.freeze([]);

/** The messages an entry makes, in an array of exactly their number (one per entry of a long branch is kept). */
function compact(messages: readonly Message[]): readonly Message[] {
	if (messages.length === 0) return NONE;
	return messages.length === 1 ? [messages[0]!] : messages.slice();
}

/** What an entry appends to the context after the last compaction (nothing for a compaction itself). */
function appendedBy(record: EntryRecord): readonly Message[] {
	let messages = added.get(record);
	if (messages === undefined) {
		const isCompaction = record.kind !== "opaque" && record.entry.type === "compaction";
		messages = isCompaction
			? NONE
			: compact(llmMessages(convertToLlm(buildSessionContext([alone(record)], record.id).messages)));
		added.set(record, messages);
	}
	return messages;
}

/** A compaction's summary message, as Pi puts it first in the context. */
function summaryOf(record: EntryRecord): Message[] {
	let messages = summaries.get(record);
	if (messages === undefined) {
		messages = llmMessages(convertToLlm(buildSessionContext([alone(record)], record.id).messages));
		summaries.set(record, messages);
	}
	return messages;
}

function withMessages(cursor: BaselineCursor, messages: readonly Message[]): BaselineCursor {
	if (messages.length === 0) return cursor;
	// The backing array is shared while this cursor is its longest owner; otherwise copy its part.
	const list = cursor.list.length === cursor.length ? cursor.list : cursor.list.slice(0, cursor.length);
	let { tokens, chars } = cursor;
	for (const message of messages) {
		list.push(message);
		tokens += estimateMessageTokens(message);
		chars += messageChars(message);
	}
	return { list, length: list.length, tokens, chars };
}

/**
 * Pi's context at a compaction at `path[at]`: its summary, then the entries from the compaction's
 * first kept entry up to it (Pi looks the kept entry up on the path, before the compaction).
 */
function compacted(path: readonly EntryRecord[], at: number): BaselineCursor {
	const record = path[at]!;
	const firstKept =
		record.kind === "opaque" ? undefined : (record.entry as { firstKeptEntryId?: unknown }).firstKeptEntryId;
	let from = at;
	for (let i = 0; i < at; i++) {
		if (path[i]!.id === firstKept) {
			from = i;
			break;
		}
	}
	let cursor = withMessages({ list: [], length: 0, tokens: 0, chars: 0 }, summaryOf(record));
	for (let i = from; i < at; i++) cursor = withMessages(cursor, appendedBy(path[i]!));
	return cursor;
}

/** The cursor after `path[from..to)`, from the cursor after `path[0..from)`. */
export function advanceBaseline(
	cursor: BaselineCursor,
	path: readonly EntryRecord[],
	from: number,
	to: number,
): BaselineCursor {
	let next = cursor;
	for (let i = from; i < to; i++) {
		const record = path[i]!;
		next =
			record.kind !== "opaque" && record.entry.type === "compaction"
				? compacted(path, i)
				: withMessages(next, appendedBy(record));
	}
	return next;
}

/** The messages of a cursor (a copy: the backing array may grow under other cursors). */
export function cursorMessages(cursor: BaselineCursor): Message[] {
	return cursor.list.slice(0, cursor.length);
}

/** Where the tool calls of a backing list are, by call id: indexed as far as asked, once per list. */
interface CallIndex {
	scanned: number;
	positions: Map<string, number[]>;
}

// Items of a backing list never change once pushed, so an index of its first items stays true.
const callIndexes = new WeakMap<readonly Message[], CallIndex>();

/** Positions below `count` of the assistant messages that make the call `callId`. */
function holdersOf(list: readonly Message[], count: number, callId: string): number[] {
	let index = callIndexes.get(list);
	if (index === undefined) {
		index = { scanned: 0, positions: new Map() };
		callIndexes.set(list, index);
	}
	for (; index.scanned < count; index.scanned++) {
		const message = list[index.scanned]!;
		if (message.role !== "assistant") continue;
		for (const part of message.content) {
			if (part.type !== "toolCall") continue;
			const at = index.positions.get(part.id);
			if (at === undefined) index.positions.set(part.id, [index.scanned]);
			else if (at.at(-1) !== index.scanned) at.push(index.scanned);
		}
	}
	return (index.positions.get(callId) ?? []).filter((i) => i < count);
}

/**
 * The baseline request at a point: the inventory, then the context with the in-flight advisor
 * call left out of its message (a message left empty leaves the context), as `baselineMessages`.
 * A view (view.ts), not a copy: the cursor's list up to the first message holding the call, then
 * the messages from there with the call left out.
 */
export function pointRequest(
	cursor: BaselineCursor,
	inventory: UserMessage,
	inFlightCallId: string | undefined,
): BaselineRequest {
	const head = { list: [inventory], from: 0, to: 1 };
	let tokens = estimateMessageTokens(inventory) + cursor.tokens;
	let chars = messageChars(inventory) + cursor.chars;
	const holders = inFlightCallId === undefined ? [] : holdersOf(cursor.list, cursor.length, inFlightCallId);
	const first = holders[0] ?? cursor.length;
	const tail: Message[] = [];
	for (let i = first; i < cursor.length; i++) {
		const message = cursor.list[i]!;
		if (message.role !== "assistant" || !holders.includes(i)) {
			tail.push(message);
			continue;
		}
		// Every message holding the call loses it.
		tokens -= estimateMessageTokens(message);
		chars -= messageChars(message);
		const content = message.content.filter((p) => !(p.type === "toolCall" && p.id === inFlightCallId));
		if (content.length === 0) continue;
		const stripped = { ...message, content };
		tail.push(stripped);
		tokens += estimateMessageTokens(stripped);
		chars += messageChars(stripped);
	}
	const pieces = [head, { list: cursor.list, from: 0, to: first }, { list: tail, from: 0, to: tail.length }];
	return { view: viewOf(pieces), tokens, chars };
}

/** `pointRequest`'s messages as one array, with its sums. */
export function pointMessages(
	cursor: BaselineCursor,
	inventory: UserMessage,
	inFlightCallId: string | undefined,
): { messages: Message[]; tokens: number; chars: number } {
	const request = pointRequest(cursor, inventory, inFlightCallId);
	return { messages: viewMessages(request.view), tokens: request.tokens, chars: request.chars };
}
