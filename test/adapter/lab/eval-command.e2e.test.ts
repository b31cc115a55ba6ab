/**
 * The whole `advisor-ledger eval` command, in-process, against the local mock provider: models and
 * keys from a models.json in a temporary agent dir (PI_CODING_AGENT_DIR), the sample sessions as
 * input, a scripted advisor and judge. The report it prints is shown in the test output.
 */

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EvalArgs, parseArgs } from "../../../src/adapter/lab/cli/args.ts";
import type { Io } from "../../../src/adapter/lab/cli/io.ts";
import { runEval } from "../../../src/adapter/lab/eval-command.ts";
import { runCli } from "../../../src/adapter/lab/run.ts";
import { samplesDir } from "../../support/cli-build.ts";
import { type AgentDir, advice, judgeLabels, judgeReply, mockAgentDir, requestKind } from "../../support/eval-mock.ts";
import { type MockLlm, startMockLlm } from "../../support/mock-llm.ts";

const plain = {
	bold: (t: string) => t,
	dim: (t: string) => t,
	red: (t: string) => t,
	green: (t: string) => t,
	yellow: (t: string) => t,
};

function io(env: NodeJS.ProcessEnv, cwd: string) {
	const out = { stdout: "", stderr: "" };
	const value: Io = {
		stdout: (t) => {
			out.stdout += t;
		},
		stderr: (t) => {
			out.stderr += t;
		},
		env,
		cwd,
		stderrIsTTY: false,
		style: plain,
		now: () => 0,
	};
	return { io: value, out };
}

describe("advisor-ledger eval against the local mock provider", () => {
	let server: MockLlm;
	let dir: AgentDir;
	let code: number;
	let out: { stdout: string; stderr: string };

	beforeAll(async () => {
		let judged = 0;
		server = await startMockLlm((_api, body) => {
			const kind = requestKind(body);
			if (kind !== "judge") return advice(kind, kind === "ledger" && judged % 3 === 2 ? "nit" : "concern");
			judged++;
			return {
				text: judgeReply(judgeLabels(body), { lacking: judged % 2 === 0 ? "ledger" : undefined }),
				promptTokens: 2000,
				outputTokens: 120,
			};
		});
		dir = mockAgentDir(server.baseUrl);
		const run = io({ PI_CODING_AGENT_DIR: dir.agentDir }, dir.root);
		out = run.out;
		code = await runCli(
			[
				"eval",
				join(samplesDir, "tools.jsonl"),
				join(samplesDir, "compaction.jsonl"),
				"--advisor",
				"mock/advisor-1",
				"--points",
				"4",
				"--yes",
			],
			run.io,
		);
		console.log(`--- stderr ---\n${out.stderr}--- stdout (the report) ---\n${out.stdout}`);
	}, 60_000);

	afterAll(async () => {
		await server?.close();
		dir?.dispose();
	});

	it("exits 0 and prints the report", () => {
		expect(code).toBe(0);
		expect(out.stdout).toContain("advisor-ledger eval: 4 points, arms ledger, full");
		expect(out.stdout).toContain("judge mock/advisor-1 (the advisor model: no --judge given)");
	});

	it("sends two arms and one judge request per point", () => {
		const kinds = server.requests.map((r) => requestKind(r.body));
		expect(kinds.filter((k) => k === "ledger")).toHaveLength(4);
		expect(kinds.filter((k) => k === "full")).toHaveLength(4);
		expect(kinds.filter((k) => k === "judge")).toHaveLength(4);
	});

	it("writes every point and the report into advisor-eval/", () => {
		const outDir = join(dir.root, "advisor-eval");
		expect(existsSync(join(outDir, "eval.json"))).toBe(true);
		expect(readdirSync(join(outDir, "points")).sort()).toEqual([
			"01.json",
			"01.md",
			"02.json",
			"02.md",
			"03.json",
			"03.md",
			"04.json",
			"04.md",
		]);
		expect(readFileSync(join(outDir, "report.md"), "utf8")).toBe(out.stdout);
		const record = JSON.parse(readFileSync(join(outDir, "points", "01.json"), "utf8"));
		const markdown = readFileSync(join(outDir, "points", "01.md"), "utf8");
		console.log(`--- points/01.md ---\n${markdown}`);
		expect(markdown).toContain(`# Point 1: ${record.file}`);
		expect(markdown).toContain("| | ledger | full |");
		expect(markdown).toContain(record.arms.ledger.text);
		expect(markdown).toContain(record.arms.full.text);
		expect(markdown).toContain("## The judge (mock/advisor-1)");
	});

	it("shows the estimate on stderr before sending, and one progress line per point (stderr is not a terminal)", () => {
		expect(out.stderr).toMatch(/^Estimate for 4 points/);
		expect(out.stderr.match(/^advisor-ledger eval: \d\/4 judged /gm)).toHaveLength(4);
	});
});

