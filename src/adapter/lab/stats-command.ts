/**
 * `advisor-ledger stats [PATH…] [--json]`: what the advisor has cost in recorded sessions — per file,
 * its current branch and the whole session (adapter/stats), and with several files their sum. Without
 * a PATH, Pi's session folder. Prices for the full-context comparison come from Pi's model registry —
 * pi-ai's models and the user's models.json, as `/advisor stats` reads them (pi-registry.ts) — by each
 * consultation's recorded model.
 */

import { getModels, getProviders, type KnownProvider } from "@mariozechner/pi-ai";
import { readSession } from "../../events/index.ts";
import { inventoryMessage } from "../extension/baseline/messages.ts";
import { type PriceOf, priceOf } from "../extension/stats/full-context.ts";
import { type ScopeStats, type SessionStats, sessionStats, sumScopes } from "../extension/stats/session-stats.ts";
import { scopeLines, statsLines } from "../extension/stats/stats-text.ts";
import { EXIT, errorPrefix, type StatsArgs } from "./cli/args.ts";
import { visibleLine } from "./cli/escape.ts";
import { collectInputs, displayPath, piSessionsDir, readInput } from "./cli/inputs.ts";
import type { Io } from "./cli/io.ts";
import { openRegistry } from "./cli/pi-registry.ts";
import { calledToolNames, sessionTools } from "./replay/tool-set.ts";
import { noEntriesReason } from "./report/diagnostics.ts";

const PREFIX = errorPrefix("stats");

export interface FileStats {
	file: string;
	sessionId: string | null;
	stats: SessionStats;
}

export interface StatsReport {
	files: FileStats[];
	/** The whole sessions of every file, summed; null with fewer than two files. */
	total: ScopeStats | null;
	unreadable: { path: string; error: string }[];
}

/** A recorded model among pi-ai's built-in models alone (no models.json). */
export const registryPrice = priceOf((provider, id) =>
	(getProviders() as string[]).includes(provider)
		? getModels(provider as KnownProvider).find((m) => m.id === id)
		: undefined,
);

/** Prices from Pi's registry of the agent dir `env` names; models.json's warning when it could not be used. */
export function piPrice(env: NodeJS.ProcessEnv): { price: PriceOf; warning: string | undefined } {
	const { registry, warning } = openRegistry(env, false);
	return { price: priceOf((provider, id) => registry.find(provider, id)), warning };
}

/** One file's stats; a string when it holds nothing to count (the reader's reason). */
export function statsOfText(
	text: string,
	price: PriceOf = registryPrice,
): { sessionId: string | null; stats: SessionStats } | string {
	const read = readSession(text);
	if (read.entries.length === 0) return noEntriesReason(read);
	const tools = sessionTools(read.header?.cwd ?? process.cwd(), calledToolNames(read.entries));
	const stats = sessionStats({
		entries: read.entries,
		path: read.path,
		inventory: inventoryMessage(tools.inventory),
		price,
	});
	return { sessionId: read.header?.id ?? null, stats };
}

export function statsReport(paths: readonly string[], io: Io): { report: StatsReport; exitCode: number } {
	const { price, warning } = piPrice(io.env);
	if (warning !== undefined) io.stderr(`${PREFIX}models.json: ${visibleLine(warning)}\n`);
	const collected = collectInputs(paths);
	const report: StatsReport = { files: [], total: null, unreadable: [] };
	for (const u of collected.unreadable) {
		report.unreadable.push({ path: displayPath(u.path, io.cwd), error: u.error });
		io.stderr(`${PREFIX}cannot read ${visibleLine(displayPath(u.path, io.cwd))}: ${visibleLine(u.error)}\n`);
	}
	let empty = 0;
	for (const file of collected.files) {
		const shown = displayPath(file, io.cwd);
		const read = readInput(file);
		if (!read.ok) {
			report.unreadable.push({ path: shown, error: read.error });
			io.stderr(`${PREFIX}cannot read ${visibleLine(shown)}: ${visibleLine(read.error)}\n`);
			continue;
		}
		const stats = statsOfText(read.text, price);
		if (typeof stats === "string") {
			empty++;
			io.stderr(`${PREFIX}${visibleLine(shown)}: ${stats}\n`);
			continue;
		}
		report.files.push({ file: shown, ...stats });
	}
	if (report.files.length > 1) report.total = sumScopes(report.files.map((f) => f.stats.session ?? f.stats.branch));
	let exitCode: number = EXIT.ok;
	if (report.unreadable.length > 0) exitCode = EXIT.unreadable;
	else if (report.files.length === 0) exitCode = EXIT.nothingToReplay;
	if (report.files.length === 0 && report.unreadable.length === 0 && empty === 0) {
		io.stderr(
			`${PREFIX}no *.jsonl session file in ${paths.map((p) => visibleLine(displayPath(p, io.cwd))).join(", ")}\n`,
		);
	}
	return { report, exitCode };
}

export function runStats(args: StatsArgs, io: Io): number {
	const paths = args.paths.length > 0 ? args.paths : [piSessionsDir(io.env)];
	const { report, exitCode } = statsReport(paths, io);
	if (args.json) {
		if (report.files.length > 0 || report.unreadable.length > 0) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
		return exitCode;
	}
	const out: string[] = [];
	for (const file of report.files) {
		out.push(
			`${visibleLine(file.file)}${file.sessionId === null ? "" : ` (session ${visibleLine(file.sessionId)})`}`,
		);
		out.push(...statsLines(file.stats).map((line) => `  ${line}`), "");
	}
	if (report.total !== null) out.push(...scopeLines(`All ${report.files.length} sessions`, report.total), "");
	if (out.length > 0) io.stdout(`${out.join("\n")}`);
	return exitCode;
}
