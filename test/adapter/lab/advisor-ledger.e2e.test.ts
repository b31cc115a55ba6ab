// End to end: the built `advisor-ledger` CLI, spawned on the sample sessions, on damaged copies
// of them and on a generated session with real advisor calls. Asserts reports and exit codes,
// never timings.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReplayReport } from "../../../src/adapter/lab/report/replay-report.ts";
import type { RenderJson } from "../../../src/adapter/lab/request/render-at.ts";
import { APPENDIX_HEADER, CONSULT_INSTRUCTION } from "../../../src/render/index.ts";
import {
	type Built,
	buildCli,
	type Line,
	lines,
	repoRoot,
	runBuilt,
	sampleText,
	sharedSessionsDir,
	toJsonl,
} from "../../support/cli-build.ts";
import { buildSession, type CallPlan, type Step } from "../../support/session-gen.ts";

let built: Built;
let work: string;

const call = (tool: CallPlan["tool"], text: string): CallPlan => ({
	tool,
	arg: "src/app.ts",
	text,
	outcome: "ok",
	image: false,
});

/** A small session with two completed consultations (billed usage in their details) and one failed. */
function advisorSession(): ReturnType<typeof buildSession> {
	const plan: Step[] = [
		{ t: "user", text: "Fix the parser bug in src/app.ts, please.", long: false, images: 0 },
		{ t: "turn", prose: "Looking.", thinking: "", calls: [call("read", "x".repeat(3000))], order: [0] },
		{
			t: "consult",
			prose: "Is the tokenizer the culprit?",
			thinking: "the tokenizer drops the last char",
			outcome: "ok",
			advice: "Severity: concern\nCheck the off-by-one in the loop.",
			sibling: null,
		},
		{ t: "turn", prose: "", thinking: "", calls: [call("edit", "ok"), call("bash", "1 failing")], order: [0, 1] },
		{ t: "user", text: "Also keep the old API.", long: false, images: 0 },
		{
			t: "consult",
			prose: "Failing run, retry?",
			thinking: "",
			outcome: "failed",
			advice: "Severity: none\n-",
			sibling: null,
		},
		{ t: "turn", prose: "", thinking: "", calls: [call("bash", "all passing")], order: [0] },
		{
			t: "consult",
			prose: "Done: is it complete?",
			thinking: "",
			outcome: "ok",
			advice: "Severity: none\nLooks complete.",
			sibling: call("read", "y".repeat(500)),
		},
	];
	return buildSession(plan);
}

beforeAll(() => {
	built = buildCli();
	work = mkdtempSync(path.join(repoRoot, ".tmp", "cli-e2e-"));
}, 120_000);

