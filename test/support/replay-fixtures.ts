/**
 * `replay` run in this process on the bundled samples with a counting clock (each reading 0.25 ms
 * after the last), so its whole output — timings included — is the same on every run: what
 * test/adapter/lab/replay-command.report.test.ts pins and `npm run fixtures` rewrites.
 */

import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Io } from "../../src/adapter/lab/cli/io.ts";
import { styleFor } from "../../src/adapter/lab/report/text-report.ts";
import { runCli } from "../../src/adapter/lab/run.ts";
import { repoRoot } from "./cli-build.ts";

export const SAMPLES = [
	"samples/tools.jsonl",
	"samples/branching.jsonl",
	"samples/compaction.jsonl",
	"samples/long/taskq.jsonl",
];

export const FIXTURES_DIR = path.join(repoRoot, "test/fixtures/replay-report");

/** runCli from the repository root; no advisor.json (a config folder that does not exist), no Pi sessions. */
export async function replay(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
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
		// No Pi session folder: replay without a PATH falls back to the bundled long samples.
		env: { XDG_CONFIG_HOME: home, HOME: home, PI_CODING_AGENT_DIR: path.join(home, "agent") },
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

/** Each pinned output: its fixture file and the replay that makes it. */
export const PINNED: readonly { file: string; args: readonly string[] }[] = [
	{ file: "samples.all-leaves.json", args: [...SAMPLES, "--all-leaves", "--json"] },
	{ file: "samples.txt", args: [...SAMPLES, "--wide"] },
	{ file: "samples.long.txt", args: [] },
];

/** Rewrites every pinned output: only in a commit that changes replay's output on purpose. */
export async function writeFixtures(): Promise<void> {
	for (const { file, args } of PINNED) writeFileSync(path.join(FIXTURES_DIR, file), (await replay(args)).stdout);
}
