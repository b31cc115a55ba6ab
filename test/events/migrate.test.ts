import { describe, expect, it } from "vitest";
import { deterministicId } from "../../src/events/ids.ts";
import { readSession } from "../../src/events/index.ts";
import { parseSessionText } from "../../src/events/jsonl.ts";
import { migrateEntries } from "../../src/events/migrate.ts";
import { header, jsonl, msg, user, v1Header } from "./helpers.ts";

const HEX8 = /^[0-9a-f]{8}$/;
const v1 = (type: string, body: Record<string, unknown> = {}) => ({
	type,
	timestamp: "2025-01-01T00:00:00.000Z",
	...body,
});
const v1Message = (content: string) => v1("message", { message: user(content) });

describe("v1 files get a linear chain of deterministic, Pi-shaped ids", () => {
	const text = jsonl([
		v1Header(),
		v1Message("a"),
		v1Message("b"),
		v1("thinking_level_change", { thinkingLevel: "high" }),
	]);

	it("ids are 8 lowercase hex, unique, each entry the child of the previous one", () => {
		const { entries } = readSession(text);
		expect(entries.map((r) => r.id).every((id) => HEX8.test(id))).toBe(true);
		expect(new Set(entries.map((r) => r.id)).size).toBe(3);
		expect(entries.map((r) => r.parentId)).toEqual([null, entries[0]!.id, entries[1]!.id]);
		expect(entries.map((r) => [r.entry.id, r.entry.parentId])).toEqual(entries.map((r) => [r.id, r.parentId]));
	});

	it("the same text gives the same ids, every time", () => {
		expect(readSession(text).entries).toEqual(readSession(text).entries);
	});

	it("ids depend on the session id: another session gets other ids", () => {
		const other = readSession(text.replace("sess-v1", "sess-v1b")).entries.map((r) => r.id);
		expect(other).not.toEqual(readSession(text).entries.map((r) => r.id));
	});

	it("ids of earlier entries do not change when the file grows", () => {
		const grown = readSession(text + jsonl([v1Message("c")])).entries.map((r) => r.id);
		expect(grown.slice(0, 3)).toEqual(readSession(text).entries.map((r) => r.id));
	});

	it("deterministicId never repeats within a file", () => {
		const ids = new Set(Array.from({ length: 50_000 }, (_, i) => deterministicId("session:x", i)));
		expect(ids.size).toBe(50_000);
	});

	it("v1 entries that happen to carry ids get new ones, as Pi's migration does", () => {
		const { entries } = readSession(jsonl([v1Header(), { ...v1Message("a"), id: "keepme", parentId: "zzz" }]));
		expect(entries[0]).toMatchObject({ parentId: null });
		expect(entries[0]!.id).not.toBe("keepme");
	});
});

describe("v1 compaction firstKeptEntryIndex becomes firstKeptEntryId", () => {
	// Index counts the file's parsed lines, header included: header 0, a 1, b 2, compaction 3.
	const file = (index: unknown, extra: unknown[] = []) =>
		jsonl([
			v1Header(),
			v1Message("a"),
			v1Message("b"),
			v1("compaction", { summary: "s", tokensBefore: 10, firstKeptEntryIndex: index }),
			...extra,
		]);
	const compaction = (text: string) => readSession(text).entries.find((r) => r.entry.type === "compaction")!;

	it("an index of an earlier entry names that entry's new id", () => {
		const { entries } = readSession(file(2));
		expect(entries[2]!.entry).toEqual({
			type: "compaction",
			timestamp: "2025-01-01T00:00:00.000Z",
			summary: "s",
			tokensBefore: 10,
			firstKeptEntryId: entries[1]!.id,
			id: entries[2]!.id,
			parentId: entries[1]!.id,
		});
	});

	it("the index counts skipped garbage lines that still parse as JSON, like Pi's parser", () => {
		const text = jsonl([v1Header(), 7, v1Message("a"), v1("compaction", { summary: "s", firstKeptEntryIndex: 2 })]);
		const { entries } = readSession(text);
		expect(compaction(text).entry).toMatchObject({ firstKeptEntryId: entries[0]!.id });
	});

	it.each([
		["the header", 0],
		["a later entry (Pi has not assigned its id yet)", 4],
		["an index past the end", 99],
	])("an index naming %s leaves no firstKeptEntryId", (_, index) => {
		const entry = compaction(file(index, [v1Message("c")])).entry;
		expect(entry).not.toHaveProperty("firstKeptEntryIndex");
		expect(entry).not.toHaveProperty("firstKeptEntryId");
	});

	it("an index naming the compaction itself names its own id", () => {
		const record = compaction(file(3));
		expect(record.entry).toMatchObject({ firstKeptEntryId: record.id });
	});

	it("the compaction event reads the converted id and resets the context", () => {
		const { events, entries } = readSession(file(1));
		expect(events[2]).toMatchObject({
			kind: "compaction",
			firstKeptEntryId: entries[0]!.id,
			resets: true,
			tokensBefore: 10,
		});
	});
});

describe("v2 hookMessage messages become v3 custom messages", () => {
	const hook = { role: "hookMessage", customType: "ext", content: "hi", display: true, timestamp: 1 };

	it("the role is renamed in the migrated entry and the event is a customMessage", () => {
		const { entries, events } = readSession(jsonl([header({ version: 2 }), msg("a", null, hook)]));
		expect(entries[0]!.entry).toMatchObject({ message: { role: "custom", customType: "ext" } });
		expect(events[0]).toMatchObject({ kind: "customMessage", customType: "ext", display: true });
	});

	it("a v3 file is left exactly as written", () => {
		const lines = [header(), msg("a", null, hook), msg("b", "a", user("x"))];
		const { entries } = readSession(jsonl(lines));
		expect(entries.map((r) => r.entry)).toEqual(lines.slice(1));
		expect(entries[0]!.entry).toMatchObject({ message: { role: "hookMessage" } });
	});
});

describe("migration never mutates its input", () => {
	it("the reader's raw entries are unchanged after migrating a v1 and a v2 file", () => {
		for (const text of [
			jsonl([v1Header(), v1Message("a"), v1("compaction", { summary: "s", firstKeptEntryIndex: 1 })]),
			jsonl([
				header({ version: 2 }),
				msg("a", null, { role: "hookMessage", customType: "t", content: "x", display: false }),
			]),
		]) {
			const parsed = parseSessionText(text);
			const before = structuredClone(parsed.entries);
			const migrated = migrateEntries(parsed);
			expect(parsed.entries).toEqual(before);
			expect(migrated[0]!.entry).not.toBe(parsed.entries[0]!.entry);
		}
	});
});

describe("a headerless file still gets deterministic ids", () => {
	it("v1 entries without a header are chained with ids seeded by the first entry", () => {
		const text = jsonl([v1Message("a"), v1Message("b")]);
		const first = readSession(text);
		expect(first.versionInferred).toBe(true);
		expect(first.entries.map((r) => r.parentId)).toEqual([null, first.entries[0]!.id]);
		expect(readSession(text).entries).toEqual(first.entries);
		expect(readSession(jsonl([v1Message("z"), v1Message("b")])).entries[0]!.id).not.toBe(first.entries[0]!.id);
	});
});
