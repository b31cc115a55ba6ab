/**
 * The real Pi TUI of each host in tmux, against a 127.0.0.1 mock: what a user sees of the
 * extension. One model spelled one way (name and `provider/model`) in notices, the picker and
 * the card; the picker's filter narrowing to the obvious rows; the footer's dollars in one rule;
 * and advisor.json's warnings shown again when /new re-reads the file, once per read.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createSandbox, describeEachHost, EXTENSION_ENTRY, type PiHost, type Sandbox } from "../../support/hosts.ts";
import { type MockServer, startMockOpenAI } from "../../support/mock-openai.ts";
import { startTmux, type TmuxSession } from "../../support/tmux.ts";

const WARNING = "advisor.json: invalid value for ledger.tailToolCalls";
const ADVISOR = "Advisor Reasoner (mock/adv-r)";
const ANSWER = "Notes done.";

/** Rows of the picker: between its search line (`> query`) and its hint. */
function pickerRows(screen: string[], query: string): string[] {
	// Rows are read with trailing blanks trimmed: an empty query's line is `>`.
	const start = screen.indexOf(`> ${query}`.trimEnd());
	const end = screen.findIndex((row, i) => i > start && row.startsWith("type to filter"));
	return start === -1 || end === -1 ? [] : screen.slice(start + 1, end);
}

const count = (screen: string[], text: string) => screen.filter((row) => row.includes(text)).length;
/** The model picker's title row (it says whether the watch is on). */
const isPickerTitle = (row: string) => /^Advisor model · watch (?:on|off)$/.test(row);

/** Pi's interactive TUI on the mock executor, with only the extension loaded, 200 columns wide. */
function startPi(host: PiHost, sandbox: Sandbox): TmuxSession {
	return startTmux({
		command: [
			host.node,
			host.cli,
			"--model",
			"mock/exec-1",
			"-e",
			EXTENSION_ENTRY,
			"--no-skills",
			"--no-prompt-templates",
			"--no-context-files",
			"--no-themes",
			"--session-dir",
			sandbox.sessions,
		],
		env: sandbox.env,
		cwd: sandbox.project,
		width: 200,
	});
}

