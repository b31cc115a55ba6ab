import type { FileEntry, SessionEntry, SessionHeader } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { checkHeader, classifyEntry } from "../../src/events/validate.ts";

const base = (id: string, parentId: string | null = null) => ({ id, parentId, timestamp: "2025-01-01T00:00:00.000Z" });
const img = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };
const usage = {
	input: 1,
	output: 2,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 3,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** Typed with Pi's own SessionEntry, so tsc proves these are the shapes Pi 0.73 writes. */
const PI_ENTRIES: [string, SessionEntry][] = [
	[
		"user message, string content",
		{ type: "message", ...base("a"), message: { role: "user", content: "hi", timestamp: 1 } },
	],
	[
		"user message, text + image parts",
		{
			type: "message",
			...base("b"),
			message: { role: "user", content: [{ type: "text", text: "look" }, img], timestamp: 1 },
		},
	],
	[
		"assistant message with text, thinking and a tool call",
		{
			type: "message",
			...base("c"),
			message: {
				role: "assistant",
				content: [
					{ type: "thinking", thinking: "hm", thinkingSignature: "sig", redacted: false },
					{ type: "text", text: "ok", textSignature: "t" },
					{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "x" }, thoughtSignature: "s" },
				],
				api: "anthropic-messages",
				provider: "anthropic",
				model: "claude",
				responseModel: "claude-x",
				responseId: "r",
				usage,
				stopReason: "toolUse",
				errorMessage: "none",
				timestamp: 2,
			},
		},
	],
	[
		"tool result with text and image, error and details",
		{
			type: "message",
			...base("d"),
			message: {
				role: "toolResult",
				toolCallId: "call_1",
				toolName: "read",
				content: [{ type: "text", text: "x" }, img],
				details: { any: ["thing"] },
				isError: true,
				timestamp: 3,
			},
		},
	],
	[
		"bash execution (`!!`, excluded)",
		{
			type: "message",
			...base("e"),
			message: {
				role: "bashExecution",
				command: "env",
				output: "A=1",
				exitCode: 0,
				cancelled: false,
				truncated: true,
				fullOutputPath: "/tmp/out",
				excludeFromContext: true,
				timestamp: 4,
			},
		},
	],
	[
		"custom message role",
		{
			type: "message",
			...base("f"),
			message: {
				role: "custom",
				customType: "ext",
				content: [img],
				display: false,
				details: { d: 1 },
				timestamp: 5,
			},
		},
	],
	[
		"branchSummary message role",
		{ type: "message", ...base("g"), message: { role: "branchSummary", summary: "s", fromId: "a", timestamp: 6 } },
	],
	[
		"compactionSummary message role",
		{
			type: "message",
			...base("h"),
			message: { role: "compactionSummary", summary: "s", tokensBefore: 7, timestamp: 7 },
		},
	],
	[
		"compaction",
		{
			type: "compaction",
			...base("i"),
			summary: "s",
			firstKeptEntryId: "a",
			tokensBefore: 9,
			details: { x: 1 },
			fromHook: true,
		},
	],
	[
		"branch_summary",
		{ type: "branch_summary", ...base("j"), fromId: "a", summary: "s", details: [], fromHook: false },
	],
	["custom", { type: "custom", ...base("k"), customType: "state", data: { n: 1 } }],
	[
		"custom_message",
		{ type: "custom_message", ...base("l"), customType: "ext", content: "x", display: true, details: { d: 2 } },
	],
	["model_change", { type: "model_change", ...base("m"), provider: "openai", modelId: "gpt" }],
	["thinking_level_change", { type: "thinking_level_change", ...base("n"), thinkingLevel: "high" }],
	["label", { type: "label", ...base("o"), targetId: "a", label: "mark" }],
	["label removal (label undefined)", { type: "label", ...base("p"), targetId: "a", label: undefined }],
	["session_info", { type: "session_info", ...base("q"), name: "My session" }],
];

describe("every entry type Pi 0.73 writes is known, with no unknown fields", () => {
	it.each(PI_ENTRIES)("%s", (_, entry) => {
		const classified = classifyEntry(JSON.parse(JSON.stringify(entry)), true);
		expect(classified).toMatchObject({ kind: "known", unknownFields: [] });
		// Live entries are not JSON round-tripped: undefined-valued optional fields must pass too.
		expect(classifyEntry(entry, true).kind).toBe("known");
	});
});

