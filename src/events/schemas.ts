/**
 * TypeBox schemas for what Pi 0.73 (and its v1/v2 predecessors) writes to a session file, and
 * the entries Pi 1.x added within version 3 (`context_edit`, `usage`).
 *
 * Deliberately lenient: Pi's own types are stricter than the files it has written over
 * time (v1 usage has no totalTokens, aborted assistant turns have empty content, some
 * tool calls carry a stray partialJson). A field the ledger never reads is typed
 * `Unknown` so a variation there cannot cost us a whole entry. Extra properties are
 * allowed everywhere (Type.Object's default) and counted by validate.ts instead.
 *
 * Only `Type` and `Value` are used: inside Pi, `@sinclair/typebox` is aliased to the
 * bundled typebox 1.x, where 0.34's TypeCompiler does not exist (docs/decisions.md).
 */

import { type Static, Type } from "@sinclair/typebox";

// ---------------------------------------------------------------------------------------------
// Content parts
// ---------------------------------------------------------------------------------------------

export const TextPartSchema = Type.Object({
	type: Type.Literal("text"),
	text: Type.String(),
	textSignature: Type.Optional(Type.String()),
});

export const ImagePartSchema = Type.Object({
	type: Type.Literal("image"),
	// Optional: the ledger drops the bytes anyway, so a file that lost them is still readable.
	data: Type.Optional(Type.String()),
	mimeType: Type.String(),
});

export const ThinkingPartSchema = Type.Object({
	type: Type.Literal("thinking"),
	thinking: Type.String(),
	thinkingSignature: Type.Optional(Type.String()),
	redacted: Type.Optional(Type.Boolean()),
});

export const ToolCallPartSchema = Type.Object({
	type: Type.Literal("toolCall"),
	id: Type.String(),
	name: Type.String(),
	// Unknown: a provider may have streamed a non-object; normalize.ts wraps it.
	arguments: Type.Optional(Type.Unknown()),
	thoughtSignature: Type.Optional(Type.String()),
});

const TextOrImage = Type.Union([TextPartSchema, ImagePartSchema]);
/** user, custom and custom_message content: a bare string or text/image parts. */
const UserContent = Type.Union([Type.String(), Type.Array(TextOrImage)]);

// ---------------------------------------------------------------------------------------------
// Message roles (the `message` field of a `message` entry)
// ---------------------------------------------------------------------------------------------

const messageTimestamp = Type.Optional(Type.Number());

export const UserMessageSchema = Type.Object({
	role: Type.Literal("user"),
	content: UserContent,
	timestamp: messageTimestamp,
});

export const AssistantMessageSchema = Type.Object({
	role: Type.Literal("assistant"),
	content: Type.Array(Type.Union([TextPartSchema, ThinkingPartSchema, ToolCallPartSchema])),
	api: Type.Optional(Type.String()),
	provider: Type.Optional(Type.String()),
	model: Type.Optional(Type.String()),
	responseModel: Type.Optional(Type.String()),
	responseId: Type.Optional(Type.String()),
	diagnostics: Type.Optional(Type.Unknown()),
	usage: Type.Optional(Type.Unknown()),
	stopReason: Type.Optional(Type.String()),
	errorMessage: Type.Optional(Type.String()),
	timestamp: messageTimestamp,
});

export const ToolResultMessageSchema = Type.Object({
	role: Type.Literal("toolResult"),
	toolCallId: Type.String(),
	toolName: Type.String(),
	content: UserContent,
	details: Type.Optional(Type.Unknown()),
	// Newer hosts keep a tool's own top-level `usage` (the advisor's envelope carries one).
	usage: Type.Optional(Type.Unknown()),
	isError: Type.Optional(Type.Boolean()),
	timestamp: messageTimestamp,
});

export const BashExecutionMessageSchema = Type.Object({
	role: Type.Literal("bashExecution"),
	command: Type.String(),
	output: Type.String(),
	// `undefined` in Pi's type, so absent in JSON; null tolerated for hand-written files.
	exitCode: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
	cancelled: Type.Optional(Type.Boolean()),
	truncated: Type.Optional(Type.Boolean()),
	fullOutputPath: Type.Optional(Type.String()),
	excludeFromContext: Type.Optional(Type.Boolean()),
	timestamp: messageTimestamp,
});

