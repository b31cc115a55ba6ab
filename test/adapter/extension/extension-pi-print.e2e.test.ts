/**
 * The real `pi` CLI in print mode, the extension loaded with `-e`, a custom provider in a temp
 * agent dir's models.json pointing at a local OpenAI-compatible server: the executor calls
 * advisor(), and the server sees the advisor request the ledger built.
 */

import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { advisorSystemPrompt, CONSULT_INSTRUCTION, LOG_OPEN } from "../../../src/render/index.ts";
import { type MockServer, startMockOpenAI } from "../../support/mock-openai.ts";
import { EXTENSION_PATH, REPO_ROOT } from "../../support/pi-host.ts";

const PI_CLI = join(REPO_ROOT, "node_modules/@mariozechner/pi-coding-agent/dist/cli.js");
const ADVICE = "Severity: nit\nPrefer a smaller diff: add only CONTRIBUTING.md.";
const FINAL = "Final answer after advice.";
const PROMPT = "Add a CONTRIBUTING file, please.";

function partsOf(message: any): string[] {
	if (typeof message.content === "string") return [message.content];
	return message.content.filter((p: any) => p.type === "text").map((p: any) => p.text);
}

function run(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
	return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
		const child = spawn(process.execPath, [PI_CLI, ...args], {
			cwd: options.cwd,
			env: options.env,
			// Pi reads piped stdin as part of the prompt: give it none.
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d) => {
			stdout += d;
		});
		child.stderr.on("data", (d) => {
			stderr += d;
		});
		child.on("error", reject);
		child.on("close", (code) => resolve({ code, stdout, stderr }));
	});
}

describe("pi --print -e ./src/adapter/pi-advisor-ledger.ts against an OpenAI-compatible server", () => {
	let server: MockServer;
	let root: string;
	let result: { code: number | null; stdout: string; stderr: string };
	let sessionFile: string;

	beforeAll(async () => {
		server = await startMockOpenAI((body) => {
			if (body.model === "advisor-1") return { kind: "text", text: ADVICE };
			const last = body.messages.at(-1);
			if (last.role === "tool") return { kind: "text", text: FINAL };
			return {
				kind: "toolCall",
				text: "Is a single file enough?",
				id: "call_adv_1",
				name: "advisor",
				arguments: "{}",
			};
		});
		root = mkdtempSync(join(tmpdir(), "advisor-cli-"));
		const agentDir = join(root, "agent");
		const project = join(root, "project");
		const sessions = join(root, "sessions");
		const xdg = join(root, "xdg");
		for (const dir of [agentDir, project, sessions, join(xdg, "pi-advisor-ledger")])
			mkdirSync(dir, { recursive: true });
		execFileSync("git", ["init", "-q"], { cwd: project });
		writeFileSync(
			join(agentDir, "models.json"),
			JSON.stringify({
				providers: {
					mock: {
						baseUrl: server.baseUrl,
						api: "openai-completions",
						apiKey: "MOCK_API_KEY",
						compat: {
							supportsDeveloperRole: false,
							supportsReasoningEffort: false,
							sendSessionAffinityHeaders: true,
						},
						models: [
							{ id: "exec-1", name: "Mock Executor", contextWindow: 32000, maxTokens: 1024 },
							{ id: "advisor-1", name: "Mock Advisor", contextWindow: 32000, maxTokens: 1024 },
						],
					},
				},
			}),
		);
		writeFileSync(join(agentDir, "settings.json"), "{}");
		writeFileSync(join(xdg, "pi-advisor-ledger", "advisor.json"), JSON.stringify({ modelKey: "mock/advisor-1" }));

		result = await run(
			[
				"--print",
				"--model",
				"mock/exec-1",
				"-e",
				EXTENSION_PATH,
				"--no-skills",
				"--no-prompt-templates",
				"--no-context-files",
				"--no-themes",
				"--session-dir",
				sessions,
				PROMPT,
			],
			{
				cwd: project,
				env: {
					PATH: process.env.PATH,
					HOME: root,
					MOCK_API_KEY: "sk-test",
					PI_CODING_AGENT_DIR: agentDir,
					PI_OFFLINE: "1",
					PI_TELEMETRY: "0",
					XDG_CONFIG_HOME: xdg,
				},
			},
		);
		const files = readdirSync(sessions).filter((f) => f.endsWith(".jsonl"));
		sessionFile = join(sessions, files[0] ?? "missing.jsonl");
	}, 60_000);

	afterAll(async () => {
		await server?.close();
		if (root) rmSync(root, { recursive: true, force: true });
	});

	it("runs to the end with the advice in hand", () => {
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		expect(result.stdout.trim()).toBe(FINAL);
	});

	it("the executor saw advisor() and got the advice back as its tool result", () => {
		const executor = server.requests.filter((r) => r.body.model === "exec-1");
		expect(executor).toHaveLength(2);
		expect(executor[0]!.body.tools.map((t: any) => t.function.name)).toContain("advisor");
		const toolMessage = executor[1]!.body.messages.at(-1);
		expect(toolMessage.role).toBe("tool");
		expect(partsOf(toolMessage).join("")).toBe(ADVICE);
	});

	it("the advisor request: system prompt, catalogue, the log as user data, ending on the instruction", () => {
		const advisor = server.requests.filter((r) => r.body.model === "advisor-1");
		expect(advisor).toHaveLength(1);
		const { body, headers } = advisor[0]!;
		// The default `tools` config: the advisor's read-only tools, as provider tools.
		expect(body.tools.map((t: any) => t.function.name)).toEqual([
			"advisor_expand",
			"read",
			"grep",
			"find",
			"ls",
			"git_diff",
		]);
		expect(body.messages.map((m: any) => m.role)).toEqual(["system", "user", "user"]);
		expect(partsOf(body.messages[0]).join("")).toBe(advisorSystemPrompt("repo"));
		const catalogue = partsOf(body.messages[1]).join("");
		expect(catalogue.startsWith("<tool_catalogue>\n")).toBe(true);
		expect(catalogue).toContain("- advisor — Ask a stronger reviewer model for advice.");
		const log = partsOf(body.messages[2]);
		expect(log[0]).toBe(LOG_OPEN);
		expect(log.join("")).toContain(PROMPT);
		expect(log.join("")).toContain("<question>\nIs a single file enough?\n</question>");
		expect(log.at(-1)).toBe(CONSULT_INSTRUCTION);
		expect(headers.authorization).toBe("Bearer sk-test");

		const header = JSON.parse(readFileSync(sessionFile, "utf8").split("\n")[0]!);
		expect(headers.session_id).toBe(`advisor:${header.id}`);
		// The executor's own requests use the bare session id: the advisor's cache key is its own.
		expect(server.requests.find((r) => r.body.model === "exec-1")!.headers.session_id).toBe(header.id);
	});

	it("the session file records the envelope", () => {
		const entries = readFileSync(sessionFile, "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line));
		const result = entries.find((e) => e.type === "message" && e.message.role === "toolResult")!.message;
		expect(result.toolName).toBe("advisor");
		expect(result.isError).toBe(false);
		expect(result.content).toEqual([{ type: "text", text: ADVICE }]);
		expect(result.details).toMatchObject({
			advisorModel: "mock:advisor-1",
			severity: "nit",
			stopReason: "stop",
			attempts: [{ stopReason: "stop" }],
			request: { messageCount: 2 },
		});
		expect(result.details.usage.input).toBe(100);
		expect(result.details.effort).toBeUndefined();
	});
});