describe("the schemas are lenient where real files vary", () => {
	const message = (m: Record<string, unknown>) => ({ type: "message", ...base("a"), message: m });
	it.each([
		[
			"an assistant turn with empty content and no usage",
			message({ role: "assistant", content: [], stopReason: "aborted" }),
		],
		[
			"v1 usage without totalTokens",
			message({
				role: "assistant",
				content: [],
				usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: {} },
			}),
		],
		["usage null", message({ role: "assistant", content: [], usage: null })],
		["a future stop reason", message({ role: "assistant", content: [], stopReason: "refusal" })],
		[
			"tool call arguments that are a string",
			message({ role: "assistant", content: [{ type: "toolCall", id: "c", name: "n", arguments: "x" }] }),
		],
		[
			"tool result content as a string",
			message({ role: "toolResult", toolCallId: "c", toolName: "n", content: "x" }),
		],
		[
			"a cancelled bash run with exitCode null",
			message({
				role: "bashExecution",
				command: "x",
				output: "",
				exitCode: null,
				cancelled: true,
				truncated: false,
			}),
		],
		["a v2 hookMessage", message({ role: "hookMessage", customType: "t", content: "x", display: true })],
		["messages without timestamps", message({ role: "user", content: "x" })],
		["a compaction without tokensBefore", { type: "compaction", ...base("c"), summary: "s", firstKeptEntryId: "a" }],
		[
			"a v1 compaction with firstKeptEntryIndex",
			{ type: "compaction", timestamp: "t", summary: "s", firstKeptEntryIndex: 3, tokensBefore: 1 },
		],
		["a custom_message without display", { type: "custom_message", ...base("c"), customType: "t", content: [] }],
		["a custom entry without data", { type: "custom", ...base("c"), customType: "t" }],
	])("%s", (_, value) => {
		expect(classifyEntry(value, typeof (value as { id?: unknown }).id === "string").kind).toBe("known");
	});

	it("v1 entries need no links, v2+ entries do", () => {
		const noLinks = { type: "message", timestamp: "t", message: { role: "user", content: "x" } };
		expect(classifyEntry(noLinks, false).kind).toBe("known");
		expect(classifyEntry(noLinks, true)).toMatchObject({ kind: "rejected", reason: "schema-mismatch" });
		expect(classifyEntry({ ...noLinks, id: "a" }, true)).toMatchObject({
			kind: "rejected",
			reason: "schema-mismatch",
		});
		expect(classifyEntry({ ...noLinks, id: "", parentId: null }, true)).toMatchObject({ kind: "rejected" });
	});
});

describe("a known type with a body that does not fit is a schema mismatch, kept opaque", () => {
	const message = (m: Record<string, unknown>) => ({ type: "message", ...base("a"), message: m });
	it.each([
		["user content a number", message({ role: "user", content: 1 }), /\/message\/content/],
		["an unknown role", message({ role: "robot", content: "x" }), /message/],
		["an unknown content part type", message({ role: "user", content: [{ type: "audio" }] }), /\/message\/content/],
		[
			"an image without mimeType",
			message({ role: "user", content: [{ type: "image", data: "x" }] }),
			/mimeType|content/,
		],
		[
			"a tool call without id",
			message({ role: "assistant", content: [{ type: "toolCall", name: "n" }] }),
			/\/message\/content/,
		],
		["a model_change without modelId", { type: "model_change", ...base("m"), provider: "p" }, /modelId/],
		["a compaction with a numeric summary", { type: "compaction", ...base("c"), summary: 5 }, /summary/],
	])("%s", (_, value, where) => {
		const classified = classifyEntry(value, true);
		expect(classified).toMatchObject({ kind: "opaque", reason: "schema-mismatch" });
		if (classified.kind === "opaque") expect(classified.message).toMatch(where);
	});
});

describe("the session header", () => {
	it("v3 and v1 headers are valid; a v1 header's model fields are known", () => {
		const v3: SessionHeader = {
			type: "session",
			version: 3,
			id: "x",
			timestamp: "t",
			cwd: "/w",
			parentSession: "/p.jsonl",
		};
		const v1: FileEntry = { type: "session", id: "x", timestamp: "t", cwd: "/w" };
		expect(checkHeader(v3 as unknown as Record<string, unknown>)).toMatchObject({ ok: true, unknownFields: [] });
		expect(checkHeader({ ...v1, provider: "a", modelId: "m", thinkingLevel: "off" })).toMatchObject({
			ok: true,
			unknownFields: [],
		});
		expect(checkHeader({ ...v1, branchedFrom: "y" })).toMatchObject({
			ok: true,
			unknownFields: ["session.branchedFrom"],
		});
	});

	it("a header without an id is rejected", () => {
		expect(checkHeader({ type: "session", version: 3 })).toMatchObject({ ok: false });
	});
});
