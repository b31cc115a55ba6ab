import { describe, expect, it } from "vitest";
import { readSession } from "../../src/events/index.ts";
import type { LedgerEvent } from "../../src/events/types.ts";
import { assistant, e, header, jsonl, msg, toolResult, user } from "./helpers.ts";

const IMG = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };

/** Events of a v3 session written as (entry, …) after a header. */
const eventsOf = (...entries: unknown[]): LedgerEvent[] => {
	const read = readSession(jsonl([header(), ...entries]));
	expect(read.diagnostics).toEqual([]);
	return read.events;
};
const only = (entry: unknown): LedgerEvent => eventsOf(entry)[0]!;

describe("one event per entry on the path, in path order, carrying the entry's links", () => {
	it("ids and parentIds are the entries'", () => {
		const events = eventsOf(msg("a", null, user("x")), msg("b", "a", user("y")));
		expect(events.map((x) => [x.id, x.parentId])).toEqual([
			["a", null],
			["b", "a"],
		]);
	});
});

describe("user messages keep their parts; image bytes are dropped", () => {
	it("a string content is one text part", () => {
		expect(only(msg("a", null, user("hello")))).toEqual({
			id: "a",
			parentId: null,
			kind: "user",
			parts: [{ type: "text", text: "hello" }],
		});
	});

	it("images keep only their mimeType, in author order", () => {
		const event = only(msg("a", null, user([{ type: "text", text: "look" }, IMG, { type: "text", text: "and" }])));
		expect(event).toMatchObject({
			kind: "user",
			parts: [
				{ type: "text", text: "look" },
				{ type: "image", mimeType: "image/png" },
				{ type: "text", text: "and" },
			],
		});
		expect(JSON.stringify(event)).not.toContain("iVBOR");
	});
});

describe("assistant messages split into prose, reasoning and tool calls", () => {
	it("text and thinking parts are joined with blank lines; redacted thinking contributes nothing", () => {
		const event = only(
			msg(
				"a",
				null,
				assistant(
					[
						{ type: "thinking", thinking: "plan" },
						{ type: "text", text: "one" },
						{ type: "thinking", thinking: "secret", redacted: true, thinkingSignature: "opaque" },
						{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a.ts" } },
						{ type: "text", text: "two" },
						{ type: "thinking", thinking: "more" },
					],
					{ stopReason: "toolUse" },
				),
			),
		);
		expect(event).toEqual({
			id: "a",
			parentId: null,
			kind: "assistant",
			text: "one\n\ntwo",
			thinking: "plan\n\nmore",
			calls: [{ id: "c1", name: "read", arguments: { path: "a.ts" } }],
			stopReason: "toolUse",
			errorMessage: undefined,
			provider: "anthropic",
			model: "claude",
			// The message's usage, untouched: what the watch measures its share against.
			usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0 } },
		});
	});

	it.each([
		["a string", "ls -la", { value: "ls -la" }],
		["an array", [1, 2], { value: [1, 2] }],
		["null", null, { value: null }],
		["a number", 3, { value: 3 }],
	])("tool call arguments that are %s are wrapped as { value }", (_, args, expected) => {
		const event = only(msg("a", null, assistant([{ type: "toolCall", id: "c", name: "bash", arguments: args }])));
		expect(event).toMatchObject({ calls: [{ arguments: expected }] });
	});

	it("missing arguments become an empty object", () => {
		const event = only(msg("a", null, assistant([{ type: "toolCall", id: "c", name: "advisor" }])));
		expect(event).toMatchObject({ calls: [{ id: "c", name: "advisor", arguments: {} }] });
	});

	it("an aborted turn with empty content and no usage is still an assistant event", () => {
		const { usage: _, ...noUsage } = assistant([], { stopReason: "aborted", errorMessage: "Request was aborted" });
		expect(only(msg("a", null, noUsage))).toMatchObject({
			kind: "assistant",
			text: "",
			thinking: "",
			calls: [],
			stopReason: "aborted",
			errorMessage: "Request was aborted",
		});
	});
});

describe("tool results pair with their call and keep their details untouched", () => {
	it("text and image parts, isError and details", () => {
		const details = { advisorModel: "anthropic:claude", nested: { x: [1] } };
		const event = only(
			msg("a", null, toolResult("c1", [{ type: "text", text: "ok" }, IMG], { isError: true, details })),
		);
		expect(event).toEqual({
			id: "a",
			parentId: null,
			kind: "toolResult",
			callId: "c1",
			toolName: "read",
			parts: [
				{ type: "text", text: "ok" },
				{ type: "image", mimeType: "image/png" },
			],
			isError: true,
			details,
		});
	});

	it("a missing isError means success", () => {
		const { isError: _, ...result } = toolResult("c1", []);
		expect(only(msg("a", null, result))).toMatchObject({ isError: false, details: undefined });
	});
});

