/**
 * The memory rows of the bench: `advisor-ledger replay` and `render` (at the last entry) on long
 * generated chains, each in a child process of the CLI as `npm run build` makes it, so the peak
 * resident memory measured is the command's own (docs/decisions.md, "A replay's memory follows the
 * branch"). `BENCH_ONLY=memory npm run bench` measures only these and rewrites only their section
 * of BENCHMARKS.md.
 *
 * The session: bench/generate.ts with no consultations, so the replay simulates a point every 10
 * tool rounds (6,528 points), and small texts, so the entries are many for their size. A second chain
 * of the same length has a user message every five rounds (12,628 of them): a replay's work per
 * point follows what changed, not how many users came before (docs/decisions.md, "A replay's work
 * follows the change"). A third is the second with every round reading a file no round read before
 * (about 90,000 paths): the fact audit's work follows the change, not how many facts the branch
 * holds. And one short session with one 50 MB user message: memory per character of one message.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildCli, repoRoot } from "../test/support/cli-build.ts";
import { type GeneratedSession, type GenerateOptions, generateLongMessage, generateSession } from "./generate.ts";

export const MEMORY_ENTRIES = 200_000;
const TEXT_SCALE = 0.02;
/** The chatty chain: a user message and five rounds (bench/generate.ts `userEvery`). */
const USER_EVERY = 6;

/** The one long message's length, in characters (one byte each). */
const LONG_MESSAGE = 50_000_000;

/** A row's targets: seconds per 10,000 entries (none for a row timed only to be seen), peak RSS in MiB. */
export interface MemoryTarget {
	per10k?: number;
	mb: number;
}

/** The targets of the rows of each kind. */
export const MEMORY_TARGETS = {
	replay: { per10k: 3, mb: 1024 },
	render: { mb: 512 },
	/** The new-file chain: the fact audit follows the change. */
	newFilesReplay: { per10k: 1.5, mb: 1024 },
	newFilesRender: { per10k: 0.3, mb: 512 },
	/** One 50 MB message: 600 MB. */
	longMessage: { mb: 600e6 / 2 ** 20 },
} satisfies Record<string, MemoryTarget>;

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
	target: MemoryTarget;
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

/**
 * Generates the chains, builds the CLI, and runs each command once in its own process (a few
 * minutes). `only`: the rows whose name holds it, and only the chains they read (`BENCH_ROW`, bench/run.ts).
 */
export function measureMemory(only?: string): MemoryRow[] {
	const T = MEMORY_TARGETS;
	// Made when a chosen row first reads a chain (`lazy`), and removed after.
	let made: string | undefined;
	const folder = () => {
		if (made === undefined) {
			mkdirSync(path.join(repoRoot, ".tmp"), { recursive: true });
			made = mkdtempSync(path.join(repoRoot, ".tmp", "bench-memory-"));
		}
		return made;
	};
	const chattyOptions = { consultations: false, textScale: TEXT_SCALE, userEvery: USER_EVERY };
	// Written when a row first reads it: a filtered run generates only what its rows read.
	const lazy = (make: () => Chain) => {
		let chain: Chain | undefined;
		return () => (chain ??= make());
	};
	const chain = lazy(() => writeChain(folder(), "chain.jsonl", { consultations: false, textScale: TEXT_SCALE }));
	const chatty = lazy(() => writeChain(folder(), "chatty.jsonl", chattyOptions));
	const newFiles = lazy(() => writeChain(folder(), "new-files.jsonl", { ...chattyOptions, newFiles: true }));
	const long = lazy(() => writeSession(folder(), "long-message.jsonl", generateLongMessage(LONG_MESSAGE)));
	// The names carry no measured figure: a row is matched by its name from run to run (bench/rows.ts).
	const name = `generated ${MEMORY_ENTRIES}-entry chain`;
	const chattyName = `generated ${MEMORY_ENTRIES}-entry chain, a user message every five rounds`;
	const newFilesName = `generated ${MEMORY_ENTRIES}-entry chain, a new file every round and a user every five`;
	const longName = `one ${LONG_MESSAGE / 1e6} MB user message`;
	const rows: [() => Chain, MemoryRow["command"], string, MemoryTarget][] = [
		[chain, "replay", `${name}: replay`, T.replay],
		[chain, "render", `${name}: render at the last entry`, T.render],
		[chatty, "replay", `${chattyName}: replay`, T.replay],
		[newFiles, "replay", `${newFilesName}: replay`, T.newFilesReplay],
		[newFiles, "render", `${newFilesName}: render at the last entry`, T.newFilesRender],
		[long, "replay", `${longName}: replay`, T.longMessage],
		[long, "render", `${longName}: render at the last entry`, T.longMessage],
	];
	const chosen = rows.filter(([, , rowName]) => only === undefined || rowName.includes(only));
	if (chosen.length === 0) return [];
	const built = buildCli();
	try {
		return chosen.map(([read, command, rowName, target]) => commandRow(built.main, read(), command, rowName, target));
	} finally {
		if (made !== undefined) rmSync(made, { recursive: true, force: true });
		built.dispose();
	}
}

