/**
 * The baseline a replay compares the ledger with: what rpiv-advisor 2.11 sends for the same
 * consultation. That is Pi's own resolved context for the branch (`buildSessionContext` then
 * `convertToLlm`, the executor's LLM view) with the in-flight advisor call stripped, plus one
 * tool inventory message carrying every tool's full JSON schema.
 *
 * No system prompt is counted on this side (its text is not known), so the baseline is a lower
 * bound of what 2.11 sent and ledger/baseline ratios are upper bounds.
 */

import type { AssistantMessage, Message, Tool, UserMessage } from "@mariozechner/pi-ai";
import { buildSessionContext, convertToLlm, type SessionEntry } from "@mariozechner/pi-coding-agent";
import type { EntryRecord } from "../../events/index.ts";
import { estimateContextTokens, estimateMessageTokens } from "../../render/index.ts";

export const INVENTORY_HEADER =
	"Tools available to the executor (name, description and JSON schema of the parameters):";

export function inventoryMessage(tools: readonly Tool[]): UserMessage {
	const sections = tools.map(
		(tool) => `### ${tool.name}\n${tool.description}\nParameters: ${JSON.stringify(tool.parameters ?? {})}`,
	);
	return {
		role: "user",
		content: [{ type: "text", text: `${INVENTORY_HEADER}\n\n${sections.join("\n\n")}` }],
		timestamp: 0,
	};
}

/** One branch, ready for Pi's builder at any of its points. */
export interface BaselineBranch {
	/** Root → leaf, Pi's entry shape; the first entry's parent cut so Pi's walk always ends. */
	entries: SessionEntry[];
	byId: Map<string, SessionEntry>;
	inventory: UserMessage;
}

function sessionEntry(record: EntryRecord, parentId: string | null): SessionEntry {
	if (record.kind === "opaque") {
		return {
			type: "custom",
			customType: "advisor-ledger:opaque",
			id: record.id,
			parentId,
			timestamp: "",
		} as SessionEntry;
	}
	const entry = record.entry as unknown as SessionEntry;
	return entry.parentId === parentId ? entry : ({ ...entry, parentId } as SessionEntry);
}

/**
 * @param path root → leaf, as selected by the events layer (cycle-safe). Entries the reader could
 *   not interpret become inert `custom` entries: they keep the tree links and Pi ignores them,
 *   where the raw value could crash its builder.
 */
export function prepareBaseline(path: readonly EntryRecord[], inventory: readonly Tool[]): BaselineBranch {
	const entries = path.map(
		(record, index): SessionEntry => sessionEntry(record, index === 0 ? null : record.parentId),
	);
	const byId = new Map(entries.map((e) => [e.id, e]));
	return { entries, byId, inventory: inventoryMessage(inventory) };
}

/** The advisor call leaves its message; a message left with nothing in it leaves the context. */
function stripCall(messages: readonly Message[], callId: string): Message[] {
	const out: Message[] = [];
	for (const message of messages) {
		if (message.role !== "assistant" || !message.content.some((p) => p.type === "toolCall" && p.id === callId)) {
			out.push(message);
			continue;
		}
		const content = message.content.filter((p) => !(p.type === "toolCall" && p.id === callId));
		if (content.length > 0) out.push({ ...message, content } as AssistantMessage);
	}
	return out;
}

/** The baseline payload at a point: the inventory, then Pi's LLM view of events[0..upTo). */
export function baselineMessages(branch: BaselineBranch, upTo: number, inFlightCallId?: string): Message[] {
	if (upTo <= 0) return [branch.inventory];
	const leaf = branch.entries[upTo - 1]!;
	const context = buildSessionContext(branch.entries, leaf.id, branch.byId);
	let messages = convertToLlm(context.messages);
	if (inFlightCallId !== undefined) messages = stripCall(messages, inFlightCallId);
	return [branch.inventory, ...messages];
}

export function baselineTokens(branch: BaselineBranch, upTo: number, inFlightCallId?: string): number {
	return estimateContextTokens({ messages: baselineMessages(branch, upTo, inFlightCallId) });
}

// ---------------------------------------------------------------------------------------------
// The same figure at every point of a branch, built one entry at a time
// ---------------------------------------------------------------------------------------------

/*
 * Rebuilding Pi's context for every point costs the branch's length each time, so a replay grew
 * with the square of the session. But the baseline is a sum: the estimate is per message, and
 * Pi's context for a prefix is (no compaction) every entry's own messages in order, or (after the
 * newest compaction c) c's summary, the kept span [firstKept, c) and everything after c. With a
 * running sum per entry, each point costs O(1) (plus the few messages holding the in-flight call).
 * A property test holds this equal to baselineTokens on generated sessions.
 */