describeEachHost("the Pi TUI", (host) => {
	let server: MockServer;
	let sandbox: Sandbox;
	let tui: TmuxSession;

	beforeAll(async () => {
		let calls = 0;
		server = await startMockOpenAI((body) => {
			if (body.model === "adv-r") return { kind: "text", text: "Severity: nit\nKeep it short." };
			if (body.messages.at(-1).role === "tool") return { kind: "text", text: ANSWER };
			return { kind: "toolCall", text: "Plan ok?", id: `call_${++calls}`, name: "advisor", arguments: "{}" };
		});
		sandbox = createSandbox(server.baseUrl);
		// Named models, the advisor priced so one consultation (100 prompt + 10 output tokens) costs $0.0055.
		writeFileSync(
			join(sandbox.agentDir, "models.json"),
			JSON.stringify({
				providers: {
					mock: {
						baseUrl: server.baseUrl,
						api: "openai-completions",
						apiKey: "sk-test",
						compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
						models: [
							{ id: "exec-1", name: "Mock Executor", contextWindow: 32000, maxTokens: 1024 },
							{
								id: "adv-r",
								name: "Advisor Reasoner",
								contextWindow: 32000,
								maxTokens: 1024,
								cost: { input: 50, output: 50, cacheRead: 5, cacheWrite: 50 },
							},
							{ id: "adv-lite", name: "Advisor Lite", contextWindow: 32000, maxTokens: 1024 },
						],
					},
				},
			}),
		);
		writeFileSync(
			join(sandbox.home, ".config/pi-advisor-ledger/advisor.json"),
			JSON.stringify({ modelKey: "mock/adv-r", ledger: { tailToolCalls: -1 } }),
		);
		tui = startPi(host, sandbox);
		await tui.until((s) => count(s, WARNING) > 0, "the startup warning", 60_000);
	}, 90_000);

	afterAll(async () => {
		tui?.kill();
		await server?.close();
		sandbox?.dispose();
	});

	it("shows advisor.json's warning once at startup, and the restored advisor by name and key", () => {
		const screen = tui.screen();
		// The startup banner lists the extension by its entry file: the package's name.
		const extensions = screen.findIndex((row) => row.includes("[Extensions]"));
		expect(extensions).toBeGreaterThan(-1);
		expect(screen.slice(extensions, extensions + 2).join("\n")).toMatch(/pi-advisor-ledger\.ts/);
		expect(count(screen, WARNING)).toBe(1);
		expect(count(screen, `Advisor restored: ${ADVISOR}`)).toBe(1);
	});

	it("the picker narrows `advr` and `no` to the obvious rows, spelled by name and key", async () => {
		tui.type("/advisor");
		tui.keys("Enter");
		await tui.until((s) => s.some(isPickerTitle), "the picker");
		tui.type("advr");
		const advr = await tui.until((s) => s.includes("> advr"), "the `advr` filter");
		expect(pickerRows(advr, "advr")).toEqual([`→ ${ADVISOR}`]);
		tui.keys("BSpace", "BSpace", "BSpace", "BSpace");
		tui.type("no");
		const no = await tui.until((s) => s.includes("> no"), "the `no` filter");
		expect(pickerRows(no, "no")).toHaveLength(1);
		expect(pickerRows(no, "no")[0]).toMatch(/^→ No advisor\s+turn the advisor off$/);
		// The executor's own model is marked before anyone picks it.
		tui.keys("BSpace", "BSpace");
		tui.type("exec");
		const exec = await tui.until((s) => s.includes("> exec"), "the `exec` filter");
		expect(pickerRows(exec, "exec")).toEqual([
			expect.stringMatching(
				/^→ Mock Executor \(mock\/exec-1\)\s+the executor's own model: inactive while it is the executor$/,
			),
		]);
		tui.keys("Escape");
		await tui.until((s) => !s.some(isPickerTitle), "the picker to close");
	});

	it("the card names the advisor the same way; the footer shows tenths of a cent, then $0.011", async () => {
		tui.type("Write the notes");
		tui.keys("Enter");
		const first = await tui.until((s) => count(s, ANSWER) === 1 && count(s, "Advisor $") === 1, "the answer");
		expect(count(first, `Severity: nit · ${ADVISOR}`)).toBe(1);
		// A 100-token request: under the model's minimum cacheable prompt (1,024 for a model the table does not
		// name), which the card says instead of a share of 0.
		expect(
			count(first, `Severity: nit · ${ADVISOR} · $0.005 · 1 request · under the 1,024-token cache minimum`),
		).toBe(1);
		expect(first.filter((row) => row.startsWith("Advisor $"))).toEqual(["Advisor $0.005 · cache 0%"]);
		tui.type("Again");
		tui.keys("Enter");
		const second = await tui.until(
			(s) => count(s, ANSWER) === 2 && count(s, "Advisor $0.005") === 0,
			"the second answer",
		);
		expect(second.filter((row) => row.startsWith("Advisor $"))).toEqual(["Advisor $0.011 · cache 0%"]);
	});

	it("/advisor stats opens a panel with the branch's figures; esc closes it", async () => {
		tui.type("/advisor stats");
		// The first Enter takes the argument completion (`stats`, the same text), the second sends it.
		await tui.until((s) => s.some((row) => /^\s*→?\s*stats\s/.test(row)), "the argument completion");
		tui.keys("Enter");
		await tui.until((s) => !s.some((row) => /^\s*→?\s*stats\s/.test(row)), "the completion to close");
		tui.keys("Enter");
		const panel = await tui.until((s) => s.some((row) => row.includes("esc or enter to close")), "the stats panel");
		const at = panel.findIndex((row) => row.startsWith("Advisor on this branch"));
		expect(at).toBeGreaterThan(-1);
		expect(panel[at + 1]).toBe("  2 consultations, 0 reviews, 0 warming refreshes");
		expect(panel[at + 2]).toBe("  2 requests: 200 fresh + 0 cache read + 0 cache write prompt tokens, 20 output");
		expect(panel[at + 3]).toBe("  $0.011, 0% of prompt tokens from cache");
		expect(
			panel.some((row) => row.startsWith("  full context: the first requests at the same 2 consultations")),
		).toBe(true);
		tui.keys("Escape");
		await tui.until((s) => !s.some((row) => row.includes("esc or enter to close")), "the panel to close");
	});

	it("/new re-reads advisor.json and shows its warning again, once", async () => {
		tui.type("/new");
		tui.keys("Enter");
		const screen = await tui.until((s) => {
			const started = s.findIndex((row) => row.includes("New session started"));
			return started !== -1 && s.slice(started).some((row) => row.includes(WARNING));
		}, "the warning after /new");
		expect(count(screen, WARNING)).toBe(1);
	});

	it("/advisor watch turns the watch on: saved in advisor.json, said, and the picker's title says it", async () => {
		const file = join(sandbox.home, ".config/pi-advisor-ledger/advisor.json");
		tui.type("/advisor watch");
		// As with stats: the first Enter takes the completion (the same text), the second sends it.
		await tui.until((s) => s.some((row) => /^\s*→?\s*watch\s+turn the watch on/.test(row)), "the completion");
		tui.keys("Enter");
		await tui.until((s) => !s.some((row) => /^\s*→?\s*watch\s+turn the watch/.test(row)), "the completion to close");
		tui.keys("Enter");
		await tui.until((s) => count(s, "Advisor watch on: after each executor turn") === 1, "the notice");
		expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
			modelKey: "mock/adv-r",
			ledger: { tailToolCalls: -1 },
			watch: { enabled: true },
		});
		tui.type("/advisor");
		tui.keys("Enter");
		await tui.until((s) => s.includes("Advisor model · watch on"), "the picker, saying the watch is on");
		tui.keys("Escape");
		await tui.until((s) => !s.some(isPickerTitle), "the picker to close");
	});
});