describe("user shell runs: `!` runs are in context, `!!` runs are excluded", () => {
	const bash = (over: Record<string, unknown>) => ({
		role: "bashExecution",
		command: "ls",
		output: "a\nb",
		exitCode: 0,
		cancelled: false,
		truncated: false,
		timestamp: 1,
		...over,
	});

	it("a `!` run", () => {
		expect(only(msg("a", null, bash({})))).toEqual({
			id: "a",
			parentId: null,
			kind: "bashRun",
			command: "ls",
			output: "a\nb",
			exitCode: 0,
			cancelled: false,
			truncated: false,
			excluded: false,
		});
	});

	it("a `!!` run is excluded; a cancelled run has no exit code", () => {
		const { exitCode: _, ...noExit } = bash({ excludeFromContext: true, cancelled: true });
		expect(only(msg("a", null, noExit))).toMatchObject({ excluded: true, cancelled: true, exitCode: undefined });
	});
});

describe("extension messages become customMessage events whatever their origin", () => {
	const content = [{ type: "text", text: "ctx" }, IMG];

	it("custom_message entries, with display", () => {
		expect(
			only(e("custom_message", "a", null, { customType: "ext", content, display: false, details: { d: 1 } })),
		).toEqual({
			id: "a",
			parentId: null,
			kind: "customMessage",
			customType: "ext",
			parts: [
				{ type: "text", text: "ctx" },
				{ type: "image", mimeType: "image/png" },
			],
			display: false,
			details: { d: 1 },
		});
	});

	it("message-role custom (v3) and hookMessage (v2, seen unmigrated in a v3 file) alike", () => {
		for (const role of ["custom", "hookMessage"]) {
			expect(
				only(msg("a", null, { role, customType: "ext", content: "x", display: true, timestamp: 1 })),
			).toMatchObject({
				kind: "customMessage",
				customType: "ext",
				parts: [{ type: "text", text: "x" }],
				display: true,
			});
		}
	});

	it("a missing display counts as hidden, as Pi's TUI treats it", () => {
		expect(only(e("custom_message", "a", null, { customType: "ext", content: "x" }))).toMatchObject({
			display: false,
		});
	});
});

describe("compactions: entries reset the context, message-role summaries do not", () => {
	it("a compaction entry", () => {
		const events = eventsOf(
			msg("a", null, user("x")),
			e("compaction", "c", "a", {
				summary: "S",
				firstKeptEntryId: "a",
				tokensBefore: 1234,
				details: {},
				fromHook: true,
			}),
		);
		expect(events[1]).toEqual({
			id: "c",
			parentId: "a",
			kind: "compaction",
			summary: "S",
			firstKeptEntryId: "a",
			tokensBefore: 1234,
			resets: true,
		});
	});

	it("a compaction entry naming no kept entry has firstKeptEntryId null", () => {
		expect(only(e("compaction", "c", null, { summary: "S" }))).toMatchObject({
			firstKeptEntryId: null,
			tokensBefore: 0,
		});
	});

	it("a message-role compactionSummary is a paraphrase that resets nothing", () => {
		expect(only(msg("c", null, { role: "compactionSummary", summary: "S", tokensBefore: 9, timestamp: 1 }))).toEqual({
			id: "c",
			parentId: null,
			kind: "compaction",
			summary: "S",
			firstKeptEntryId: null,
			tokensBefore: 9,
			resets: false,
		});
	});
});

