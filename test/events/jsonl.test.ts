import { describe, expect, it } from "vitest";
import { readSession } from "../../src/events/index.ts";
import { parseSessionText } from "../../src/events/jsonl.ts";
import { assistant, chain, e, header, jsonl, msg, user, v1Header } from "./helpers.ts";

const reasons = (text: string) => parseSessionText(text).diagnostics.map((d) => [d.reason, d.line]);

describe("the reader keeps the header apart from the entries", () => {
	it("reads a v3 header and its entries in file order", () => {
		const parsed = parseSessionText(jsonl([header(), msg("a", null, user("hi")), msg("b", "a", assistant([]))]));
		expect(parsed.header).toMatchObject({ id: "sess-1", version: 3, cwd: "/w", line: 1 });
		expect(parsed.sourceVersion).toBe(3);
		expect(parsed.versionInferred).toBe(false);
		expect(parsed.entries.map((r) => [r.kind, r.line, r.index, r.entry.id])).toEqual([
			["known", 2, 1, "a"],
			["known", 3, 2, "b"],
		]);
		expect(parsed.diagnostics).toEqual([]);
	});

	it("treats a header without version as v1 and knows the v1 model fields", () => {
		const parsed = parseSessionText(jsonl([v1Header(), { type: "message", timestamp: "t", message: user("x") }]));
		expect(parsed.sourceVersion).toBe(1);
		expect(parsed.header).toMatchObject({
			version: undefined,
			provider: "anthropic",
			modelId: "claude",
			thinkingLevel: "off",
		});
		expect(parsed.stats.unknownFields).toEqual({});
	});

	it("reports a header that fails its schema and reads on without one", () => {
		const text = jsonl([{ type: "session", version: 3 }, msg("a", null, user("x"))]);
		const parsed = parseSessionText(text);
		expect(parsed.header).toBeUndefined();
		expect(reasons(text)).toEqual([["schema-mismatch", 1]]);
		expect(parsed.entries).toHaveLength(1);
	});

	it("skips a second session header further down", () => {
		const text = jsonl([header(), msg("a", null, user("x")), header({ id: "other" })]);
		expect(reasons(text)).toEqual([["schema-mismatch", 3]]);
		expect(parseSessionText(text).diagnostics[0]!.message).toMatch(/session header after the first entry/);
	});
});

describe("every diagnostic reason carries the 1-based line it came from", () => {
	it("invalid-json: a corrupt line in the middle is skipped, the rest is read", () => {
		const text = [JSON.stringify(header()), "{not json", JSON.stringify(msg("a", null, user("x"))), ""].join("\n");
		expect(reasons(text)).toEqual([["invalid-json", 2]]);
		expect(parseSessionText(text).entries).toHaveLength(1);
	});

	it("not-object: arrays, strings, numbers and null are not entries", () => {
		const text = jsonl([header(), [1], "s", 5, null, msg("a", null, user("x"))]);
		expect(reasons(text)).toEqual([
			["not-object", 2],
			["not-object", 3],
			["not-object", 4],
			["not-object", 5],
		]);
	});

	it("schema-mismatch: a known type with a bad body is kept as an opaque entry so its children stay attached", () => {
		const text = jsonl([header(), msg("a", null, user(42)), msg("b", "a", user("ok"))]);
		const parsed = parseSessionText(text);
		expect(reasons(text)).toEqual([["schema-mismatch", 2]]);
		expect(parsed.diagnostics[0]).toMatchObject({ entryId: "a" });
		expect(parsed.diagnostics[0]!.message).toMatch(/\/message\/content/);
		expect(parsed.entries.map((r) => r.kind)).toEqual(["opaque", "known"]);
		expect(parsed.stats.opaque).toEqual({ "schema-mismatch": 1 });
	});

	it("schema-mismatch: a v2+ entry without usable links is skipped", () => {
		const text = jsonl([
			header(),
			{ type: "message", message: user("x") },
			e("custom", "b", 7 as never, { customType: "t" }),
		]);
		expect(reasons(text)).toEqual([
			["schema-mismatch", 2],
			["schema-mismatch", 3],
		]);
		expect(parseSessionText(text).stats.skipped).toEqual({ "schema-mismatch": 2 });
	});

	it("schema-mismatch: an entry without a string type is skipped", () => {
		expect(reasons(jsonl([header(), { id: "a", parentId: null }]))).toEqual([["schema-mismatch", 2]]);
	});

	it("duplicate-id: the later duplicate is skipped, the first one wins", () => {
		const text = jsonl([header(), msg("a", null, user("first")), msg("a", null, user("second"))]);
		const parsed = parseSessionText(text);
		expect(parsed.diagnostics).toEqual([expect.objectContaining({ reason: "duplicate-id", line: 3, entryId: "a" })]);
		expect(parsed.entries).toHaveLength(1);
		expect(parsed.entries[0]!.entry).toMatchObject({ message: { content: "first" } });
	});

	it("unknown-entry-type: kept as an opaque entry and counted by type", () => {
		const text = jsonl([
			header(),
			e("future_thing", "a", null, { x: 1 }),
			e("future_thing", "b", "a"),
			e("toString", "c", "b"),
		]);
		const parsed = parseSessionText(text);
		expect(reasons(text)).toEqual([
			["unknown-entry-type", 2],
			["unknown-entry-type", 3],
			["unknown-entry-type", 4],
		]);
		expect(parsed.entries.map((r) => r.kind)).toEqual(["opaque", "opaque", "opaque"]);
		expect(parsed.stats.unknownEntryTypes).toEqual({ future_thing: 2, toString: 1 });
		expect(parsed.stats.skipped).toEqual({});
	});
});

