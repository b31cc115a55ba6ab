import { SessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { eventsFromBranch, readSession } from "../../src/events/index.ts";
import { listLeaves } from "../../src/events/leaf-path.ts";
import { assistant, e, header, jsonl, msg, toolResult, user } from "./helpers.ts";

const IMG = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };
const USAGE = {
	input: 10,
	output: 5,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 15,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** A session written by Pi's own SessionManager, with every entry type and two branches. */
function piWrittenSession() {
	const sm = SessionManager.inMemory("/work/project");
	sm.appendModelChange("faux", "faux-1");
	sm.appendThinkingLevelChange("off");
	const u1 = sm.appendMessage({ role: "user", content: [{ type: "text", text: "look" }, IMG], timestamp: 1 });
	sm.appendMessage({
		role: "assistant",
		content: [
			{ type: "thinking", thinking: "read it" },
			{ type: "text", text: "Reading." },
			{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.png" } },
		],
		api: "faux",
		provider: "faux",
		model: "faux-1",
		usage: USAGE,
		stopReason: "toolUse",
		timestamp: 2,
	});
	sm.appendMessage({
		role: "toolResult",
		toolCallId: "call_1",
		toolName: "read",
		content: [{ type: "text", text: "Read image" }, IMG],
		details: { path: "a.png" },
		isError: false,
		timestamp: 3,
	});
	sm.appendMessage({
		role: "bashExecution",
		command: "ls",
		output: "a\nb",
		exitCode: 0,
		cancelled: false,
		truncated: false,
		timestamp: 4,
	});
	sm.appendMessage({
		role: "bashExecution",
		command: "env",
		output: "SECRET=1",
		exitCode: 0,
		cancelled: false,
		truncated: false,
		excludeFromContext: true,
		timestamp: 5,
	});
	sm.appendMessage({ role: "custom", customType: "my-ext", content: "injected", display: true, timestamp: 6 });
	sm.appendCustomMessageEntry("my-ext", "hidden ctx", false, { d: 1 });
	sm.appendCustomEntry("my-ext-state", { count: 42 });
	const u2 = sm.appendMessage({ role: "user", content: "go on", timestamp: 7 });
	sm.appendCompaction("Summary of the start.", u2, 1234);
	sm.appendLabelChange(u1, "checkpoint");
	sm.appendSessionInfo("My session");
	const oldLeaf = sm.getLeafId();
	sm.branchWithSummary(u1, "Tried approach A; abandoned.");
	sm.appendMessage({ role: "user", content: "try B", timestamp: 8 });
	const header = sm.getHeader();
	const text = jsonl([header, ...sm.getEntries()]);
	return { sm, text, u1, u2, oldLeaf };
}

describe("a real Pi-written v3 session is read with zero diagnostics", () => {
	const { sm, text, u1, u2, oldLeaf } = piWrittenSession();
	const read = readSession(text);

	it("no diagnostics, no unknown fields, ids and links exactly Pi's", () => {
		expect(read.diagnostics).toEqual([]);
		expect(read.stats).toMatchObject({ skipped: {}, opaque: {}, unknownEntryTypes: {}, unknownFields: {} });
		expect(read.sourceVersion).toBe(3);
		expect(read.header?.id).toBe(sm.getSessionId());
		expect(read.entries.map((r) => r.entry)).toEqual(JSON.parse(JSON.stringify(sm.getEntries())));
	});

	it("the default branch is Pi's branch (leaf = last entry)", () => {
		expect(read.path.map((r) => r.id)).toEqual(sm.getBranch().map((x) => x.id));
		expect(read.events.map((x) => x.kind)).toEqual(["modelChange", "thinkingLevel", "user", "branchSummary", "user"]);
	});

	it("the abandoned branch yields every event kind, in order", () => {
		const old = readSession(text, { leafId: oldLeaf });
		expect(old.diagnostics).toEqual([]);
		expect(old.events.map((x) => (x.kind === "other" ? `other:${x.entryType}` : x.kind))).toEqual([
			"modelChange",
			"thinkingLevel",
			"user",
			"assistant",
			"toolResult",
			"bashRun",
			"bashRun",
			"customMessage",
			"customMessage",
			"custom",
			"user",
			"compaction",
			"other:label",
			"other:session_info",
		]);
		expect(old.events[6]).toMatchObject({ kind: "bashRun", excluded: true });
		expect(old.events[8]).toMatchObject({ kind: "customMessage", display: false, details: { d: 1 } });
		expect(old.events[11]).toMatchObject({
			kind: "compaction",
			firstKeptEntryId: u2,
			tokensBefore: 1234,
			resets: true,
		});
	});

	it("the branch summary re-states the abandoned branch's user words", () => {
		const summary = read.events[3];
		expect(summary).toMatchObject({ kind: "branchSummary", fromId: u1, summary: "Tried approach A; abandoned." });
		expect(summary?.kind === "branchSummary" && summary.hiddenUserWords).toEqual([
			{ id: u2, parts: [{ type: "text", text: "go on" }] },
		]);
	});

	it("the live path gives the same events as the file", () => {
		const live = eventsFromBranch(sm.getBranch(), sm.getEntries());
		expect(live.diagnostics).toEqual([]);
		expect(live.events).toEqual(read.events);
		const oldLive = eventsFromBranch(sm.getBranch(oldLeaf ?? undefined), sm.getEntries());
		expect(oldLive.events).toEqual(readSession(text, { leafId: oldLeaf }).events);
	});

	it("listLeaves finds both branches", () => {
		expect(listLeaves(read.entries).map((r) => r.id)).toEqual([oldLeaf, read.leafId]);
	});
});

describe("readSession returns header, migrated entries, path, events, diagnostics and stats", () => {
	it("reader diagnostics come first, then branch diagnostics", () => {
		const read = readSession(jsonl([header(), "x", msg("b", "gone", user("y"))]));
		expect(read.diagnostics.map((d) => [d.reason, d.line])).toEqual([
			["not-object", 2],
			["missing-parent", 3],
		]);
		expect(read.events.map((x) => x.kind)).toEqual(["user"]);
	});

	it("a requested leaf selects its branch; an unknown one gives unknown-leaf and no events", () => {
		const text = jsonl([header(), msg("a", null, user("x")), msg("b", "a", user("y")), msg("c", "a", user("z"))]);
		expect(readSession(text, { leafId: "b" }).events.map((x) => x.id)).toEqual(["a", "b"]);
		const unknown = readSession(text, { leafId: "nope" });
		expect(unknown.events).toEqual([]);
		expect(unknown.diagnostics.map((d) => d.reason)).toEqual(["unknown-leaf"]);
	});

	it("a file that starts mid-session reads from its first entry, reporting the missing parent", () => {
		const text = jsonl([msg("m1", "p0", user("middle")), msg("m2", "m1", assistant([{ type: "text", text: "ok" }]))]);
		const read = readSession(text);
		expect(read.header).toBeUndefined();
		expect(read.versionInferred).toBe(true);
		expect(read.events.map((x) => x.id)).toEqual(["m1", "m2"]);
		expect(read.diagnostics).toEqual([expect.objectContaining({ reason: "missing-parent", entryId: "m1" })]);
	});
});

describe("eventsFromBranch validates live entries and never throws", () => {
	const good = [msg("a", null, user("x")), msg("b", "a", toolResult("c", []))];

	it("bad entries are skipped and reported, the rest become events", () => {
		const result = eventsFromBranch([
			good[0],
			null,
			"str",
			{ type: "message", id: "nolinks" },
			msg("a", null, user("dup")),
			e("future", "f", "a"),
			msg("m", "f", user(5)),
			good[1],
		]);
		expect(result.events.map((x) => [x.id, x.kind])).toEqual([
			["a", "user"],
			["f", "other"],
			["m", "other"],
			["b", "toolResult"],
		]);
		expect(result.diagnostics.map((d) => [d.reason, d.entryId])).toEqual([
			["not-object", undefined],
			["not-object", undefined],
			["schema-mismatch", "nolinks"],
			["duplicate-id", "a"],
			["unknown-entry-type", "f"],
			["schema-mismatch", "m"],
		]);
		expect(result.diagnostics[0]!.message).toMatch(/^entry 1 of the branch/);
	});

	it("without allEntries, branch summaries find no hidden words but still become events", () => {
		const result = eventsFromBranch([
			msg("u", null, user("x")),
			e("branch_summary", "s", "u", { fromId: "u", summary: "S" }),
		]);
		expect(result.events[1]).toMatchObject({ kind: "branchSummary", hiddenUserWords: [] });
	});

	it("invalid entries in allEntries are dropped silently", () => {
		const result = eventsFromBranch(good, [null, ...good, 5]);
		expect(result.diagnostics).toEqual([]);
		expect(result.events).toHaveLength(2);
	});

	it("the input is not mutated", () => {
		const input = structuredClone(good);
		eventsFromBranch(input, input);
		expect(input).toEqual(good);
	});
});
