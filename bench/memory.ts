/**
 * The memory rows of the bench: `advisor-ledger replay` and `render` (at the last entry) on a long
 * generated chain, each in a child process of the CLI as `npm run build` makes it, so the peak
 * resident memory measured is the command's own (docs/decisions.md, "A replay's memory follows the
 * branch"). `BENCH_ONLY=memory npm run bench` measures only these and rewrites only their section
 * of BENCHMARKS.md.
 *
 * The session: bench/generate.ts with no consultations, so the replay simulates a point every 10
 * tool rounds (6,528 points), and small texts, so the entries are many for their size. A second chain
 * of the same length has a user message every five rounds (12,628 of them): a replay's work per
 * point follows what changed, not how many users came before (docs/decisions.md, "A replay's work
 * follows the change").
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildCli, repoRoot } from "../test/support/cli-build.ts";
import { type GenerateOptions, generateSession } from "./generate.ts";

export const MEMORY_ENTRIES = 200_000;
const TEXT_SCALE = 0.02;
/** The chatty chain: a user message and five rounds (bench/generate.ts `userEvery`). */
const USER_EVERY = 6;

/** The targets: seconds of replay per 10,000 entries, peak RSS (MiB) of a replay and of a render. */
export const MEMORY_TARGETS = { replayPer10k: 3, replayMb: 1024, renderMb: 512 };

export interface MemoryRow {
	name: string;
	command: "replay" | "render";
	entries: number;
	fileMb: number;
	points: number | undefined;
	/** Wall time of the child process, s. */
	seconds: number;
	/** MiB. */
	peakMb: number;
}

/** Printed by the child when it exits: its own peak resident set, in KiB (the preload below). */
const MARK = "bench-max-rss-kb";
const PRELOAD = `data:text/javascript,${encodeURIComponent(
	`process.on("exit", () => process.stderr.write("\\n${MARK} " + process.resourceUsage().maxRSS + "\\n"));`,
)}`;

function runChild(main: string, args: readonly string[]): { seconds: number; peakMb: number; stdout: string } {
	const t0 = performance.now();
	const child = spawnSync(process.execPath, ["--import", PRELOAD, main, ...args], {
		encoding: "utf8",
		maxBuffer: 256 * 1024 * 1024,
	});
	const seconds = (performance.now() - t0) / 1000;
	const kb = new RegExp(`${MARK} (\\d+)`).exec(child.stderr)?.[1];
	if (child.status !== 0 || kb === undefined)
		throw new Error(`bench: ${args[0]} exited ${child.status}: ${child.stderr.slice(-500)}`);
	return { seconds, peakMb: Number(kb) / 1024, stdout: child.stdout };
}

/** Generates the chains, builds the CLI, and runs each command once in its own process (about two minutes). */
export function measureMemory(): MemoryRow[] {
	mkdirSync(path.join(repoRoot, ".tmp"), { recursive: true });
	const dir = mkdtempSync(path.join(repoRoot, ".tmp", "bench-memory-"));
	const built = buildCli();
	try {
		const chain = writeChain(dir, "chain.jsonl", { consultations: false, textScale: TEXT_SCALE });
		// The name carries no measured figure: a row is matched by its name from run to run (bench/rows.ts).
		const name = `generated ${chain.entries}-entry chain`;
		const chatty = writeChain(dir, "chatty.jsonl", {
			consultations: false,
			textScale: TEXT_SCALE,
			userEvery: USER_EVERY,
		});
		return [
			replayRow(built.main, chain, `${name}: replay`),
			commandRow(built.main, chain, "render", `${name}: render at the last entry`),
			replayRow(
				built.main,
				chatty,
				`generated ${chatty.entries}-entry chain, a user message every five rounds: replay`,
			),
		];
	} finally {
		rmSync(dir, { recursive: true, force: true });
		built.dispose();
	}
}

interface Chain {
	file: string;
	entries: number;
	fileMb: number;
}

function writeChain(dir: string, name: string, options: GenerateOptions): Chain {
	const session = generateSession(MEMORY_ENTRIES, 20260101, options);
	const file = path.join(dir, name);
	writeFileSync(file, session.jsonl);
	return { file, entries: session.entries, fileMb: Buffer.byteLength(session.jsonl) / 1e6 };
}

