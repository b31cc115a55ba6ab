// `advisor-ledger stats` in-process: per file and summed, as text and JSON, the same lines
// /advisor stats shows; the inputs' errors one line each; the exit codes of the other commands.

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Io } from "../../../src/adapter/cli/io.ts";
import { styleFor } from "../../../src/adapter/cli/report/text-report.ts";
import { runCli } from "../../../src/adapter/cli/run.ts";
import { type StatsReport, statsOfText } from "../../../src/adapter/cli/stats-command.ts";
import { statsLines } from "../../../src/adapter/stats/stats-text.ts";
import { sampleText } from "../../support/cli-build.ts";
import { testTempDir } from "../../support/temp.ts";

function io(cwd: string, env: NodeJS.ProcessEnv = {}) {
	const out: string[] = [];
	const err: string[] = [];
	const value: Io = {
		stdout: (t) => out.push(t),
		stderr: (t) => err.push(t),
		env,
		cwd,
		stderrIsTTY: false,
		style: styleFor(false, {}),
		now: () => 0,
	};
	return { io: value, out: () => out.join(""), err: () => err.join("") };
}

function files(): { dir: string; tools: string; branching: string } {
	const dir = testTempDir("advisor-stats-");
	writeFileSync(path.join(dir, "tools.jsonl"), sampleText("tools.jsonl"));
	mkdirSync(path.join(dir, "sub"));
	writeFileSync(path.join(dir, "sub", "branching.jsonl"), sampleText("branching.jsonl"));
	return { dir, tools: path.join(dir, "tools.jsonl"), branching: path.join(dir, "sub", "branching.jsonl") };
}

describe("advisor-ledger stats", () => {
	it("one file: the lines /advisor stats shows for it, indented under the file's name", async () => {
		const { dir, tools } = files();
		const run = io(dir);
		expect(await runCli(["stats", tools], run.io)).toBe(0);
		const expected = statsOfText(sampleText("tools.jsonl"));
		if (typeof expected === "string") throw new Error(expected);
		expect(run.out()).toBe(
			`tools.jsonl (session ${expected.sessionId})\n${statsLines(expected.stats)
				.map((l) => `  ${l}`)
				.join("\n")}\n`,
		);
		expect(run.err()).toBe("");
	});

	it("a folder: every session in it, and their sum; --json has the same figures", async () => {
		const { dir } = files();
		const text = io(dir);
		expect(await runCli(["stats", dir], text.io)).toBe(0);
		expect(text.out()).toContain("All 2 sessions\n");
		const json = io(dir);
		expect(await runCli(["stats", dir, "--json"], json.io)).toBe(0);
		const report = JSON.parse(json.out()) as StatsReport;
		expect(report.files.map((f) => f.file)).toEqual([path.join("sub", "branching.jsonl"), "tools.jsonl"]);
		const whole = report.files.map((f) => f.stats.session ?? f.stats.branch);
		expect(report.total!.requests).toBe(whole[0]!.requests + whole[1]!.requests);
		expect(report.total!.consultations.total).toBe(whole[0]!.consultations.total + whole[1]!.consultations.total);
		// branching.jsonl has a second branch: its whole session counts the review the current branch lacks.
		expect(report.files[0]!.stats.session!.reviews).toBe(report.files[0]!.stats.branch.reviews + 1);
	});

	it("without a PATH, Pi's session folder", async () => {
		const { dir } = files();
		const agent = path.join(dir, "agent");
		mkdirSync(path.join(agent, "sessions"), { recursive: true });
		writeFileSync(path.join(agent, "sessions", "s.jsonl"), sampleText("tools.jsonl"));
		const run = io(dir, { PI_CODING_AGENT_DIR: agent });
		expect(await runCli(["stats"], run.io)).toBe(0);
		expect(run.out()).toMatch(/^agent\/sessions\/s\.jsonl \(session /);
	});

	it("errors: one line per input in the reader's words; exit 3 when one could not be read, 2 when nothing was counted", async () => {
		const { dir, tools } = files();
		writeFileSync(path.join(dir, "empty.jsonl"), "");
		const missing = io(dir);
		expect(await runCli(["stats", tools, path.join(dir, "nope.jsonl")], missing.io)).toBe(3);
		expect(missing.err()).toBe("advisor-ledger stats: cannot read nope.jsonl: no such file or directory\n");
		expect(missing.out()).toContain("tools.jsonl (session ");
		const empty = io(dir);
		expect(await runCli(["stats", path.join(dir, "empty.jsonl")], empty.io)).toBe(2);
		expect(empty.err()).toBe("advisor-ledger stats: empty.jsonl: empty file\n");
		expect(empty.out()).toBe("");
		const usage = io(dir);
		expect(await runCli(["stats", "--bogus"], usage.io)).toBe(1);
		expect(usage.err()).toBe(
			"advisor-ledger stats: unknown option --bogus\nRun `advisor-ledger stats --help` for usage.\n",
		);
		const help = io(dir);
		expect(await runCli(["stats", "--help"], help.io)).toBe(0);
		expect(help.out()).toContain("advisor-ledger stats [PATH…] [options]");
	});
});