/** v3 `custom`; v2 wrote the same message with role `hookMessage`. */
export const CustomMessageSchema = Type.Object({
	role: Type.Union([Type.Literal("custom"), Type.Literal("hookMessage")]),
	customType: Type.String(),
	content: UserContent,
	display: Type.Optional(Type.Boolean()),
	details: Type.Optional(Type.Unknown()),
	timestamp: messageTimestamp,
});

export const BranchSummaryMessageSchema = Type.Object({
	role: Type.Literal("branchSummary"),
	summary: Type.String(),
	fromId: Type.Optional(Type.String()),
	timestamp: messageTimestamp,
});

export const CompactionSummaryMessageSchema = Type.Object({
	role: Type.Literal("compactionSummary"),
	summary: Type.String(),
	tokensBefore: Type.Optional(Type.Number()),
	timestamp: messageTimestamp,
});

/**
 * Pi 1.x: the executor's system prompt, recorded in the session (docs/request-format.md). `sections`
 * (preamble, tools, rules, docs, addendum, project_context, skills, cwd, …) patch the sections of
 * earlier system messages; a null removes one. A forced prompt is opaque and sits in `content`.
 */
export const SystemMessageSchema = Type.Object({
	role: Type.Literal("system"),
	content: Type.Optional(Type.Union([Type.String(), Type.Array(TextOrImage)])),
	sections: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]))),
	toolsAdded: Type.Optional(Type.Unknown()),
	toolsRemoved: Type.Optional(Type.Unknown()),
	timestamp: messageTimestamp,
});

export const MESSAGE_SCHEMAS = {
	user: UserMessageSchema,
	assistant: AssistantMessageSchema,
	toolResult: ToolResultMessageSchema,
	bashExecution: BashExecutionMessageSchema,
	custom: CustomMessageSchema,
	hookMessage: CustomMessageSchema,
	branchSummary: BranchSummaryMessageSchema,
	compactionSummary: CompactionSummaryMessageSchema,
	system: SystemMessageSchema,
} as const;

export type MessageRole = keyof typeof MESSAGE_SCHEMAS;

export const AgentMessageSchema = Type.Union([
	UserMessageSchema,
	AssistantMessageSchema,
	ToolResultMessageSchema,
	BashExecutionMessageSchema,
	CustomMessageSchema,
	BranchSummaryMessageSchema,
	CompactionSummaryMessageSchema,
	SystemMessageSchema,
]);

// ---------------------------------------------------------------------------------------------
// Session entries
// ---------------------------------------------------------------------------------------------

/**
 * id/parentId are optional here because v1 files have neither; jsonl.ts requires them for
 * v2+ files and migrate.ts assigns them for v1, so every entry past migration has both.
 */
const entryBase = {
	id: Type.Optional(Type.String()),
	parentId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
	timestamp: Type.Optional(Type.String()),
};

export const MessageEntrySchema = Type.Object({
	type: Type.Literal("message"),
	...entryBase,
	message: AgentMessageSchema,
});

export const CompactionEntrySchema = Type.Object({
	type: Type.Literal("compaction"),
	...entryBase,
	summary: Type.String(),
	/** v2+. */
	firstKeptEntryId: Type.Optional(Type.String()),
	/** v1 only: index into the file's parsed lines, header included. */
	firstKeptEntryIndex: Type.Optional(Type.Number()),
	tokensBefore: Type.Optional(Type.Number()),
	details: Type.Optional(Type.Unknown()),
	fromHook: Type.Optional(Type.Boolean()),
	/** Pi 1.x: the complete system prompt at this compaction boundary. */
	systemMessage: Type.Optional(SystemMessageSchema),
});

export const BranchSummaryEntrySchema = Type.Object({
	type: Type.Literal("branch_summary"),
	...entryBase,
	fromId: Type.Optional(Type.String()),
	summary: Type.String(),
	details: Type.Optional(Type.Unknown()),
	fromHook: Type.Optional(Type.Boolean()),
});

export const CustomEntrySchema = Type.Object({
	type: Type.Literal("custom"),
	...entryBase,
	customType: Type.String(),
	data: Type.Optional(Type.Unknown()),
});

export const CustomMessageEntrySchema = Type.Object({
	type: Type.Literal("custom_message"),
	...entryBase,
	customType: Type.String(),
	content: UserContent,
	display: Type.Optional(Type.Boolean()),
	details: Type.Optional(Type.Unknown()),
});

