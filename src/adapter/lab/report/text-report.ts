/**
 * The replay report as text for a terminal (docs/cli.md, "The text report"): a summary that answers
 * first, the sessions' tables, the dollars, the facts, the whole consultations and the lists. Every
 * line fits WIDTH columns; what only a closer reader needs (token statistics, every side's reuse,
 * the ledger without bridges, the billed prompt three ways, the bundled samples' reader messages)
 * is in `--wide`, and every point's figures in `--json`.
 */

import type { CacheSplit } from "../../extension/baseline/cache-split.ts";
import { carriedShare, FACT_CATEGORIES, type FactCategory } from "../audit/index.ts";
import type { PriceReport, ReplayReport, ShareStats, TokenStats, UsdPair } from "./replay-report.ts";
import { consultationLines } from "./text-consultations.ts";
import {
	fixed,
	formatBaselineRatio,
	formatPerMillion,
	formatTokens,
	formatUsdFixed,
	plain,
	plural,
	row,
	type Style,
	usdDigits,
	WIDTH,
	wrap,
} from "./text-format.ts";
import { LEGEND, WIDE_LEGEND } from "./text-legend.ts";
import { sessionTables, wideSessionTable } from "./text-sessions.ts";
import { summaryLines } from "./text-summary.ts";
import { watchLines } from "./text-watch.ts";

export {
	formatPerMillion,
	formatTokens,
	formatUsdFixed,
	type Style,
	styleFor,
	usdDigits,
} from "./text-format.ts";

export interface TextOptions {
	/** One table with every per-session column, as wide as it needs, and every detail (`replay --wide`). */
	wide?: boolean;
	/**
	 * The files (as the report names them) that are bundled samples: their reader diagnostics are
	 * expected, samples/README.md says why, and only `--wide` lists them.
	 */
	bundled?: ReadonlySet<string>;
}

function statsRow(label: string, stats: TokenStats): string[] {
	return [label, formatTokens(stats.total), formatTokens(stats.p50), formatTokens(stats.p90), formatTokens(stats.max)];
}

function splitCells(split: CacheSplit): string[] {
	return [
		formatTokens(split.prompt),
		formatTokens(split.read),
		formatTokens(split.write),
		formatTokens(split.uncached),
	];
}

function priceLines(report: ReplayReport, price: PriceReport, style: Style, wide: boolean): string[] {
	const p = price.perMillion;
	const listed = (n: number) => (n > 0 ? formatPerMillion(n) : "not listed (priced as input)");
	const out: string[] = [];
	const title = `Prompt cost of the ${plural(report.points, "first request")} (one per consultation) at ${price.model} prices (${price.name}; per million tokens: input ${formatPerMillion(p.input)}, cache read ${listed(p.cacheRead)}, cache write ${listed(p.cacheWrite)}; nothing cached under ${formatTokens(report.cacheRule.minTokens)} prompt tokens)`;
	out.push(...wrap(title).map((line) => style.bold(line)));
	const widths = [13, 8, 10, 10, 11, 10, 9, 6];
	out.push(
		style.bold(
			row(["cache model", "side", "prompt", "cache read", "cache write", "uncached", "cost", "ratio"], widths),
		),
	);
	const c = report.cache;
	const none = (side: "baseline" | "ledger" | "masked"): CacheSplit => {
		const prompt = c[side].tokenPrefix.prompt;
		return { prompt, read: 0, write: 0, uncached: prompt };
	};
	const rows: (readonly [string, UsdPair, "tokenPrefix" | "breakpoint" | "breakpointNoBridges" | undefined])[] = [
		["no cache", price.uncached, undefined],
		["token prefix", price.tokenPrefix, "tokenPrefix"],
		["breakpoints", price.breakpoint, "breakpoint"],
		// The ledger without the extension's bridge mark: how much the bridge is worth, a detail.
		...(wide ? [["no bridges", price.breakpointNoBridges, "breakpointNoBridges"] as const] : []),
	];
	const digits = usdDigits(rows.flatMap(([, usd]) => [usd.baseline, usd.ledger, usd.masked]));
	for (const [label, usd, model] of rows) {
		const split = (side: "baseline" | "ledger" | "masked") => (model === undefined ? none(side) : c[side][model]);
		const side = (name: "baseline" | "masked" | "ledger", first: string, ratio: string) =>
			row([first, name, ...splitCells(split(name)), formatUsdFixed(usd[name], digits), ratio], widths);
		out.push(side("baseline", label, ""));
		out.push(side("masked", "", formatBaselineRatio(usd.maskedRatio, style)));
		out.push(side("ledger", "", formatBaselineRatio(usd.ratio, style)));
	}
	return [...out, ...dearerCachedLines(report, price)];
}

/**
 * A side that costs more with breakpoints than with no cache at all (the baselines, on long
 * sessions): true under Anthropic's rule, and said where the figures stand, since it reads like an
 * error (docs/cli.md, "What it measures").
 */
