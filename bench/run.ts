/**
 * `npm run bench`: the performance ratios (TARGETS below), measured in one process, written to
 * BENCHMARKS.md with the command and the machine. Timings are medians of repeated runs
 * (BENCH_REPS, default 21, after 3 warm-up runs); token figures come from the replay engine.
 *
 * Inputs, all in the repository so a fresh clone measures every row: the two real sessions in
 * samples/long (pi-mono's own and a Pi fork's), a generated, deterministic 10 000-entry session; the
 * fact audit also covers the bundled samples; the memory rows (bench/memory.ts) replay and render
 * generated 200 000-entry chains and a session with one 50 MB message in child processes
 * (`BENCH_ONLY=memory` measures only those; `BENCH_ROW=<text>` only the rows named so, unwritten). The file is never rewritten with fewer rows than it
 * has (bench/rows.ts).
 */

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSessionContext, convertToLlm } from "@mariozechner/pi-coding-agent";
import { prepareBaseline } from "../src/adapter/extension/baseline/messages.ts";
import { carriedShare, FACT_CATEGORIES } from "../src/adapter/lab/audit/index.ts";
import { replayText } from "../src/adapter/lab/replay/engine.ts";
import { consultationPoints } from "../src/adapter/lab/replay/points.ts";
import { createWarmUp } from "../src/adapter/lab/replay/timing-samples.ts";
import { calledToolNames, sessionTools } from "../src/adapter/lab/replay/tool-set.ts";
import type { SessionReport } from "../src/adapter/lab/report/replay-report.ts";
import { FACT_TARGETS } from "../src/adapter/lab/report/text-report.ts";
import { normalizeBranch, readSession } from "../src/events/index.ts";
import { foldLedger, ledgerOf } from "../src/reducers/index.ts";
import { createRenderMemo, DEFAULT_LEDGER_CONFIG, type RenderOptions, renderRequest } from "../src/render/index.ts";
import { COMPACTED, generateCompacted, generateSession, generateTree } from "./generate.ts";
import { measureMemory, memorySection, memoryTable, memoryVerdicts, withMemorySection } from "./memory.ts";
import { droppedNote, droppedRows, REAL_SESSIONS } from "./rows.ts";
import { v3ChoicesSection } from "./v3-choices.ts";
import { v4ChoicesSection } from "./v4-choices.ts";
import { watchSection } from "./watch.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BENCHMARKS = path.join(repoRoot, "BENCHMARKS.md");
const REPS = Math.max(3, Number(process.env.BENCH_REPS ?? 21) | 0);
const WARMUP = 3;
const EVERY = 10;
const GENERATED_ENTRIES = 10_000;

/**
 * The targets: ledger v3's (tokens on the recorded pi-mono session and the generated one at most 5%
 * over what ledger v2 reached), and ledger v4's — every input carries at least 0.99 of its facts and
 * 0.95 of those the executor lost at its compactions, at an effective cost at most 5% over what
 * ledger v3 cost on it (V3_COST), under Anthropic's breakpoints too on the compacted inputs.
 */
const TARGETS = {
	incremental: 0.05,
	fullVsPi: 1,
	tokensShared: 0.131,
	effectiveShared: 0.175,
	tokensGenerated: 0.047,
	share: 0.9,
	/** Points an input needs for its median reuse to be held to `share`. */
	sharePoints: 20,
	facts: 0.99,
	lostFacts: 0.95,
	/** Effective cost at most this times ledger v3's on the same input. */
	overV3: 1.05,
	/** Seconds of a whole `replay` per 10,000 entries of branch. */
	replayPer10k: 3,
};

/**
 * What ledger v3 cost on each input (effective cost / the baseline's, token prefix; and breakpoints on
 * the compacted ones), measured with `advisor-ledger replay` at the commit before v4 (the consolidated
 * v3 at tailToolCalls 2): the v4 targets are relative to these.
 */
const V3_COST: Readonly<Record<string, { prefix: number; breakpoint?: number }>> = {
	"samples/long/pi-mono-large-session.jsonl": { prefix: 0.1688 },
	"samples/long/pi-mono-compacted.jsonl": { prefix: 0.2514, breakpoint: 0.056 },
	"samples/long/gjc-inline-agent-design.jsonl": { prefix: 0.1179 },
	"samples/long/gjc-raddit-dashboard-pr.jsonl": { prefix: 0.1395, breakpoint: 0.0259 },
	"generated 10000-entry session": { prefix: 0.0475 },
	"generated 30000-entry compacted session": { prefix: 0.1784, breakpoint: 0.0291 },
	"samples/long/taskq.jsonl": { prefix: 0.0905, breakpoint: 0.0486 },
};

