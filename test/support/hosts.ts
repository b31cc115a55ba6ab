/**
 * The Pi hosts the end-to-end tests run on, and a sandbox to run the real `pi` CLI in.
 *
 * - Pi 0.73.1 (`@mariozechner/pi-coding-agent`, the devDependency) under the Node running the tests;
 * - Pi 1.6.0 (`@earendil-works/pi-coding-agent`) under Node 22, both installed by
 *   scripts/install-hosts.mjs into `.cache/hosts/` (`npm run hosts`); when that did not happen or
 *   failed, the host is reported unavailable with the reason, and its tests are skipped by name.
 *
 * The sandbox is a temp HOME holding Pi's agent dir (models.json pointing at a 127.0.0.1 mock,
 * settings.json), advisor.json under ~/.config, a session dir and a git repo as the project:
 * the user's own ~/.pi and ~/.config are never read or written.
 */

import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { advisorSystemPrompt, CONSULT_INSTRUCTION, LOG_OPEN } from "../../src/render/model-text.ts";
import type { MockReply, MockRequest } from "./mock-openai.ts";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const EXTENSION_ENTRY = join(REPO_ROOT, "src/adapter/extension/pi-advisor-ledger.ts");
export const HOSTS_MANIFEST = join(REPO_ROOT, ".cache/hosts/hosts.json");
export const INSTALL_HINT = "npm run hosts";

export interface PiHost {
	id: "pi-0.73.1" | "pi-1.6.0";
	/** e.g. `Pi 1.6.0 (Node v22.23.5)`. */
	label: string;
	piVersion: string;
	/** The node binary the host runs under. */
	node: string;
	/** The `pi` CLI script (the package's `bin.pi`). */
	cli: string;
	/** The package's ESM entry (createAgentSession and friends). */
	sdk: string;
}

export type HostSlot = { available: true; host: PiHost } | { available: false; label: string; reason: string };

function ownHost(): HostSlot {
	const pkg = join(REPO_ROOT, "node_modules/@mariozechner/pi-coding-agent");
	const cli = join(pkg, "dist/cli.js");
	if (!existsSync(cli)) return { available: false, label: "Pi 0.73.1", reason: `${cli} missing: run npm ci` };
	const { version } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { version: string };
	return {
		available: true,
		host: {
			id: "pi-0.73.1",
			label: `Pi ${version} (Node ${process.version})`,
			piVersion: version,
			node: process.execPath,
			cli,
			sdk: join(pkg, "dist/index.js"),
		},
	};
}

interface ManifestEntry {
	available: boolean;
	piVersion: string;
	nodeVersion?: string;
	node?: string;
	cli?: string;
	reason?: string;
}

function cachedHost(): HostSlot {
	const label = "Pi 1.6.0 (Node 22)";
	if (!existsSync(HOSTS_MANIFEST)) {
		return { available: false, label, reason: `not installed: run \`${INSTALL_HINT}\` (.ci/run does)` };
	}
	const entry = (JSON.parse(readFileSync(HOSTS_MANIFEST, "utf8")) as { hosts: Record<string, ManifestEntry> }).hosts[
		"pi-1.6.0"
	];
	if (!entry?.available || !entry.node || !entry.cli) {
		return { available: false, label, reason: `install failed: ${entry?.reason ?? "no entry in hosts.json"}` };
	}
	const node = join(REPO_ROOT, entry.node);
	const cli = join(REPO_ROOT, entry.cli);
	for (const path of [node, cli]) {
		if (!existsSync(path)) return { available: false, label, reason: `${path} missing: run \`${INSTALL_HINT}\`` };
	}
	return {
		available: true,
		host: {
			id: "pi-1.6.0",
			label: `Pi ${entry.piVersion} (Node ${entry.nodeVersion})`,
			piVersion: entry.piVersion,
			node,
			cli,
			// dist/bundle/cli.js -> dist/index.js
			sdk: join(dirname(dirname(cli)), "index.js"),
		},
	};
}

