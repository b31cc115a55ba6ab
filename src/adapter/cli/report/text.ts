/** The replay report as text for a terminal: a table per session, then totals and the lists. */

import { assertNever } from "../../../events/index.ts";
import { FACT_CATEGORIES, type FactCategory } from "../../../reducers/index.ts";
import { carriedShare } from "../../../render/index.ts";
import type { CacheSplit } from "../../baseline/cache-cost.ts";
import type {
	FactSurvival,
	PriceReport,
	ReplayReport,
	SessionReport,
	ShareStats,
	TokenStats,
	UsdPair,
} from "./report.ts";

export interface Style {
	bold(text: string): string;
	dim(text: string): string;
	red(text: string): string;
	green(text: string): string;
	yellow(text: string): string;
}

const plain: Style = { bold: (t) => t, dim: (t) => t, red: (t) => t, green: (t) => t, yellow: (t) => t };

function sgr(open: number, close: number): (text: string) => string {
	return (text) => `\u001b[${open}m${text}\u001b[${close}m`;
}

const ansi: Style = { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39) };

/** Colours only on a terminal, and never when NO_COLOR is set to anything non-empty (no-color.org). */
export function styleFor(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): Style {
	const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
	return isTTY === true && !noColor ? ansi : plain;
}

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

export function formatTokens(n: number): string {
	return integer.format(n);
}

function fixed(n: number | null, digits = 3): string {
	return n === null ? "—" : n.toFixed(digits);
}

/** Keep the end of long paths: the file name is what tells sessions apart. */
function fitLeft(text: string, width: number): string {
	if (text.length <= width) return text.padEnd(width);
	return `…${text.slice(text.length - width + 1)}`;
}

function row(cells: readonly string[], widths: readonly number[]): string {
	return cells.map((c, i) => (i === 0 ? fitLeft(c, widths[0]!) : c.padStart(widths[i]!))).join("  ");
}

function kindLabel(s: SessionReport): string {
	switch (s.pointKind) {
		case "advisor":
			return "adv";
		case "simulated":
			return "sim";
		case "none":
			return "";
		default:
			return assertNever(s.pointKind, "point kind");
	}
}

function ratioText(r: number | null, style: Style): string {
	if (r === null) return "—";
	const text = r.toFixed(3);
	return r > 1 ? style.red(text) : text;
}

function statsRow(label: string, stats: TokenStats): string[] {
	return [label, formatTokens(stats.total), formatTokens(stats.p50), formatTokens(stats.p90), formatTokens(stats.max)];
}

/**
 * Dollars with a fixed number of decimals, so the amounts of one table line up and a cheap line is
 * never rounded to nothing next to an expensive one. (What the extension shows the user follows
 * another rule, policy's `formatUsd`: tenths of a cent under $1, cents above.)
 */
export function formatUsdFixed(n: number, digits = 2): string {
	return `$${n.toFixed(digits)}`;
}

/** Decimals that keep the smallest non-zero amount of a table at three significant digits (2 to 6). */
export function usdDigits(amounts: readonly number[]): number {
	const smallest = Math.min(...amounts.filter((n) => n > 0));
	if (!Number.isFinite(smallest)) return 2;
	return Math.min(6, Math.max(2, 2 - Math.floor(Math.log10(smallest))));
}