describe("advisor-ledger eval refuses before sending anything", () => {
	let server: MockLlm;
	let dir: AgentDir;

	beforeAll(async () => {
		server = await startMockLlm(() => ({ text: "Severity: none\nfine" }));
		dir = mockAgentDir(server.baseUrl);
	});

	afterAll(async () => {
		await server?.close();
		dir?.dispose();
	});

	const sample = () => join(samplesDir, "tools.jsonl");

	it("without --yes when stdin is not a terminal (exit 4)", async () => {
		const run = io({ PI_CODING_AGENT_DIR: dir.agentDir }, dir.root);
		const code = await runEval(
			{ ...(parseArgs(["eval", sample(), "--advisor", "mock/advisor-1", "--out", "no-tty"]) as EvalArgs) },
			run.io,
			{ stdinIsTTY: false },
		);
		expect(code).toBe(4);
		expect(run.out.stderr).toContain(
			"advisor-ledger eval: nothing was sent: run it on a terminal to confirm the estimate, or pass --yes",
		);
		expect(server.requests).toHaveLength(0);
	});

	it("when the user says no at the prompt (exit 4); yes sends", async () => {
		const asked: string[] = [];
		const no = io({ PI_CODING_AGENT_DIR: dir.agentDir }, dir.root);
		const args = parseArgs([
			"eval",
			sample(),
			"--advisor",
			"mock/advisor-1",
			"--points",
			"1",
			"--out",
			"asked",
		]) as EvalArgs;
		expect(
			await runEval(args, no.io, {
				stdinIsTTY: true,
				confirm: async (q) => {
					asked.push(q);
					return false;
				},
			}),
		).toBe(4);
		expect(existsSync(join(dir.root, "asked"))).toBe(false);
		expect(asked[0]).toMatch(/^Send these requests \(about \$\d+\.\d{3}\)\? \[y\/N\] $/);
		expect(server.requests).toHaveLength(0);
		const yes = io({ PI_CODING_AGENT_DIR: dir.agentDir }, dir.root);
		expect(await runEval(args, yes.io, { stdinIsTTY: true, confirm: async () => true })).toBe(0);
		expect(server.requests.length).toBeGreaterThan(0);
	});

	it("an unknown model, or a provider without a key (exit 1)", async () => {
		const unknown = io({ PI_CODING_AGENT_DIR: dir.agentDir }, dir.root);
		expect(await runCli(["eval", sample(), "--advisor", "mock/nope", "--yes"], unknown.io)).toBe(1);
		expect(unknown.out.stderr).toContain("advisor-ledger eval: --advisor: no model mock/nope in Pi's registry");
		const keyless = io({ PI_CODING_AGENT_DIR: join(dir.root, "empty-agent") }, dir.root);
		const saved = process.env.ANTHROPIC_API_KEY;
		delete process.env.ANTHROPIC_API_KEY;
		try {
			expect(await runCli(["eval", sample(), "--advisor", "anthropic/claude-sonnet-4-5", "--yes"], keyless.io)).toBe(
				1,
			);
		} finally {
			if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
		}
		expect(keyless.out.stderr).toContain("advisor-ledger eval: --advisor: no API key for anthropic");
		expect(existsSync(join(dir.root, "empty-agent"))).toBe(false);
	});

	it("no consultation point in the inputs (exit 2; 3 when an input could not be read)", async () => {
		const before = server.requests.length;
		const file = join(dir.root, "chat.jsonl");
		writeFileSync(
			file,
			`${JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2025-01-01T00:00:00Z", cwd: "/p" })}\n`,
		);
		const empty = io({ PI_CODING_AGENT_DIR: dir.agentDir }, dir.root);
		expect(await runCli(["eval", file, "--advisor", "mock/advisor-1", "--yes"], empty.io)).toBe(2);
		expect(empty.out.stderr).toContain("no consultation point in the sessions read");
		const missing = io({ PI_CODING_AGENT_DIR: dir.agentDir }, dir.root);
		const code = await runCli(
			["eval", join(dir.root, "nothing-here"), "--advisor", "mock/advisor-1", "--yes"],
			missing.io,
		);
		expect(code).toBe(3);
		expect(missing.out.stderr).toContain("skipped nothing-here: no such file or directory");
		expect(server.requests).toHaveLength(before);
	});
});