/** Both hosts, in a fixed order; an unavailable one carries why. */
export function piHosts(): HostSlot[] {
	return [ownHost(), cachedHost()];
}

export function slotLabel(slot: HostSlot): string {
	return slot.available ? slot.host.label : slot.label;
}

export interface ProcessResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs a script under a host's node, with no stdin (Pi reads piped stdin as part of the prompt). */
export function runNode(node: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
	return new Promise<ProcessResult>((resolvePromise, reject) => {
		const child = spawn(node, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d) => {
			stdout += d;
		});
		child.stderr.on("data", (d) => {
			stderr += d;
		});
		child.on("error", reject);
		child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
	});
}

export function runPi(host: PiHost, args: string[], sandbox: Sandbox): Promise<ProcessResult> {
	return runNode(host.node, [host.cli, ...args], { cwd: sandbox.project, env: sandbox.env });
}

export const EXECUTOR_MODEL = "exec-1";
export const API_KEY = "sk-test";
export const ADVISOR_MODEL = "advisor-1";

export interface Sandbox {
	root: string;
	home: string;
	agentDir: string;
	project: string;
	sessions: string;
	env: NodeJS.ProcessEnv;
	/** The `.jsonl` session files written so far, oldest name first. */
	sessionFiles(): string[];
	dispose(): void;
}

/**
 * A fresh HOME with Pi's agent dir in it: provider `mock` (executor `exec-1`, advisor `advisor-1`)
 * at `baseUrl`, and advisor.json selecting `mock/advisor-1`.
 */
export function createSandbox(baseUrl: string, advisorConfig: Record<string, unknown> = {}): Sandbox {
	const root = mkdtempSync(join(tmpdir(), "advisor-hosts-"));
	const home = join(root, "home");
	const agentDir = join(home, ".pi", "agent");
	const project = join(root, "project");
	const sessions = join(root, "sessions");
	const configDir = join(home, ".config", "pi-advisor-ledger");
	for (const dir of [agentDir, project, sessions, configDir]) mkdirSync(dir, { recursive: true });
	execFileSync("git", ["init", "-q"], { cwd: project });
	writeFileSync(
		join(agentDir, "models.json"),
		JSON.stringify({
			providers: {
				mock: {
					baseUrl,
					api: "openai-completions",
					// A literal key: an environment variable is named bare on 0.73 (`NAME`) and as `$NAME` on 1.x.
					apiKey: API_KEY,
					compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
					models: [
						{ id: EXECUTOR_MODEL, name: "Mock Executor", contextWindow: 32000, maxTokens: 1024 },
						{ id: ADVISOR_MODEL, name: "Mock Advisor", contextWindow: 32000, maxTokens: 1024 },
					],
				},
			},
		}),
	);
	writeFileSync(join(agentDir, "settings.json"), "{}");
	writeFileSync(
		join(configDir, "advisor.json"),
		JSON.stringify({ modelKey: `mock/${ADVISOR_MODEL}`, ...advisorConfig }),
	);
	const env: NodeJS.ProcessEnv = {
		PATH: process.env.PATH,
		HOME: home,
		// Set explicitly although it is the default under HOME: a stray value in the caller's
		// environment must not point Pi at a real agent dir.
		PI_CODING_AGENT_DIR: agentDir,
		PI_OFFLINE: "1",
		PI_SKIP_VERSION_CHECK: "1",
		PI_TELEMETRY: "0",
	};
	return {
		root,
		home,
		agentDir,
		project,
		sessions,
		env,
		sessionFiles: () =>
			readdirSync(sessions)
				.filter((f) => f.endsWith(".jsonl"))
				.sort()
				.map((f) => join(sessions, f)),
		dispose: () => rmSync(root, { recursive: true, force: true }),
	};
}

/** Flags that keep a print-mode run to what the test set up. */
export function printArgs(sandbox: Sandbox, prompt: string, extra: string[] = []): string[] {
	return [
		"--print",
		"--model",
		`mock/${EXECUTOR_MODEL}`,
		...extra,
		"--no-skills",
		"--no-prompt-templates",
		"--no-context-files",
		"--no-themes",
		"--session-dir",
		sandbox.sessions,
		prompt,
	];
}

