// `advisor-ledger stats` in-process: per file and summed, as text and JSON, the same lines
// /advisor stats shows; the inputs' errors one line each; the exit codes of the other commands.

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { statsLines } from "../../../src/adapter/extension/stats/stats-text.ts";
import type { Io } from "../../../src/adapter/lab/cli/io.ts";
import { styleFor } from "../../../src/adapter/lab/report/text-report.ts";
import { runCli } from "../../../src/adapter/lab/run.ts";
import { type StatsReport, statsOfText } from "../../../src/adapter/lab/stats-command.ts";
import { sampleText } from "../../support/cli-build.ts";
import { testTempDir } from "../../support/temp.ts";

/** An agent dir of its own (no models.json unless a test writes one): never the machine's ~/.pi. */
function io(cwd: string, env: NodeJS.ProcessEnv = { PI_CODING_AGENT_DIR: path.join(cwd, "no-agent") }) {
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

	it("prices models from the user's models.json, as /advisor stats does; a broken one is said and the built-in models still price", async () => {
		const { dir, tools } = files();
		const agent = path.join(dir, "agent");
		mkdirSync(agent);
		const json = async (env: NodeJS.ProcessEnv) => {
			const run = io(dir, env);
			expect(await runCli(["stats", tools, "--json"], run.io)).toBe(0);
			return { report: JSON.parse(run.out()) as StatsReport, err: run.err() };
		};
		// tools.jsonl's consultations were answered by faux/faux-advisor, which pi-ai's registry does not list.
		const builtIn = await json({ PI_CODING_AGENT_DIR: agent });
		const points = builtIn.report.files[0]!.stats.branch.fullContext.points;
		expect(points).toBeGreaterThan(0);
		expect(builtIn.report.files[0]!.stats.branch.fullContext).toMatchObject({ priced: 0, baselineUsd: 0 });
		writeFileSync(
			path.join(agent, "models.json"),
			JSON.stringify({
				providers: {
					faux: {
						baseUrl: "http://127.0.0.1:9",
						apiKey: "unused",
						api: "openai-completions",
						models: [{ id: "faux-advisor", cost: { input: 2, output: 8, cacheRead: 0, cacheWrite: 0 } }],
					},
				},
			}),
		);
		const custom = await json({ PI_CODING_AGENT_DIR: agent });
		expect(custom.err).toBe("");
		const full = custom.report.files[0]!.stats.branch.fullContext;
		// No cache price listed: the full context is priced uncached, $2 per million prompt tokens.
		expect(full).toMatchObject({ points, priced: points });
		expect(full.baselineUsd).toBeCloseTo((full.baselineTokens * 2) / 1e6, 12);
		writeFileSync(path.join(agent, "models.json"), "{ not json");
		const broken = await json({ PI_CODING_AGENT_DIR: agent });
		expect(broken.err).toMatch(/^advisor-ledger stats: models\.json: Failed to parse models\.json: .*\n$/);
		expect(broken.report.files[0]!.stats.branch.fullContext).toMatchObject({ priced: 0 });
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
