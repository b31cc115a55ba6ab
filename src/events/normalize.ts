/**
 * Entries on a path → LedgerEvents, one per entry, in path order.
 *
 * An event depends only on its entry, the path before it and the entries written
 * before it, never on what follows: folding the events of a growing branch piece by
 * piece must give what folding them all at once gives.
 */

import type { EntryRecord, KnownEntry } from "./entries.ts";
import { assertNever } from "./never.ts";
import type { AgentMessageJson, ImagePart, SystemMessageJson, TextPart, UserMessageJson } from "./schemas.ts";
import type { ContentPart, HiddenUserWords, LedgerEvent, SystemPrompt, ToolCallInfo } from "./types.ts";
import { isRecord } from "./validate.ts";

type Base = { id: string; parentId: string | null };

export function toParts(content: string | readonly (TextPart | ImagePart)[]): ContentPart[] {
	if (typeof content === "string") return [{ type: "text", text: content }];
	// Image bytes are dropped here, once, so nothing downstream can embed them.
	return content.map(
		(part): ContentPart =>
			part.type === "text" ? { type: "text", text: part.text } : { type: "image", mimeType: part.mimeType },
	);
}

function toolArguments(value: unknown): Record<string, unknown> {
	if (value === undefined) return {};
	return isRecord(value) ? value : { value };
}

/** A system message's prompt: its opaque content as text, its sections as they patch the earlier ones. */
function systemPrompt(message: SystemMessageJson): SystemPrompt {
	const content = message.content === undefined ? "" : partsText(toParts(message.content));
	return { content, sections: { ...(message.sections ?? {}) } };
}

function partsText(parts: readonly ContentPart[]): string {
	return parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
}

function messageEvent(base: Base, message: AgentMessageJson): LedgerEvent {
	switch (message.role) {
		case "user":
			return { ...base, kind: "user", parts: toParts(message.content) };
		case "assistant": {
			const text: string[] = [];
			const thinking: string[] = [];
			const calls: ToolCallInfo[] = [];
			for (const part of message.content) {
				if (part.type === "text") text.push(part.text);
				else if (part.type === "thinking") {
					if (part.redacted !== true) thinking.push(part.thinking);
				} else calls.push({ id: part.id, name: part.name, arguments: toolArguments(part.arguments) });
			}
			return {
				...base,
				kind: "assistant",
				text: text.join("\n\n"),
				thinking: thinking.join("\n\n"),
				calls,
				stopReason: message.stopReason,
				errorMessage: message.errorMessage,
				provider: message.provider,
				model: message.model,
			};
		}
		case "toolResult":
			return {
				...base,
				kind: "toolResult",
				callId: message.toolCallId,
				toolName: message.toolName,
				parts: toParts(message.content),
				isError: message.isError === true,
				details: message.details,
				...(message.usage !== undefined ? { usage: message.usage } : {}),
			};
		case "bashExecution":
			return {
				...base,
				kind: "bashRun",
				command: message.command,
				output: message.output,
				exitCode: typeof message.exitCode === "number" ? message.exitCode : undefined,
				cancelled: message.cancelled === true,
				truncated: message.truncated === true,
				excluded: message.excludeFromContext === true,
			};
		case "custom":
		case "hookMessage":
			return {
				...base,
				kind: "customMessage",
				customType: message.customType,
				parts: toParts(message.content),
				// Pi hides a custom message whose display is falsy; absent behaves like false.
				display: message.display === true,
				details: message.details,
			};
		case "branchSummary":
			return {
				...base,
				kind: "branchSummary",
				summary: message.summary,
				fromId: message.fromId,
				hiddenUserWords: [],
			};
		case "compactionSummary":
			return {
				...base,
				kind: "compaction",
				summary: message.summary,
				firstKeptEntryId: null,
				tokensBefore: message.tokensBefore ?? 0,
				resets: false,
			};
		case "system":
			return { ...base, kind: "system", ...systemPrompt(message) };
		default:
			return assertNever(message, "message role");
	}
}

