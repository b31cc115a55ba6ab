/**
 * The whole `advisor-ledger eval` command, in-process, against the local mock provider: models and
 * keys from a models.json in a temporary agent dir (PI_CODING_AGENT_DIR), the sample sessions as
 * input, a scripted advisor and judge. The report it prints is shown in the test output.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Io } from "../../../src/adapter/cli/io.ts";
import { runCli } from "../../../src/adapter/cli/run.ts";
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
	});
});
