/**
 * The text report's opening (docs/cli.md, "The text report"): at most six lines, each within WIDTH,
 * that answer what a replay is run for — how many points were replayed, what share of the
 * baseline's tokens and of its cost with a cache the ledger's requests take, the facts they carry —
 * and say where the detail is. A line that has something to add (another share of the facts, a
 * count) gives it as a longer candidate: the longest that fits is printed.
 */

import type { ReplayReport } from "./replay-report.ts";
import { fixed, formatBaselineRatio, formatTokens, plural, type Style, WIDTH } from "./text-format.ts";

export interface SummaryOptions {
	/** `--wide`: the detail below is all of it. */
	wide: boolean;
	/** Every reader diagnostic comes from a bundled sample, whose damage is documented (samples/README.md). */
	expectedDiagnostics: boolean;
}

/**
 * The words of the summary a reader may not know, as the legend names them (text-legend.ts); the
 * legend test holds each to an entry, and to being in the summary it explains.
 */
export const SUMMARY_TERMS: readonly string[] = [
	"baseline",
	"ledger",
	"Pi's context",
	"token prefix",
	"breakpoints",
	"dollars",
	"executor-lost",
];

/** Labels in a column of their own, so the figures line up. */
const LABEL = 15;

function line(label: string, text: string): string {
	return `${label.padEnd(LABEL)}${text}`;
}

/**
 * The first candidate whose visible text fits WIDTH, else the last. Candidates go from the most
 * said to the least; `plainOf` measures a styled candidate without its colour codes.
 */
function firstFitting(label: string, candidates: readonly string[], plainOf: (s: string) => string = (s) => s): string {
	for (const candidate of candidates) {
		if (LABEL + plainOf(candidate).length <= WIDTH) return line(label, candidate);
	}
	return line(label, candidates.at(-1)!);
}

function replayedLine(report: ReplayReport): string {
	const points = report.sessions.flatMap((s) => s.points);
	const advisor = points.filter((p) => p.kind === "advisor").length;
	const simulated = points.length - advisor;
	const files = report.diagnostics.files;
	const sessions = report.sessions.length;
	const where =
		report.options.allLeaves || sessions !== files
			? `${plural(sessions, "branch", "branches")} of ${plural(files, "file")}`
			: plural(files, "session file");
	const kinds = [
		...(advisor > 0 ? [plural(advisor, "advisor call")] : []),
		...(simulated > 0 ? [`${plural(simulated, "simulated point")}`] : []),
	].join(", ");
	const base = `${plural(report.points, "consultation point")} in ${where}`;
	return firstFitting("Replayed", [`${base}: ${kinds}`, base]);
}

/**
 * The cost shares with a cache: the dollar ratios at the price model when there is one, else the
 * token-weighted ones — named, since they differ by the cache-write premium (the legend says how).
 */
function costLine(report: ReplayReport, style: Style): string {
	const prefix = report.price?.tokenPrefix.ratio ?? report.cache.effectiveRatio;
	const breakpoints = report.price?.breakpoint.ratio ?? report.cache.effectiveRatioBreakpoint;
	const p = formatBaselineRatio(prefix, style);
	const b = formatBaselineRatio(breakpoints, style);
	const unit = report.price === undefined ? "token-weighted cost" : "dollars";
	return firstFitting(
		"Cost, cached",
		[
			`${p} of the baseline's ${unit} with a token-prefix cache, ${b} with Anthropic's breakpoints`,
			`${p} of the baseline's ${unit} with a token-prefix cache, ${b} with breakpoints`,
		],
		(s) => s.replace(/\u001b\[\d+m/g, ""),
	);
}

function factsLine(report: ReplayReport, style: Style): string {
	const users = report.userMessages;
	const userPart =
		users.missing === 0
			? `user messages: all ${users.total}`
			: style.red(`user messages: ${users.missing} of ${users.total} missing`);
	const shares = `ledger ${fixed(report.facts.ledgerShare)}, Pi's context ${fixed(report.facts.baselineShare)}`;
	const lost = report.facts.lost;
	// Of what the executor lost at its compactions (docs/request-format.md, "The executor's horizon").
	const candidates =
		lost.ledgerShare === null
			? [`${shares}; ${userPart}`, shares]
			: [
					`${shares}; of what the executor lost ${fixed(lost.ledgerShare)} (Pi's summary ${fixed(lost.baselineShare)}); ${userPart}`,
					`${shares}; of what the executor lost ${fixed(lost.ledgerShare)}; ${userPart}`,
					`${shares}; executor-lost ${fixed(lost.ledgerShare)}; ${userPart}`,
					`${shares}; executor-lost ${fixed(lost.ledgerShare)}`,
					shares,
				];
	return firstFitting("Facts carried", candidates, (s) => s.replace(/\u001b\[\d+m/g, ""));
}

/** What a reader should look at below: said only when there is something. */
function lookLine(report: ReplayReport, options: SummaryOptions, style: Style): string[] {
	const d = report.diagnostics;
	const diagnostics = options.expectedDiagnostics ? 0 : d.badLines + d.unknownEntries + d.brokenParents;
	// Each count in words, and tersely (the tables' column names) when the words do not fit.
	const counts: [number, string, string, string][] = [
		[
			report.largerThanBaseline.length,
			"request larger than its baseline",
			"requests larger than their baseline",
			">base",
		],
		[report.userMessages.missing, "user message missing", "user messages missing", "missing"],
		[report.timing.mismatches, "request unlike its rebuild", "requests unlike their rebuild", "mismatches"],
		[diagnostics, "reader diagnostic", "reader diagnostics", "diagnostics"],
		[d.unreadable.length, "unreadable input", "unreadable inputs", "unreadable"],
		[d.filesWithoutPoints.length, "file without a point", "files without a point", "no point"],
	];
	const shown = counts.filter(([n]) => n > 0);
	if (shown.length === 0) return [];
	const words = shown.map(([n, one, many]) => plural(n, one, many)).join(", ");
	const terse = shown.map(([n, , , name]) => `${name} ${formatTokens(n)}`).join(", ");
	return [style.yellow(firstFitting("Look below", [words, terse]))];
}

export function summaryLines(report: ReplayReport, style: Style, options: SummaryOptions): string[] {
	const detail = options.wide
		? "per session, in dollars, by fact below, all of it; every point's figures in --json"
		: "per session, in dollars, by fact below; --wide shows more, --json every point";
	return [
		style.bold(replayedLine(report)),
		line(
			"Tokens",
			`the ledger sends ${formatBaselineRatio(report.tokens.ratio, style)} of the baseline's (Pi's full context + tool schemas)`,
		),
		costLine(report, style),
		factsLine(report, style),
		...lookLine(report, options, style),
		line("Detail", detail),
	];
}
