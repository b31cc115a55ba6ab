// BENCHMARKS.md is never rewritten with fewer rows without saying so (bench/rows.ts).

import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { droppedNote, droppedRows, REAL_SESSIONS, tableRowNames } from "./rows.ts";

const CURRENT = readFileSync(fileURLToPath(new URL("../BENCHMARKS.md", import.meta.url)), "utf8");

describe("the rows of BENCHMARKS.md", () => {
	it("are the first cell of each data row, headers, separators and targets left out, each once", () => {
		const md = [
			"| session | entries |",
			"| --- | ---: |",
			"| samples/long/a.jsonl | 1 |",
			"| generated 10-entry session | 10 |",
			"| **target** | |",
			"",
			"| input | entries |",
			"| --- | ---: |",
			"| generated 10-entry session | 10 |",
			"| pi-mono session ×10 | 10 |",
		].join("\n");
		expect(tableRowNames(md)).toEqual(["samples/long/a.jsonl", "generated 10-entry session", "pi-mono session ×10"]);
	});

	it("the committed file measures the real sessions from samples/long, and cites nothing outside the repository", () => {
		const names = tableRowNames(CURRENT);
		expect(names).toContain("samples/long/pi-mono-large-session.jsonl");
		expect(names).toContain("generated 10000-entry session");
		expect(CURRENT).not.toMatch(/DESIGN\.md|shared\//);
	});

	it("the real sessions the bench reads are in the repository (a fresh clone has them)", () => {
		for (const name of REAL_SESSIONS)
			expect(existsSync(fileURLToPath(new URL(`../${name}`, import.meta.url)))).toBe(true);
	});

	it("a run that lacks a row of the previous file names it; one that keeps them all, none", () => {
		const without = CURRENT.replaceAll("| samples/long/pi-mono-large-session.jsonl |", "| something else |");
		expect(droppedRows(CURRENT, without)).toEqual(["samples/long/pi-mono-large-session.jsonl"]);
		expect(droppedRows(CURRENT, CURRENT)).toEqual([]);
		expect(droppedRows(undefined, without)).toEqual([]);
		expect(droppedNote(["a", "b"])).toEqual([
			"",
			"Rows of the previous run not measured this time (BENCH_DROP_ROWS=1): a; b.",
		]);
		expect(droppedNote([])).toEqual([]);
	});
});