export const ModelChangeEntrySchema = Type.Object({
	type: Type.Literal("model_change"),
	...entryBase,
	provider: Type.String(),
	modelId: Type.String(),
});

export const ThinkingLevelChangeEntrySchema = Type.Object({
	type: Type.Literal("thinking_level_change"),
	...entryBase,
	thinkingLevel: Type.String(),
});

export const LabelEntrySchema = Type.Object({
	type: Type.Literal("label"),
	...entryBase,
	targetId: Type.String(),
	label: Type.Optional(Type.String()),
});

export const SessionInfoEntrySchema = Type.Object({
	type: Type.Literal("session_info"),
	...entryBase,
	name: Type.Optional(Type.String()),
});

/**
 * Pi 1.x: an append-only change to an earlier entry's contribution to the executor's context
 * (docs/request-format.md#context-edits). `replacement: null` omits the target; otherwise its
 * content is replaced — user, tool result and custom message content (a string or text/image
 * parts), or an assistant's parts (text, thinking, tool calls).
 */
export const ContextEditEntrySchema = Type.Object({
	type: Type.Literal("context_edit"),
	...entryBase,
	targetId: Type.String(),
	replacement: Type.Union([
		Type.Null(),
		Type.Object({
			content: Type.Union([
				Type.String(),
				Type.Array(Type.Union([TextPartSchema, ImagePartSchema, ThinkingPartSchema, ToolCallPartSchema])),
			]),
		}),
	]),
});

/** Pi 1.x: spend outside a message, e.g. `kind: "cache_warm"` for Pi's own warming of the executor's cache. */
export const UsageEntrySchema = Type.Object({
	type: Type.Literal("usage"),
	...entryBase,
	kind: Type.String(),
	provider: Type.String(),
	model: Type.String(),
	// Unknown: read leniently where it counts, never a reason to lose the entry.
	usage: Type.Optional(Type.Unknown()),
	note: Type.Optional(Type.String()),
});

export const ENTRY_SCHEMAS = {
	message: MessageEntrySchema,
	compaction: CompactionEntrySchema,
	branch_summary: BranchSummaryEntrySchema,
	custom: CustomEntrySchema,
	custom_message: CustomMessageEntrySchema,
	model_change: ModelChangeEntrySchema,
	thinking_level_change: ThinkingLevelChangeEntrySchema,
	label: LabelEntrySchema,
	session_info: SessionInfoEntrySchema,
	context_edit: ContextEditEntrySchema,
	usage: UsageEntrySchema,
} as const;

export type KnownEntryType = keyof typeof ENTRY_SCHEMAS;

export const FileEntrySchema = Type.Union([
	MessageEntrySchema,
	CompactionEntrySchema,
	BranchSummaryEntrySchema,
	CustomEntrySchema,
	CustomMessageEntrySchema,
	ModelChangeEntrySchema,
	ThinkingLevelChangeEntrySchema,
	LabelEntrySchema,
	SessionInfoEntrySchema,
	ContextEditEntrySchema,
	UsageEntrySchema,
]);

// ---------------------------------------------------------------------------------------------
// Header
// ---------------------------------------------------------------------------------------------

export const SessionHeaderSchema = Type.Object({
	type: Type.Literal("session"),
	/** Absent in v1. */
	version: Type.Optional(Type.Number()),
	id: Type.String(),
	timestamp: Type.Optional(Type.String()),
	cwd: Type.Optional(Type.String()),
	parentSession: Type.Optional(Type.String()),
	// v1 headers also carried the starting model and thinking level.
	provider: Type.Optional(Type.String()),
	modelId: Type.Optional(Type.String()),
	thinkingLevel: Type.Optional(Type.String()),
});

// ---------------------------------------------------------------------------------------------
// Static types
// ---------------------------------------------------------------------------------------------

export type TextPart = Static<typeof TextPartSchema>;
export type ContextEditContent = Static<typeof ContextEditEntrySchema>["replacement"];
export type ImagePart = Static<typeof ImagePartSchema>;
export type AgentMessageJson = Static<typeof AgentMessageSchema>;
export type SystemMessageJson = Static<typeof SystemMessageSchema>;
export type UserMessageJson = Static<typeof UserMessageSchema>;
export type SessionHeaderJson = Static<typeof SessionHeaderSchema>;
/** A known entry as written in the file, before migration (ids optional). */
export type FileEntryJson = Static<typeof FileEntrySchema>;
