/**
 * Entries on a path → LedgerEvents, one per entry, in path order.
 *
 * An event depends only on its entry, the path before it and the entries written
 * before it, never on what follows: folding the events of a growing branch piece by
 * piece must give what folding them all at once gives.
 *
 * Privacy happens here, once (docs/privacy.md): every text an event carries is redacted, and
 * the content of an executor's read of a path the deny list covers is withheld, so nothing
 * downstream — cards, the appendix, advisor_expand, summaries, the fact audit — ever sees either.
 * A tool result's event therefore also depends on its call, which sits above it on the path.
 */

import type { EntryRecord, KnownEntry } from "./entries.ts";
import {
	abandonedLeaf,
	buildLookup,
	callAbove,
	type Lookup,
	lookups,
	toolArguments,
	userMessage,
} from "./entry-lookup.ts";
import { assertNever } from "./never.ts";
import {
	DEFAULT_DENY_PATTERNS,
	DEFAULT_PRIVACY,
	type DenyMatcher,
	denyMatcherFor,
	isDeniedRead,
	type PrivacySettings,
	privacyFingerprint,
	READING_TOOLS,
	redactText,
	redactValue,
	WITHHELD_READ_TEXT,
} from "./redact/index.ts";
import type { AgentMessageJson, ContextEditContent, ImagePart, SystemMessageJson, TextPart } from "./schemas.ts";
import type {
	BranchSummaryEvent,
	ContentPart,
	ContextReplacement,
	CustomMessageEvent,
	HiddenUserWords,
	LedgerEvent,
	SystemPrompt,
	ToolCallInfo,
	ToolResultEvent,
} from "./types.ts";
import { isRecord } from "./validate.ts";

type Base = { id: string; parentId: string | null };

/** What normalisation applies to every text, and the deny list's verdict on a tool result. */
interface Privacy {
	text(text: string): string;
	value<T>(value: T): T;
	/** Whether the result answers a read of a path the deny list covers (false when its call is unknown). */
	deniedRead(result: Base & { toolCallId: string; toolName: string }): boolean;
}

function toParts(content: string | readonly (TextPart | ImagePart)[], privacy: Privacy): ContentPart[] {
	if (typeof content === "string") return [{ type: "text", text: privacy.text(content) }];
	// Image bytes are dropped here, once, so nothing downstream can embed them.
	return content.map(
		(part): ContentPart =>
			part.type === "text"
				? { type: "text", text: privacy.text(part.text) }
				: { type: "image", mimeType: part.mimeType },
	);
}

/** A tool result's text, or the withheld line when the deny list covers the path its call read. */
function resultEvent(
	base: Base,
	message: Extract<AgentMessageJson, { role: "toolResult" }>,
	privacy: Privacy,
): ToolResultEvent {
	const isError = message.isError === true;
	// A failed read carries the tool's error, not the file: it is redacted like any text.
	const denied =
		!isError && privacy.deniedRead({ ...base, toolCallId: message.toolCallId, toolName: message.toolName });
	// The size a card shows: the text as partsText joins it (reducers/advisor-result.ts).
	const texts = !denied ? [] : typeof message.content === "string" ? [message.content] : textsOf(message.content);
	// One object, not a copy of a first one: a long session makes one per result.
	const event: ToolResultEvent = {
		id: base.id,
		parentId: base.parentId,
		kind: "toolResult",
		callId: message.toolCallId,
		toolName: message.toolName,
		parts: denied ? [{ type: "text", text: WITHHELD_READ_TEXT }] : toParts(message.content, privacy),
		isError,
		details: message.details,
	};
	if (message.usage !== undefined) event.usage = message.usage;
	if (denied) event.withheld = { chars: texts.reduce((n, text, i) => n + text.length + (i > 0 ? 1 : 0), 0) };
	return event;
}

function textsOf(parts: readonly (TextPart | ImagePart)[]): string[] {
	const out: string[] = [];
	for (const part of parts) if (part.type === "text") out.push(part.text);
	return out;
}

/**
 * A system message's prompt: its opaque content as text, its sections as they patch the earlier
 * ones. Redacted like every other text: the user's context files (AGENTS.md …) sit in its sections.
 */
