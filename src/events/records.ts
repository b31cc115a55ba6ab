/**
 * The extension's own protocol: the tool it registers, the custom types of the entries and messages
 * it writes, and one TypeBox schema per record it writes. Types are derived from the schemas, so a
 * record's shape has one home; docs/request-format.md describes what each field means to a reader.
 *
 * Records are read back from session files written by any earlier version, so every parser here is
 * lenient the same way: a malformed optional field costs that field, a field with a `default` takes
 * it, and only a missing or malformed required field (or one marked `onInvalid: "reject"`) costs the
 * record. `parseRecord` applies those rules to any object schema.
 *
 * Only `Type` and `Value` are used: inside Pi, `@sinclair/typebox` is aliased to typebox 1.x.
 */

import type { StopReason, Usage } from "@mariozechner/pi-ai";
import { type Static, type TObject, type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { isRecord } from "./validate.ts";

export const ADVISOR_TOOL_NAME = "advisor";

/** customType of our own session entries and messages. */
export const CUSTOM_TYPES = Object.freeze({
	/** A delivered completion review (custom_message, enters the executor's context). */
	review: "advisor-review",
	/** Usage of a background request (completion review, cache warming) recorded with pi.appendEntry. */
	usage: "advisor-usage",
	/** The sticky trim boundary, recorded with pi.appendEntry before a trimmed request is sent. */
	trimAnchor: "advisor-trim-anchor",
	/** A delivered watch note (custom_message, enters the executor's context): docs/configuration.md#the-watch. */
	watch: "advisor-watch",
});

export const SEVERITIES = ["none", "nit", "concern", "blocker"] as const;
export type Severity = (typeof SEVERITIES)[number];

// ---------------------------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------------------------

const NonEmptyString = (options: object = {}) => Type.String({ minLength: 1, ...options });
/** A token count: anything but a non-negative finite number reads as 0. */
const Count = () => Type.Number({ minimum: 0, default: 0 });
const NonNegative = () => Type.Number({ minimum: 0 });

export const SeveritySchema = Type.Union(SEVERITIES.map((level) => Type.Literal(level)));

/** What woke the watch (docs/configuration.md#the-watch). */
export const WATCH_SIGNALS = ["failure-streak", "long-run", "untested-edits"] as const;
export type WatchSignal = (typeof WATCH_SIGNALS)[number];
export const WatchSignalSchema = Type.Union(WATCH_SIGNALS.map((signal) => Type.Literal(signal)));

/** How a background review ended: its answer, a skip (budget), a failure, the deadline, or a cancel. */
export const REVIEW_OUTCOMES = ["advice", "skipped", "failed", "timeout", "cancelled"] as const;
export type ReviewOutcome = (typeof REVIEW_OUTCOMES)[number];

/**
 * What became of a watch review's answer: `steered` into the running executor, `turn` (a blocker that
 * started one turn after the run had ended), `queued` for the next prompt, `kept` (a nit: never
 * injected), `stale` (its trigger no longer held when it settled), `none` (nothing to show), or
 * `not-reviewed` (never sent: the record of a skip).
 */
export const WATCH_DELIVERIES = ["steered", "turn", "queued", "kept", "stale", "none", "not-reviewed"] as const;
export type WatchDelivery = (typeof WATCH_DELIVERIES)[number];

/** pi-ai's Usage, field for field (a compile-time check below keeps them equal). */
export const UsageSchema = Type.Object({
	input: Type.Number(),
	output: Type.Number(),
	cacheRead: Type.Number(),
	cacheWrite: Type.Number(),
	totalTokens: Type.Number(),
	cost: Type.Object({
		input: Type.Number(),
		output: Type.Number(),
		cacheRead: Type.Number(),
		cacheWrite: Type.Number(),
		total: Type.Number(),
	}),
});

export const StopReasonSchema = Type.Union([
	Type.Literal("stop"),
	Type.Literal("length"),
	Type.Literal("toolUse"),
	Type.Literal("error"),
	Type.Literal("aborted"),
]);

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const usageMatchesPiAi: Same<Static<typeof UsageSchema>, Usage> = true;
const stopReasonMatchesPiAi: Same<Static<typeof StopReasonSchema>, StopReason> = true;
void usageMatchesPiAi;
void stopReasonMatchesPiAi;

// ---------------------------------------------------------------------------------------------
// The records
// ---------------------------------------------------------------------------------------------

/**
 * `details.request` of the advisor envelope, and `request` of a usage record: the consultation's
 * ledger request (round 1, as rendered and measured) plus what the estimator of the next request
 * needs. Written with `requestRecord()`.
 */
export const RequestRecordSchema = Type.Object({
	/** LedgerRequest.hash. */
	hash: NonEmptyString(),
	/** LedgerRequest.messageCount. */
	messageCount: Count(),
	/** LedgerRequest.tokens (chars/4). */
	estimatedTokens: Count(),
	/** Epoch ms at dispatch of the first request. */
	timestamp: Type.Number(),
	payloadHash: Type.Optional(NonEmptyString()),
	/** LedgerRequest.units.length. */
	unitCount: Type.Optional(NonNegative()),
	/** LedgerRequest.stable.hash: chained hash at the end of the stable portion. */
	stableHash: Type.Optional(NonEmptyString()),
	/** LedgerRequest.stable.unitCount. */
	stableUnits: Type.Optional(NonNegative()),
	/** LedgerRequest.stable.tokens (chars/4). */
	stableTokens: Type.Optional(NonNegative()),
	/** units[0].prefixHash: the system prompt. */
	systemHash: Type.Optional(NonEmptyString()),
	/** units[1].prefixHash: system prompt + tool declarations. */
	toolsHash: Type.Optional(NonEmptyString()),
	/** The `sessionId` sent with the request (`advisor:<Pi session id>`). */
	routingKey: Type.Optional(NonEmptyString()),
	/**
	 * Prompt tokens the provider billed for this request (input + cacheRead + cacheWrite of the
	 * first round of the last attempt). Absent when it was never billed (skipped before sending,
	 * or failed before the provider processed it): then the request wrote no cache either.
	 */
	promptTokens: Type.Optional(NonNegative()),
	/** Epoch ms when the consultation's last request was sent (the cache was last touched); default `timestamp`. */
	lastSentMs: Type.Optional(NonNegative()),
});
export type RequestRecord = Static<typeof RequestRecordSchema>;

/** One request sent to the advisor (every retry and every investigation round is one). */
export const AttemptRecordSchema = Type.Object({
	usage: Type.Optional(UsageSchema),
	stopReason: StopReasonSchema,
	errorMessage: Type.Optional(Type.String()),
});
export type AttemptRecord = Static<typeof AttemptRecordSchema>;

/** `data` of a `custom` entry of CUSTOM_TYPES.usage, for requests that leave no tool result. */
export const UsageRecordDataSchema = Type.Object({
	kind: Type.Union([Type.Literal("review"), Type.Literal("warming"), Type.Literal("watch")]),
	/** `provider:modelId`. */
	model: NonEmptyString(),
	/** Absent = no reasoning sent. */
	effort: Type.Optional(NonEmptyString()),
	/** pi-ai Usage: the sum over every request of the review, or the warming request's own. Read leniently by the spend fold. */
	usage: Type.Unknown(),
	/** Reviews only: one per request sent (retries and investigation rounds), as in an advisor result's `details.attempts`. */
	attempts: Type.Optional(Type.Array(AttemptRecordSchema)),
	/** The request that was sent (warming: the refreshed payload). Lets it count as the previous request. */
	request: Type.Optional(RequestRecordSchema),
	timestampMs: Type.Number({ default: 0 }),
	/**
	 * Reviews only: entry id of the executor's final answer the review judged. Written whatever the
	 * outcome (delivered, `none`, failed, aborted), so "each final answer is reviewed once" is a pure
	 * function of the branch.
	 */
	answerEntryId: Type.Optional(NonEmptyString()),
	/** Reviews only: the verdict, when the review produced advice (a `none` review leaves only this record). */
	severity: Type.Optional(SeveritySchema),
	/** Reviews and watch reviews: how it ended. */
	outcome: Type.Optional(Type.Union(REVIEW_OUTCOMES.map((o) => Type.Literal(o)))),
	/** Reviews and watch reviews, failures only: the provider's or the budget's message. */
	errorMessage: Type.Optional(Type.String()),
	/** Watch reviews only: what woke it. */
	signal: Type.Optional(WatchSignalSchema),
	/** Watch reviews only: the signal and the facts it fired on; each is reviewed once per branch. */
	watchKey: Type.Optional(NonEmptyString()),
	/** Watch reviews only: the entry at whose turn the signal fired (where the review sits on the branch). */
	atEntryId: Type.Optional(NonEmptyString()),
	/** Watch reviews only: what became of the answer. */
	delivery: Type.Optional(Type.Union(WATCH_DELIVERIES.map((d) => Type.Literal(d)))),
	/** Watch reviews only: the advice, capped, when it was not steered into the run (a nit, a stale note). */
	advice: Type.Optional(Type.String()),
});
export type UsageRecordData = Static<typeof UsageRecordDataSchema>;

/** `data` of a `custom` entry of CUSTOM_TYPES.trimAnchor: the sticky trim boundary. */
export const TrimAnchorRecordSchema = Type.Object({
	/**
	 * Entry id of the last ledger item left out: a block, or the advisor result / review that closed
	 * a segment. Absent when nothing could be left out and only the tail caps apply.
	 */
	anchorEntryId: Type.Optional(NonEmptyString({ onInvalid: "reject" })),
	/** Cap for the verbatim tail's parts; absent = the configured ledger.tailMaxChars. */
	tailCaps: Type.Optional(Type.Number({ minimum: 1 })),
	/** `LedgerState.summaryBoundary.id` when the anchor was chosen; null when there was none. */
	summaryBoundaryId: Type.Union([Type.String(), Type.Null()], { default: null, onInvalid: "reject" }),
});
export type TrimAnchorRecord = Static<typeof TrimAnchorRecordSchema>;

/** `details` of an `advisor-review` message. */
export const ReviewMessageDetailsSchema = Type.Object({
	/** The advisor's answer, verbatim: what later consultations replay as the advisor's own turn. */
	advice: Type.String(),
	severity: SeveritySchema,
	/** The executor's final answer that was reviewed. */
	answerEntryId: NonEmptyString(),
	/**
	 * pi-ai Usage summed over the review's requests. Informative only: the branch spend counts the
	 * review's usage record, never this copy.
	 */
	usage: Type.Optional(Type.Unknown()),
	/** `provider:modelId`. */
	advisorModel: Type.Optional(Type.String()),
	/** Absent = no reasoning sent. */
	effort: Type.Optional(Type.String()),
	/** This message started a turn (a blocker): read back to allow one such turn per user prompt. */
	triggerTurn: Type.Boolean(),
});
export type ReviewMessageDetails = Static<typeof ReviewMessageDetailsSchema>;

/** `details` of an `advisor-watch` message: a watch review's note, steered into the executor's context. */
export const WatchMessageDetailsSchema = Type.Object({
	/** The advisor's answer, verbatim: what later consultations replay as the advisor's own turn. */
	advice: Type.String(),
	severity: SeveritySchema,
	signal: WatchSignalSchema,
	watchKey: NonEmptyString(),
	/** The entry at whose turn the signal fired. */
	atEntryId: NonEmptyString(),
	/** Why the watch woke, as the note told the executor (render/watch-note.ts `watchReason`). */
	reason: Type.String({ default: "" }),
	/** pi-ai Usage of the review. Informative only: the branch spend counts the usage record. */
	usage: Type.Optional(Type.Unknown()),
	/** `provider:modelId`. */
	advisorModel: Type.Optional(Type.String()),
	/** Absent = no reasoning sent. */
	effort: Type.Optional(Type.String()),
	/** This note started a turn (a blocker after the run had ended). */
	triggerTurn: Type.Boolean(),
});
export type WatchMessageDetails = Static<typeof WatchMessageDetailsSchema>;

/** `details.estimate`: the budget gate's estimate of the first request. */
export const EnvelopeEstimateSchema = Type.Object({
	promptTokens: Type.Number(),
	cacheReadTokens: Type.Number(),
	outputTokens: Type.Number(),
	costUsd: Type.Number(),
	coldCostUsd: Type.Number(),
	sessionUsd: Type.Number(),
	/** The whole consultation as expected: the first request and the follow-ups expected. */
	consultationUsd: Type.Optional(Type.Number()),
	/** The whole consultation at most: every investigation round, every answer at the output cap. */
	atMostUsd: Type.Optional(Type.Number()),
	/** What the consultation was held to: its at most, within the hard and branch limits. */
	limitUsd: Type.Optional(Type.Number()),
	/** Follow-up requests expected (a mean). */
	expectedRounds: Type.Optional(Type.Number()),
	/** Where the follow-ups' estimate came from: this session's consultations, or the prior. */
	basis: Type.Optional(Type.Union([Type.Literal("history"), Type.Literal("prior")])),
});
export type EnvelopeEstimate = Static<typeof EnvelopeEstimateSchema>;

/** `details.context`: present when the request was trimmed to fit the context budget. */
export const ContextTrimSchema = Type.Object({
	trimmed: Type.Boolean(),
	anchorEntryId: Type.Optional(Type.String()),
	originalPromptTokens: Type.Number(),
});
export type ContextTrim = Static<typeof ContextTrimSchema>;

/** `details.toolCalls`: the advisor's investigation calls in one consultation. */
export const ToolCallSummarySchema = Type.Object({
	/** Calls executed, whatever their outcome. */
	count: Type.Number(),
	/** The executed calls' tool names, in order. */
	names: Type.Array(Type.String()),
	/** Calls answered with TOOL_CALL_REFUSED because the allowance ran out; absent when none. */
	refused: Type.Optional(Type.Number()),
});
export type ToolCallSummary = Static<typeof ToolCallSummarySchema>;

/**
 * `details` of an advisor() tool result. Every outcome — advice, skip or failure — is a normal tool
 * result; a result with an `errorMessage`, `skipped` or an error/aborted stop reason never becomes
 * replayed advice.
 */
export const AdvisorDetailsSchema = Type.Object({
	/** `provider:modelId`. */
	advisorModel: Type.Optional(NonEmptyString()),
	/** Snapshotted at entry: the reasoning level actually sent. Absent = none sent. */
	effort: Type.Optional(NonEmptyString()),
	/** Sum over every attempt and round; repeated here for hosts that drop the top-level field. */
	usage: Type.Optional(UsageSchema),
	attempts: Type.Optional(Type.Array(AttemptRecordSchema)),
	estimate: Type.Optional(EnvelopeEstimateSchema),
	request: Type.Optional(RequestRecordSchema),
	skipped: Type.Optional(Type.Boolean()),
	context: Type.Optional(ContextTrimSchema),
	stopReason: Type.Optional(StopReasonSchema),
	errorMessage: Type.Optional(Type.String()),
	severity: Type.Optional(SeveritySchema),
	/** Present when the advisor called its investigation tools. */
	toolCalls: Type.Optional(ToolCallSummarySchema),
	/**
	 * Credential marks in what this consultation sent (docs/privacy.md): the first request, and the
	 * results of the advisor's own tool calls. Absent when nothing was sent, and in older records.
	 */
	redactions: Type.Optional(NonNegative()),
});
export type AdvisorDetails = Static<typeof AdvisorDetailsSchema>;

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

interface FieldSchema {
	type?: unknown;
	properties?: Record<string, TSchema>;
	default?: unknown;
	onInvalid?: "reject";
}

function isObjectSchema(schema: FieldSchema): schema is FieldSchema & { properties: Record<string, TSchema> } {
	return schema.type === "object" && isRecord(schema.properties);
}

const REJECT = Symbol("reject");

function parseField(schema: TSchema, value: unknown): unknown {
	const field = schema as FieldSchema;
	// Nested records are as lenient as their parent: a bad optional field inside costs only that field.
	if (isObjectSchema(field) && isRecord(value)) {
		const nested = parseRecord(schema as TObject, value);
		if (nested !== undefined) return nested;
	} else if (value !== undefined && Value.Check(schema, value)) return value;
	if (value !== undefined && field.onInvalid === "reject") return REJECT;
	return "default" in field ? field.default : undefined;
}

/**
 * `value` read against an object schema with the rules in this file's header; undefined when the
 * record cannot stand. Unknown keys are left behind.
 */
export function parseRecord<T extends TObject>(schema: T, value: unknown): Static<T> | undefined {
	if (!isRecord(value)) return undefined;
	const required = new Set<string>((schema as { required?: string[] }).required ?? []);
	const out: Record<string, unknown> = {};
	for (const [key, fieldSchema] of Object.entries(schema.properties as Record<string, TSchema>)) {
		const raw = value[key];
		// A required Unknown field (usage) is kept whatever it holds, even when absent.
		if (required.has(key) && Value.Check(fieldSchema, raw) && raw === undefined) {
			out[key] = raw;
			continue;
		}
		const parsed = parseField(fieldSchema, raw);
		if (parsed === REJECT) return undefined;
		if (parsed === undefined) {
			if (required.has(key)) return undefined;
			continue;
		}
		out[key] = parsed;
	}
	return out as Static<T>;
}

export function parseRequestRecord(value: unknown): RequestRecord | undefined {
	return parseRecord(RequestRecordSchema, value);
}

export function parseUsageRecordData(data: unknown): UsageRecordData | undefined {
	const parsed = parseRecord(UsageRecordDataSchema, data);
	if (parsed === undefined) return undefined;
	if (parsed.kind === "warming") {
		delete parsed.answerEntryId;
		delete parsed.severity;
	}
	if (parsed.kind !== "watch") {
		for (const key of ["signal", "watchKey", "atEntryId", "delivery", "advice"] as const) delete parsed[key];
	}
	return parsed;
}

export function parseWatchMessageDetails(details: unknown): WatchMessageDetails | undefined {
	return parseRecord(WatchMessageDetailsSchema, details);
}

export function parseTrimAnchorRecord(data: unknown): TrimAnchorRecord | undefined {
	const parsed = parseRecord(TrimAnchorRecordSchema, data);
	if (parsed === undefined) return undefined;
	if (parsed.tailCaps !== undefined) parsed.tailCaps = Math.floor(parsed.tailCaps);
	// A record that trims nothing is no record.
	return parsed.anchorEntryId === undefined && parsed.tailCaps === undefined ? undefined : parsed;
}

export function parseReviewMessageDetails(details: unknown): ReviewMessageDetails | undefined {
	return parseRecord(ReviewMessageDetailsSchema, details);
}

/** Always an object: a result without readable details reads as one with none. */
export function parseAdvisorDetails(details: unknown): AdvisorDetails {
	return parseRecord(AdvisorDetailsSchema, details) ?? {};
}