/**
 * A saved modelKey whose provider has no key, in the real TUI of each host: one warning at
 * startup and no `Advisor restored`; /advisor opens on the saved choice, saying why it is off;
 * advisor.json is left byte for byte.
 */
describeEachHost("the Pi TUI with a saved model that has no key", (host) => {
	const FILE_TEXT = '{"modelKey": "openai/gpt-5", "effort": "high"}';
	const NOTICE = 'advisor.json: modelKey "openai/gpt-5"';
	let server: MockServer;
	let sandbox: Sandbox;
	let tui: TmuxSession;
	let file: string;

	beforeAll(async () => {
		server = await startMockOpenAI(() => ({ kind: "text", text: "unused" }));
		sandbox = createSandbox(server.baseUrl);
		file = join(sandbox.home, ".config/pi-advisor-ledger/advisor.json");
		writeFileSync(file, FILE_TEXT);
		tui = startPi(host, sandbox);
		await tui.until((s) => count(s, NOTICE) > 0, "the startup warning", 60_000);
	}, 90_000);

	afterAll(async () => {
		tui?.kill();
		await server?.close();
		sandbox?.dispose();
	});

	it("warns once at startup, saying why, and does not announce the advisor", () => {
		const screen = tui.screen();
		expect(count(screen, NOTICE)).toBe(1);
		// The line wraps at the terminal's width: each part of why on its own.
		expect(count(screen, "has no credentials: Pi has no API key or login for")).toBe(1);
		expect(count(screen, "provider openai — advisor off for this session; the file is left as it is")).toBe(1);
		expect(count(screen, "Advisor restored")).toBe(0);
	});

	it("/advisor opens on the saved choice with why it is not active; Esc leaves the file byte for byte", async () => {
		tui.type("/advisor");
		tui.keys("Enter");
		const screen = await tui.until((s) => s.some(isPickerTitle), "the picker");
		const rows = pickerRows(screen, "");
		expect(rows[0]).toMatch(/^ {2}No advisor\s+turn the advisor off$/);
		expect(rows[1]).toMatch(/^→ .*\(openai\/gpt-5\)\s+saved, inactive: no API key or login for openai$/);
		tui.keys("Escape");
		await tui.until((s) => !s.some(isPickerTitle), "the picker to close");
		expect(readFileSync(file, "utf8")).toBe(FILE_TEXT);
	});
});