/** Pi's context at one prefix of a branch, the prefix ending at this entry. */
export interface BaselineStep {
	/** Tokens of the messages every entry up to this one adds on its own (a compaction adds none). */
	cum: number;
	/** Index of the newest compaction up to this entry, or -1. */
	compaction: number;
	/** At a compaction: index of its first kept entry, or -1 when it keeps none. */
	kept: number;
	/** At a compaction: its summary and kept span, minus `cum` at it (so a later prefix adds its own `cum`). */
	base: number;
}

const ownTokensMemo = new WeakMap<EntryRecord, number>();
const summaryTokensMemo = new WeakMap<EntryRecord, number>();

/** Pi's LLM messages for this entry alone (a compaction: its summary message). */
function ownMessages(record: EntryRecord): Message[] {
	if (record.kind === "opaque") return [];
	const entry = sessionEntry(record, null);
	return convertToLlm(buildSessionContext([entry], entry.id).messages);
}

function messagesTokens(messages: readonly Message[]): number {
	let tokens = 0;
	for (const message of messages) tokens += estimateMessageTokens(message);
	return tokens;
}

function isCompaction(record: EntryRecord): boolean {
	return record.kind === "known" && record.entry.type === "compaction";
}

/** Tokens this entry adds to Pi's context on its own: 0 for a compaction, whose summary is counted apart. */
export function ownTokens(record: EntryRecord): number {
	if (isCompaction(record)) return 0;
	let tokens = ownTokensMemo.get(record);
	if (tokens === undefined) {
		tokens = messagesTokens(ownMessages(record));
		ownTokensMemo.set(record, tokens);
	}
	return tokens;
}

function summaryTokens(record: EntryRecord): number {
	let tokens = summaryTokensMemo.get(record);
	if (tokens === undefined) {
		tokens = messagesTokens(ownMessages(record));
		summaryTokensMemo.set(record, tokens);
	}
	return tokens;
}

/** The step at a path index (the branch's steps need not sit in one array). */
export type StepAt = (index: number) => BaselineStep;

/**
 * The step for path[index], from the step before it.
 * @param stepAt earlier steps of this path (only asked at a compaction, for its kept span).
 * @param indexOf position of an entry id on this path (only asked at a compaction).
 */
export function baselineStep(
	path: readonly EntryRecord[],
	index: number,
	previous: BaselineStep | undefined,
	stepAt: StepAt,
	indexOf: (id: string) => number | undefined,
): BaselineStep {
	const record = path[index]!;
	const before = previous?.cum ?? 0;
	if (record.kind !== "known" || record.entry.type !== "compaction") {
		return {
			cum: before + ownTokens(record),
			compaction: previous?.compaction ?? -1,
			kept: -1,
			base: 0,
		};
	}
	// Pi keeps from the first entry before the compaction whose id is firstKeptEntryId.
	const firstKept = record.entry.firstKeptEntryId;
	const at = firstKept === undefined ? undefined : indexOf(firstKept);
	const kept = at !== undefined && at < index ? at : -1;
	const keptSpan = kept === -1 ? 0 : before - (kept > 0 ? stepAt(kept - 1).cum : 0);
	return { cum: before, compaction: index, kept, base: summaryTokens(record) + keptSpan - before };
}

/** Is path[j] in Pi's context for the prefix ending at `last`? */
function inContext(stepAt: StepAt, last: number, j: number): boolean {
	if (j > last) return false;
	const c = stepAt(last).compaction;
	if (c === -1 || j > c) return true;
	const kept = stepAt(c).kept;
	return kept !== -1 && j >= kept && j < c;
}

function strippedTokens(record: EntryRecord, callId: string): number {
	if (record.kind !== "known" || record.entry.type !== "message" || record.entry.message.role !== "assistant")
		return ownTokens(record);
	const message = record.entry.message;
	const content = message.content.filter((p) => !(p.type === "toolCall" && p.id === callId));
	return content.length === 0 ? 0 : estimateMessageTokens({ ...message, content } as unknown as Message);
}

/**
 * baselineTokens at events[0..upTo) from the branch's steps.
 * @param callEntries indices of the assistant entries holding the in-flight call (stripped, as Pi's builder would be).
 */
export function baselineTokensAt(
	path: readonly EntryRecord[],
	stepAt: StepAt,
	inventoryTokens: number,
	upTo: number,
	inFlight?: { callId: string; callEntries: readonly number[] },
): number {
	if (upTo <= 0) return inventoryTokens;
	const last = upTo - 1;
	const step = stepAt(last);
	let tokens = inventoryTokens + step.cum + (step.compaction === -1 ? 0 : stepAt(step.compaction).base);
	for (const j of inFlight?.callEntries ?? []) {
		if (!inContext(stepAt, last, j)) continue;
		const record = path[j]!;
		tokens += strippedTokens(record, inFlight!.callId) - ownTokens(record);
	}
	return tokens;
}

/** The inventory message's tokens: the baseline's fixed head. */
export function inventoryTokens(inventory: readonly Tool[]): number {
	return estimateMessageTokens(inventoryMessage(inventory));
}
