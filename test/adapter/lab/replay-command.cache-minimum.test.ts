/**
 * `replay --price`: the report's cache models apply the price model's minimum cacheable prompt
 * (docs/configuration.md, "Minimum cacheable lengths"). A session whose consultations are 3,000 to
 * 4,096 tokens, each repeating more than 3,000 tokens of the one before, is cached at Claude Sonnet
 * 4.5 (minimum 1,024) and not at all at Claude Opus 4.5 (4,096).
 */

import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Io } from "../../../src/adapter/lab/cli/io.ts";
import type { ReplayReport } from "../../../src/adapter/lab/report/replay-report.ts";
import { styleFor } from "../../../src/adapter/lab/report/text-report.ts";
import { runCli } from "../../../src/adapter/lab/run.ts";
import { filler } from "../../support/session-gen.ts";
import { testTempDir } from "../../support/temp.ts";

const TS = "2026-01-01T00:00:00.000Z";

/** A long user message (most of every request), then four small read rounds: a consultation after each. */
function session(): string {
	const entries: Record<string, unknown>[] = [];
	let leaf: string | null = null;
	const add = (message: Record<string, unknown>) => {
		const id = (entries.length + 1).toString(16).padStart(8, "0");
		entries.push({ type: "message", id, parentId: leaf, timestamp: TS, message: { ...message, timestamp: 0 } });
		leaf = id;
	};
	add({ role: "user", content: filler(10_500, 1) });
	for (let k = 1; k <= 4; k++) {
		add({
			role: "assistant",
			content: [{ type: "toolCall", id: `c${k}`, name: "read", arguments: { path: `src/f${k}.ts` } }],
			api: "x",
			provider: "p",
			model: "m",
			usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0 } },
			stopReason: "toolUse",
		});
		add({
			role: "toolResult",
			toolCallId: `c${k}`,
			toolName: "read",
			content: [{ type: "text", text: filler(300, k) }],
			isError: false,
		});
	}
	const header = { type: "session", version: 3, id: "cache-minimum", timestamp: TS, cwd: "/work/project" };
	return `${[header, ...entries].map((e) => JSON.stringify(e)).join("\n")}\n`;
}

async function replay(file: string, price: string): Promise<ReplayReport> {
	let stdout = "";
	const home = path.join(path.dirname(file), "no-home");
	const io: Io = {
		stdout: (t) => {
			stdout += t;
		},
		stderr: () => {},
		env: { XDG_CONFIG_HOME: home, HOME: home },
		cwd: path.dirname(file),
		stderrIsTTY: false,
		style: styleFor(false, {}),
		now: () => 0,
	};
	expect(await runCli(["replay", file, "--every", "1", "--json", "--price", price], io)).toBe(0);
	return JSON.parse(stdout) as ReplayReport;
}

describe("replay's cache models at the price model's minimum", () => {
	it("a 3,000-token prefix is read at Sonnet 4.5's minimum and replayed as uncached at Opus 4.5's", async () => {
		const file = path.join(testTempDir("advisor-cache-minimum-"), "s.jsonl");
		writeFileSync(file, session());
		const sonnet = await replay(file, "anthropic/claude-sonnet-4-5");
		const opus = await replay(file, "anthropic/claude-opus-4-5");
		expect(sonnet.cacheRule.minTokens).toBe(1024);
		expect(opus.cacheRule.minTokens).toBe(4096);

		// The setting holds: every request under 4,096 tokens, every later one repeating over 3,000 of the one before.
		const points = opus.sessions[0]!.points;
		expect(points.length).toBe(4);
		const repeated = points.slice(1).map((p, i) => Math.round(points[i]!.ledger * p.cacheShare!.tokenPrefix));
		for (const p of points) expect(p.ledger).toBeLessThan(4096);
		for (const r of repeated) expect(r).toBeGreaterThan(3000);
		const total = points.reduce((n, p) => n + p.ledger, 0);

		// Sonnet: each later consultation reads what it repeats; breakpoints write the rest.
		expect(sonnet.cache.ledger.tokenPrefix).toEqual({
			prompt: total,
			read: repeated.reduce((a, b) => a + b, 0),
			write: 0,
			uncached: total - repeated.reduce((a, b) => a + b, 0),
		});
		expect(sonnet.cache.ledger.breakpoint.read).toBeGreaterThan(0);
		// Opus 4.5: nothing read, nothing written, in every cache model.
		for (const model of ["tokenPrefix", "breakpoint", "breakpointNoBridges"] as const) {
			expect(opus.cache.ledger[model]).toEqual({ prompt: total, read: 0, write: 0, uncached: total });
		}
		expect(opus.price!.tokenPrefix.ledger).toBe(opus.price!.uncached.ledger);
	});
});