function dearerCachedLines(report: ReplayReport, price: PriceReport): string[] {
	const sides = [
		["the baseline", "baseline", report.baselineCacheShare],
		["the masked baseline", "masked", report.maskedCacheShare],
		["the ledger", "ledger", report.cacheShare],
	] as const;
	const dearer = sides.filter(([, key]) => price.breakpoint[key] > price.uncached[key]);
	if (dearer.length === 0) return [];
	const and = (items: readonly string[]) =>
		items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
	const names = and(dearer.map(([name]) => name));
	const reads = and(dearer.map(([, , share]) => fixed(share.breakpoint.p50)));
	const write = price.perMillion.input > 0 ? (price.perMillion.cacheWrite / price.perMillion.input).toFixed(2) : "—";
	return wrap(
		`With breakpoints ${names} ${dearer.length === 1 ? "costs" : "cost"} more than with no cache: Anthropic's rule reads a prefix only up to a breakpoint the previous request set at most ${report.cacheRule.lookbackBlocks} blocks back, so ${dearer.length === 1 ? "it reads" : "they read"} little of it (median ${reads}) and ${dearer.length === 1 ? "pays" : "pay"} ${write} × the input price to write the rest.`,
	);
}

export function renderTextReport(report: ReplayReport, style: Style = plain, options: TextOptions = {}): string {
	const wide = options.wide === true;
	const expected = diagnosticsExpected(report, options.bundled ?? new Set());
	const section = (lines: readonly string[], shown = true) => (shown && lines.length > 0 ? [...lines, ""] : []);
	const out: string[] = [
		...section(summaryLines(report, style, { wide, expectedDiagnostics: expected })),
		...section(wide ? wideSessionTable(report, style) : sessionTables(report, style)),
		...section(wide ? tokenLines(report, style) : []),
		...section(report.price !== undefined ? priceLines(report, report.price, style, wide) : []),
		...section(wide ? reuseLines(report, style) : []),
		...section(factLines(report, style)),
		...section(consultationLines(report, style, { wide })),
		...section(watchLines(report, style, { wide })),
		...listLines(report, style),
		...diagnosticLines(report.diagnostics, style, { wide, expected, files: filesWithDiagnostics(report) }),
		"",
		...[...LEGEND, ...(wide ? [] : WIDE_LEGEND)].map((line) => style.dim(line)),
	];
	return `${out.join("\n")}\n`;
}

/**
 * Every reader diagnostic comes from a bundled sample: a real session shipped as published, damage
 * and all (samples/README.md), so a first run on the samples does not read like a broken product.
 */
function diagnosticsExpected(report: ReplayReport, bundled: ReadonlySet<string>): boolean {
	const files = filesWithDiagnostics(report);
	return files.length > 0 && files.every((file) => bundled.has(file));
}

/** The files some reader diagnostic comes from (each file's reader's are in every one of its sessions). */
function filesWithDiagnostics(report: ReplayReport): string[] {
	const counted = (d: { badLines: number; unknownEntries: number; brokenParents: number }) =>
		d.badLines + d.unknownEntries + d.brokenParents;
	return [...new Set(report.sessions.filter((s) => counted(s.diagnostics) > 0).map((s) => s.file))];
}

/**
 * How much of Pi's share a category must keep (docs/request-format.md#the-fact-audit): names are
 * held to less, because capped prose keeps them in a list rather than in their sentence.
 */
export const FACT_TARGETS: Readonly<Record<FactCategory, number>> = Object.freeze({
	user: 0.95,
	edited: 0.95,
	read: 0.95,
	command: 0.95,
	failure: 0.95,
	test: 0.95,
	prose: 0.95,
	identifier: 0.85,
	advice: 0.95,
	instructions: 0.95,
});

/** The fact audit by category: ledger next to Pi's context, a category below its target in yellow. */
function factLines(report: ReplayReport, style: Style): string[] {
	const widths = [28, 10, 8, 11];
	const out = [
		style.bold("Facts the requests carry, by category (each fact counted at every point whose branch holds it)"),
		style.bold(row(["category", "facts", "ledger", "Pi context"], widths)),
	];
	let total = 0;
	for (const category of FACT_CATEGORIES) {
		const ledger = report.facts.ledger[category];
		const pi = report.facts.baseline[category];
		if (ledger.total === 0) continue;
		total += ledger.total;
		const l = carriedShare(ledger);
		const p = carriedShare(pi);
		const line = row([category, formatTokens(ledger.total), l.toFixed(3), p.toFixed(3)], widths);
		out.push(l < FACT_TARGETS[category] * p ? style.yellow(line) : line);
	}
	out.push(
		style.bold(
			row(["all", formatTokens(total), fixed(report.facts.ledgerShare), fixed(report.facts.baselineShare)], widths),
		),
	);
	return out;
}