afterAll(() => {
	built?.dispose();
	if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

const replayJson = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
	const result = await runBuilt(built.main, ["replay", "--json", ...args], env);
	return { ...result, report: result.stdout === "" ? undefined : (JSON.parse(result.stdout) as ReplayReport) };
};

function write(name: string, text: string): string {
	const file = path.join(work, name);
	mkdirSync(path.dirname(file), { recursive: true });
	writeFileSync(file, text);
	return file;
}

describe("help and usage errors", () => {
	it("--help on every command exits 0 and prints the usage", async () => {
		for (const args of [["--help"], ["replay", "--help"], ["render", "--help"], ["help", "render"], []]) {
			const r = await runBuilt(built.main, args);
			expect(r.code, args.join(" ")).toBe(0);
			expect(r.stdout).toMatch(/advisor-ledger (replay|render)/);
		}
		expect((await runBuilt(built.main, ["replay", "-h"])).stdout).toContain("--every N");
		expect((await runBuilt(built.main, ["render", "--help"])).stdout).toContain("--at ENTRY ");
		expect((await runBuilt(built.main, ["render", "--help"])).stdout).toContain("#N as the request names it");
	});

	it("usage errors exit 1 with a message on stderr", async () => {
		for (const args of [
			["frobnicate"],
			["replay", "--bogus"],
			["replay", "--every", "0"],
			["replay", "--every"],
			["replay", "--json=yes"],
			["render"],
			["render", "a.jsonl", "b.jsonl"],
		]) {
			const r = await runBuilt(built.main, args);
			expect(r.code, args.join(" ")).toBe(1);
			// One prefix: the command the error concerns, else the program alone; then where to read more.
			const command = args[0] === "replay" || args[0] === "render" ? args[0] : undefined;
			const [line, hint, rest] = r.stderr.split("\n");
			expect(line, args.join(" ")).toMatch(
				command === undefined ? /^advisor-ledger: \S/ : `advisor-ledger ${command}: `,
			);
			expect(hint).toBe(`Run \`advisor-ledger ${command === undefined ? "" : `${command} `}--help\` for usage.`);
			expect(rest).toBe("");
			expect(r.stdout).toBe("");
		}
	});
});

/** The short feature samples at the top of samples/ (samples/long/ holds the default run's long sessions). */
const SHORT_SAMPLES = ["samples/tools.jsonl", "samples/compaction.jsonl", "samples/branching.jsonl"];

describe("replay on the bundled samples", () => {
	it("with no PATH and no Pi session folder, replays the bundled long samples (text report)", async () => {
		const r = await runBuilt(built.main, ["replay"]);
		expect(r.code).toBe(0);
		expect(r.stdout).toMatch(/^Replayed +\d+ consultation points in 5 session files/);
		for (const name of [
			"pi-mono-large-session.jsonl",
			"pi-mono-compacted.jsonl",
			"gjc-inline-agent-design.jsonl",
			"gjc-raddit-dashboard-pr.jsonl",
			"taskq.jsonl",
		])
			expect(r.stdout).toMatch(new RegExp(`^${name.replace(/\./g, "\\.")} +\\d+ (sim|adv) `, "m"));
		expect(r.stdout).toMatch(/^Tokens +the ledger sends \d\.\d{3} of the baseline's/m);
		expect(r.stdout).not.toMatch(/\u001b\[/); // not a terminal: no colours
	});

	it("--json: totals, percentiles and lists agree with the points", async () => {
		const { code, report } = await replayJson(SHORT_SAMPLES);
		expect(code).toBe(0);
		expect(report!.sessions.map((s) => path.basename(s.file)).sort()).toEqual([
			"branching.jsonl",
			"compaction.jsonl",
			"tools.jsonl",
		]);
		const points = report!.sessions.flatMap((s) => s.points);
		expect(report!.points).toBe(points.length);
		expect(report!.tokens.ledger.total).toBe(points.reduce((n, p) => n + p.ledger, 0));
		expect(report!.tokens.baseline.total).toBe(points.reduce((n, p) => n + p.baseline, 0));
		expect(report!.tokens.ledger.max).toBe(Math.max(...points.map((p) => p.ledger)));
		// tools and branching hold real advisor() calls (their points); compaction has none (simulated).
		const kinds = Object.fromEntries(report!.sessions.map((s) => [path.basename(s.file), s.pointKind]));
		expect(kinds).toEqual({
			"tools.jsonl": "advisor",
			"branching.jsonl": "advisor",
			"compaction.jsonl": "simulated",
		});
		for (const s of report!.sessions) for (const p of s.points) expect(p.kind).toBe(s.pointKind);
		// Every user message survives, including the one before both compactions.
		expect(report!.userMessages.missing).toBe(0);
		expect(report!.userMessages.total).toBe(12);
		// The compaction sample restates a 25k-char user message Pi's compaction dropped: listed, not hidden.
		expect(report!.largerThanBaseline.some((l) => l.file.endsWith("compaction.jsonl"))).toBe(true);
		for (const l of report!.largerThanBaseline) expect(l.ledger).toBeGreaterThan(l.baseline);
		expect(report!.largerThanBaseline.length).toBe(points.filter((p) => p.ledger > p.baseline).length);
		expect(report!.diagnostics).toMatchObject({ badLines: 0, unknownEntries: 0, brokenParents: 0, files: 3 });
		expect(report!.timing.mismatches).toBe(0);
		expect(report!.cacheShare.pairs).toBe(points.length - report!.sessions.length);
	});

	it("--all-leaves replays the abandoned branch of branching.jsonl too", async () => {
		const one = await replayJson(["samples/branching.jsonl"]);
		const all = await replayJson(["samples/branching.jsonl", "--all-leaves"]);
		expect(one.report!.sessions).toHaveLength(1);
		expect(all.report!.sessions).toHaveLength(2);
		expect(new Set(all.report!.sessions.map((s) => s.leafId)).size).toBe(2);
		expect(all.report!.sessions.map((s) => s.leafId)).toContain(one.report!.sessions[0]!.leafId);
	});

	it("--svg writes a chart with one panel per session and the dollar panel", async () => {
		const svg = path.join(work, "chart.svg");
		const r = await runBuilt(built.main, ["replay", ...SHORT_SAMPLES, "--svg", svg]);
		expect(r.code).toBe(0);
		const text = readFileSync(svg, "utf8");
		expect(text.startsWith("<svg")).toBe(true);
		expect(text.trimEnd().endsWith("</svg>")).toBe(true);
		expect(text.match(/<g transform=/g)).toHaveLength(4);
		expect(text).toContain("baseline");
	});

	it("reads Pi's session folder when it exists", async () => {
		const agent = path.join(work, "agent");
		write("agent/sessions/--proj--/one.jsonl", sampleText("tools.jsonl"));
		const { code, report } = await replayJson([], { PI_CODING_AGENT_DIR: agent });
		expect(code).toBe(0);
		expect(report!.sessions).toHaveLength(1);
		expect(report!.sessions[0]!.file).toContain("one.jsonl");
	});
});

describe("damaged copies: reported, skipped where needed, the run goes on", () => {
	it("a truncated last line, a garbage line, a parentId cycle and an unknown entry type", async () => {
		const tools = lines(sampleText("tools.jsonl"));
		const text = sampleText("tools.jsonl");

		const truncated = text.trimEnd();
		write("damaged/truncated.jsonl", truncated.slice(0, truncated.length - 40));

		const garbage = text.split("\n");
		garbage.splice(10, 0, "}{ this is not json");
		write("damaged/garbage.jsonl", garbage.join("\n"));

		// Entry 10 names the leaf as its parent: walking up from the leaf comes back to it.
		const cyclic = tools.map((e) => ({ ...e }));
		const leafId = cyclic.at(-1)!.id!;
		(cyclic[10] as Line).parentId = leafId;
		write("damaged/cycle.jsonl", toJsonl(cyclic));

		const unknown = [
			...tools,
			{ type: "future_kind", id: "fe000001", parentId: leafId, timestamp: "2026-01-01T00:00:00.000Z", x: 1 },
		];
		write("damaged/unknown.jsonl", toJsonl(unknown));

		const { code, report, stderr } = await replayJson([path.join(work, "damaged")]);
		expect(stderr).toBe("");
		expect(code).toBe(0);
		const byFile = (name: string) => report!.sessions.find((s) => s.file.endsWith(name))!;
		expect(byFile("truncated.jsonl").diagnostics.byReason["truncated-last-line"]).toBe(1);
		expect(byFile("garbage.jsonl").diagnostics.byReason["invalid-json"]).toBe(1);
		expect(byFile("garbage.jsonl").diagnostics.messages[0]).toMatch(/garbage\.jsonl:11: invalid-json/);
		expect(byFile("cycle.jsonl").diagnostics.byReason.cycle).toBe(1);
		expect(byFile("cycle.jsonl").pathEntries).toBeLessThan(tools.length - 1);
		expect(byFile("unknown.jsonl").diagnostics.unknownEntryTypes).toEqual({ future_kind: 1 });
		for (const s of report!.sessions) expect(s.points.length).toBeGreaterThan(0);
		expect(report!.diagnostics).toMatchObject({ badLines: 2, unknownEntries: 1, brokenParents: 1, files: 4 });

		const textRun = await runBuilt(built.main, ["replay", path.join(work, "damaged")]);
		expect(textRun.code).toBe(0);
		expect(textRun.stdout).toContain(
			"Reader diagnostics: 2 bad lines, 1 unknown entry (future_kind ×1), 1 broken parent link",
		);
	});

	it("an empty file and a folder without sessions: exit 2, one line saying which", async () => {
		const empty = write("empty/empty.jsonl", "");
		const r1 = await replayJson([empty]);
		expect(r1.code).toBe(2);
		expect(r1.report!.diagnostics.filesWithoutPoints).toHaveLength(1);
		expect(r1.stderr).toBe(`advisor-ledger replay: ${path.relative(repoRoot, empty)}: empty file\n`);
		const rendered = await runBuilt(built.main, ["render", empty]);
		expect(rendered).toEqual({
			code: 2,
			stdout: "",
			stderr: `advisor-ledger render: ${path.relative(repoRoot, empty)}: empty file\n`,
		});

		const folder = path.join(work, "no-sessions");
		mkdirSync(folder, { recursive: true });
		write("no-sessions/notes.txt", "not a session");
		const r2 = await runBuilt(built.main, ["replay", folder]);
		expect(r2.code).toBe(2);
		// Nothing replayed: no all-zero table, one line saying why.
		expect(r2.stdout).toBe("");
		expect(r2.stderr).toContain("nothing to replay in");
		expect(r2.stderr).toContain("no *.jsonl session file found");
	});

	it("an unreadable input is reported and skipped, the rest is replayed, exit 3", async () => {
		const missing = path.join(work, "does-not-exist.jsonl");
		const { code, report, stderr } = await replayJson(["samples/tools.jsonl", missing]);
		expect(code).toBe(3);
		expect(stderr).toContain("does-not-exist.jsonl");
		expect(report!.sessions).toHaveLength(1);
		expect(report!.diagnostics.unreadable).toEqual([
			{ path: expect.stringContaining("does-not-exist.jsonl"), error: "no such file or directory" },
		]);
	});
});

describe("replay with real advisor calls", () => {
	it("every advisor call on the path is a point; billed usage sits beside the estimate", async () => {
		const session = advisorSession();
		const file = write("advisor/session.jsonl", session.jsonl);
		const { code, report } = await replayJson([file]);
		expect(code).toBe(0);
		const s = report!.sessions[0]!;
		expect(s.pointKind).toBe("advisor");
		expect(s.points.map((p) => p.callId)).toEqual(session.consultations.map((c) => c.callId));
		// Dispatch = the branch up to, not including, the result.
		const ids = session.entries.map((e) => e.id);
		session.consultations.forEach((c, i) => {
			expect(s.points[i]!.atEntryId).toBe(ids[ids.indexOf(c.resultEntryId) - 1]);
		});
		const billed = s.points.map((p) => p.billed?.prompt);
		expect(billed).toEqual([10, undefined, 10]); // the failed call records no usage
		expect(report!.billed).toMatchObject({ points: 2, prompt: 20 });
		expect(report!.billed.ledgerEstimate).toBe(s.points[0]!.ledger + s.points[2]!.ledger);
	});
});

describe("render", () => {
	it("--json prints the exact pi-ai Context and the stable/volatile split", async () => {
		const r = await runBuilt(built.main, ["render", "samples/tools.jsonl", "--json"]);
		expect(r.code).toBe(0);
		const out = JSON.parse(r.stdout) as RenderJson;
		expect(Object.keys(out)).toEqual(["request", "stable", "marks", "summary"]);
		expect(typeof out.request.systemPrompt).toBe("string");
		expect(out.request.tools!.map((t) => t.name)).toEqual([
			"advisor_expand",
			"read",
			"grep",
			"find",
			"ls",
			"git_diff",
		]);
		const messages = out.request.messages;
		const last = messages.at(-1)!;
		expect(last.role).toBe("user");
		const parts = last.content as { type: string; text: string }[];
		expect(parts.at(-1)!.text).toBe(CONSULT_INSTRUCTION);
		expect(out.stable.messageIndex).toBe(messages.length - 1);
		expect(out.stable.partCount + out.stable.volatileParts).toBe(parts.length);
		// The appendix, when there is one, opens the volatile parts.
		const opensWithAppendix = parts[out.stable.partCount]!.text.startsWith(`${APPENDIX_HEADER}\n`);
		expect(out.stable.appendixPart).toBe(opensWithAppendix ? out.stable.partCount : null);
		expect(out.summary.inFlightCallId).toBeNull();
		expect(out.summary.atEntryId).toBe(lines(sampleText("tools.jsonl")).at(-1)!.id);
		// No image bytes and no executor-role messages.
		expect(r.stdout).not.toContain("iVBORw0KGgo");
		for (const m of messages) expect(["user", "assistant"]).toContain(m.role);
	});

	it("--at an advisor call renders the in-flight form for that call", async () => {
		const session = advisorSession();
		const file = write("render/advisor.jsonl", session.jsonl);
		const target = session.consultations[2]!;
		const r = await runBuilt(built.main, ["render", file, "--at", target.callEntryId, "--json"]);
		expect(r.code).toBe(0);
		const out = JSON.parse(r.stdout) as RenderJson;
		expect(out.summary.inFlightCallId).toBe(target.callId);
		const text = JSON.stringify(out.request.messages.at(-1));
		expect(text).toContain("Done: is it complete?");
		expect(out.stable.appendixPart).toBe(out.stable.partCount);
		// The first consultation's advice is replayed as the advisor's own turn; the failed one leaves nothing.
		const assistants = out.request.messages.filter((m) => m.role === "assistant");
		expect(assistants).toHaveLength(1);
		expect(JSON.stringify(assistants[0])).toContain("Check the off-by-one");

		const readable = await runBuilt(built.main, ["render", file, "--at", target.callEntryId]);
		expect(readable.code).toBe(0);
		expect(readable.stdout).toContain(`In-flight advisor call: ${target.callId}`);
		expect(readable.stdout).toMatch(/═══ message 1\/\d+ · user/);
		expect(readable.stdout).toContain("· volatile ──");
		expect(readable.stdout).toContain("▼ the appendix starts here: the cached prefix ends above");
	});

	it("--leaf picks the abandoned branch; --at must lie on it", async () => {
		const entries = lines(sampleText("branching.jsonl"));
		const parents = new Set(entries.map((e) => e.parentId));
		const leaves = entries.filter((e) => e.type !== "session" && !parents.has(e.id!));
		expect(leaves.length).toBe(2);
		const abandoned = leaves[0]!.id!;
		const r = await runBuilt(built.main, ["render", "samples/branching.jsonl", "--leaf", abandoned, "--json"]);
		expect(r.code).toBe(0);
		expect((JSON.parse(r.stdout) as RenderJson).summary).toMatchObject({ leafId: abandoned, atEntryId: abandoned });
		const off = await runBuilt(built.main, [
			"render",
			"samples/branching.jsonl",
			"--leaf",
			abandoned,
			"--at",
			leaves[1]!.id!,
		]);
		expect(off.code).toBe(1);
		expect(off.stderr).toContain("is not on the branch");
	});

	it("exit codes: unknown entry 1, empty file 2, unreadable file 3", async () => {
		expect((await runBuilt(built.main, ["render", "samples/tools.jsonl", "--at", "nope"])).code).toBe(1);
		expect((await runBuilt(built.main, ["render", write("render/empty.jsonl", "")])).code).toBe(2);
		const missing = await runBuilt(built.main, ["render", path.join(work, "missing.jsonl")]);
		expect(missing.code).toBe(3);
		expect(missing.stderr).toContain("cannot read");
	});
});

describe("the shared recorded sessions", () => {
	it("replay over ../shared/sessions: every user message kept", async (ctx) => {
		ctx.skip(!existsSync(sharedSessionsDir), `${sharedSessionsDir} not found`);
		const { code, report } = await replayJson([sharedSessionsDir]);
		expect(code).toBe(0);
		expect(report!.points).toBeGreaterThan(0);
		expect(report!.userMessages.missing).toBe(0);
		expect(report!.largerThanBaseline).toEqual([]);
		expect(report!.tokens.ratio!).toBeLessThan(1);
	});
});
