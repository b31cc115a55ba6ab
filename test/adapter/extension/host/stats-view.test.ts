/**
 * `/advisor stats` without a host: /advisor dispatches on its argument first (stats, none, anything
 * else), stats works without a UI and never stops cache warming, and the TUI panel shows the same lines.
 */

import type { AssistantMessage } from "@mariozechner/pi-ai";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { inventoryMessage } from "../../../../src/adapter/extension/baseline/messages.ts";
import { createAdvisorRuntime } from "../../../../src/adapter/extension/host/activation-state.ts";
import { createAdvisorCommand } from "../../../../src/adapter/extension/host/advisor-command.ts";
import { liveStats, StatsPanel } from "../../../../src/adapter/extension/host/stats-view.ts";
import { advisorUsage, STATS_HINT } from "../../../../src/adapter/extension/pi/notices.ts";
import { sessionStats } from "../../../../src/adapter/extension/stats/session-stats.ts";
import { statsLines } from "../../../../src/adapter/extension/stats/stats-text.ts";
import { entryRecords } from "../../../../src/events/index.ts";
import { zeroUsage } from "../../../../src/render/index.ts";
import { KEYS } from "../../../support/pi-host.ts";
import { testTempDir } from "../../../support/temp.ts";

const plain = { fg: (_c: string, t: string) => t, bold: (t: string) => t };

/** A live session with one consultation of two requests, billed. */
function session(): SessionManager {
	const sm = SessionManager.inMemory("/tmp/x");
	sm.appendMessage({ role: "user", content: "Fix it.", timestamp: 0 });
	sm.appendMessage({
		role: "assistant",
		content: [{ type: "toolCall", id: "adv1", name: "advisor", arguments: {} }],
		api: "x",
		provider: "exec",
		model: "small",
		usage: zeroUsage(),
		stopReason: "toolUse",
		timestamp: 0,
	} as AssistantMessage);
	const usage = (input: number, cacheRead: number, total: number) => ({
		...zeroUsage(),
		input,
		cacheRead,
		output: 10,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
	});
	sm.appendMessage({
		role: "toolResult",
		toolCallId: "adv1",
		toolName: "advisor",
		content: [{ type: "text", text: "Severity: none\nFine." }],
		details: {
			advisorModel: "anthropic:claude-sonnet-4-5",
			usage: { ...usage(1_100, 900, 0.004), output: 20 },
			attempts: [
				{ usage: usage(1_000, 0, 0.003), stopReason: "toolUse" },
				{ usage: usage(100, 900, 0.001), stopReason: "stop" },
			],
		},
		isError: false,
		timestamp: 0,
	} as never);
	return sm;
}

function host(hasUI: boolean, custom?: (factory: unknown) => Promise<unknown>) {
	const sm = session();
	const notes: [string, string | undefined][] = [];
	const stderr: string[] = [];
	const printed: string[] = [];
	let invoked = 0;
	const command = createAdvisorCommand({
		pi: {
			getActiveTools: () => [],
			setActiveTools: () => {},
			getThinkingLevel: () => "off",
			getAllTools: () => [],
		},
		runtime: createAdvisorRuntime({ env: { XDG_CONFIG_HOME: testTempDir("adv-stats-") } }),
		onInvoke: () => {
			invoked++;
		},
		stderr: (line) => stderr.push(line),
		print: (text) => printed.push(text),
	});
	const ctx = {
		hasUI,
		sessionManager: sm,
		modelRegistry: { find: () => undefined, getAvailable: () => [] },
		ui: {
			notify: (m: string, t?: string) => notes.push([m, t]),
			custom: custom ?? (async () => undefined),
			select: async () => undefined,
		},
	};
	return { command, ctx, notes, stderr, printed, invoked: () => invoked, sm };
}

