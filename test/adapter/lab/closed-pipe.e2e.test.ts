// The built CLI when the reader of its output goes away (`advisor-ledger render FILE | head -1`,
// `less` quit early): every command stops quietly, exit 0, nothing on stderr, no file left
// half-written (docs/cli.md, "When the reader goes away"). stdout is a real pipe (a FIFO whose ends
// this test holds), and its read end is closed by the test: either before the CLI starts, so the
// first write finds nobody, or once the first bytes arrived, with far more than a pipe holds still
// to come. Nothing waits on time: a hang runs into the spawn guard and fails.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSession } from "../../../bench/generate.ts";
import { type Built, buildCli, repoRoot, runBuilt, samplesDir } from "../../support/cli-build.ts";
import { advice, judgeLabels, judgeReply, mockAgentDir, requestKind } from "../../support/eval-mock.ts";
import { startMockLlm } from "../../support/mock-llm.ts";

let built: Built;
let work: string;
let fifos = 0;

/** Longer than any honest run here on a loaded machine; a hang runs into it. */
const HANG_MS = 60_000;

beforeAll(() => {
	built = buildCli();
	work = mkdtempSync(path.join(repoRoot, ".tmp", "closed-pipe-"));
}, 120_000);

afterAll(() => {
	built?.dispose();
	if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** A pipe: its read end (non-blocking, for this process) and its write end (for the CLI). */
function pipe(): { read: number; write: number } {
	const file = path.join(work, `pipe-${fifos++}`);
	execFileSync("mkfifo", [file]);
	const read = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
	return { read, write: openSync(file, constants.O_WRONLY) };
}

interface Ended {
	code: number | null;
	stdout: string;
	stderr: string;
}

type Reader = "gone" | "first-bytes";

/**
 * Spawns the built CLI with `reader` on one of its outputs (stdout unless `stream` says stderr) and
 * a plain captured pipe on the other.
 */
function runWithReader(
	args: readonly string[],
	reader: Reader,
	options: { env?: NodeJS.ProcessEnv; cwd?: string; stream?: "stdout" | "stderr" } = {},
): Promise<Ended> {
	const ends = pipe();
	if (reader === "gone") closeSync(ends.read);
	const watched = options.stream ?? "stdout";
	const child: ChildProcess = spawn(process.execPath, [built.main, ...args], {
		cwd: options.cwd ?? repoRoot,
		env: { PATH: process.env.PATH, HOME: path.join(work, "home"), ...options.env },
		stdio: watched === "stdout" ? ["ignore", ends.write, "pipe"] : ["ignore", "pipe", ends.write],
	});
	closeSync(ends.write);
	let socket: net.Socket | undefined;
	if (reader === "first-bytes") {
		socket = new net.Socket({ fd: ends.read, readable: true, writable: false });
		socket.once("data", () => socket?.destroy());
		socket.on("error", () => {});
	}
	const captured = { stdout: "", stderr: "" };
	const other = watched === "stdout" ? "stderr" : "stdout";
	child[other]?.setEncoding("utf8");
	child[other]?.on("data", (text: string) => {
		captured[other] += text;
	});
	return new Promise((resolve) => {
		const guard = setTimeout(() => child.kill("SIGKILL"), HANG_MS);
		child.on("close", (code) => {
			clearTimeout(guard);
			socket?.destroy();
			resolve({ code, ...captured });
		});
	});
}

const tools = path.join(samplesDir, "tools.jsonl");
/** A long sample whose reader diagnostics `render` prints on stderr after the request. */
const damaged = path.join(samplesDir, "long", "gjc-inline-agent-design.jsonl");

describe("the reader is gone before the first byte: exit 0, nothing on stderr", () => {
	const commands: [string, string[]][] = [
		["replay", ["replay", tools]],
		["replay --json", ["replay", tools, "--json"]],
		["render", ["render", damaged]],
		["render --json", ["render", damaged, "--json"]],
		["stats", ["stats", tools]],
		["stats --json", ["stats", tools, "--json"]],
		["--help", ["--help"]],
		["replay --help", ["replay", "--help"]],
		["--version", ["--version"]],
	];
	for (const [name, args] of commands) {
		it(
			name,
			async () => {
				const r = await runWithReader(args, "gone");
				expect(r.stderr).toBe("");
				expect(r.code).toBe(0);
			},
			HANG_MS,
		);
	}

	it(
		"render stops there: the diagnostics it prints after the request never come",
		async () => {
			const normal = await runBuilt(built.main, ["render", damaged]);
			expect(normal.code).toBe(0);
			expect(normal.stderr).toContain("reader diagnostics");
			const closed = await runWithReader(["render", damaged], "gone");
			expect(closed).toMatchObject({ code: 0, stderr: "" });
		},
		2 * HANG_MS,
	);

	it(
		"replay --svg: the chart is written whole before the report, the same as with a reader",
		async () => {
			const normalChart = path.join(work, "normal.svg");
			const normal = await runBuilt(built.main, ["replay", tools, "--svg", normalChart]);
			expect(normal.code).toBe(0);
			const chart = path.join(work, "closed.svg");
			const closed = await runWithReader(["replay", tools, "--svg", chart], "gone");
			expect(closed).toMatchObject({ code: 0, stderr: "" });
			expect(readFileSync(chart, "utf8")).toBe(readFileSync(normalChart, "utf8"));
		},
		2 * HANG_MS,
	);
});

describe("the reader leaves after the first bytes, with far more than a pipe holds still to come", () => {
	let session: string;
	let config: string;

	beforeAll(() => {
		// A bad last line: render reports it on stderr after the request, unless it stopped first.
		session = path.join(work, "long-session.jsonl");
		writeFileSync(session, `${generateSession(3000).jsonl}not json\n`);
		// The log keeps every entry, so the request is hundreds of KB: far more than a pipe holds.
		config = path.join(work, "whole-log.json");
		writeFileSync(config, JSON.stringify({ ledger: { logTargetTokens: 0 } }));
	});

	for (const json of [false, true]) {
		it(
			`render${json ? " --json" : ""} stops at the write that finds the pipe closed`,
			async () => {
				const r = await runWithReader(
					["render", session, "--config", config, ...(json ? ["--json"] : [])],
					"first-bytes",
				);
				expect(r.stderr).toBe("");
				expect(r.code).toBe(0);
			},
			HANG_MS,
		);
	}
});

describe("eval, whose report goes to stdout after its records are written", () => {
	it(
		"exit 0, nothing on stderr beyond a normal run's, the reports in --out whole",
		async () => {
			let judged = 0;
			const server = await startMockLlm((_api, body) => {
				const kind = requestKind(body);
				if (kind !== "judge") return advice(kind);
				judged++;
				return { text: judgeReply(judgeLabels(body)), promptTokens: 2000, outputTokens: 120 };
			});
			const dir = mockAgentDir(server.baseUrl);
			try {
				const args = ["eval", tools, "--advisor", "mock/advisor-1", "--points", "2", "--yes", "--out", "out"];
				const run = async (name: string, reader: Reader | undefined) => {
					const cwd = path.join(work, name);
					mkdirSync(cwd);
					const env = { PI_CODING_AGENT_DIR: dir.agentDir };
					const ended =
						reader === undefined
							? await runBuilt(built.main, args, { ...env, HOME: path.join(work, "home") }, cwd)
							: await runWithReader(args, reader, { env, cwd });
					const report = (file: string) => readFileSync(path.join(cwd, "out", file), "utf8");
					return { ended, md: report("report.md"), json: report("report.json") };
				};
				const normal = await run("eval-normal", undefined);
				expect(normal.ended.code).toBe(0);
				expect(normal.ended.stdout).toContain(normal.md.split("\n")[0]);
				const closed = await run("eval-closed", "gone");
				expect(closed.ended.code).toBe(0);
				expect(closed.ended.stderr).toBe(normal.ended.stderr);
				expect(closed.md).toBe(normal.md);
				expect(closed.json).toBe(normal.json);
				expect(judged).toBeGreaterThan(0);
			} finally {
				dir.dispose();
				await server.close();
			}
		},
		4 * HANG_MS,
	);
});

describe("a closed stderr only loses the diagnostics", () => {
	it(
		"stats on a missing file: the report still reaches stdout, exit 3 for the missing input",
		async () => {
			const r = await runWithReader(["stats", tools, path.join(work, "missing.jsonl")], "gone", {
				stream: "stderr",
			});
			expect(r.code).toBe(3);
			expect(r.stdout).toContain("tools.jsonl");
		},
		HANG_MS,
	);
});