describe("branch summaries re-state the user words of the abandoned branch", () => {
	// root u1 ─ a1 ─ u2 ─ a2 ─ u3        (abandoned)
	//        └ summary ─ u4              (current)
	const abandoned = [
		msg("u1", null, user("start")),
		msg("a1", "u1", assistant([{ type: "text", text: "ok" }])),
		msg("u2", "a1", user([{ type: "text", text: "try A" }, IMG])),
		msg("a2", "u2", assistant([])),
		msg("u3", "a2", user("A failed")),
	];

	it("fromId naming the abandoned leaf (Pi's documented meaning): user messages back to the common ancestor, oldest first", () => {
		const events = eventsOf(
			...abandoned,
			msg("x", "u1", user("elsewhere")),
			e("branch_summary", "s", "u1", { fromId: "u3", summary: "Tried A." }),
			msg("u4", "s", user("try B")),
		);
		expect(events.map((x) => x.id)).toEqual(["u1", "s", "u4"]);
		expect(events[1]).toEqual({
			id: "s",
			parentId: "u1",
			kind: "branchSummary",
			summary: "Tried A.",
			fromId: "u3",
			hiddenUserWords: [
				{
					id: "u2",
					parts: [
						{ type: "text", text: "try A" },
						{ type: "image", mimeType: "image/png" },
					],
				},
				{ id: "u3", parts: [{ type: "text", text: "A failed" }] },
			],
		});
	});

	it("fromId naming the navigation target (what Pi 0.73 writes): the entry written just before the summary is the abandoned leaf", () => {
		const events = eventsOf(
			...abandoned,
			e("branch_summary", "s", "u1", { fromId: "u1", summary: "Tried A." }),
			msg("u4", "s", user("B")),
		);
		expect(events[1]).toMatchObject({ kind: "branchSummary", fromId: "u1" });
		expect(events[1]).toMatchObject({ hiddenUserWords: [{ id: "u2" }, { id: "u3" }] });
	});

	it("a summary at the root (fromId 'root') re-states the whole abandoned branch", () => {
		const events = eventsOf(...abandoned, e("branch_summary", "s", null, { fromId: "root", summary: "All of it." }));
		expect(events).toHaveLength(1);
		expect(events[0]).toMatchObject({ hiddenUserWords: [{ id: "u1" }, { id: "u2" }, { id: "u3" }] });
	});

	it("nothing is hidden when the entry before the summary is on the current path", () => {
		const events = eventsOf(
			msg("u1", null, user("x")),
			e("branch_summary", "s", "u1", { fromId: "u1", summary: "none" }),
		);
		expect(events[1]).toMatchObject({ hiddenUserWords: [] });
	});

	it("words are only looked for before the summary: a fromId that descends from the summary hides nothing", () => {
		const events = eventsOf(
			msg("u1", null, user("x")),
			e("branch_summary", "s", "u1", { fromId: "u5", summary: "odd" }),
			msg("u5", "s", user("after")),
		);
		expect(events[1]).toMatchObject({ hiddenUserWords: [] });
	});

	it("a cycle in the abandoned branch ends the walk", () => {
		const read = readSession(
			jsonl([
				header(),
				msg("p", "q", user("p")),
				msg("q", "p", user("q")),
				msg("u1", null, user("x")),
				e("branch_summary", "s", "u1", { fromId: "q", summary: "loop" }),
			]),
		);
		expect(read.events.at(-1)).toMatchObject({ hiddenUserWords: [{ id: "p" }, { id: "q" }] });
	});

	it("a message-role branchSummary has no hidden words", () => {
		expect(only(msg("b", null, { role: "branchSummary", summary: "S", fromId: "zz", timestamp: 1 }))).toEqual({
			id: "b",
			parentId: null,
			kind: "branchSummary",
			summary: "S",
			fromId: "zz",
			hiddenUserWords: [],
		});
	});
});

describe("settings, extension state and bookkeeping entries", () => {
	it("model_change, thinking_level_change, custom, label, session_info", () => {
		const events = eventsOf(
			e("model_change", "m", null, { provider: "openai", modelId: "gpt" }),
			e("thinking_level_change", "t", "m", { thinkingLevel: "high" }),
			e("custom", "c", "t", { customType: "advisor-usage", data: { usd: 1 } }),
			e("label", "l", "c", { targetId: "m", label: "here" }),
			e("session_info", "i", "l", { name: "My session" }),
		);
		expect(events).toEqual([
			{ id: "m", parentId: null, kind: "modelChange", provider: "openai", modelId: "gpt" },
			{ id: "t", parentId: "m", kind: "thinkingLevel", level: "high" },
			{ id: "c", parentId: "t", kind: "custom", customType: "advisor-usage", data: { usd: 1 } },
			{ id: "l", parentId: "c", kind: "other", entryType: "label" },
			{ id: "i", parentId: "l", kind: "other", entryType: "session_info" },
		]);
	});

	it("unknown entry types and mismatched entries are `other` events that keep the chain whole", () => {
		const read = readSession(
			jsonl([
				header(),
				msg("a", null, user("x")),
				e("future", "f", "a"),
				msg("b", "f", user(7)),
				msg("c", "b", user("y")),
			]),
		);
		expect(read.events.map((x) => [x.kind, x.kind === "other" ? x.entryType : ""])).toEqual([
			["user", ""],
			["other", "future"],
			["other", "message"],
			["user", ""],
		]);
		expect(read.diagnostics.map((d) => d.reason)).toEqual(["unknown-entry-type", "schema-mismatch"]);
	});
});
