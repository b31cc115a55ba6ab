// The built `advisor-ledger replay --all-leaves --json` on a large session tree: bench/generate.ts
// `generateTree(6000, 2000)`, 2,001 branches and 51,160 consultation points. Built as one string,
// its report (about 190 MB indented) died with `RangeError: Invalid string length` or out of
// memory; written as it is made, with one line per point (docs/cli.md, "replay --json"), it fits
// in a heap far smaller than that string. The heap cap stands in for the machine that ran out: the
// replay itself needs under 150 MB of it, the one string and its copy several hundred more.
// About 10-20 s on two busy cores (the tree, the replay, parsing 90 MB back).
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTree } from "../../../bench/generate.ts";
import { REPORT_VERSION, type ReplayReport } from "../../../src/adapter/lab/report/replay-report.ts";
import { type Built, buildCli, repoRoot } from "../../support/cli-build.ts";
import { testTempDir } from "../../support/temp.ts";

/** Old space in MB: twice what the streamed report needs, far below what the one string needed. */
const HEAP_CAP_MB = 256;

let built: Built;

beforeAll(() => {
	built = buildCli();
}, 120_000);

afterAll(() => built?.dispose());

/** The built CLI with stdout into `out` (a file: no pipe buffer in between), stderr captured. */
function replayInto(out: string, args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
	const fd = openSync(out, "w");
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [built.main, ...args], {
			cwd: repoRoot,
			env: {
				PATH: process.env.PATH,
				HOME: path.join(repoRoot, ".tmp", "no-home"),
				NODE_OPTIONS: `--max-old-space-size=${HEAP_CAP_MB}`,
			},
			stdio: ["ignore", fd, "pipe"],
		});
		let stderr = "";
		child.stderr!.setEncoding("utf8").on("data", (text: string) => {
			stderr += text;
		});
		child.on("error", reject);
		child.on("close", (code) => {
			closeSync(fd);
			resolve({ code, stderr });
		});
	});
}

describe("replay --all-leaves --json of a 2,000-leaf tree", () => {
	it("is written whole in a bounded heap and parses back: every point, one line each", async () => {
		const dir = testTempDir("large-json-");
		const input = path.join(dir, "tree.jsonl");
		writeFileSync(input, generateTree(6000, 2000).jsonl);
		const out = path.join(dir, "report.json");
		const r = await replayInto(out, ["replay", input, "--all-leaves", "--json"]);
		expect(r.stderr).toBe("");
		expect(r.code).toBe(0);

		const text = readFileSync(out, "utf8");
		const report = JSON.parse(text) as ReplayReport;
		expect(report.sessions).toHaveLength(2001);
		expect(report.points).toBe(51_160);
		expect(report.sessions.reduce((n, s) => n + s.points.length, 0)).toBe(report.points);
		// Complete rows: every point carries its measurements, the totals add up over them.
		const points = report.sessions.flatMap((s) => s.points);
		for (const p of points)
			expect(Object.keys(p)).toEqual(expect.arrayContaining(["atEntryId", "facts", "estimate"]));
		expect(points.reduce((n, p) => n + p.ledger, 0)).toBe(report.tokens.ledger.total);
		expect(points.reduce((n, p) => n + p.baseline, 0)).toBe(report.tokens.baseline.total);
		// One line per point, as JSON.stringify writes it; the rest indented as before.
		const rows = text.split("\n").filter((line) => line.startsWith('        {"atEntryId":'));
		expect(rows).toHaveLength(report.points);
		expect(rows.map((line) => JSON.parse(line.replace(/,$/, "")))).toEqual(points);
		expect(text.startsWith(`{\n  "version": ${REPORT_VERSION},\n  "sessions": [\n    {\n      "file": `)).toBe(true);
	}, 180_000);
});
