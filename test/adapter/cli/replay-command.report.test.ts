/**
 * The whole of `replay`'s output on the bundled samples, byte for byte: the --json report and the
 * text report, every leaf replayed, pinned in test/fixtures/replay-report/. The clock is a counter
 * (each reading 0.25 ms after the last), so the timing figures are pinned too. A change to either
 * report shows here as a diff of the fixture; README documents the JSON fields.
 */

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Io } from "../../../src/adapter/cli/io.ts";
import { styleFor } from "../../../src/adapter/cli/report/text-report.ts";
import { runCli } from "../../../src/adapter/cli/run.ts";
import { repoRoot } from "../../support/cli-build.ts";

const SAMPLES = [
	"samples/tools.jsonl",
	"samples/branching.jsonl",
	"samples/compaction.jsonl",
	"samples/long/taskq.jsonl",
];

/** runCli in this process, from the repository root; no advisor.json (a config folder that does not exist). */
async function replay(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
	let stdout = "";
	let stderr = "";
	let clock = 0;
	const home = path.join(repoRoot, ".tmp", "no-such-home");
	const io: Io = {
		stdout: (t) => {
			stdout += t;
		},
		stderr: (t) => {
			stderr += t;
		},
		env: { XDG_CONFIG_HOME: home, HOME: home },
		cwd: repoRoot,
		stderrIsTTY: false,
		style: styleFor(false, {}),
		now: () => {
			clock += 0.25;
			return clock;
		},
	};
	const code = await runCli(["replay", ...args], io);
	return { code, stdout, stderr };
}

const fixture = (name: string) => readFileSync(path.join(repoRoot, "test/fixtures/replay-report", name), "utf8");

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
});
