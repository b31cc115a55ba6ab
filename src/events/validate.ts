/**
 * One parsed JSON value → a known entry, an opaque one, or a rejection, plus the fields
 * our schemas do not name. Shared by the file reader and the live-branch path so both
 * judge entries identically.
 */

import type { TObject, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { clipDepth, MAX_ENTRY_DEPTH } from "./depth.ts";
import type { OpaqueJson, OpaqueReason } from "./entries.ts";
import {
	ENTRY_SCHEMAS,
	type FileEntryJson,
	ImagePartSchema,
	type KnownEntryType,
	MESSAGE_SCHEMAS,
	type MessageRole,
	type SessionHeaderJson,
	SessionHeaderSchema,
	TextPartSchema,
	ThinkingPartSchema,
	ToolCallPartSchema,
} from "./schemas.ts";

export type Classified =
	| { kind: "known"; entry: FileEntryJson; unknownFields: string[]; clipped: boolean }
	| { kind: "opaque"; reason: OpaqueReason; entry: OpaqueJson; message: string; clipped: boolean }
	| { kind: "rejected"; reason: "not-object" | "schema-mismatch"; message: string };

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

// `in` would also find "toString" & co. on the prototype.
function isKnownEntryType(type: string): type is KnownEntryType {
	return Object.hasOwn(ENTRY_SCHEMAS, type);
}

function isKnownRole(role: unknown): role is MessageRole {
	return typeof role === "string" && Object.hasOwn(MESSAGE_SCHEMAS, role);
}

/**
 * @param needsIds v2+ entries must carry their own tree links; v1 entries get them from migration.
 */
export function classifyEntry(input: unknown, needsIds: boolean): Classified {
	// Clipped before anything walks it: the schema check and everything downstream stay shallow.
	const { value, clipped } = clipDepth(input);
	if (!isRecord(value)) {
		return { kind: "rejected", reason: "not-object", message: `expected a JSON object, got ${jsonKind(value)}` };
	}
	const type = value.type;
	if (typeof type !== "string") {
		return { kind: "rejected", reason: "schema-mismatch", message: "entry has no string `type`" };
	}
	if (type === "session") {
		return { kind: "rejected", reason: "schema-mismatch", message: "session header after the first entry" };
	}
	if (needsIds) {
		if (typeof value.id !== "string" || value.id === "") {
			return { kind: "rejected", reason: "schema-mismatch", message: "entry has no string `id`" };
		}
		if (typeof value.parentId !== "string" && value.parentId !== null) {
			return { kind: "rejected", reason: "schema-mismatch", message: "entry has no `parentId` (string or null)" };
		}
	}
	const opaque: OpaqueJson = { ...value, type };
	if (!isKnownEntryType(type)) {
		return {
			kind: "opaque",
			reason: "unknown-entry-type",
			entry: opaque,
			message: `unknown entry type "${type}"`,
			clipped,
		};
	}
	const schema = ENTRY_SCHEMAS[type];
	if (Value.Check(schema, value)) {
		const entry = value as FileEntryJson;
		return { kind: "known", entry, unknownFields: unknownFieldsOf(entry), clipped };
	}
	return {
		kind: "opaque",
		reason: "schema-mismatch",
		entry: opaque,
		message: describeMismatch(type, value),
		clipped,
	};
}

export type CheckedHeader =
	| { ok: true; header: SessionHeaderJson; unknownFields: string[] }
	| { ok: false; message: string };

export function checkHeader(value: Record<string, unknown>): CheckedHeader {
	if (!Value.Check(SessionHeaderSchema, value)) {
		return { ok: false, message: `session header: ${firstError(SessionHeaderSchema, value, "")}` };
	}
	const header = value as SessionHeaderJson;
	const unknownFields: string[] = [];
	collectExtra(header, HEADER_KEYS, "session", unknownFields);
	return { ok: true, header, unknownFields };
}

/** The diagnostic for a clipped entry: kept, its too-deep part replaced by the marker. */
export const DEEP_NESTING_MESSAGE = `nested deeper than ${MAX_ENTRY_DEPTH} levels; the deeper part is replaced by a marker`;

function jsonKind(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "an array";
	return `a ${typeof value}`;
}

function describeMismatch(type: KnownEntryType, value: Record<string, unknown>): string {
	// A union reports only "expected union value" at /message; checking the role's own schema says what is wrong.
	const message = value.message;
	if (type === "message" && isRecord(message) && isKnownRole(message.role)) {
		const roleSchema = MESSAGE_SCHEMAS[message.role];
		if (!Value.Check(roleSchema, message)) return `${type}: ${firstError(roleSchema, message, "/message")}`;
	}
	return `${type}: ${firstError(ENTRY_SCHEMAS[type], value, "")}`;
}

function firstError(schema: TSchema, value: unknown, prefix: string): string {
	// typebox 0.34 reports `path`, the 1.x that Pi aliases in reports `instancePath`.
	for (const error of Value.Errors(schema, value) as Iterable<unknown>) {
		const e = isRecord(error) ? error : {};
		const path = typeof e.path === "string" ? e.path : typeof e.instancePath === "string" ? e.instancePath : "";
		return `${prefix}${path} ${String(e.message)}`.trim();
	}
	return "does not match the schema";
}

// ---------------------------------------------------------------------------------------------
// Unknown fields: counted, never rejected, so a new Pi release shows up in the stats
// ---------------------------------------------------------------------------------------------

function keysOf(schema: TObject): ReadonlySet<string> {
	return new Set(Object.keys(schema.properties));
}

const HEADER_KEYS = keysOf(SessionHeaderSchema);
const ENTRY_KEYS = new Map<string, ReadonlySet<string>>(
	Object.entries(ENTRY_SCHEMAS).map(([type, schema]) => [type, keysOf(schema)]),
);
const MESSAGE_KEYS = new Map<string, ReadonlySet<string>>(
	Object.entries(MESSAGE_SCHEMAS).map(([role, schema]) => [role, keysOf(schema)]),
);
const PART_KEYS = new Map<string, ReadonlySet<string>>([
	["text", keysOf(TextPartSchema)],
	["image", keysOf(ImagePartSchema)],
	["thinking", keysOf(ThinkingPartSchema)],
	["toolCall", keysOf(ToolCallPartSchema)],
]);

function collectExtra(value: object, known: ReadonlySet<string> | undefined, prefix: string, out: string[]): void {
	if (known === undefined) return;
	for (const key of Object.keys(value)) if (!known.has(key)) out.push(`${prefix}.${key}`);
}

function collectPartExtras(content: unknown, prefix: string, out: string[]): void {
	if (!Array.isArray(content)) return;
	for (const part of content) {
		if (isRecord(part) && typeof part.type === "string") {
			collectExtra(part, PART_KEYS.get(part.type), `${prefix}/${part.type}`, out);
		}
	}
}

/**
 * Keys are `<entry type>.<field>`, `message/<role>.<field>` and `<owner>/<part type>.<field>`,
 * e.g. "message.foo", "message/assistant/toolCall.partialJson", "custom_message/image.source".
 */
export function unknownFieldsOf(entry: FileEntryJson): string[] {
	const out: string[] = [];
	collectExtra(entry, ENTRY_KEYS.get(entry.type), entry.type, out);
	if (entry.type === "message") {
		const prefix = `message/${entry.message.role}`;
		collectExtra(entry.message, MESSAGE_KEYS.get(entry.message.role), prefix, out);
		if ("content" in entry.message) collectPartExtras(entry.message.content, prefix, out);
	} else if (entry.type === "custom_message") {
		collectPartExtras(entry.content, "custom_message", out);
	} else if (entry.type === "context_edit" && entry.replacement !== null) {
		collectPartExtras(entry.replacement.content, "context_edit", out);
	}
	return out;
}
