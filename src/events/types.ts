/**
 * The session log as typed events.
 *
 * Every entry on the selected branch becomes exactly one LedgerEvent, in branch order
 * (root → leaf). Events keep what the ledger needs and nothing Pi-runtime-specific, so
 * the reducers can be folded over recorded files and live sessions alike.
 */

/** A text or image part, in the order the author wrote them. Image bytes are dropped: the ledger never embeds images. */
export type ContentPart = { type: "text"; text: string } | { type: "image"; mimeType: string };

export interface ToolCallInfo {
	/** Provider tool-call id, pairs the call with its toolResult. */
	id: string;
	name: string;
	/** Raw arguments as the executor sent them (non-objects are wrapped as `{ value }`). */
	arguments: Record<string, unknown>;
}

interface EventBase {
	/** Session entry id (8 hex in Pi v3; deterministic for migrated v1 files). */
	id: string;
	parentId: string | null;
}

/** A user message. */
export interface UserEvent extends EventBase {
	kind: "user";
	parts: ContentPart[];
}

/** An executor (assistant) message: prose, private reasoning and tool calls. */
export interface AssistantEvent extends EventBase {
	kind: "assistant";
	/** Text parts joined with "\n\n". */
	text: string;
	/** Thinking parts joined with "\n\n" (redacted thinking contributes nothing). */
	thinking: string;
	calls: ToolCallInfo[];
	stopReason: string | undefined;
	errorMessage: string | undefined;
	provider: string | undefined;
	model: string | undefined;
	/**
	 * The message's `usage`, untouched (pi-ai's Usage when the host recorded one): what the executor's
	 * own turns cost, which the watch's share is measured against (docs/configuration.md#the-watch).
	 */
	usage?: unknown;
}

export interface ToolResultEvent extends EventBase {
	kind: "toolResult";
	callId: string;
	toolName: string;
	parts: ContentPart[];
	isError: boolean;
	/** Tool-specific details, untouched (advisor results carry their envelope here). */
	details: unknown;
	/** The result's top-level `usage`, untouched, when the host kept one (advisor results on newer hosts). */
	usage?: unknown;
	/**
	 * Set when the result answers a read of a path the deny list covers: `parts` is then the fixed
	 * withheld line (docs/privacy.md), and `chars` the length of the text it replaced.
	 */
	withheld?: { chars: number };
}

/** A user shell run: `!cmd` (in the executor's context) or `!!cmd` (excluded). */
export interface BashRunEvent extends EventBase {
	kind: "bashRun";
	command: string;
	output: string;
	exitCode: number | undefined;
	cancelled: boolean;
	truncated: boolean;
	/** True for `!!` runs: excluded from the executor's context, so withheld from the advisor too. */
	excluded: boolean;
}

/** An extension message that enters the executor's context (custom_message entries, v3 `custom` role, v2 `hookMessage`). */
export interface CustomMessageEvent extends EventBase {
	kind: "customMessage";
	customType: string;
	parts: ContentPart[];
	/** false = hidden from the user; the ledger withholds it from the advisor. */
	display: boolean;
	details: unknown;
}

/** A compaction entry: everything before `firstKeptEntryId` was replaced by `summary` in the executor's context. */
export interface CompactionEvent extends EventBase {
	kind: "compaction";
	summary: string;
	/** null when the entry names no kept entry (or a message-role compactionSummary, which keeps everything). */
	firstKeptEntryId: string | null;
	tokensBefore: number;
	/** false for a message-role compactionSummary: it is a paraphrase block but resets nothing. */
	resets: boolean;
	/** Pi 1.x: the whole system prompt at the compaction (it replaces every earlier section). */
	system?: SystemPrompt;
}

/** A user message from a span the reader cannot see on the branch (an abandoned branch), re-stated by a summary. */
export interface HiddenUserWords {
	id: string;
	parts: ContentPart[];
}

/** A branch summary: the executor came back from an abandoned branch, which Pi paraphrased. */
export interface BranchSummaryEvent extends EventBase {
	kind: "branchSummary";
	summary: string;
	fromId: string | undefined;
	/** User messages of the abandoned branch (from `fromId` up to the common ancestor), oldest first. */
	hiddenUserWords: HiddenUserWords[];
}

/**
 * The executor's system prompt as Pi 1.x records it: `sections` patch the sections earlier system
 * messages set (null removes one); `content` is a forced, opaque prompt (usually empty).
 */
export interface SystemPrompt {
	content: string;
	sections: Record<string, string | null>;
}

/** A system message on the branch (Pi 1.x). */
export interface SystemEvent extends EventBase, SystemPrompt {
	kind: "system";
}

export interface ModelChangeEvent extends EventBase {
	kind: "modelChange";
	provider: string;
	modelId: string;
}

export interface ThinkingLevelEvent extends EventBase {
	kind: "thinkingLevel";
	level: string;
}

/** Extension state (`pi.appendEntry`). Never in the executor's context; the reducers read their own types. */
export interface CustomEntryEvent extends EventBase {
	kind: "custom";
	customType: string;
	data: unknown;
}

/**
 * What a context edit puts in place of its target's content (Pi 1.x; docs/request-format.md#context-edits),
 * in the shapes the events already use: text and image parts for a user message, a tool result or an
 * extension message; for an assistant message its prose as parts, its reasoning and its calls.
 */
export interface ContextReplacement {
	parts: ContentPart[];
	/** Thinking parts joined with "\n\n" (an assistant target's). */
	thinking: string;
	calls: ToolCallInfo[];
}

/** Pi 1.x `context_edit`: an earlier entry's content replaced in the executor's context, or omitted from it. */
export interface ContextEditEvent extends EventBase {
	kind: "contextEdit";
	targetId: string;
	/** null: the target was taken out of the executor's context. */
	replacement: ContextReplacement | null;
}

/** Pi 1.x `usage`: spend outside a message (Pi's own cache warming of the executor's model). */
export interface UsageEvent extends EventBase {
	kind: "usage";
	/** Pi's category, e.g. "cache_warm". */
	usageKind: string;
	provider: string;
	model: string;
	/** pi-ai Usage as written, untouched. */
	usage: unknown;
}

/** label, session_info and entry types this version does not know. Kept so positions and ids stay whole. */
export interface OtherEvent extends EventBase {
	kind: "other";
	entryType: string;
}

export type LedgerEvent =
	| UserEvent
	| AssistantEvent
	| ToolResultEvent
	| BashRunEvent
	| CustomMessageEvent
	| CompactionEvent
	| BranchSummaryEvent
	| SystemEvent
	| ModelChangeEvent
	| ThinkingLevelEvent
	| CustomEntryEvent
	| ContextEditEvent
	| UsageEvent
	| OtherEvent;

export type LedgerEventKind = LedgerEvent["kind"];

/** Why a line, entry or parent link was skipped or cut. Never fatal. */
export type DiagnosticReason =
	| "invalid-json"
	| "not-object"
	| "schema-mismatch"
	| "duplicate-id"
	| "truncated-last-line"
	| "unknown-entry-type"
	| "missing-parent"
	| "cycle"
	| "unknown-leaf"
	/** Not skipped: the entry is kept with its too-deep part replaced by a marker. */
	| "deep-nesting";

export interface Diagnostic {
	reason: DiagnosticReason;
	/** 1-based line number in the file, when the diagnostic comes from the reader. */
	line?: number;
	entryId?: string;
	message: string;
}