/** A per-million price as the registry lists it: cents, more decimals only when the price has them. */
export function formatRate(n: number): string {
	const text = n.toFixed(4).replace(/0+$/, "");
	const decimals = text.length - text.indexOf(".") - 1;
	return decimals < 2 ? `$${n.toFixed(2)}` : `$${text}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
	return `${formatTokens(n)} ${n === 1 ? one : many}`;
}

/** What the columns mean: short, and after the numbers so the report starts with the answer. */
export const LEGEND: readonly string[] = [
	"Legend:",
	"  baseline  what rpiv-advisor 2.11 sends at the same point: Pi's own context + every tool's JSON schema",
	"            (no system prompt counted, so it is a lower bound); tokens are chars/4 on both sides",
	"  masked    the baseline with observation masking (Lindenbauer et al. 2025): tool results older than the newest",
	"            10 assistant turns replaced by one line; the research baseline, for comparison",
	"  ledger    the request this extension sends; ratio = ledger / baseline tokens",
	"  effect.   the same ratio with a prompt cache on both sides: uncached + 0.1 × cached tokens (token prefix)",
	"  m.eff.    masked / baseline, cached the same way",
	"  >base     consultations whose ledger request is larger than the baseline's",
	"  users     user messages the requests had to carry; missing: absent from a request (must be 0)",
	"  reuse     median share of the previous consultation's ledger request repeated as a prefix (token prefix / breakpoints)",
	"  facts     share of the branch's facts (user words, paths, commands, failures, test summaries, prose, names,",
	"            advice) each request carries as text, ledger / Pi's context; by category below (docs/request-format.md)",
	"  token prefix: the longest repeated prefix is read from the cache (OpenAI, Google)",
	"  breakpoints: Anthropic's rule. A prefix is read only if it ends where the previous request set",
	"  a breakpoint, at most 20 content blocks before one of this request's (at most 4 per request);",
	"  the rest is written at the cache-write price. Ledger: pi-ai's marks (system, last tool, last",
	"  block), the stable end, and a bridge at the previous stable end when it lies further back;",
	"  baselines: pi-ai's marks on Pi's context. no bridges: the ledger without the bridge.",
	"  A session's first consultation reads nothing; the cache is taken as warm between consultations.",
	"  Prices cover prompts only (the answer is the same on both sides). Fold/render timings are in --json.",
];

function splitCells(split: CacheSplit): string[] {
	return [
		formatTokens(split.prompt),
		formatTokens(split.read),
		formatTokens(split.write),
		formatTokens(split.uncached),
	];
}

function priceLines(report: ReplayReport, price: PriceReport, style: Style): string[] {
	const p = price.perMillion;
	const listed = (n: number) => (n > 0 ? formatRate(n) : "not listed (priced as input)");
	const out: string[] = [];
	out.push(
		style.bold(
			`Prompt cost of the ${plural(report.points, "consultation")} at ${price.model} prices (${price.name}; per million tokens: input ${formatRate(p.input)}, cache read ${listed(p.cacheRead)}, cache write ${listed(p.cacheWrite)})`,
		),
	);
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
	const rows: [string, UsdPair, "tokenPrefix" | "breakpoint" | "breakpointNoBridges" | undefined][] = [
		["no cache", price.uncached, undefined],
		["token prefix", price.tokenPrefix, "tokenPrefix"],
		["breakpoints", price.breakpoint, "breakpoint"],
		["no bridges", price.breakpointNoBridges, "breakpointNoBridges"],
	];
	const digits = usdDigits(rows.flatMap(([, usd]) => [usd.baseline, usd.ledger, usd.masked]));
	for (const [label, usd, model] of rows) {
		const split = (side: "baseline" | "ledger" | "masked") => (model === undefined ? none(side) : c[side][model]);
		out.push(
			row([label, "baseline", ...splitCells(split("baseline")), formatUsdFixed(usd.baseline, digits), ""], widths),
		);
		out.push(
			row(
				[
					"",
					"masked",
					...splitCells(split("masked")),
					formatUsdFixed(usd.masked, digits),
					ratioText(usd.maskedRatio, style),
				],
				widths,
			),
		);
		out.push(
			row(
				[
					"",
					"ledger",
					...splitCells(split("ledger")),
					formatUsdFixed(usd.ledger, digits),
					ratioText(usd.ratio, style),
				],
				widths,
			),
		);
	}
	return out;
}

export function renderTextReport(report: ReplayReport, style: Style = plain): string {
	const out: string[] = [
		...headerLines(report, style),
		"",
		...sessionTable(report, style),
		"",
		...tokenLines(report, style),
		"",
		...factLines(report, style),
		"",
		...(report.price !== undefined ? [...priceLines(report, report.price, style), ""] : []),
		...reuseLines(report, style),
		"",
		...listLines(report, style),
		...diagnosticLines(report.diagnostics, style),
		"",
		...LEGEND.map((line) => style.dim(line)),
	];
	return `${out.join("\n")}\n`;
}

function headerLines(report: ReplayReport, style: Style): string[] {
	const files = report.diagnostics.files;
	return [
		style.bold(
			`Replayed ${plural(report.sessions.length, "session")} from ${plural(files, "file")}: ${plural(report.points, "consultation point")}`,
		),
		style.dim(
			`Points: every real advisor() call; sessions without one get a simulated point every ${report.options.every} tool rounds and at the last entry${report.options.allLeaves ? "; every leaf replayed" : "; leaf path only"}.`,
		),
	];
}

/** One row per session, then the totals. */
function sessionTable(report: ReplayReport, style: Style): string[] {
	const widths = [40, 9, 12, 11, 7, 7, 11, 7, 5, 6, 7, 11, 11];
	const header = [
		"session",
		"points",
		"baseline",
		"ledger",
		"ratio",
		"effect.",
		"masked",
		"m.eff.",
		">base",
		"users",
		"missing",
		"reuse",
		"facts L/Pi",
	];
	const out = [style.bold(row(header, widths))];
	for (const s of report.sessions) {
		const cells = [
			s.leafId !== null && report.options.allLeaves ? `${s.file}@${s.leafId}` : s.file,
			`${s.points.length} ${kindLabel(s)}`.trim(),
			formatTokens(s.tokens.baseline.total),
			formatTokens(s.tokens.ledger.total),
			fixed(s.tokens.ratio),
			fixed(s.cache.effectiveRatio),
			formatTokens(s.tokens.masked.total),
			fixed(s.cache.maskedEffectiveRatio),
			String(s.largerThanBaseline.length),
			String(s.userMessages.total),
			String(s.userMessages.missing),
			`${fixed(s.cacheShare.tokenPrefix.p50, 2)} / ${fixed(s.cacheShare.breakpoint.p50, 2)}`,
			factsCell(s.facts),
		];
		let line = row(cells, widths);
		if (s.largerThanBaseline.length > 0 || s.userMessages.missing > 0) line = style.yellow(line);
		out.push(line);
	}
	const total = [
		"total",
		String(report.points),
		formatTokens(report.tokens.baseline.total),
		formatTokens(report.tokens.ledger.total),
		fixed(report.tokens.ratio),
		fixed(report.cache.effectiveRatio),
		formatTokens(report.tokens.masked.total),
		fixed(report.cache.maskedEffectiveRatio),
		String(report.largerThanBaseline.length),
		String(report.userMessages.total),
		String(report.userMessages.missing),
		`${fixed(report.cacheShare.tokenPrefix.p50, 2)} / ${fixed(report.cacheShare.breakpoint.p50, 2)}`,
		factsCell(report.facts),
	];
	out.push(style.bold(row(total, widths)));
	return out;
}

function factsCell(facts: FactSurvival): string {
	return `${fixed(facts.ledgerShare, 2)}/${fixed(facts.baselineShare, 2)}`;
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
		style.bold(row(["tokens per consultation", "total", "p50", "p90", "max"], statWidths)),
		row(statsRow("baseline (Pi context+tools)", report.tokens.baseline), statWidths),
		row(statsRow("masked (old results hidden)", report.tokens.masked), statWidths),
		row(statsRow("ledger", report.tokens.ledger), statWidths),
		`ratio ledger/baseline (total): ${ratioText(report.tokens.ratio, style)}`,
		`ratio masked/baseline (total): ${ratioText(report.tokens.maskedRatio, style)}`,
		`effective cost ledger/baseline, both cached (uncached + 0.1 × cached): ${ratioText(report.cache.effectiveRatio, style)}`,
		`effective cost masked/baseline, both cached (uncached + 0.1 × cached): ${ratioText(report.cache.maskedEffectiveRatio, style)}`,
		`ledger/baseline with breakpoints (uncached + written + 0.1 × read): ${ratioText(report.cache.effectiveRatioBreakpoint, style)}; without bridges ${ratioText(report.cache.effectiveRatioNoBridges, style)}`,
	];
}

/** Prefix reuse between consultations, the bytes check, and what the recorded calls were billed. */
function reuseLines(report: ReplayReport, style: Style): string[] {
	const c = report.cacheShare;
	const b = report.baselineCacheShare;
	const k = report.maskedCacheShare;
	const widths = [16, 15, 15, 15];
	const cell = (s: ShareStats) => `${fixed(s.p50)} (${fixed(s.mean)})`;
	const line = (label: string, model: "tokenPrefix" | "breakpoint" | "breakpointNoBridges") =>
		row([label, cell(c[model]), cell(b[model]), cell(k[model])], widths);
	const out = [
		style.bold(`Share of the previous consultation repeated, median (mean) over ${plural(c.pairs, "pair")}`),
		style.bold(row(["cache model", "ledger", "baseline", "masked"], widths)),
		line("token prefix", "tokenPrefix"),
		line("breakpoints", "breakpoint"),
		line("no bridges", "breakpointNoBridges"),
	];
	if (report.timing.mismatches > 0)
		out.push(style.red(`Incremental and from-scratch requests differed at ${report.timing.mismatches} points.`));
	if (report.billed.points > 0) {
		out.push(
			`Billed usage recorded by ${plural(report.billed.points, "advisor call")}: ${formatTokens(report.billed.prompt)} prompt tokens (all attempts and investigation rounds) vs ${formatTokens(report.billed.ledgerEstimate)} estimated for their first request; ${formatTokens(report.billed.output)} output tokens`,
		);
	}
	return out;
}

/** Requests larger than their baseline, and user messages missing from a request. */
function listLines(report: ReplayReport, style: Style): string[] {
	const out: string[] = [];
	const larger = report.largerThanBaseline;
	if (larger.length === 0) out.push(style.green("No request is larger than its baseline."));
	else {
		out.push(style.yellow(`Requests larger than the baseline (${larger.length}):`));
		for (const l of larger) {
			out.push(
				`  ${l.file} after ${l.atEntryId} (${l.kind}): ledger ${formatTokens(l.ledger)} > baseline ${formatTokens(l.baseline)}`,
			);
		}
	}
	const users = report.userMessages;
	const usersLine = `User messages the requests had to carry: ${users.total}; missing from a request: ${users.missing}`;
	out.push(users.missing === 0 ? usersLine : style.red(usersLine));
	for (const m of users.missingMessages) {
		out.push(`  ${m.file}: user message ${m.entryId} missing from the request after ${m.atEntryId}`);
	}
	return out;
}

function diagnosticLines(d: ReplayReport["diagnostics"], style: Style): string[] {
	const unknownTypes = Object.entries(d.unknownEntryTypes)
		.map(([type, n]) => `${type} ×${n}`)
		.join(", ");
	const out = [
		`Reader diagnostics: ${plural(d.badLines, "bad line")}, ${plural(d.unknownEntries, "unknown entry", "unknown entries")}${unknownTypes === "" ? "" : ` (${unknownTypes})`}, ${plural(d.brokenParents, "broken parent link")}`,
	];
	for (const m of d.messages) out.push(style.dim(`  ${m}`));
	if (d.filesWithoutPoints.length > 0) {
		out.push(`Files without any consultation point (${d.filesWithoutPoints.length}):`);
		for (const f of d.filesWithoutPoints) out.push(`  ${f}`);
	}
	if (d.unreadable.length > 0) {
		out.push(style.red(`Unreadable inputs, skipped (${d.unreadable.length}):`));
		for (const u of d.unreadable) out.push(`  ${u.path}: ${u.error}`);
	}
	return out;
}