function systemPrompt(message: SystemMessageJson, privacy: Privacy): SystemPrompt {
	const content = message.content === undefined ? "" : partsText(toParts(message.content, privacy));
	// A null section removes the earlier one of that name (Pi's patch semantics): kept as it is.
	const sections: Record<string, string | null> = {};
	for (const [name, text] of Object.entries(message.sections ?? {}))
		sections[name] = text === null ? null : privacy.text(text);
	return { content, sections };
}

function partsText(parts: readonly ContentPart[]): string {
	return parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
}

function messageEvent(base: Base, message: AgentMessageJson, privacy: Privacy): LedgerEvent {
	switch (message.role) {
		case "user":
			return { id: base.id, parentId: base.parentId, kind: "user", parts: toParts(message.content, privacy) };
		case "assistant": {
			const text: string[] = [];
			const thinking: string[] = [];
			const calls: ToolCallInfo[] = [];
			for (const part of message.content) {
				if (part.type === "text") text.push(part.text);
				else if (part.type === "thinking") {
					if (part.redacted !== true) thinking.push(part.thinking);
				} else
					calls.push({ id: part.id, name: part.name, arguments: privacy.value(toolArguments(part.arguments)) });
			}
			return {
				id: base.id,
				parentId: base.parentId,
				kind: "assistant",
				// Joined first: a credential split over two parts is still one text to the rules.
				text: privacy.text(text.join("\n\n")),
				thinking: privacy.text(thinking.join("\n\n")),
				calls,
				stopReason: message.stopReason,
				errorMessage: message.errorMessage,
				provider: message.provider,
				model: message.model,
				...(message.usage !== undefined ? { usage: message.usage } : {}),
			};
		}
		case "toolResult":
			return resultEvent(base, message, privacy);
		case "bashExecution":
			return {
				id: base.id,
				parentId: base.parentId,
				kind: "bashRun",
				command: privacy.text(message.command),
				output: privacy.text(message.output),
				exitCode: typeof message.exitCode === "number" ? message.exitCode : undefined,
				cancelled: message.cancelled === true,
				truncated: message.truncated === true,
				excluded: message.excludeFromContext === true,
			};
		case "custom":
		case "hookMessage":
			return customMessageEvent(base, message, privacy);
		case "branchSummary":
			return branchSummaryEvent(base, message, noHiddenWords, privacy);
		case "compactionSummary":
			return {
				id: base.id,
				parentId: base.parentId,
				kind: "compaction",
				summary: privacy.text(message.summary),
				firstKeptEntryId: null,
				tokensBefore: message.tokensBefore ?? 0,
				resets: false,
			};
		case "system":
			return { id: base.id, parentId: base.parentId, kind: "system", ...systemPrompt(message, privacy) };
		default:
			return assertNever(message, "message role");
	}
}

/**
 * A context edit's replacement in the shapes events use, redacted like the content it replaces: text
 * and image parts as parts, an assistant's thinking and tool calls beside them. Pi keeps a string
 * replacement of a user or custom message as it is and wraps any other in one text part; both are
 * one text part here.
 */
function replacementOf(replacement: ContextEditContent, privacy: Privacy): ContextReplacement | null {
	if (replacement === null) return null;
	const content = replacement.content;
	if (typeof content === "string") return { parts: toParts(content, privacy), thinking: "", calls: [] };
	const parts: ContentPart[] = [];
	const thinking: string[] = [];
	const calls: ToolCallInfo[] = [];
	for (const part of content) {
		if (part.type === "text") parts.push({ type: "text", text: privacy.text(part.text) });
		else if (part.type === "image") parts.push({ type: "image", mimeType: part.mimeType });
		else if (part.type === "thinking") {
			if (part.redacted !== true) thinking.push(part.thinking);
		} else calls.push({ id: part.id, name: part.name, arguments: privacy.value(toolArguments(part.arguments)) });
	}
	return { parts, thinking: privacy.text(thinking.join("\n\n")), calls };
}

