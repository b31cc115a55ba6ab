// Tables and prose that fit the terminal: wrap and fitTable.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fitTable, wrap } from "../../../../src/adapter/cli/report/text-format.ts";

describe("wrap", () => {
	it("keeps every word, in order, within the width; the first line keeps its indentation", () => {
		const word = fc.string({ minLength: 1, maxLength: 30 }).filter((w) => !/\s/.test(w));
		fc.assert(
			fc.property(
				fc.array(word, { maxLength: 40 }),
				fc.integer({ min: 0, max: 4 }),
				fc.integer({ min: 12, max: 100 }),
				(words, lead, width) => {
					const text = `${" ".repeat(lead)}${words.join(" ")}`;
					const lines = wrap(text, width, "    ");
					for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
					expect(lines[0]!.startsWith(" ".repeat(lead))).toBe(true);
					for (const line of lines.slice(1)) expect(line.startsWith("    ")).toBe(true);
					// Words cut in pieces only when longer than a line: joined back, nothing is lost.
					const rest = lines.map((l, i) => (i === 0 ? l.slice(lead) : l.slice(4))).join(" ");
					expect(rest.replace(/ /g, "")).toBe(words.join(""));
					if (words.every((w) => w.length <= width - 4)) expect(rest.split(" ").filter(Boolean)).toEqual(words);
				},
			),
		);
	});

	it("breaks at the last space that fits", () => {
		expect(wrap("  one two three four", 12, "    ")).toEqual(["  one two", "    three", "    four"]);
		expect(wrap("short", 100)).toEqual(["short"]);
		expect(wrap("abcdefghij", 4, "  ")).toEqual(["abcd", "  ef", "  gh", "  ij"]);
	});
});

describe("fitTable", () => {
	const rows = [
		["session", "points", "ratio"],
		["samples/long/pi-mono-large-session.jsonl", "37 sim", "0.128"],
		["total", "45", "0.124"],
	];

	it("columns as wide as their widest cell; the first cut at its start to fit the width", () => {
		expect(fitTable(rows, 40)).toEqual([
			"session                    points  ratio",
			"…mono-large-session.jsonl  37 sim  0.128",
			"total                          45  0.124",
		]);
		// Unbounded: whole names.
		expect(fitTable(rows, Number.POSITIVE_INFINITY)[1]).toBe(
			"samples/long/pi-mono-large-session.jsonl  37 sim  0.128",
		);
	});

	it("never cuts the first column below 16 characters", () => {
		expect(fitTable(rows, 10)[1]).toBe("…e-session.jsonl  37 sim  0.128");
	});
});