describe("/advisor dispatches on its argument first", () => {
	it("stats without a UI prints the session's stats as plain text and leaves warming alone", async () => {
		const h = host(false);
		await h.command.handler("  stats ", h.ctx as never);
		const expected = statsLines(
			sessionStats({
				entries: entryRecords(h.sm.getEntries()),
				path: entryRecords(h.sm.getBranch()),
				inventory: inventoryMessage([]),
				price: () => undefined,
			}),
		);
		expect(h.printed).toEqual([`${expected.join("\n")}\n`]);
		expect(h.printed[0]).toContain("1 consultation, 0 reviews, 0 warming refreshes");
		expect(h.printed[0]).toContain(
			"2 requests: 1,100 fresh + 900 cache read + 0 cache write prompt tokens, 20 output",
		);
		expect(h.printed[0]).toContain("$0.004 · 2 requests · 45% from cache — consultation at #3");
		expect(h.invoked()).toBe(0);
		expect(h.stderr).toEqual([]);
	});

	it("an unknown argument is answered with the usage (stderr without a UI, a warning with one), nothing else", async () => {
		const headless = host(false);
		await headless.command.handler("statz", headless.ctx as never);
		expect(headless.stderr).toEqual([advisorUsage("statz")]);
		expect(headless.printed).toEqual([]);
		expect(headless.invoked()).toBe(0);
		const ui = host(true);
		await ui.command.handler("frob nicate", ui.ctx as never);
		expect(ui.notes).toEqual([[advisorUsage("frob nicate"), "warning"]]);
		expect(advisorUsage("x")).toBe(
			'/advisor: unknown argument "x". Usage: /advisor (choose the advisor model and effort) · /advisor stats (what the advisor has cost) · /advisor watch [on|off] (the advisor reviews unasked)',
		);
	});

	it("bare /advisor keeps its pickers, after stopping warming", async () => {
		const h = host(false);
		await h.command.handler("", h.ctx as never);
		expect(h.invoked()).toBe(1);
		expect(h.printed).toEqual([]);
	});

	it("completes its arguments", () => {
		const { command } = host(false);
		expect(command.getArgumentCompletions("st")?.map((item) => item.value)).toEqual(["stats"]);
		expect(command.getArgumentCompletions("")?.map((item) => item.value)).toEqual(["stats", "watch"]);
		expect(command.getArgumentCompletions("x")).toBeNull();
	});

	it("with a UI, the panel; on a host without custom components (RPC), one notification of the same lines", async () => {
		let panel: StatsPanel | undefined;
		const tui = host(true, async (factory) => {
			let closed = false;
			panel = (factory as (...a: unknown[]) => StatsPanel)({}, plain, {}, () => {
				closed = true;
			});
			panel.handleInput(KEYS.escape);
			expect(closed).toBe(true);
			return undefined;
		});
		await tui.command.handler("stats", tui.ctx as never);
		const lines = statsLines(liveStats({ getAllTools: () => [] }, tui.ctx as never));
		expect(panel!.render(200)).toEqual([...lines, STATS_HINT]);
		expect(tui.notes).toEqual([]);

		const rpc = host(true);
		await rpc.command.handler("stats", rpc.ctx as never);
		expect(rpc.notes).toEqual([[lines.join("\n"), "info"]]);
	});
});

describe("the panel", () => {
	it("wraps long lines to the width, keeping their indent, and closes on enter too", () => {
		let closed = 0;
		const panel = new StatsPanel(["Title", `  ${"word ".repeat(30).trim()}`], plain, () => closed++);
		const rows = panel.render(40);
		expect(rows[0]).toBe("Title");
		expect(rows.slice(1, -1).every((row) => row.length <= 40 && row.startsWith("  "))).toBe(true);
		expect(rows.slice(1, -1).join(" ").replace(/\s+/g, " ").trim()).toBe("word ".repeat(30).trim());
		panel.handleInput(KEYS.enter);
		panel.handleInput(KEYS.enter);
		expect(closed).toBe(1);
	});
});