function commandRow(main: string, chain: Chain, command: MemoryRow["command"], name: string): MemoryRow {
	const run = runChild(main, [command, chain.file]);
	// "Replayed 1 session from 1 file: 6,528 consultation points"
	const points = /([\d,]+) consultation point/.exec(run.stdout)?.[1]?.replaceAll(",", "");
	return {
		name,
		command,
		entries: chain.entries,
		fileMb: chain.fileMb,
		points: command === "replay" ? Number(points ?? Number.NaN) : undefined,
		seconds: run.seconds,
		peakMb: run.peakMb,
	};
}

function replayRow(main: string, chain: Chain, name: string): MemoryRow {
	return commandRow(main, chain, "replay", name);
}

const fmt = (n: number, digits: number) => n.toFixed(digits);

/** Seconds per 10,000 entries. */
export function per10k(row: MemoryRow): number {
	return (row.seconds * 10_000) / row.entries;
}

/** The section's table. */
export function memoryTable(rows: readonly MemoryRow[]): string[] {
	return [
		"| input | entries | file | points | time | per 10k entries | peak RSS |",
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
		...rows.map(
			(r) =>
				`| ${r.name} | ${r.entries} | ${fmt(r.fileMb, 0)} MB | ${r.points ?? ""} | ${fmt(r.seconds, 1)} s | ${fmt(per10k(r), 2)} s | ${fmt(r.peakMb, 0)} MiB |`,
		),
		`| **target** | | | | | replay ≤ ${MEMORY_TARGETS.replayPer10k} s | replay ≤ ${MEMORY_TARGETS.replayMb} MiB, render ≤ ${MEMORY_TARGETS.renderMb} MiB |`,
	];
}

const verdict = (ok: boolean) => (ok ? "met" : "**missed**");

export function memoryVerdicts(rows: readonly MemoryRow[]): string[] {
	return rows.map((r) =>
		r.command === "replay"
			? `- ${r.name}: ${fmt(per10k(r), 2)} s per 10k entries — ${verdict(per10k(r) <= MEMORY_TARGETS.replayPer10k)} (target ≤ ${MEMORY_TARGETS.replayPer10k} s); peak RSS ${fmt(r.peakMb, 0)} MiB — ${verdict(r.peakMb <= MEMORY_TARGETS.replayMb)} (target ≤ ${MEMORY_TARGETS.replayMb} MiB = 1 GiB)`
			: `- ${r.name}: peak RSS ${fmt(r.peakMb, 0)} MiB — ${verdict(r.peakMb <= MEMORY_TARGETS.renderMb)} (target ≤ ${MEMORY_TARGETS.renderMb} MiB = 0.5 GiB)`,
	);
}

/** The whole section, as BENCHMARKS.md holds it. */
export function memorySection(rows: readonly MemoryRow[]): string[] {
	return [
		"## Memory",
		"",
		"`advisor-ledger replay` and `render` on a long generated chain (bench/memory.ts): each command run once in a child process of the CLI as `npm run build` makes it; time is the child's wall time (Node's start and the CLI's modules included), peak RSS its own (`process.resourceUsage().maxRSS`, in MiB); it varies by some tens of MiB from run to run with the machine's load, which moves V8's collections. The chain is bench/generate.ts with no consultations (the replay simulates a point every 10 tool rounds) and texts at 2% of their usual length; the second chain is the same with a user message every five rounds (`userEvery: 6`, 12,628 user messages), whose replay once grew with the users before each point (docs/decisions.md, \"A replay's work follows the change\"). `BENCH_ONLY=memory npm run bench` measures only this section and rewrites only it.",
		"",
		...memoryTable(rows),
		"",
		...memoryVerdicts(rows),
	];
}

/** BENCHMARKS.md with its memory section replaced (or added before "How it is measured"). */
export function withMemorySection(markdown: string, section: readonly string[]): string {
	const lines = markdown.split("\n");
	const start = lines.indexOf("## Memory");
	const text = section.join("\n");
	if (start === -1) {
		const how = lines.indexOf("## How it is measured");
		const at = how === -1 ? lines.length : how;
		return [...lines.slice(0, at), text, "", ...lines.slice(at)].join("\n");
	}
	let end = start + 1;
	while (end < lines.length && !lines[end]!.startsWith("## ")) end++;
	return [...lines.slice(0, start), text, "", ...lines.slice(end)].join("\n");
}
