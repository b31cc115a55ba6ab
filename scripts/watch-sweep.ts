/**
 * The measurement behind the watch's defaults (docs/decisions.md, "The watch's defaults, measured"):
 * `replay --watch` over every bundled session (samples/, samples/long/) and the shared real sessions
 * beside the checkout, when present, at a few values of each knob, one knob at a time around the
 * defaults, then every combination. Prints Markdown tables; with `--findings` also every review the
 * defaults ask for, by session, with its card id and why it woke.
 *
 *   npx tsx scripts/watch-sweep.ts [--findings] [--all-findings] [--long=20,30,…] [--grid]
 */

import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_WATCH_CONFIG } from "../src/adapter/extension/config/watch.ts";
import { type BranchInput, fileBranches } from "../src/adapter/lab/replay/file-branches.ts";
import { defaultCostSetup } from "../src/adapter/lab/replay/point-estimate.ts";
import { replayWatch } from "../src/adapter/lab/replay/watch-replay.ts";
import { reuseStats, type SessionWatch } from "../src/adapter/lab/report/watch-report.ts";
import { parseSessionText } from "../src/events/index.ts";
import type { WatchSettings } from "../src/policy/index.ts";
import { createRenderMemo } from "../src/render/index.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

interface Session {
	name: string;
	/** Another session with the same bytes, measured once. */
	copyOf?: string;
	input: BranchInput;
}

function sessions(): Session[] {
	const dirs = ["samples", "samples/long", "../shared/sessions"];
	const out: Session[] = [];
	const byHash = new Map<string, string>();
	for (const dir of dirs) {
		const full = path.join(repoRoot, dir);
		if (!existsSync(full)) continue;
		for (const file of readdirSync(full).sort()) {
			if (!file.endsWith(".jsonl")) continue;
			const name = `${dir}/${file}`;
			const text = readFileSync(path.join(full, file), "utf8");
			const hash = createHash("sha256").update(text).digest("hex");
			const copyOf = byHash.get(hash);
			if (copyOf === undefined) byHash.set(hash, name);
			const plan = fileBranches(name, parseSessionText(text), { allLeaves: false });
			out.push({ name, ...(copyOf === undefined ? {} : { copyOf }), input: [...plan.branches][0]!.input });
		}
	}
	return out;
}

const COST = defaultCostSetup();

function watch(session: Session, settings: WatchSettings): SessionWatch {
	return replayWatch(session.input, { settings, cost: COST, memo: createRenderMemo() });
}

const KNOBS: { key: keyof WatchSettings; values: number[] }[] = [
	{ key: "failureStreak", values: [2, 3, 4] },
	{ key: "untestedFiles", values: [5, 8, 12] },
	{ key: "longRunRounds", values: [25, 40, 60, 0] },
	{ key: "cooldownRounds", values: [0, 5, 10] },
];

const fmt = (n: number | null, digits = 3) => (n === null ? "—" : n.toFixed(digits));

interface Measured {
	settings: WatchSettings;
	bySession: Map<string, SessionWatch>;
}

function measure(all: readonly Session[], settings: WatchSettings): Measured {
	const bySession = new Map<string, SessionWatch>();
	for (const s of all) if (s.copyOf === undefined) bySession.set(s.name, watch(s, settings));
	return { settings, bySession };
}

/** Totals over distinct sessions (a copy is the same session). */
function total(m: Measured): { reviews: number; usd: number; executor: number; share: number; reuse: number[] } {
	let reviews = 0;
	let usd = 0;
	let executor = 0;
	const reuse: number[] = [];
	for (const w of m.bySession.values()) {
		reviews += w.reviews;
		usd += w.usd;
		executor += w.executor.usd;
		for (const r of w.reviewed) if (r.reuse !== undefined) reuse.push(r.reuse);
	}
	return { reviews, usd, executor, share: executor > 0 ? usd / executor : 0, reuse };
}

