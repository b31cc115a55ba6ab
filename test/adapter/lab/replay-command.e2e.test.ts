// End to end: the built `advisor-ledger replay` as a new user meets it — no PATH, a HOME whose
// Pi session folder is absent, empty, useless or real — and the report it prints: a summary with a
// ratio well under 0.5 on the bundled long samples, dollars in both caching models, a legend, no
// timings.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { visibleWidth } from "@mariozechner/pi-tui";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReplayReport } from "../../../src/adapter/lab/report/replay-report.ts";
import { type Built, buildCli, repoRoot, runBuilt, sampleText } from "../../support/cli-build.ts";

let built: Built;
let work: string;

beforeAll(() => {
	built = buildCli();
	work = mkdtempSync(path.join(repoRoot, ".tmp", "report-cli-"));
}, 120_000);

afterAll(() => {
	built?.dispose();
	if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** A HOME whose ~/.pi/agent/sessions holds these files (none: the folder exists, empty; null: no folder). */
function home(name: string, files: Record<string, string> | null): string {
	const dir = path.join(work, name);
	if (files === null) {
		mkdirSync(dir, { recursive: true });
		return dir;
	}
	const sessions = path.join(dir, ".pi", "agent", "sessions");
	mkdirSync(sessions, { recursive: true });
	for (const [file, text] of Object.entries(files)) {
		mkdirSync(path.dirname(path.join(sessions, file)), { recursive: true });
		writeFileSync(path.join(sessions, file), text);
	}
	return dir;
}

/** A real session without a tool round: the tools sample's header and first user message, answered without tools. */
function chatOnly(): string {
	const lines = sampleText("tools.jsonl").trim().split("\n");
	const header = JSON.parse(lines[0]!);
	const user = lines.map((l) => JSON.parse(l)).find((e) => e.type === "message" && e.message.role === "user");
	const answer = {
		type: "message",
		id: "a0000001",
		parentId: user.id,
		timestamp: user.timestamp,
		message: {
			role: "assistant",
			content: [{ type: "text", text: "Sure — which test fails?" }],
			api: "faux",
			provider: "faux",
			model: "faux-coder",
			usage: {
				input: 1,
				output: 1,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: 2,
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
			},
			stopReason: "stop",
			timestamp: 0,
		},
	};
	return `${[header, { ...user, parentId: null }, answer].map((e) => JSON.stringify(e)).join("\n")}\n`;
}

const number = (text: string, pattern: RegExp): number => {
	const m = pattern.exec(text);
	expect(m, String(pattern)).not.toBeNull();
	return Number(m![1]);
};

describe("the default input", () => {
	it("an empty ~/.pi/agent/sessions: one line says the bundled long samples are replayed instead", async () => {
		const r = await runBuilt(built.main, ["replay"], { HOME: home("empty", {}) });
		expect(r.code).toBe(0);
		const folder = path.join(work, "empty", ".pi", "agent", "sessions");
		expect(r.stderr).toBe(
			`advisor-ledger replay: no session file in ${folder}; replaying the bundled samples in samples/long\n`,
		);
		expect(r.stdout).toMatch(/^Replayed +105 consultation points in 5 session files: /);
		// The tables name the folder the sessions share once, and each file without it.
		expect(r.stdout).toContain("per session in samples/long/\n");
		expect(r.stdout).toMatch(/^pi-mono-large-session\.jsonl +37 sim /m);
		expect(r.stdout).toMatch(/^taskq\.jsonl +6 adv /m);
		expect(r.stdout.replace(/\n +/g, " ")).toContain(
			"samples/long/gjc-inline-agent-design.jsonl, samples/long/gjc-raddit-dashboard-pr.jsonl: expected (samples/README.md",
		);
	});

	it("no folder at all, or only sessions without a tool round: the same fallback, each with its reason", async () => {
		const absent = await runBuilt(built.main, ["replay", "--json"], { HOME: home("absent", null) });
		expect(absent.code).toBe(0);
		expect(absent.stderr).toMatch(
			/^advisor-ledger replay: no Pi session folder at .*; replaying the bundled samples in samples\/long\n$/,
		);
		expect((JSON.parse(absent.stdout) as ReplayReport).sessions).toHaveLength(5);

		const useless = await runBuilt(built.main, ["replay", "--json"], {
			HOME: home("useless", { "--proj--/chat.jsonl": chatOnly(), "--proj--/notes.jsonl": "not json\n" }),
		});
		expect(useless.code).toBe(0);
		expect(useless.stderr).toMatch(
			/^advisor-ledger replay: no session with a tool round in .*; replaying the bundled samples in samples\/long\n$/,
		);
		expect((JSON.parse(useless.stdout) as ReplayReport).options.inputs).toEqual(["samples/long"]);
	});

	it("a folder with a real session is replayed as it is, without a word about samples", async () => {
		const r = await runBuilt(built.main, ["replay", "--json"], {
			HOME: home("real", { "--proj--/chat.jsonl": chatOnly(), "--proj--/work.jsonl": sampleText("tools.jsonl") }),
		});
		expect(r.stderr).toBe("");
		const report = JSON.parse(r.stdout) as ReplayReport;
		expect(report.sessions.map((s) => path.basename(s.file))).toEqual(["chat.jsonl", "work.jsonl"]);
	});
});

describe("the text report on the bundled samples", () => {
	let stdout: string;
	beforeAll(async () => {
		const r = await runBuilt(built.main, ["replay"], { HOME: home("report", {}) });
		expect(r.code).toBe(0);
		stdout = r.stdout;
	}, 120_000);

	it("tells the truth in its summary: well under half the baseline, raw and with a cache on both sides", () => {
		expect(number(stdout, /^Tokens +the ledger sends (\d\.\d+) of the baseline's/m)).toBeLessThan(0.5);
		expect(
			number(stdout, /^Cost, cached +(\d\.\d+) of the baseline's dollars with a token-prefix cache/m),
		).toBeLessThan(0.5);
		expect(number(stdout, /^Cost, cached .*, (\d\.\d+) with (?:Anthropic's )?breakpoints$/m)).toBeLessThan(0.5);
		expect(stdout).toContain("No request is larger than its baseline.");
	});

	it("shows the masked baseline next to them: smaller than the baseline, larger than the ledger on these sessions", () => {
		const ratio = (row: string) =>
			Number(
				row
					.trim()
					.split(/\s{2,}/)
					.at(-1),
			);
		const rows = stdout.split("\n").filter((l) => /^\s+(masked|ledger)\s+[\d,]+\s/.test(l));
		// no cache, then token prefix, then breakpoints: masked then ledger in each.
		const [maskedNoCache, ledgerNoCache, maskedPrefix] = rows.map(ratio);
		expect(maskedNoCache).toBeLessThan(1);
		expect(maskedNoCache).toBeGreaterThan(ledgerNoCache!);
		expect(maskedPrefix).toBeLessThan(1);
		expect(stdout).toMatch(/^session\s+points\s+baseline\s+ledger\s+ratio\s+effect\.\s+masked\s+m\.eff\.\s/m);
		// One per caching model: no cache, token prefix, breakpoints (the ledger without bridges: --wide).
		expect(rows.filter((l) => /^\s+masked/.test(l))).toHaveLength(3);
	});

	it("prices the first requests in dollars, baseline vs ledger, with reads and writes in both caching models", () => {
		expect(stdout).toContain(
			"\nPrompt cost of the 105 first requests (one per consultation) at anthropic/claude-sonnet-4-5 prices\n  (Claude Sonnet 4.5 (latest); per million tokens: input $3.00, cache read $0.30, cache write $3.75;\n  nothing cached under 1,024 prompt tokens)\n",
		);
		const dollarRows = (text: string) =>
			text.split("\n").filter((l) => /\$\d+\.\d+/.test(l) && /(baseline|ledger)\s/.test(l));
		const rows = dollarRows(stdout);
		expect(rows).toHaveLength(6);
		const cells = (line: string) => line.trim().split(/\s{2,}/);
		const [noCache, , prefix, , breakpoints] = rows.map(cells);
		expect(noCache!.slice(0, 2)).toEqual(["no cache", "baseline"]);
		expect(prefix!.slice(0, 2)).toEqual(["token prefix", "baseline"]);
		expect(breakpoints!.slice(0, 2)).toEqual(["breakpoints", "baseline"]);
		// token prefix: reads, no writes; breakpoints: reads and writes, nothing left uncached.
		expect(prefix![4]).toBe("0");
		expect(breakpoints![5]).toBe("0");
		expect(Number(breakpoints![4]!.replace(/,/g, ""))).toBeGreaterThan(0);
		for (const r of [1, 3, 5]) expect(Number(cells(rows[r]!).at(-1))).toBeLessThan(0.5);
		// The baseline costs more with breakpoints than with none, and the report says why beside it.
		const usd = (row: string[]) => Number(row.find((cell) => cell.startsWith("$"))!.replace("$", ""));
		expect(usd(breakpoints!)).toBeGreaterThan(usd(noCache!));
		expect(stdout).toMatch(/^With breakpoints the baseline and the masked baseline cost more than with no cache: /m);
	});

	it("--wide adds the ledger without bridges: it reads less and pays more", async () => {
		const r = await runBuilt(built.main, ["replay", "--wide"], { HOME: home("wide-bridges", {}) });
		const rows = r.stdout
			.split("\n")
			.filter((l) => /\$\d+\.\d+/.test(l) && /(baseline|ledger)\s/.test(l))
			.map((line) => line.trim().split(/\s{2,}/));
		expect(rows).toHaveLength(8);
		const [, , , , , bridged, noBridges, unbridged] = rows;
		expect(noBridges!.slice(0, 2)).toEqual(["no bridges", "baseline"]);
		const usd = (row: string[]) => Number(row.at(-2)!.replace("$", ""));
		expect(usd(unbridged!)).toBeGreaterThan(usd(bridged!));
	});

	it("has a legend for its columns and no timing noise", () => {
		expect(stdout).toContain("\nLegend:\n");
		for (const column of [
			"baseline",
			"masked",
			"ledger",
			"effect.",
			"m.eff.",
			">base",
			"users",
			"reuse",
			"token prefix:",
		]) {
			expect(stdout).toMatch(new RegExp(`^  ${column.replace(/[.>]/g, "\\$&")}\\s`, "m"));
		}
		expect(stdout).not.toMatch(/inc\/scratch|Fold \+ render| ms\b/);
	});

	it("--json keeps the timings and carries the same cost figures", async () => {
		const r = await runBuilt(built.main, ["replay", "--json"], { HOME: home("json", {}) });
		const report = JSON.parse(r.stdout) as ReplayReport;
		expect(report.timing.scratchPoints).toBeGreaterThan(0);
		expect(report.price!.model).toBe("anthropic/claude-sonnet-4-5");
		expect(report.price!.tokenPrefix.ratio).toBeLessThan(0.5);
		expect(report.cache.ledger.tokenPrefix.prompt).toBe(report.tokens.ledger.total);
		expect(report.cache.baseline.breakpoint.prompt).toBe(report.tokens.baseline.total);
		// Claude Sonnet 4.5, the default price model, caches from 1,024 prompt tokens up.
		expect(report.cacheRule).toEqual({ lookbackBlocks: 20, maxBreakpoints: 4, minTokens: 1024 });
		// With the lookback and the bridges, the ledger's effective cost is within 10% of the token-prefix model's.
		const { ledger } = report.cache;
		expect(Math.abs(ledger.effectiveBreakpoint / ledger.effective - 1)).toBeLessThan(0.1);
		expect(ledger.effectiveNoBridges).toBeGreaterThan(ledger.effectiveBreakpoint);
		expect(stdout).toContain(`$${report.price!.uncached.baseline.toFixed(3)}`);
	});
});

describe("100 columns", () => {
	/** Lines wider than 100 terminal columns (string width: `…` and `×` are one column, three bytes). */
	const wide = (text: string) => text.split("\n").filter((line) => visibleWidth(line) > 100);

	it("every line of the default report on the bundled samples fits, the long ones and all of samples/", async () => {
		const long = await runBuilt(built.main, ["replay"], { HOME: home("narrow", {}) });
		const all = await runBuilt(built.main, ["replay", "samples/"]);
		for (const r of [long, all]) {
			expect(r.code).toBe(0);
			expect(r.stdout).toContain("\nLegend:\n");
			expect(wide(r.stdout)).toEqual([]);
		}
		// Two tables per session instead of one: the tokens, then what the requests carry.
		expect(all.stdout).toMatch(/^session\s+points\s+baseline\s+ledger\s+ratio\s+effect\.\s+masked\s+m\.eff\.$/m);
		expect(all.stdout).toMatch(
			/^session\s+points\s+>base\s+users\s+missing\s+reuse\s+facts L\/Pi\s+lost L\/Pi\s+cuts$/m,
		);
		// The folder the sessions share is said once; the names go without it.
		expect(all.stdout).toContain("per session in samples/\n");
		expect(all.stdout).toMatch(/^long\/pi-mono-large-session\.jsonl +37 sim /m);
	});

	it("--wide puts every column in one table with the file names whole", async () => {
		const r = await runBuilt(built.main, ["replay", "samples/", "--wide"]);
		expect(r.code).toBe(0);
		expect(r.stdout).toMatch(
			/^session\s+points\s+baseline\s+ledger\s+ratio\s+effect\.\s+masked\s+m\.eff\.\s+>base\s+users\s+missing\s+reuse\s+facts L\/Pi\s+lost L\/Pi\s+cuts$/m,
		);
		expect(r.stdout).toMatch(/^samples\/long\/pi-mono-large-session\.jsonl +37 sim /m);
		expect(wide(r.stdout).length).toBeGreaterThan(0);
		expect(r.stdout).not.toMatch(/^session\s+points\s+>base/m);
	});
});

describe("--price", () => {
	it("prices with another registry model", async () => {
		const r = await runBuilt(built.main, ["replay", "samples/long/taskq.jsonl", "--price", "openai/gpt-4o-mini"]);
		expect(r.code).toBe(0);
		// The title is wrapped to 100 columns: read it as one line.
		expect(r.stdout.replace(/\n +/g, " ")).toContain(
			"at openai/gpt-4o-mini prices (GPT-4o mini; per million tokens: input $0.15, cache read $0.08, cache write not listed (priced as input); nothing cached under 1,024 prompt tokens)",
		);
	});

	it("an unknown model or a malformed value is a usage error: one line, no report", async () => {
		for (const value of ["nope/model", "anthropic/nope", "claude"]) {
			const r = await runBuilt(built.main, ["replay", "samples/long/taskq.jsonl", "--price", value]);
			expect(r.code, value).toBe(1);
			expect(r.stdout, value).toBe("");
			expect(r.stderr.split("\n")[0], value).toMatch(/^advisor-ledger: .*--price|^advisor-ledger replay: --price/);
		}
	});

	it("the chart written by --svg carries the dollar panel", async () => {
		const file = path.join(work, "chart.svg");
		const r = await runBuilt(built.main, ["replay", "--svg", file], { HOME: home("svg", {}) });
		expect(r.code).toBe(0);
		const svg = readFileSync(file, "utf8");
		expect(svg).toContain(">Prompt cost of 105 first requests, by side</text>");
		expect(svg).toContain(">masked</text>");
		expect(svg).toContain(">105 consultation points in 5 sessions</text>");
	});
});