function entryEvent(base: Base, entry: KnownEntry, hidden: () => HiddenUserWords[]): LedgerEvent {
	switch (entry.type) {
		case "message":
			return messageEvent(base, entry.message);
		case "compaction":
			return {
				...base,
				kind: "compaction",
				summary: entry.summary,
				firstKeptEntryId: entry.firstKeptEntryId ?? null,
				tokensBefore: entry.tokensBefore ?? 0,
				resets: true,
				...(entry.systemMessage === undefined ? {} : { system: systemPrompt(entry.systemMessage) }),
			};
		case "branch_summary":
			return {
				...base,
				kind: "branchSummary",
				summary: entry.summary,
				fromId: entry.fromId,
				hiddenUserWords: hidden(),
			};
		case "custom":
			return { ...base, kind: "custom", customType: entry.customType, data: entry.data };
		case "custom_message":
			return {
				...base,
				kind: "customMessage",
				customType: entry.customType,
				parts: toParts(entry.content),
				display: entry.display === true,
				details: entry.details,
			};
		case "model_change":
			return { ...base, kind: "modelChange", provider: entry.provider, modelId: entry.modelId };
		case "thinking_level_change":
			return { ...base, kind: "thinkingLevel", level: entry.thinkingLevel };
		case "label":
		case "session_info":
			return { ...base, kind: "other", entryType: entry.type };
		default:
			return assertNever(entry, "entry type");
	}
}

function userMessage(record: EntryRecord): UserMessageJson | undefined {
	if (record.kind !== "known" || record.entry.type !== "message") return undefined;
	return record.entry.message.role === "user" ? record.entry.message : undefined;
}

interface Lookup {
	byId: ReadonlyMap<string, EntryRecord>;
	/** Position in file order. */
	position: ReadonlyMap<string, number>;
	all: readonly EntryRecord[];
}

/**
 * Where the abandoned branch ended. The summary's `fromId` when it names an entry off the
 * path (what Pi's docs describe); Pi 0.73 actually writes the navigation target there,
 * which is on the path, so then the entry written just before the summary: Pi appends
 * the summary right after leaving that leaf.
 */
function abandonedLeaf(summary: EntryRecord, fromId: string | undefined, onPath: ReadonlySet<string>, lookup: Lookup) {
	const from = fromId === undefined ? undefined : lookup.byId.get(fromId);
	if (from !== undefined && !onPath.has(from.id)) return from;
	const at = lookup.position.get(summary.id);
	const previous = at === undefined ? undefined : lookup.all[at - 1];
	return previous !== undefined && !onPath.has(previous.id) ? previous : undefined;
}

/** User messages from the abandoned leaf up to (excluding) the common ancestor, oldest first. */
function hiddenUserWords(
	summary: EntryRecord,
	fromId: string | undefined,
	onPath: ReadonlySet<string>,
	lookup: Lookup,
) {
	const words: HiddenUserWords[] = [];
	const seen = new Set<string>();
	let current = abandonedLeaf(summary, fromId, onPath, lookup);
	while (current !== undefined && !onPath.has(current.id)) {
		// Reaching the summary means the start descends from it: nothing was abandoned.
		if (current.id === summary.id) return [];
		if (seen.has(current.id)) break;
		seen.add(current.id);
		const message = userMessage(current);
		if (message !== undefined) words.push({ id: current.id, parts: toParts(message.content) });
		current = current.parentId === null ? undefined : lookup.byId.get(current.parentId);
	}
	return words.reverse();
}

export interface NormalizeOptions {
	/**
	 * Ids of the branch entries before `path` when only the tail of a branch is normalised
	 * (incremental folding): they count as "on the path" for branch summaries.
	 */
	pathBefore?: Iterable<string>;
}

/**
 * @param all every entry of the session in file order (defaults to the path): where the
 *   user words of abandoned branches are found for branch summaries. A function is only
 *   called when a branch summary needs it.
 */
export function normalizeBranch(
	path: readonly EntryRecord[],
	all: readonly EntryRecord[] | (() => readonly EntryRecord[]) = path,
	options: NormalizeOptions = {},
): LedgerEvent[] {
	let lookup: Lookup | undefined;
	const getLookup = (): Lookup => {
		if (lookup !== undefined) return lookup;
		const entries = typeof all === "function" ? all() : all;
		const byId = new Map<string, EntryRecord>();
		const position = new Map<string, number>();
		entries.forEach((record, i) => {
			if (byId.has(record.id)) return;
			byId.set(record.id, record);
			position.set(record.id, i);
		});
		lookup = { byId, position, all: entries };
		return lookup;
	};
	const onPath = new Set<string>(options.pathBefore ?? []);
	const events: LedgerEvent[] = [];
	for (const record of path) {
		const base: Base = { id: record.id, parentId: record.parentId };
		if (record.kind === "opaque") {
			events.push({ ...base, kind: "other", entryType: record.entry.type });
		} else {
			const entry = record.entry;
			const hidden = () =>
				entry.type === "branch_summary" ? hiddenUserWords(record, entry.fromId, onPath, getLookup()) : [];
			events.push(entryEvent(base, entry, hidden));
		}
		onPath.add(record.id);
	}
	return events;
}