describe("a truncated last line is normal, a garbage line is not", () => {
	const complete = jsonl([header(), msg("a", null, user("x"))]);
	const partial = JSON.stringify(msg("b", "a", user("still being writ"))).slice(0, 40);

	it("a cut-off object at the end without a newline is truncated-last-line", () => {
		const parsed = parseSessionText(complete + partial);
		expect(parsed.diagnostics).toEqual([expect.objectContaining({ reason: "truncated-last-line", line: 3 })]);
		expect(parsed.stats.skipped).toEqual({ "truncated-last-line": 1 });
		expect(parsed.entries).toHaveLength(1);
	});

	it("the same cut-off object followed by a newline is invalid-json (nobody is still writing it)", () => {
		expect(reasons(`${complete}${partial}\n`)).toEqual([["invalid-json", 3]]);
	});

	it("the same cut-off object in the middle of the file is invalid-json", () => {
		expect(reasons(`${JSON.stringify(header())}\n${partial}\n${JSON.stringify(msg("a", null, user("x")))}`)).toEqual([
			["invalid-json", 2],
		]);
	});

	it("garbage at the end without a newline is still invalid-json", () => {
		expect(reasons(`${complete}hello world`)).toEqual([["invalid-json", 3]]);
		expect(reasons(`${complete}{"a":1}}`)).toEqual([["invalid-json", 3]]);
		expect(reasons(`${complete}{"a" 1`)).toEqual([["invalid-json", 3]]);
	});

	it("a whole file that is one cut-off header line reads as empty with one diagnostic", () => {
		const parsed = parseSessionText('{"type":"session","vers');
		expect(parsed.diagnostics.map((d) => d.reason)).toEqual(["truncated-last-line"]);
		expect(parsed.header).toBeUndefined();
		expect(parsed.entries).toEqual([]);
	});
});

describe("line endings, BOM and blank lines do not matter", () => {
	const lines = [header(), msg("a", null, user("x")), msg("b", "a", user("y"))];
	const plain = parseSessionText(jsonl(lines));

	it("CRLF files read like LF files, with the same line numbers", () => {
		const crlf = parseSessionText(lines.map((l) => JSON.stringify(l)).join("\r\n") + "\r\n");
		expect(crlf.entries).toEqual(plain.entries);
		expect(crlf.diagnostics).toEqual([]);
	});

	it("a leading BOM is ignored", () => {
		const bom = parseSessionText(`\uFEFF${jsonl(lines)}`);
		expect(bom.header).toEqual(plain.header);
		expect(bom.entries).toEqual(plain.entries);
	});

	it("blank lines are counted, not reported, and do not shift line numbers", () => {
		const text = `\n${JSON.stringify(lines[0])}\n\n   \n${JSON.stringify(lines[1])}\r\n\n`;
		const parsed = parseSessionText(text);
		expect(parsed.diagnostics).toEqual([]);
		expect(parsed.header?.line).toBe(2);
		expect(parsed.entries.map((r) => r.line)).toEqual([5]);
		expect(parsed.stats).toMatchObject({ lines: 6, blankLines: 4, entries: 1 });
	});

	it("an empty text is an empty session", () => {
		expect(parseSessionText("")).toMatchObject({
			entries: [],
			diagnostics: [],
			sourceVersion: 1,
			stats: { lines: 0 },
		});
	});
});