function cell(w: SessionWatch): string {
	const s = w.bySignal;
	const held = w.skipped.cooldown + w.skipped.promptCap + w.skipped.overShare;
	return `${w.reviews} (${s["failure-streak"]}/${s["untested-edits"]}/${s["long-run"]}${held > 0 ? `, ${held} held` : ""}) ${fmt(w.share, 3)} ${fmt(w.reuse.p50, 3)}`;
}

function label(settings: WatchSettings): string {
	const d = DEFAULT_WATCH_CONFIG;
	const changed = KNOBS.filter(({ key }) => settings[key] !== d[key]).map(
		({ key }) => `${key} ${settings[key] === 0 && key === "longRunRounds" ? "off" : settings[key]}`,
	);
	return changed.length === 0 ? "defaults" : changed.join(", ");
}

function table(all: readonly Session[], rows: readonly Measured[]): string[] {
	const names = [...rows[0]!.bySession.keys()];
	const short = (n: string) => n.replace(/^samples\/(long\/)?/, "").replace(/\.jsonl$/, "");
	const out = [
		`| settings | ${names.map(short).join(" | ")} | total reviews | total share | reuse p50 (mean, min) |`,
		`| --- | ${names.map(() => "---:").join(" | ")} | ---: | ---: | ---: |`,
	];
	for (const m of rows) {
		const t = total(m);
		const r = reuseStats(t.reuse);
		out.push(
			`| ${label(m.settings)} | ${names.map((n) => cell(m.bySession.get(n)!)).join(" | ")} | ${t.reviews} | ${fmt(t.share, 4)} | ${fmt(r.p50)} (${fmt(r.mean)}, ${fmt(r.min)}) |`,
		);
	}
	const copies = all.filter((s) => s.copyOf !== undefined).map((s) => `${s.name} = ${s.copyOf}`);
	if (copies.length > 0) out.push("", `Byte-identical copies, measured once: ${copies.join("; ")}.`);
	return out;
}

function findings(m: Measured): string[] {
	const out: string[] = [];
	for (const [name, w] of m.bySession) {
		out.push(`${name}: ${w.reviews} reviews, share ${fmt(w.share, 4)}, reuse p50 ${fmt(w.reuse.p50)}`);
		for (const r of w.reviewed)
			out.push(`  #${r.card} ${r.signal} (${r.tokens} tokens, $${r.usd.breakpoint.toFixed(4)}): ${r.reason}`);
	}
	return out;
}

function main(): void {
	const all = sessions();
	const base: WatchSettings = { ...DEFAULT_WATCH_CONFIG, enabled: true };
	const rows: Measured[] = [measure(all, base)];
	for (const { key, values } of KNOBS) {
		for (const value of values) if (value !== base[key]) rows.push(measure(all, { ...base, [key]: value }));
	}
	console.log(table(all, rows).join("\n"));
	if (process.argv.includes("--findings")) console.log(`\n${findings(rows[0]!).join("\n")}`);
	if (process.argv.includes("--all-findings"))
		for (const m of rows.slice(1)) console.log(`\n${label(m.settings)}\n${findings(m).join("\n")}`);
	const fine = process.argv.find((a) => a.startsWith("--long="));
	if (fine !== undefined) {
		const values = fine.slice("--long=".length).split(",").map(Number);
		for (const cooldownRounds of new Set([base.cooldownRounds, 0, 5])) {
			const measured = values.map((v) => measure(all, { ...base, longRunRounds: v, cooldownRounds }));
			console.log(`\n${table(all, measured).join("\n")}`);
		}
	}
	if (!process.argv.includes("--grid")) return;
	const grid: Measured[] = [];
	const combos = KNOBS.reduce<WatchSettings[]>(
		(acc, { key, values }) => acc.flatMap((s) => values.map((v) => ({ ...s, [key]: v }))),
		[base],
	);
	for (const settings of combos) grid.push(measure(all, settings));
	console.log(`\n${table(all, grid).join("\n")}`);
}

main();