/** Whole-replay timings are seconds long: fewer repetitions. */
const REPLAY_REPS = 3;

/** The process's first fold + render runs cold: warmed up once for every replay the bench runs, as the CLI does for a run. */
const WARM_UP = createWarmUp();

interface ReplayRow {
	name: string;
	entries: number;
	branches: number;
	points: number;
	/** s */
	seconds: number;
}

/** `advisor-ledger replay` on one file, as the CLI runs it (median wall time of REPLAY_REPS runs after one warm-up). */
function measureReplay(name: string, text: string, entries: number, allLeaves: boolean): ReplayRow {
	const samples: number[] = [];
	let last: ReturnType<typeof replayText> | undefined;
	for (let i = 0; i < REPLAY_REPS + 1; i++) {
		const t0 = performance.now();
		last = replayText(name, text, { every: EVERY, allLeaves, warmUp: WARM_UP });
		if (i > 0) samples.push((performance.now() - t0) / 1000);
	}
	return {
		name,
		entries,
		branches: last!.sessions.length,
		points: last!.sessions.reduce((n, s) => n + s.points.length, 0),
		seconds: median(samples),
	};
}

interface Case {
	name: string;
	text: string;
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median wall time of `run` in ms; `setup` runs untimed before each repetition. */
function time<T>(run: (input: T) => unknown, setup: () => T): number {
	const samples: number[] = [];
	for (let i = 0; i < WARMUP + REPS; i++) {
		const input = setup();
		const t0 = performance.now();
		run(input);
		const elapsed = performance.now() - t0;
		if (i >= WARMUP) samples.push(elapsed);
	}
	return median(samples);
}

interface Row {
	name: string;
	entries: number;
	points: number;
	pointKind: string;
	/** ms */
	incremental: number;
	scratch: number;
	newEvents: number;
	foldRender: number;
	eventsFoldRender: number;
	pi: number;
	session: SessionReport;
}

function measure(c: Case): Row {
	const read = readSession(c.text);
	const events = read.events;
	const tools = sessionTools(read.header?.cwd ?? repoRoot, calledToolNames(read.entries));
	const options: RenderOptions = {
		config: DEFAULT_LEDGER_CONFIG,
		catalogue: tools.catalogue,
		tools: tools.declarations,
		toolsMode: "repo",
		mode: "consult",
	};
	const points = consultationPoints(events, EVERY);
	const last = points.at(-1)!;
	const previous = points.at(-2) ?? { upTo: 0, callId: undefined };
	const lastOptions = { ...options, inFlightCallId: last.callId };
	const previousOptions = { ...options, inFlightCallId: previous.callId };

	// Incremental consultation: the state and memo of the previous point exist; fold the new events, render.
	const before = ledgerOf(events.slice(0, previous.upTo));
	const newEvents = events.slice(previous.upTo, last.upTo);
	const incremental = time(
		(memo) => renderRequest(foldLedger(before, newEvents), lastOptions, memo),
		() => {
			const memo = createRenderMemo();
			renderRequest(before, previousOptions, memo);
			return memo;
		},
	);
	const upToLast = events.slice(0, last.upTo);
	const scratch = time(
		() => renderRequest(ledgerOf(upToLast), lastOptions, createRenderMemo()),
		() => undefined,
	);

	// The whole branch: the ledger's fold + render vs Pi's own context build for the executor.
	const foldRender = time(
		() => renderRequest(ledgerOf(events), options, createRenderMemo()),
		() => undefined,
	);
	const eventsFoldRender = time(
		() => renderRequest(ledgerOf(normalizeBranch(read.path, read.entries)), options, createRenderMemo()),
		() => undefined,
	);
	const branch = prepareBaseline(read.path, []);
	const leafId = branch.entries.at(-1)!.id;
	const pi = time(
		() => convertToLlm(buildSessionContext(branch.entries, leafId, branch.byId).messages),
		() => undefined,
	);

	const replay = replayText(c.name, c.text, { every: EVERY, allLeaves: false, warmUp: WARM_UP });
	return {
		name: c.name,
		entries: read.entries.length,
		points: points.length,
		pointKind: points[0]!.kind,
		incremental,
		scratch,
		newEvents: newEvents.length,
		foldRender,
		eventsFoldRender,
		pi,
		session: replay.sessions[0]!,
	};
}

const fmt = (n: number, digits = 3) => n.toFixed(digits);
const verdict = (ok: boolean) => (ok ? "met" : "**missed**");

/** The verdicts of one input against the v3 and v4 targets. */
function sessionVerdicts(name: string, s: SessionReport): string[] {
	const out: string[] = [];
	const t = s.tokens.ratio ?? Number.NaN;
	const tokens = name.endsWith("pi-mono-large-session.jsonl")
		? TARGETS.tokensShared
		: name === `generated ${GENERATED_ENTRIES}-entry session`
			? TARGETS.tokensGenerated
			: undefined;
	out.push(
		`- ledger / baseline tokens, ${name}: ${fmt(t, 4)}${tokens === undefined ? " (no target)" : ` — ${verdict(t <= tokens)} (target ≤ ${tokens})`}; requests larger than their baseline: ${s.largerThanBaseline.length} — ${verdict(s.largerThanBaseline.length === 0)}; user messages lost: ${s.userMessages.missing} — ${verdict(s.userMessages.missing === 0)}`,
	);
	const v3 = V3_COST[name];
	const e = s.cache.effectiveRatio ?? Number.NaN;
	if (v3 !== undefined) {
		const limit = v3.prefix * TARGETS.overV3;
		const also = name.endsWith("pi-mono-large-session.jsonl") ? Math.min(limit, TARGETS.effectiveShared) : limit;
		out.push(
			`- effective cost / baseline (fresh + 0.1 × cached prefix, both sides cached), ${name}: ${fmt(e, 4)} against v3's ${fmt(v3.prefix, 4)} — ${verdict(e <= also)} (target ≤ ${fmt(also, 4)})`,
		);
	} else out.push(`- effective cost / baseline, ${name}: ${fmt(e, 4)} (no target)`);
	if (v3?.breakpoint !== undefined) {
		const b = s.cache.effectiveRatioBreakpoint ?? Number.NaN;
		const limit = v3.breakpoint * TARGETS.overV3;
		out.push(
			`- effective cost under breakpoints, ${name}: ${fmt(b, 4)} against v3's ${fmt(v3.breakpoint, 4)} — ${verdict(b <= limit)} (target ≤ ${fmt(limit, 4)})`,
		);
	}
	const f = s.facts.ledgerShare ?? 1;
	out.push(`- facts carried, ${name}: ${fmt(f)} — ${verdict(f >= TARGETS.facts)} (target ≥ ${TARGETS.facts})`);
	const lost = s.facts.lost.ledgerShare;
	if (lost !== null)
		out.push(
			`- facts the executor lost that the request carries, ${name}: ${fmt(lost)} (Pi's summary: ${fmt(s.facts.lost.baselineShare ?? Number.NaN)}) — ${verdict(lost >= TARGETS.lostFacts)} (target ≥ ${TARGETS.lostFacts})`,
		);
	const tp = s.cacheShare.tokenPrefix.p50 ?? Number.NaN;
	const bp = s.cacheShare.breakpoint.p50 ?? Number.NaN;
	const held = s.points.length >= TARGETS.sharePoints;
	out.push(
		`- median cached share, ${name}: token prefix ${fmt(tp)}, breakpoints ${fmt(bp)}${held ? ` — ${verdict(tp >= TARGETS.share && bp >= TARGETS.share)} (target ≥ ${TARGETS.share})` : ` (${s.points.length} points: no target under ${TARGETS.sharePoints})`}; the log's cut moved ${s.logCuts} times`,
	);
	return out;
}

const readSample = (name: string) => readFileSync(path.join(repoRoot, name), "utf8");

/** Every bundled sample the fact audit also covers (the real sessions are rows of their own). */
function sampleCases(): Case[] {
	const out: Case[] = [];
	for (const dir of ["samples", "samples/long"]) {
		for (const name of readdirSync(path.join(repoRoot, dir)).sort()) {
			if (!name.endsWith(".jsonl") || REAL_SESSIONS.includes(`${dir}/${name}`)) continue;
			out.push({ name: `${dir}/${name}`, text: readFileSync(path.join(repoRoot, dir, name), "utf8") });
		}
	}
	return out;
}

/** The fact audit per input and category, and a verdict per input: each category keeps its share of Pi's. */
function factTable(rows: readonly Row[]): { table: string[]; verdicts: string[] } {
	const sessions: { name: string; session: SessionReport }[] = rows.map((r) => ({ name: r.name, session: r.session }));
	for (const c of sampleCases()) {
		const replay = replayText(c.name, c.text, { every: EVERY, allLeaves: false, warmUp: WARM_UP });
		if (replay.sessions[0] !== undefined) sessions.push({ name: c.name, session: replay.sessions[0] });
	}
	const table = [
		`| input | all | executor lost | ${FACT_CATEGORIES.join(" | ")} |`,
		`| --- | ---: | ---: | ${FACT_CATEGORIES.map(() => "---:").join(" | ")} |`,
	];
	const verdicts: string[] = [];
	for (const { name, session } of sessions) {
		const f = session.facts;
		const cells = FACT_CATEGORIES.map((c) =>
			f.ledger[c].total === 0
				? "—"
				: `${fmt(carriedShare(f.ledger[c]), 2)} / ${fmt(carriedShare(f.baseline[c]), 2)}`,
		);
		const lost =
			f.lost.ledgerShare === null ? "—" : `${fmt(f.lost.ledgerShare, 3)} / ${fmt(f.lost.baselineShare ?? 0, 3)}`;
		table.push(
			`| ${name} | ${fmt(f.ledgerShare ?? 1, 3)} / ${fmt(f.baselineShare ?? 1, 3)} | ${lost} | ${cells.join(" | ")} |`,
		);
		const short = FACT_CATEGORIES.filter(
			(c) => f.ledger[c].total > 0 && carriedShare(f.ledger[c]) < FACT_TARGETS[c] * carriedShare(f.baseline[c]),
		);
		const all = f.ledgerShare ?? 1;
		verdicts.push(
			`- facts carried, ${name}: ${fmt(all)} against Pi's ${fmt(f.baselineShare ?? 1)} — ${verdict(short.length === 0 && all >= TARGETS.facts)} (target ≥ ${TARGETS.facts}, and per category ≥ 0.95 × Pi's share, names 0.85 ×)${short.length > 0 ? `; short: ${short.join(", ")}` : ""}${f.lost.ledgerShare === null ? "" : `; of what the executor lost ${fmt(f.lost.ledgerShare)} — ${verdict(f.lost.ledgerShare >= TARGETS.lostFacts)} (target ≥ ${TARGETS.lostFacts})`}`,
		);
	}
	return { table, verdicts };
}

/** `BENCH_ONLY=memory`: the memory rows alone, written into their section of the existing BENCHMARKS.md. */
function memoryOnly(): void {
	console.error(
		"bench: memory (replay and render of 200,000-entry chains and of one 50 MB message, in child processes) …",
	);
	const section = memorySection(measureMemory());
	const previous = existsSync(BENCHMARKS) ? readFileSync(BENCHMARKS, "utf8") : "# Benchmarks\n";
	writeFileSync(BENCHMARKS, withMemorySection(previous, section));
	console.log(section.join("\n"));
	console.log("\nWritten to the Memory section of BENCHMARKS.md.");
}

function main(): void {
	// The project ships the real sessions: a fresh clone measures the same rows, under the same names.
	const cases: Case[] = REAL_SESSIONS.map((name) => ({ name, text: readFileSync(path.join(repoRoot, name), "utf8") }));
	const generated = generateSession(GENERATED_ENTRIES);
	cases.push({ name: `generated ${generated.entries}-entry session`, text: generated.jsonl });
	const compacted = generateCompacted();
	const compactedName = `generated ${COMPACTED.entries}-entry compacted session`;
	cases.push({ name: compactedName, text: compacted.jsonl });

	const rows: Row[] = [];
	for (const c of cases) {
		console.error(`bench: ${c.name} …`);
		rows.push(measure(c));
	}
	console.error("bench: whole replays …");
	const replayRows: ReplayRow[] = [
		measureReplay(`generated ${generated.entries}-entry session`, generated.jsonl, generated.entries, false),
		measureReplay(compactedName, compacted.jsonl, compacted.entries, false),
	];
	const tree = generateTree(6000, 2000);
	replayRows.push(measureReplay("6,000-entry trunk + 2,000 leaves, --all-leaves", tree.jsonl, tree.entries, true));
	const pimono = cases.find((c) => c.name.endsWith("pi-mono-large-session.jsonl"));
	if (pimono !== undefined) {
		// Ten copies of a real session end to end (v1, so one linear branch): a simulated point every 10 tool rounds.
		const [head, ...body] = pimono.text.trimEnd().split("\n");
		const text = `${[head, ...Array.from({ length: 10 }, () => body).flat()].join("\n")}\n`;
		replayRows.push(measureReplay("pi-mono session ×10", text, body.length * 10, false));
	}
	const maxRssMb = process.resourceUsage().maxRSS / 1024;
	console.error(
		"bench: memory (replay and render of 200,000-entry chains and of one 50 MB message, in child processes) …",
	);
	const memory = memorySection(measureMemory());
	const replayTable: string[] = [
		"| input | entries | branches | points | replay | per 10k entries |",
		"| --- | ---: | ---: | ---: | ---: | ---: |",
		...replayRows.map(
			(r) =>
				`| ${r.name} | ${r.entries} | ${r.branches} | ${r.points} | ${fmt(r.seconds, 2)} s | ${fmt((r.seconds * 10_000) / r.entries, 2)} s |`,
		),
		`| **target** | | | | | ≤ ${TARGETS.replayPer10k} s |`,
	];

	const table: string[] = [
		"| session | entries | points | incremental / scratch | fold+render / Pi build | ledger / baseline tokens | effective cost / baseline | effective cost, breakpoints | facts carried | executor-lost facts carried | log cuts | requests > baseline | user messages lost | token-prefix share p50 | breakpoint share p50 |",
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
	];
	for (const r of rows) {
		const s = r.session;
		table.push(
			`| ${r.name} | ${r.entries} | ${r.points} ${r.pointKind} | ${fmt(r.incremental / r.scratch)} | ${fmt(r.foldRender / r.pi, 1)} | ${fmt(s.tokens.ratio ?? Number.NaN, 4)} | ${fmt(s.cache.effectiveRatio ?? Number.NaN, 4)} | ${fmt(s.cache.effectiveRatioBreakpoint ?? Number.NaN, 4)} | ${fmt(s.facts.ledgerShare ?? 1)} | ${s.facts.lost.ledgerShare === null ? "—" : fmt(s.facts.lost.ledgerShare)} | ${s.logCuts} | ${s.largerThanBaseline.length} | ${s.userMessages.missing} | ${fmt(s.cacheShare.tokenPrefix.p50 ?? Number.NaN)} | ${fmt(s.cacheShare.breakpoint.p50 ?? Number.NaN)} |`,
		);
	}
	table.push(
		`| **target** | | | ≤ ${TARGETS.incremental} (10k entries) | ≤ ${TARGETS.fullVsPi} | ≤ ${TARGETS.tokensShared} pi-mono, ≤ ${TARGETS.tokensGenerated} generated | ≤ ${TARGETS.overV3} × v3's | ≤ ${TARGETS.overV3} × v3's (compacted) | ≥ ${TARGETS.facts} | ≥ ${TARGETS.lostFacts} | | 0 | 0 | ≥ ${TARGETS.share} (≥ ${TARGETS.sharePoints} points) | ≥ ${TARGETS.share} |`,
	);

	const absolute: string[] = [
		"| session | incremental (new events) | from scratch | fold+render | events+fold+render | Pi buildSessionContext+convertToLlm | baseline tokens | ledger tokens |",
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
	];
	for (const r of rows) {
		absolute.push(
			`| ${r.name} | ${fmt(r.incremental, 2)} ms (${r.newEvents}) | ${fmt(r.scratch, 2)} ms | ${fmt(r.foldRender, 2)} ms | ${fmt(r.eventsFoldRender, 2)} ms | ${fmt(r.pi, 2)} ms | ${r.session.tokens.baseline.total} | ${r.session.tokens.ledger.total} |`,
		);
	}

	const facts = factTable(rows);
	console.error("bench: ledger v4 choices …");
	const byName = (end: string) => cases.find((c) => c.name.endsWith(end))!;
	const v4Choices = v4ChoicesSection(
		[
			byName("pi-mono-large-session.jsonl"),
			byName("pi-mono-compacted.jsonl"),
			byName("gjc-raddit-dashboard-pr.jsonl"),
			byName("compacted session"),
		],
		EVERY,
		WARM_UP,
	);

	console.error("bench: the watch …");
	const watch = watchSection([
		...cases,
		{ name: "samples/long/taskq.jsonl", text: readSample("samples/long/taskq.jsonl") },
	]);

	const generatedRow = rows.at(-1)!;
	const verdicts: string[] = [];
	const incRatio = generatedRow.incremental / generatedRow.scratch;
	verdicts.push(
		`- incremental consult / refold from scratch at 10k entries: ${fmt(incRatio)} — ${verdict(incRatio <= TARGETS.incremental)} (target ≤ ${TARGETS.incremental})`,
	);
	for (const r of rows) {
		const full = r.foldRender / r.pi;
		verdicts.push(
			`- full fold+render / Pi build, ${r.name}: ${fmt(full, 1)}× — ${verdict(full <= TARGETS.fullVsPi)} (target ≤ ${TARGETS.fullVsPi})`,
		);
	}
	for (const r of rows) verdicts.push(...sessionVerdicts(r.name, r.session));

	verdicts.push(...facts.verdicts);
	for (const r of replayRows) {
		const per10k = (r.seconds * 10_000) / r.entries;
		verdicts.push(
			`- whole replay, ${r.name}: ${fmt(per10k, 2)} s per 10k entries — ${verdict(per10k <= TARGETS.replayPer10k)} (target ≤ ${TARGETS.replayPer10k} s)`,
		);
	}

	const cpu = os.cpus()[0]?.model ?? "unknown CPU";
	const machine = `${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}, Node ${process.version}`;
	const date = new Date().toISOString().slice(0, 10);
	const md = [
		"# Benchmarks",
		"",
		"Written by `npm run bench` (bench/run.ts); do not edit by hand.",
		"",
		`- command: \`npm run bench\` (\`tsx bench/run.ts\`), BENCH_REPS=${REPS}`,
		`- machine: ${machine}`,
		`- date: ${date}`,
		"",
		"## Ratios",
		"",
		...table,
		"",
		`Peak RSS of the whole run: ${maxRssMb.toFixed(0)} MB.`,
		"",
		"## Against the targets",
		"",
		"The targets are the project's own, set in bench/run.ts (`TARGETS`); README.md quotes the token and cost ratios from here.",
		"",
		...verdicts,
		"",
		"## Facts carried",
		"",
		"Share of the facts the branch holds (docs/request-format.md, the fact audit) that each request carries as text, summed over the replay's points: ledger / Pi's context at the same points. *executor lost*: of the facts the executor lost at its newest compaction (all their occurrences lie before its horizon), the share each carries — Pi's context only through its summary. Pi's context has no system prompt, so it carries no standing instructions.",
		"",
		...facts.table,
		"",
		...v4Choices,
		"",
		...watch,
		"",
		...v3ChoicesSection(),
		"",
		"## Whole replays",
		"",
		...replayTable,
		"",
		"## Absolute medians",
		"",
		...absolute,
		"",
		...memory,
		"",
		"## How it is measured",
		"",
		`- Every timing is the median of ${REPS} runs after ${WARMUP} warm-up runs, in one process, with \`performance.now()\`.`,
		"- *incremental / scratch*: at the branch's last consultation point. Incremental = `foldLedger` of the events since the previous point onto the state folded there, then `renderRequest` with the render memo that rendered the previous point. Scratch = `ledgerOf` of the branch up to the same point, then `renderRequest` with a fresh memo.",
		"- *fold+render / Pi build*: the whole leaf path. Ledger = `ledgerOf` + `renderRequest` (fresh memo) over the path's events; Pi = `buildSessionContext` + `convertToLlm` over the same entries (what the executor's own turn costs Pi). The absolute table also shows the ledger including `normalizeBranch` (entries → events).",
		`- *tokens* and *cached shares*: the replay engine (\`advisor-ledger replay --every ${EVERY}\`): real advisor calls are the points where the log has them (the generated session), else a simulated point every ${EVERY} tool rounds and at the last entry. Baseline = Pi's resolved context with the in-flight advisor call stripped + a tool inventory with JSON schemas (no system prompt); ledger = the full request (system prompt, investigation tool declarations, catalogue, log). Same chars/4 estimator on both sides. *Effective cost* prices every request as its fresh tokens + 0.1 × the tokens of its prefix cached by the previous point's request, on both sides: the ledger's cached prefix is the token-prefix share, the baseline's is the previous baseline request's leading messages when the new one repeats them (Pi's context only grows between compactions).`,
		`- The generated session comes from bench/generate.ts (the tests' session builder, fixed seed): ${generated.entries} entries, users, parallel tool calls with results up to 20k chars, reasoning, extension messages, \`!\`/\`!!\` runs, and a completed consultation every ~40 steps. The generated compacted session (\`generateCompacted\`): ${COMPACTED.entries} entries with texts at a tenth of their length, call arguments drawn from a pool of 150, and a compaction every ${COMPACTED.compactEvery} entries where Pi's \`findCutPoint\` cuts. samples/long/pi-mono-compacted.jsonl is the pi-mono session compacted by Pi's own code at a 64k-token window (samples/README.md).`,
		`- *whole replays*: \`replayText\` as \`advisor-ledger replay --every ${EVERY}\` runs it on one file (reading excluded), median of ${REPLAY_REPS} runs after one warm-up; entries = distinct entries of the file. The tree is bench/generate.ts \`generateTree\`: one-message branches spread along a generated trunk, every leaf replayed.`,
		"",
	].join("\n");
	if (!writeBenchmarks(md)) return;
	console.log(table.join("\n"));
	console.log("");
	console.log(replayTable.join("\n"));
	console.log("");
	console.log(verdicts.join("\n"));
	console.log("");
	console.log(memory.join("\n"));
	console.log(`\nPeak RSS ${maxRssMb.toFixed(0)} MB. Written to BENCHMARKS.md.`);
}

/**
 * Writes BENCHMARKS.md unless it would lose rows the file has (an input gone, a row renamed): then it
 * says which and leaves the file as it was, unless BENCH_DROP_ROWS=1, when the file says it instead.
 */
function writeBenchmarks(md: string): boolean {
	const previous = existsSync(BENCHMARKS) ? readFileSync(BENCHMARKS, "utf8") : undefined;
	const dropped = droppedRows(previous, md);
	if (dropped.length > 0 && process.env.BENCH_DROP_ROWS !== "1") {
		console.error(
			`bench: BENCHMARKS.md not written: it would lose ${dropped.length} row(s) of the last run (${dropped.join("; ")}). Run with BENCH_DROP_ROWS=1 to write it anyway (the file then names them).`,
		);
		process.exitCode = 1;
		return false;
	}
	const note = droppedNote(dropped);
	writeFileSync(BENCHMARKS, note.length === 0 ? md : `${md.trimEnd()}\n${note.join("\n")}\n`);
	return true;
}

/**
 * `BENCH_ROW=<text>`: only the whole-replay and memory rows whose name holds the text, printed and
 * not written (a file of some rows would not be the bench's), so one row can be measured while it is
 * worked on.
 */
function rowOnly(only: string): void {
	const replays: [string, () => { jsonl: string; entries: number }, boolean][] = [
		[`generated ${GENERATED_ENTRIES}-entry session`, () => generateSession(GENERATED_ENTRIES), false],
		[`generated ${COMPACTED.entries}-entry compacted session`, generateCompacted, false],
		["6,000-entry trunk + 2,000 leaves, --all-leaves", () => generateTree(6000, 2000), true],
	];
	for (const [name, make, allLeaves] of replays) {
		if (!name.includes(only)) continue;
		console.error(`bench: ${name} …`);
		const input = make();
		const r = measureReplay(name, input.jsonl, input.entries, allLeaves);
		console.log(
			`${name}: ${r.branches} branches, ${r.points} points, ${fmt(r.seconds, 2)} s, ${fmt((r.seconds * 10_000) / r.entries, 2)} s per 10k entries`,
		);
	}
	const memory = measureMemory(only);
	if (memory.length > 0) console.log([...memoryTable(memory), "", ...memoryVerdicts(memory)].join("\n"));
}

const only = process.env.BENCH_ROW;
if (only !== undefined && only !== "") rowOnly(only);
else if (process.env.BENCH_ONLY === "memory") memoryOnly();
else main();