/**
 * An extension message's details are its own, never shown — except the advice a delivered review
 * carries there (reducers/advisor-result.ts `reviewAdvice`), which is replayed as past advice.
 */
function messageDetails(details: unknown, privacy: Privacy): unknown {
	if (!isRecord(details) || typeof details.advice !== "string") return details;
	const advice = privacy.text(details.advice);
	return advice === details.advice ? details : { ...details, advice };
}

/**
 * A visible or hidden extension message: the same event whether Pi wrote it as a message (role
 * `custom`, `hookMessage` in v2) or as a `custom_message` entry.
 */
function customMessageEvent(
	base: Base,
	message: {
		customType: string;
		content: string | readonly (TextPart | ImagePart)[];
		display?: boolean;
		details?: unknown;
	},
	privacy: Privacy,
): CustomMessageEvent {
	return {
		id: base.id,
		parentId: base.parentId,
		kind: "customMessage",
		customType: message.customType,
		parts: toParts(message.content, privacy),
		// Pi hides a custom message whose display is falsy; absent behaves like false.
		display: message.display === true,
		details: messageDetails(message.details, privacy),
	};
}

/**
 * A branch summary, written as a message or as a `branch_summary` entry; `hidden` gives the user words
 * of the branch it abandoned, which are looked for only for an entry.
 */
function branchSummaryEvent(
	base: Base,
	summary: { summary: string; fromId?: string },
	hidden: () => HiddenUserWords[],
	privacy: Privacy,
): BranchSummaryEvent {
	return {
		id: base.id,
		parentId: base.parentId,
		kind: "branchSummary",
		summary: privacy.text(summary.summary),
		fromId: summary.fromId,
		hiddenUserWords: hidden(),
	};
}

function entryEvent(base: Base, entry: KnownEntry, hidden: () => HiddenUserWords[], privacy: Privacy): LedgerEvent {
	switch (entry.type) {
		case "message":
			return messageEvent(base, entry.message, privacy);
		case "compaction":
			return {
				id: base.id,
				parentId: base.parentId,
				kind: "compaction",
				summary: privacy.text(entry.summary),
				firstKeptEntryId: entry.firstKeptEntryId ?? null,
				tokensBefore: entry.tokensBefore ?? 0,
				resets: true,
				...(entry.systemMessage === undefined ? {} : { system: systemPrompt(entry.systemMessage, privacy) }),
			};
		case "branch_summary":
			return branchSummaryEvent(base, entry, hidden, privacy);
		case "custom":
			return {
				id: base.id,
				parentId: base.parentId,
				kind: "custom",
				customType: entry.customType,
				data: entry.data,
			};
		case "custom_message":
			return customMessageEvent(base, entry, privacy);
		case "model_change":
			return {
				id: base.id,
				parentId: base.parentId,
				kind: "modelChange",
				provider: entry.provider,
				modelId: entry.modelId,
			};
		case "thinking_level_change":
			return { id: base.id, parentId: base.parentId, kind: "thinkingLevel", level: entry.thinkingLevel };
		case "context_edit":
			return {
				id: base.id,
				parentId: base.parentId,
				kind: "contextEdit",
				targetId: entry.targetId,
				replacement: replacementOf(entry.replacement, privacy),
			};
		case "usage":
			return {
				id: base.id,
				parentId: base.parentId,
				kind: "usage",
				usageKind: entry.kind,
				provider: entry.provider,
				model: entry.model,
				usage: entry.usage,
			};
		case "label":
		case "session_info":
			return { id: base.id, parentId: base.parentId, kind: "other", entryType: entry.type };
		default:
			return assertNever(entry, "entry type");
	}
}

/** User messages from the abandoned leaf up to (excluding) the common ancestor, oldest first. */
function hiddenUserWords(
	summary: EntryRecord,
	fromId: string | undefined,
	onPath: ReadonlySet<string>,
	lookup: Lookup,
	privacy: Privacy,
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
		if (message !== undefined) words.push({ id: current.id, parts: toParts(message.content, privacy) });
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
	/** How texts are redacted (advisor.json `privacy`); default: redaction on, no extra patterns. */
	privacy?: PrivacySettings;
	/** The deny list (advisor.json `tools.denyPatterns`) an executor's read is withheld by; `[]` withholds nothing. */
	denyPatterns?: readonly string[];
	/** The session's working directory: what the deny list judges a read's path relative to. */
	cwd?: string;
}