export function readJsonl(file: string): any[] {
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line));
}

/**
 * Declares `body` once per host, in a describe named after it. A host that is not available gets
 * one skipped test whose name says why, and a line on stderr, so a missing host never reads as a pass.
 */
export function describeEachHost(title: string, body: (host: PiHost) => void): void {
	for (const slot of piHosts()) {
		if (slot.available) {
			describe(`${title} — ${slot.host.label}`, () => body(slot.host));
			continue;
		}
		process.stderr.write(`[hosts] ${title} — ${slot.label}: SKIPPED, ${slot.reason}\n`);
		describe(`${title} — ${slot.label}`, () => {
			it(`SKIPPED: ${slot.label} is not available`, (ctx) => ctx.skip(slot.reason));
		});
	}
}

// ---------------------------------------------------------------------------------------------
// One scripted consultation, the same on every host
// ---------------------------------------------------------------------------------------------

export const PROMPT = "Add a CONTRIBUTING file, please.";
export const QUESTION = "Is a single file enough?";
export const ADVICE = "Severity: nit\nPrefer a smaller diff: add only CONTRIBUTING.md.";
export const FINAL = "Final answer after advice.";
const CALL_ID = "call_adv_1";

/** The executor calls advisor() with a question, then answers FINAL; the advisor answers ADVICE. */
export function consultationRoute(body: any): MockReply {
	if (body.model === ADVISOR_MODEL) return { kind: "text", text: ADVICE };
	if (body.messages.at(-1).role === "tool") return { kind: "text", text: FINAL };
	return { kind: "toolCall", text: QUESTION, id: CALL_ID, name: "advisor", arguments: "{}" };
}

function partsOf(message: any): string[] {
	if (typeof message.content === "string") return [message.content];
	return message.content.filter((p: any) => p.type === "text").map((p: any) => p.text);
}

/**
 * What one consultation leaves behind, whatever the host: the executor was offered advisor(), the
 * advisor request has the ledger's shape (system prompt, catalogue, `<executor_log>` ending on the
 * instruction, the investigation tools), and the advice came back as the tool result, both to the
 * executor's next request and in the session file.
 */
export function expectOneConsultation(requests: readonly MockRequest[], sessionFile: string): void {
	const executor = requests.filter((r) => r.body.model === EXECUTOR_MODEL);
	const advisor = requests.filter((r) => r.body.model === ADVISOR_MODEL);
	expect(executor).toHaveLength(2);
	expect(advisor).toHaveLength(1);

	expect(executor[0]!.body.tools.map((t: any) => t.function.name)).toContain("advisor");
	const toolMessage = executor[1]!.body.messages.at(-1);
	expect(toolMessage).toMatchObject({ role: "tool", tool_call_id: CALL_ID });
	expect(partsOf(toolMessage).join("")).toBe(ADVICE);

	const { body, headers } = advisor[0]!;
	// The advisor is called with the key the host resolved for its model, as the executor is.
	expect(headers.authorization).toBe(`Bearer ${API_KEY}`);
	expect(executor[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
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
	expect(log.join("")).toContain(`<question>\n${QUESTION}\n</question>`);
	expect(log.at(-1)).toBe(CONSULT_INSTRUCTION);

	const entries = readJsonl(sessionFile);
	const results = entries.filter((e) => e.type === "message" && e.message.role === "toolResult").map((e) => e.message);
	expect(results).toHaveLength(1);
	expect(results[0]).toMatchObject({
		toolName: "advisor",
		toolCallId: CALL_ID,
		isError: false,
		content: [{ type: "text", text: ADVICE }],
		details: { advisorModel: `mock:${ADVISOR_MODEL}`, severity: "nit", stopReason: "stop" },
	});
	const last = entries.at(-1).message;
	expect(last).toMatchObject({ role: "assistant", stopReason: "stop", content: [{ type: "text", text: FINAL }] });
}
