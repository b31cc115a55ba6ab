/**
 * The text report's per-session tables (docs/cli.md, "The text report"): by default two, each within
 * WIDTH columns — the tokens of the first requests, then what the requests carry — with the folder
 * the sessions share named once above them and each name cut in the middle when it must be; with
 * `--wide`, one table of every column with the names whole. A column is a header and a cell for a
 * session and for the total, so a figure added to the report is one more entry in COLUMNS.
 */

import { assertNever } from "../../../events/index.ts";
import type { FactSurvival, ReplayReport, SessionReport } from "./replay-report.ts";
import { commonFolder, fitTable, fixed, formatTokens, plural, type Style, wrap } from "./text-format.ts";

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

/** A column of the sessions' table: its header, a session's cell and the total's. */
interface Column {
	header: string;
	session(s: SessionReport): string;
	total(r: ReplayReport): string;
}

const column = (header: string, cell: (x: SessionReport | ReplayReport) => string): Column => ({
	header,
	session: cell,
	total: cell,
});

function factsCell(facts: FactSurvival): string {
	return `${fixed(facts.ledgerShare, 2)}/${fixed(facts.baselineShare, 2)}`;
}

const COLUMNS = {
	session: column("session", () => ""),
	points: {
		header: "points",
		session: (s: SessionReport) => `${s.points.length} ${kindLabel(s)}`.trim(),
		total: (r: ReplayReport) => String(r.points),
	},
	baseline: column("baseline", (x) => formatTokens(x.tokens.baseline.total)),
	ledger: column("ledger", (x) => formatTokens(x.tokens.ledger.total)),
	ratio: column("ratio", (x) => fixed(x.tokens.ratio)),
	effective: column("effect.", (x) => fixed(x.cache.effectiveRatio)),
	masked: column("masked", (x) => formatTokens(x.tokens.masked.total)),
	maskedEffective: column("m.eff.", (x) => fixed(x.cache.maskedEffectiveRatio)),
	larger: column(">base", (x) => String(x.largerThanBaseline.length)),
	users: column("users", (x) => String(x.userMessages.total)),
	missing: column("missing", (x) => String(x.userMessages.missing)),
	reuse: column(
		"reuse",
		(x) => `${fixed(x.cacheShare.tokenPrefix.p50, 2)} / ${fixed(x.cacheShare.breakpoint.p50, 2)}`,
	),
	facts: column("facts L/Pi", (x) => factsCell(x.facts)),
	// Of the facts the executor lost at its horizon, the share each request carries ("—": no compaction).
	lost: column("lost L/Pi", (x) =>
		x.facts.lost.ledgerShare === null
			? "—"
			: `${fixed(x.facts.lost.ledgerShare, 2)}/${fixed(x.facts.lost.baselineShare, 2)}`,
	),
	// Consecutive points between which the log's left-out span moved: each a rewrite of the cached prefix.
	cuts: column("cuts", (x) => String(x.logCuts)),
} satisfies Record<string, Column>;

/** A session's name in the tables: its file, and its leaf with `--all-leaves`. */
function sessionName(report: ReplayReport, s: SessionReport): string {
	return s.leafId !== null && report.options.allLeaves ? `${s.file}@${s.leafId}` : s.file;
}

/** One row per session (its name without `folder`), then the totals; `columns` picks the cells. */
function tableRows(
	report: ReplayReport,
	columns: readonly Column[],
	folder: string,
): { rows: string[][]; flagged: boolean[] } {
	const rows = [columns.map((c) => c.header)];
	const flagged = [false];
	for (const s of report.sessions) {
		rows.push([sessionName(report, s).slice(folder.length), ...columns.slice(1).map((c) => c.session(s))]);
		flagged.push(s.largerThanBaseline.length > 0 || s.userMessages.missing > 0);
	}
	rows.push(["total", ...columns.slice(1).map((c) => c.total(report))]);
	flagged.push(false);
	return { rows, flagged };
}

function styledTable(
	report: ReplayReport,
	style: Style,
	columns: readonly Column[],
	folder: string,
	width?: number,
): string[] {
	const { rows, flagged } = tableRows(report, columns, folder);
	const lines = fitTable(rows, width);
	return lines.map((line, i) =>
		i === 0 || i === lines.length - 1 ? style.bold(line) : flagged[i] ? style.yellow(line) : line,
	);
}

/** What the points column counts: real calls, or a simulated point every N tool rounds. */
function pointsNote(report: ReplayReport, style: Style): string[] {
	const leaves = report.options.allLeaves ? "every leaf" : "leaf path only";
	return wrap(
		`adv: advisor() calls; sim: a simulated point every ${plural(report.options.every, "tool round")} and at the end; ${leaves}.`,
	).map((line) => style.dim(line));
}

/** The default's two tables: the first requests' tokens, then what the requests carry. */
const c = COLUMNS;
const DEFAULT_TABLES: readonly (readonly Column[])[] = [
	[c.session, c.points, c.baseline, c.ledger, c.ratio, c.effective, c.masked, c.maskedEffective],
	[c.session, c.points, c.larger, c.users, c.missing, c.reuse, c.facts, c.lost, c.cuts],
];

/** The headers of the default tables, the report's first screen (the legend explains each). */
export const FIRST_SCREEN_HEADERS: readonly string[] = [...new Set(DEFAULT_TABLES.flat().map((c) => c.header))];

/** The default: the tokens of each session's first requests, then its checks, each table within WIDTH. */
export function sessionTables(report: ReplayReport, style: Style): string[] {
	const [tokens, carried] = DEFAULT_TABLES as [Column[], Column[]];
	const folder = commonFolder(report.sessions.map((s) => s.file));
	const where = folder === "" ? "" : ` in ${folder}`;
	return [
		...wrap(`Tokens of the first requests (one per consultation), per session${where}`).map((l) => style.bold(l)),
		...styledTable(report, style, tokens, folder),
		...pointsNote(report, style),
		"",
		style.bold("What the requests carry, per session"),
		...styledTable(report, style, carried, folder),
	];
}

/** `--wide`: every column in one table, the file names whole. */
export function wideSessionTable(report: ReplayReport, style: Style): string[] {
	return [
		style.bold("Per session, first requests (one per consultation)"),
		...styledTable(report, style, Object.values(COLUMNS), "", Number.POSITIVE_INFINITY),
		...pointsNote(report, style),
	];
}
