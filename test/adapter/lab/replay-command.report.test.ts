/**
 * The whole of `replay`'s output on the bundled samples, byte for byte: the --json report, every
 * leaf replayed, the --wide text report, and the first report a user meets (`npm run replay` with
 * no Pi sessions: the long samples, 100 columns), pinned in test/fixtures/replay-report/. The clock
 * is a counter (each reading 0.25 ms after the last), so the timing figures are pinned too. A
 * change to any report shows here as a diff of the fixture; docs/cli.md documents the JSON fields.
 */

import { readFileSync } from "node:fs";
import path from "node:path";
import { visibleWidth } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import type { ReplayReport } from "../../../src/adapter/lab/report/replay-report.ts";
import { FIXTURES_DIR, replay, SAMPLES } from "../../support/replay-fixtures.ts";

const fixture = (name: string) => readFileSync(path.join(FIXTURES_DIR, name), "utf8");

describe("replay's output on the bundled samples", () => {
	it("--json --all-leaves: the report, byte for byte", async () => {
		const r = await replay([...SAMPLES, "--all-leaves", "--json"]);
		expect(r.stderr).toBe("");
		expect(r.code).toBe(0);
		expect(r.stdout).toBe(fixture("samples.all-leaves.json"));
	});

	it("the text report, byte for byte (one leaf per file, wide)", async () => {
		const r = await replay([...SAMPLES, "--wide"]);
		expect(r.stderr).toBe("");
		expect(r.code).toBe(0);
		expect(r.stdout).toBe(fixture("samples.txt"));
	});

	it("the first report (no PATH, no Pi sessions: the long samples), byte for byte", async () => {
		const r = await replay([]);
		expect(r.stderr).toMatch(/^advisor-ledger replay: no Pi session folder at .*; replaying the bundled samples/);
		expect(r.code).toBe(0);
		expect(r.stdout).toBe(fixture("samples.long.txt"));
	});
});

describe("the first report opens on its summary, at 100 columns", () => {
	it("six lines at most, then a blank line: points, tokens, cost with a cache, facts, where the detail is", async () => {
		const { stdout } = await replay([]);
		const lines = stdout.split("\n");
		for (const line of lines) expect(visibleWidth(line), line).toBeLessThanOrEqual(100);
		const summary = lines.slice(0, lines.indexOf(""));
		expect(summary.length).toBeGreaterThanOrEqual(5);
		expect(summary.length).toBeLessThanOrEqual(6);
		expect(summary.map((l) => l.slice(0, 15).trim())).toEqual([
			"Replayed",
			"Tokens",
			"Cost, cached",
			"Facts carried",
			"Detail",
		]);
		// The figures are the report's own.
		const report = JSON.parse((await replay(["--json"])).stdout) as ReplayReport;
		expect(summary[0]).toContain(`${report.points} consultation points in ${report.sessions.length} session files`);
		expect(summary[1]).toContain(` ${report.tokens.ratio!.toFixed(3)} of the baseline's`);
		// The dollar ratios (price.*.ratio), not the token-weighted ones (cache.effectiveRatio*).
		expect(summary[2]).toContain(
			`${report.price!.tokenPrefix.ratio!.toFixed(3)} of the baseline's dollars with a token-prefix cache`,
		);
		expect(summary[2]).toContain(`${report.price!.breakpoint.ratio!.toFixed(3)} with breakpoints`);
		expect(report.cache.effectiveRatioBreakpoint!.toFixed(3)).not.toBe(report.price!.breakpoint.ratio!.toFixed(3));
		expect(summary[3]).toContain(
			`ledger ${report.facts.ledgerShare!.toFixed(3)}, Pi's context ${report.facts.baselineShare!.toFixed(3)}`,
		);
		expect(summary[4]).toMatch(/--wide.*--json/);
	});

	it("the bundled samples' damage is said to be expected, and their reader messages wait for --wide", async () => {
		const { stdout } = await replay([]);
		const report = JSON.parse((await replay(["--json"])).stdout) as ReplayReport;
		expect(report.diagnostics.badLines).toBeGreaterThan(0);
		const diagnostics = stdout.split("\n").filter((l) => l.startsWith("Reader diagnostics:"));
		expect(diagnostics).toHaveLength(1);
		expect(stdout.replace(/\n +/g, " ")).toContain(
			"2 broken parent links in samples/long/gjc-inline-agent-design.jsonl, samples/long/gjc-raddit-dashboard-pr.jsonl: expected (samples/README.md; --wide lists them)",
		);
		expect(stdout).not.toContain("invalid-json");
		expect((await replay(["--wide"])).stdout).toContain("gjc-inline-agent-design.jsonl:118: invalid-json");
		// Nothing to look at in the summary: the damage is the sample's, not the product's.
		expect(stdout).not.toMatch(/^Look below/m);
	});

	it("the test model's bills and the prompt counted four ways wait for --wide", async () => {
		const { stdout } = await replay([]);
		const wide = (await replay(["--wide"])).stdout;
		for (const detail of [
			"reports what it writes to its cache",
			"Prompt tokens of the first requests",
			"no bridges ",
		]) {
			expect(stdout).not.toContain(detail);
			expect(wide).toContain(detail);
		}
		expect(stdout.replace(/\n +/g, " ")).toContain(
			"went to faux:…, pi-ai's scripted test model, whose bills are not a provider's; --wide shows them.",
		);
	});
});
