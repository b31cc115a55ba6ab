import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eventsFromBranch, readSession } from "../../src/events/index.ts";
import { listLeaves, selectBranch } from "../../src/events/leaf-path.ts";
import type { DiagnosticReason } from "../../src/events/types.ts";
import {
	anySessionArb,
	applyMutations,
	FC_RUNS,
	header,
	jsonl,
	mutationArb,
	PROPERTY_TIMEOUT,
	treeSessionArb,
	v1SessionArb,
} from "./helpers.ts";

const REASONS: readonly DiagnosticReason[] = [
	"invalid-json",
	"not-object",
	"schema-mismatch",
	"duplicate-id",
	"truncated-last-line",
	"unknown-entry-type",
	"missing-parent",
	"cycle",
	"unknown-leaf",
	"deep-nesting",
];

/** What must hold for any text at all. */
function expectWellFormed(text: string) {
	const read = readSession(text);
	const lineCount = read.stats.lines;
	for (const d of read.diagnostics) {
		expect(REASONS).toContain(d.reason);
		if (d.line !== undefined) expect(d.line).toBeGreaterThanOrEqual(1);
		if (d.line !== undefined) expect(d.line).toBeLessThanOrEqual(lineCount);
	}
	expect(new Set(read.entries.map((r) => r.id)).size).toBe(read.entries.length);
	expect(new Set(read.path.map((r) => r.id)).size).toBe(read.path.length);
	expect(read.events.map((x) => x.id)).toEqual(read.path.map((r) => r.id));
	expect(read.diagnostics.filter((d) => d.reason === "truncated-last-line").length).toBeLessThanOrEqual(1);
	// Replaying every leaf terminates too.
	for (const leaf of listLeaves(read.entries)) expect(selectBranch(read.entries, leaf.id).path.at(-1)).toBe(leaf);
	return read;
}

describe("the reader never throws on content", () => {
	it(
		"arbitrary strings",
		() => {
			fc.assert(
				fc.property(fc.string({ unit: "binary" }), (text) => {
					expectWellFormed(text);
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);

	it(
		"lines of arbitrary JSON and fragments",
		() => {
			const line = fc.oneof(
				fc.json(),
				fc.string(),
				fc.constantFrom('{"type":"message"', "\r", "\uFEFF{}", '{"type":"session"}'),
			);
			fc.assert(
				fc.property(fc.array(line, { maxLength: 20 }), fc.constantFrom("\n", "\r\n"), (lines, eol) => {
					expectWellFormed(lines.join(eol));
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);

	it(
		"arbitrary line mutations of a valid session (lost, repeated, cut, replaced, retyped, reparented lines)",
		() => {
			fc.assert(
				fc.property(
					anySessionArb,
					fc.array(mutationArb, { maxLength: 6 }),
					fc.boolean(),
					({ text }, mutations, noEol) => {
						expectWellFormed(applyMutations(text, mutations, noEol));
					},
				),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);

	it(
		"live branches of arbitrary values",
		() => {
			fc.assert(
				fc.property(fc.array(fc.jsonValue({ maxDepth: 3 })), fc.array(fc.anything()), (branch, all) => {
					const result = eventsFromBranch(branch, all);
					expect(result.events.length).toBeLessThanOrEqual(branch.length);
					for (const d of result.diagnostics) expect(REASONS).toContain(d.reason);
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);
});

describe("valid generated sessions read without diagnostics", () => {
	it(
		"every generated v1/v2/v3 session",
		() => {
			fc.assert(
				fc.property(anySessionArb, ({ text }) => {
					const read = readSession(text);
					expect(read.diagnostics).toEqual([]);
					expect(read.stats.unknownFields).toEqual({});
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);
});

describe("migration is deterministic", () => {
	it(
		"the same text gives the same ids and events, and ids look like Pi's",
		() => {
			fc.assert(
				fc.property(v1SessionArb, ({ text }) => {
					const a = readSession(text);
					const b = readSession(text);
					expect(b.entries).toEqual(a.entries);
					expect(b.events).toEqual(a.events);
					for (const r of a.entries) expect(r.id).toMatch(/^[0-9a-f]{8}$/);
					expect(new Set(a.entries.map((r) => r.id)).size).toBe(a.entries.length);
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);
});

describe("migration is idempotent on v3", () => {
	it(
		"a migrated session written back as v3 reads to the same entries and events",
		() => {
			fc.assert(
				fc.property(fc.oneof(v1SessionArb, treeSessionArb(2)), ({ text }) => {
					const first = readSession(text);
					const v3Text = jsonl([
						header({ id: first.header?.id ?? "x", version: 3 }),
						...first.entries.map((r) => r.entry),
					]);
					const second = readSession(v3Text);
					expect(second.diagnostics).toEqual([]);
					expect(second.entries.map((r) => r.entry)).toEqual(first.entries.map((r) => r.entry));
					expect(second.events).toEqual(first.events);
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);

	it(
		"a v3 file's entries come out exactly as written",
		() => {
			fc.assert(
				fc.property(treeSessionArb(3), ({ text }) => {
					// Compared with the parsed text, not the generated objects: JSON has no -0.
					const written = text
						.trimEnd()
						.split("\n")
						.slice(1)
						.map((line) => JSON.parse(line));
					expect(readSession(text).entries.map((r) => r.entry)).toEqual(written);
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);
});

describe("reading a file as it grows gives the events a full read gives for the same leaf", () => {
	it(
		"any prefix of the file, read to its last entry, equals the full file read to that entry",
		() => {
			fc.assert(
				fc.property(anySessionArb, fc.nat(), ({ text }, cut) => {
					const lines = text.split("\n").slice(0, -1);
					const keep = 2 + (cut % Math.max(1, lines.length - 1));
					const partial = readSession(`${lines.slice(0, keep).join("\n")}\n`);
					const full = readSession(text, { leafId: partial.leafId ?? null });
					expect(partial.events).toEqual(full.events);
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);
});
