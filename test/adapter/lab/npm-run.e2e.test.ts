// The README's main job through the real npm: `npm run replay …` in a package whose `replay` script
// is package.json's own and whose dist/ is a fresh build. What npm does with flags before `--` is
// npm's (observed with npm 11): a flag it knows or not becomes npm_config_<name> and its value, if
// separate, a path; `--svg` is read as npm's `-s -v -g` and npm prints its version without running
// the script. Each form either works or says in one line how to pass the flag — except that last,
// which the CLI never sees, so the docs must not show it (test/readme.test.ts).
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReplayReport } from "../../../src/adapter/lab/report/replay-report.ts";
import { type Built, buildCli, type RunResult, repoRoot, samplesDir } from "../../support/cli-build.ts";

let built: Built;
let pkg: string;

/** A spawn of npm and the CLI under it; longer than any honest run on a loaded machine. */
const RUN_MS = 120_000;

beforeAll(() => {
	built = buildCli();
	pkg = mkdtempSync(path.join(repoRoot, ".tmp", "npm-run-"));
	const own = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
		scripts: { replay: string };
	};
	writeFileSync(
		path.join(pkg, "package.json"),
		JSON.stringify({
			name: "npm-run-replay",
			version: "0.0.0",
			private: true,
			scripts: { replay: own.scripts.replay },
		}),
	);
	// dist/ as `npm run build` makes it: the folder holding advisor-ledger.js.
	symlinkSync(path.dirname(built.main), path.join(pkg, "dist"));
	symlinkSync(samplesDir, path.join(pkg, "samples"));
}, 120_000);

afterAll(() => {
	built?.dispose();
	if (pkg !== undefined) rmSync(pkg, { recursive: true, force: true });
});

/**
 * `npm run [npm's flags] replay <args>` in the package, with a HOME of its own and no npm update
 * check.
 */
function npmRun(args: readonly string[], npmFlags: readonly string[] = []): Promise<RunResult> {
	return new Promise((resolve) => {
		execFile(
			"npm",
			["run", ...npmFlags, "replay", ...args],
			{
				cwd: pkg,
				env: { PATH: process.env.PATH, HOME: path.join(pkg, "home"), npm_config_update_notifier: "false" },
				encoding: "utf8",
				maxBuffer: 64 << 20,
			},
			(error, stdout, stderr) => {
				const code = error === null ? 0 : typeof error.code === "number" ? error.code : 99;
				resolve({ code, stdout, stderr });
			},
		);
	});
}

/** The CLI's own lines on stderr (npm adds its warnings around them). */
const cliLines = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("advisor-ledger"));

describe("npm run replay, flags before --: npm keeps them, the CLI says how to pass them", () => {
	it(
		"--json: one line naming the flag and `npm run -s replay -- --json`, exit 1, no report",
		async () => {
			const r = await npmRun(["--json"]);
			expect(r.code).toBe(1);
			expect(cliLines(r.stderr)).toEqual([
				"advisor-ledger replay: npm took --json for itself (npm_config_json) and did not pass it on; put the flags after --: npm run -s replay -- --json",
			]);
			expect(r.stdout).not.toContain('"sessions"');
		},
		RUN_MS,
	);

	it(
		"samples --every 3: npm keeps --every and leaves 3 as a path; the line is about --every, not about 3",
		async () => {
			const r = await npmRun(["samples", "--every", "3"]);
			expect(r.code).toBe(1);
			const [line, ...more] = cliLines(r.stderr);
			expect(more).toEqual([]);
			expect(line).toContain("npm took --every for itself (npm_config_every)");
			expect(line).toContain("npm run replay -- --every N");
			expect(r.stderr).not.toContain("cannot read 3");
		},
		RUN_MS,
	);

	it(
		"samples/tools.jsonl --svg x.svg: npm prints its own version and never runs the script",
		async () => {
			const r = await npmRun(["samples/tools.jsonl", "--svg", "x.svg"]);
			expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
			expect(r.stdout + r.stderr).not.toContain("advisor-ledger");
			expect(existsSync(path.join(pkg, "x.svg"))).toBe(false);
			// npm's exit 0: the reason the docs show flags only after -- (test/readme.test.ts).
			expect(r.code).toBe(0);
		},
		RUN_MS,
	);
});

describe("npm run replay -- …: every flag reaches the CLI", () => {
	it(
		"-- samples/tools.jsonl --json prints the JSON report after npm's banner (so the docs show -s)",
		async () => {
			const r = await npmRun(["--", "samples/tools.jsonl", "--json"]);
			expect(r.code).toBe(0);
			const report = JSON.parse(r.stdout.slice(r.stdout.indexOf("\n{") + 1)) as ReplayReport;
			expect(report.sessions.map((s) => s.file)).toEqual(["samples/tools.jsonl"]);
		},
		RUN_MS,
	);

	it(
		"-s replay -- --json samples/tools.jsonl, as docs/cli.md shows it: stdout is the JSON report alone",
		async () => {
			const r = await npmRun(["--", "--json", "samples/tools.jsonl"], ["-s"]);
			expect(r.code).toBe(0);
			const report = JSON.parse(r.stdout) as ReplayReport;
			expect(report.sessions.map((s) => s.file)).toEqual(["samples/tools.jsonl"]);
		},
		RUN_MS,
	);

	it(
		"-- samples/tools.jsonl --every 3 replays with a point every 3 tool rounds",
		async () => {
			const r = await npmRun(["--", "samples/tools.jsonl", "--every", "3"]);
			expect(r.code).toBe(0);
			expect(r.stdout.replace(/\s+/g, " ")).toContain("a simulated point every 3 tool rounds");
			expect(cliLines(r.stderr)).toEqual([]);
		},
		RUN_MS,
	);

	it(
		"-- samples/tools.jsonl --svg chart.svg writes the chart",
		async () => {
			const r = await npmRun(["--", "samples/tools.jsonl", "--svg", "chart.svg"]);
			expect(r.code).toBe(0);
			expect(readFileSync(path.join(pkg, "chart.svg"), "utf8")).toMatch(/^<svg/);
		},
		RUN_MS,
	);
});