interface Chain {
	file: string;
	entries: number;
	fileMb: number;
}

function writeChain(dir: string, name: string, options: GenerateOptions): Chain {
	return writeSession(dir, name, generateSession(MEMORY_ENTRIES, 20260101, options));
}

function writeSession(dir: string, name: string, session: GeneratedSession): Chain {
	const file = path.join(dir, name);
	writeFileSync(file, session.jsonl);
	return { file, entries: session.entries, fileMb: Buffer.byteLength(session.jsonl) / 1e6 };
}

function commandRow(
	main: string,
	chain: Chain,
	command: MemoryRow["command"],
	name: string,
	target: MemoryTarget,
): MemoryRow {
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
		target,
	};
}

const fmt = (n: number, digits: number) => n.toFixed(digits);

/** Seconds per 10,000 entries. */
export function per10k(row: MemoryRow): number {
	return (row.seconds * 10_000) / row.entries;
}

/** A row's targets, as its table cell says them. */
function targetCell(t: MemoryTarget): string {
	const time = t.per10k === undefined ? [] : [`≤ ${t.per10k} s per 10k`];
	return [...time, `≤ ${fmt(t.mb, 0)} MiB`].join(", ");
}

/** The section's table. */
export function memoryTable(rows: readonly MemoryRow[]): string[] {
	return [
		"| input | entries | file | points | time | per 10k entries | peak RSS | target |",
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
		...rows.map(
			(r) =>
				`| ${r.name} | ${r.entries} | ${fmt(r.fileMb, 0)} MB | ${r.points ?? ""} | ${fmt(r.seconds, 1)} s | ${fmt(per10k(r), 2)} s | ${fmt(r.peakMb, 0)} MiB | ${targetCell(r.target)} |`,
		),
	];
}

const verdict = (ok: boolean) => (ok ? "met" : "**missed**");

export function memoryVerdicts(rows: readonly MemoryRow[]): string[] {
	return rows.map((r) => {
		const t = r.target;
		const time =
			t.per10k === undefined
				? ""
				: `${fmt(per10k(r), 2)} s per 10k entries — ${verdict(per10k(r) <= t.per10k)} (target ≤ ${t.per10k} s); `;
		return `- ${r.name}: ${time}peak RSS ${fmt(r.peakMb, 0)} MiB — ${verdict(r.peakMb <= t.mb)} (target ≤ ${fmt(t.mb, 0)} MiB)`;
	});
}

/** The whole section, as BENCHMARKS.md holds it. */
export function memorySection(rows: readonly MemoryRow[]): string[] {
	return [
		"## Memory",
		"",
		"`advisor-ledger replay` and `render` on long generated chains (bench/memory.ts): each command run once in a child process of the CLI as `npm run build` makes it; time is the child's wall time (Node's start and the CLI's modules included), peak RSS its own (`process.resourceUsage().maxRSS`, in MiB); it varies by some tens of MiB from run to run with the machine's load, which moves V8's collections. The chain is bench/generate.ts with no consultations (the replay simulates a point every 10 tool rounds) and texts at 2% of their usual length; the second chain is the same with a user message every five rounds (`userEvery: 6`, 12,628 user messages), whose replay once grew with the users before each point (docs/decisions.md, \"A replay's work follows the change\"); the third is the second with every tool round reading a file no round read before (`newFiles`: about 90,000 paths, spread over 64 folders), whose fact audit once grew with the facts before each point. The last rows are a short session whose first user message is 50 MB (`generateLongMessage`): what a replay and a render hold per character of one message. `BENCH_ONLY=memory npm run bench` measures only this section and rewrites only it.",
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