/** Tokens per consultation on both sides, and the two ratios. */
function tokenLines(report: ReplayReport, style: Style): string[] {
	const statWidths = [28, 14, 10, 10, 10];
	return [
		style.bold(row(["tokens per first request", "total", "p50", "p90", "max"], statWidths)),
		row(statsRow("baseline (Pi context+tools)", report.tokens.baseline), statWidths),
		row(statsRow("masked (old results hidden)", report.tokens.masked), statWidths),
		row(statsRow("ledger", report.tokens.ledger), statWidths),
		`ratio ledger/baseline (total): ${formatBaselineRatio(report.tokens.ratio, style)}`,
		`ratio masked/baseline (total): ${formatBaselineRatio(report.tokens.maskedRatio, style)}`,
		`token-weighted ratio ledger/baseline, token prefix (uncached + 0.1 × cached): ${formatBaselineRatio(report.cache.effectiveRatio, style)}`,
		`token-weighted ratio masked/baseline, token prefix (uncached + 0.1 × cached): ${formatBaselineRatio(report.cache.maskedEffectiveRatio, style)}`,
		`token-weighted ratio ledger/baseline, breakpoints (uncached + written + 0.1 × read): ${formatBaselineRatio(report.cache.effectiveRatioBreakpoint, style)}; without bridges ${formatBaselineRatio(report.cache.effectiveRatioNoBridges, style)}`,
	];
}

/** Prefix reuse between consultations, on every side. */
function reuseLines(report: ReplayReport, style: Style): string[] {
	const c = report.cacheShare;
	const b = report.baselineCacheShare;
	const k = report.maskedCacheShare;
	const widths = [16, 15, 15, 15];
	const cell = (s: ShareStats) => `${fixed(s.p50)} (${fixed(s.mean)})`;
	const line = (label: string, model: "tokenPrefix" | "breakpoint" | "breakpointNoBridges") =>
		row([label, cell(c[model]), cell(b[model]), cell(k[model])], widths);
	return [
		style.bold(`Share of the previous consultation repeated, median (mean) over ${plural(c.pairs, "pair")}`),
		style.bold(row(["cache model", "ledger", "baseline", "masked"], widths)),
		line("token prefix", "tokenPrefix"),
		line("breakpoints", "breakpoint"),
		line("no bridges", "breakpointNoBridges"),
	];
}

/** Requests larger than their baseline, user messages missing from a request, the bytes check. */
function listLines(report: ReplayReport, style: Style): string[] {
	const out: string[] = [];
	if (report.timing.mismatches > 0)
		out.push(style.red(`Incremental and from-scratch requests differed at ${report.timing.mismatches} points.`));
	const larger = report.largerThanBaseline;
	if (larger.length === 0) out.push(style.green("No request is larger than its baseline."));
	else {
		out.push(style.yellow(`Requests larger than the baseline (${larger.length}):`));
		for (const l of larger) {
			out.push(
				...wrap(
					`  ${l.file} after ${l.atEntryId} (${l.kind}): ledger ${formatTokens(l.ledger)} > baseline ${formatTokens(l.baseline)}`,
					WIDTH,
					"    ",
				),
			);
		}
	}
	const users = report.userMessages;
	const usersLine = `User messages the requests had to carry: ${users.total}; missing from a request: ${users.missing}`;
	out.push(users.missing === 0 ? usersLine : style.red(usersLine));
	for (const m of users.missingMessages) {
		out.push(
			...wrap(`  ${m.file}: user message ${m.entryId} missing from the request after ${m.atEntryId}`, WIDTH, "    "),
		);
	}
	return out;
}

function diagnosticLines(
	d: ReplayReport["diagnostics"],
	style: Style,
	options: { wide: boolean; expected: boolean; files: readonly string[] },
): string[] {
	const unknownTypes = Object.entries(d.unknownEntryTypes)
		.map(([type, n]) => `${type} ×${n}`)
		.join(", ");
	const counts = `${plural(d.badLines, "bad line")}, ${plural(d.unknownEntries, "unknown entry", "unknown entries")}${unknownTypes === "" ? "" : ` (${unknownTypes})`}, ${plural(d.brokenParents, "broken parent link")}`;
	const none = d.badLines + d.unknownEntries + d.brokenParents === 0;
	const why =
		options.expected && options.files.length > 0
			? ` in ${options.files.join(", ")}: expected (samples/README.md${options.wide ? "" : "; --wide lists them"})`
			: "";
	const out = wrap(`Reader diagnostics: ${none ? "none" : counts}${why}`);
	const shown = options.expected && !options.wide ? [] : d.messages;
	for (const m of shown) out.push(...wrap(`  ${m}`, WIDTH, "    ").map((line) => style.dim(line)));
	if (d.filesWithoutPoints.length > 0) {
		out.push(`Files without any consultation point (${d.filesWithoutPoints.length}):`);
		for (const f of d.filesWithoutPoints) out.push(...wrap(`  ${f}`, WIDTH, "    "));
	}
	if (d.unreadable.length > 0) {
		out.push(style.red(`Unreadable inputs, skipped (${d.unreadable.length}):`));
		for (const u of d.unreadable) out.push(...wrap(`  ${u.path}: ${u.error}`, WIDTH, "    "));
	}
	return out;
}