describe("stats count lines, kept entries, skips, unknown types and unknown fields", () => {
	it("counts extra fields per entry type, message role and content part", () => {
		const text = jsonl([
			header({ extra: 1 }),
			{ ...msg("a", null, { ...user([{ type: "text", text: "x", glow: 1 }]), mood: "ok" }), foo: 1 },
			msg("b", "a", assistant([{ type: "toolCall", id: "c", name: "n", arguments: {}, partialJson: "{" }])),
			msg("c", "b", assistant([{ type: "toolCall", id: "d", name: "n", arguments: {}, partialJson: "{" }])),
			e("custom_message", "d", "c", {
				customType: "t",
				content: [{ type: "image", data: "", mimeType: "x", source: 1 }],
				display: true,
			}),
			e("model_change", "f", "d", { provider: "p", modelId: "m", foo: 2 }),
		]);
		const { stats, diagnostics } = parseSessionText(text);
		expect(diagnostics).toEqual([]);
		expect(stats.unknownFields).toEqual({
			"custom_message/image.source": 1,
			"message.foo": 1,
			"message/assistant/toolCall.partialJson": 2,
			"message/user.mood": 1,
			"message/user/text.glow": 1,
			"model_change.foo": 1,
			"session.extra": 1,
		});
	});

	it("sums up a file with every kind of problem", () => {
		const text = [
			JSON.stringify(header()),
			"garbage",
			"[]",
			JSON.stringify(msg("a", null, user("x"))),
			JSON.stringify(msg("a", null, user("dup"))),
			JSON.stringify(e("weird", "w", "a")),
			"",
			'{"type":"message","id":"z"',
		].join("\n");
		const { stats } = parseSessionText(text);
		expect(stats).toEqual({
			lines: 8,
			blankLines: 1,
			entries: 2,
			skipped: { "duplicate-id": 1, "invalid-json": 1, "not-object": 1, "truncated-last-line": 1 },
			opaque: { "unknown-entry-type": 1 },
			unknownEntryTypes: { weird: 1 },
			unknownFields: {},
		});
	});

	it("a hostile type name such as __proto__ is counted like any other", () => {
		const { stats } = parseSessionText(jsonl([header(), e("__proto__", "a", null)]));
		expect(Object.entries(stats.unknownEntryTypes)).toEqual([["__proto__", 1]]);
	});
});

describe("a file that starts mid-session is still read", () => {
	it("entries with ids and no header are v3 (version inferred)", () => {
		const parsed = parseSessionText(
			jsonl(chain([{ type: "message", message: user("x") }]).map((x) => ({ ...x, parentId: "gone" }))),
		);
		expect(parsed).toMatchObject({ sourceVersion: 3, versionInferred: true, diagnostics: [] });
		expect(parsed.entries).toHaveLength(1);
	});

	it("a hookMessage role without a header means v2", () => {
		const parsed = parseSessionText(
			jsonl([msg("a", "gone", { role: "hookMessage", customType: "t", content: "x", display: true })]),
		);
		expect(parsed.sourceVersion).toBe(2);
	});

	it("entries without ids and no header are v1", () => {
		const parsed = parseSessionText(jsonl([{ type: "message", timestamp: "t", message: user("x") }]));
		expect(parsed).toMatchObject({ sourceVersion: 1, versionInferred: true, diagnostics: [] });
	});
});

describe("pathological lines never throw", () => {
	const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

	it("nesting deeper than JSON.stringify can recurse, in a headerless v1 file that seeds ids from its first entry", () => {
		const text = `{"type":"message","timestamp":"t","message":{"role":"user","content":"x"},"x":${nested(200_000)}}\n`;
		const read = readSession(text);
		// Kept, clipped: the reader says so and nothing is skipped.
		expect(read.diagnostics.map((d) => [d.reason, d.line])).toEqual([["deep-nesting", 1]]);
		expect(read.events.map((e) => e.kind)).toEqual(["user"]);
		expect(read.entries[0]!.id).toMatch(/^[0-9a-f]{8}$/);
		expect(readSession(text).entries[0]!.id).toBe(read.entries[0]!.id);
	});

	it("a megabyte of garbage on one line gives a short diagnostic", () => {
		const { diagnostics } = parseSessionText(`${"x".repeat(1_000_000)}\n`);
		expect(diagnostics.map((d) => d.reason)).toEqual(["invalid-json"]);
		expect(diagnostics[0]!.message.length).toBeLessThan(500);
	});

	it("a megabyte-long truncated last line is recognised", () => {
		const { diagnostics } = parseSessionText(`{"type":"message","x":"${"y".repeat(1_000_000)}`);
		expect(diagnostics.map((d) => d.reason)).toEqual(["truncated-last-line"]);
	});
});