/** A stable name for the options that decide an event's bytes: whatever memoises events keys on it. */
export function privacyKey(privacy: PrivacySettings, denyPatterns: readonly string[]): string {
	return `${privacyFingerprint(privacy)}\u0000${JSON.stringify(denyPatterns)}`;
}

/**
 * @param all every entry of the session in file order (defaults to the path): where the
 *   user words of abandoned branches are found for branch summaries, and the call of a result
 *   whose call lies before `path`. A function is only called when one of them needs it; an
 *   array's index is built once and kept while the array is.
 */
export function normalizeBranch(
	path: readonly EntryRecord[],
	all: readonly EntryRecord[] | (() => readonly EntryRecord[]) = path,
	options: NormalizeOptions = {},
): LedgerEvent[] {
	let lookup: Lookup | undefined;
	const getLookup = (): Lookup => {
		if (lookup !== undefined) return lookup;
		if (typeof all === "function") lookup = buildLookup(all());
		else {
			lookup = lookups.get(all) ?? buildLookup(all);
			lookups.set(all, lookup);
		}
		return lookup;
	};
	// The calls of this path's assistant messages, as written: a read's path is judged unredacted.
	// The parts themselves are kept (a long path has one per call), made into ToolCallInfo when asked.
	const calls = new Map<string, { id: string; name: string; arguments?: unknown }>();
	const privacy = privacyOf(options, (result) => {
		const part = calls.get(result.toolCallId);
		if (part === undefined) return callAbove(result.parentId, result.toolCallId, getLookup());
		return { id: part.id, name: part.name, arguments: toolArguments(part.arguments) };
	});
	// Ids on the path so far, for a branch summary (which names the words its branch hid): made when
	// the first one is met, then kept up to date.
	let onPath: Set<string> | undefined;
	let onPathUpTo = 0;
	const pathUpTo = (end: number): ReadonlySet<string> => {
		onPath ??= new Set<string>(options.pathBefore ?? []);
		for (; onPathUpTo < end; onPathUpTo++) onPath.add(path[onPathUpTo]!.id);
		return onPath;
	};
	const events: LedgerEvent[] = [];
	path.forEach((record, i) => {
		const base: Base = { id: record.id, parentId: record.parentId };
		if (record.kind === "opaque") {
			events.push({ id: base.id, parentId: base.parentId, kind: "other", entryType: record.entry.type });
			return;
		}
		const entry = record.entry;
		if (privacy.withholds && entry.type === "message" && entry.message.role === "assistant") {
			for (const part of entry.message.content) if (part.type === "toolCall") calls.set(part.id, part);
		}
		const hidden =
			entry.type === "branch_summary"
				? () => hiddenUserWords(record, entry.fromId, pathUpTo(i), getLookup(), privacy)
				: noHiddenWords;
		events.push(entryEvent(base, entry, hidden, privacy));
	});
	return events;
}

const noHiddenWords = (): HiddenUserWords[] => [];

function privacyOf(
	options: NormalizeOptions,
	callOf: (result: Base & { toolCallId: string }) => ToolCallInfo | undefined,
): Privacy & { withholds: boolean } {
	const settings = options.privacy ?? DEFAULT_PRIVACY;
	const patterns = options.denyPatterns ?? DEFAULT_DENY_PATTERNS;
	const denied: DenyMatcher | undefined = patterns.length === 0 ? undefined : denyMatcherFor(patterns);
	return {
		text: (text) => redactText(text, settings),
		value: (value) => redactValue(value, settings),
		withholds: denied !== undefined,
		deniedRead: (result) => {
			if (denied === undefined || !READING_TOOLS.has(result.toolName.toLowerCase())) return false;
			const call = callOf(result);
			return call !== undefined && isDeniedRead(call.name, call.arguments, options.cwd, denied);
		},
	};
}
