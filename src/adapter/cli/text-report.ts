/** The replay report as text for a terminal: a table per session, then totals and the lists. */

import { CACHED_TOKEN_PRICE, type ReplayReport, type SessionReport, type TokenStats } from "./report.ts";

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

function ms(n: number): string {
	return n >= 100 ? `${n.toFixed(0)} ms` : `${n.toFixed(1)} ms`;
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
		default: {
			const never: never = s.pointKind;
			return never;
		}
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

export function renderTextReport(report: ReplayReport, style: Style = plain): string {
	const out: string[] = [];
	const files = report.diagnostics.files;
	out.push(
		style.bold(
			`Replayed ${report.sessions.length} session${report.sessions.length === 1 ? "" : "s"} from ${files} file${files === 1 ? "" : "s"}: ${report.points} consultation point${report.points === 1 ? "" : "s"}`,
		),
	);
	out.push(
		style.dim(
			`Points: every real advisor() call; sessions without one get a simulated point every ${report.options.every} tool rounds and at the last entry${report.options.allLeaves ? "; every leaf replayed" : "; leaf path only"}.`,
		),
	);
	out.push("");

	const widths = [40, 9, 12, 12, 7, 5, 6, 7, 15, 11];
	const header = [
		"session",
		"points",
		"baseline",
		"ledger",
		"ratio",
		">base",
		"users",
		"missing",
		"cache pfx / bp",
		"inc/scratch",
	];
	out.push(style.bold(row(header, widths)));
	for (const s of report.sessions) {
		const cells = [
			s.leafId !== null && report.options.allLeaves ? `${s.file}@${s.leafId}` : s.file,
			`${s.points.length} ${kindLabel(s)}`.trim(),
			formatTokens(s.tokens.baseline.total),
			formatTokens(s.tokens.ledger.total),
			s.tokens.ratio === null ? "—" : s.tokens.ratio.toFixed(3),
			String(s.largerThanBaseline.length),
			String(s.userMessages.total),
			String(s.userMessages.missing),
			`${fixed(s.cacheShare.tokenPrefix.p50, 2)} / ${fixed(s.cacheShare.breakpoint.p50, 2)}`,
			fixed(s.timing.ratio),
		];
		let line = row(cells, widths);
		if (s.largerThanBaseline.length > 0 || s.userMessages.missing > 0) line = style.yellow(line);
		out.push(line);
	}
	out.push(
		style.bold(
			row(
				[
					"total",
					String(report.points),
					formatTokens(report.tokens.baseline.total),
					formatTokens(report.tokens.ledger.total),
					report.tokens.ratio === null ? "—" : report.tokens.ratio.toFixed(3),
					String(report.largerThanBaseline.length),
					String(report.userMessages.total),
					String(report.userMessages.missing),
					`${fixed(report.cacheShare.tokenPrefix.p50, 2)} / ${fixed(report.cacheShare.breakpoint.p50, 2)}`,
					fixed(report.timing.ratio),
				],
				widths,
			),
		),
	);
	out.push("");

	const statWidths = [28, 14, 10, 10, 10];
	out.push(style.bold(row(["tokens per consultation", "total", "p50", "p90", "max"], statWidths)));
	out.push(row(statsRow("baseline (Pi context+tools)", report.tokens.baseline), statWidths));
	out.push(row(statsRow("ledger", report.tokens.ledger), statWidths));
	out.push(`ratio ledger/baseline (total): ${ratioText(report.tokens.ratio, style)}`);
	out.push(
		`effective cost ledger/baseline (fresh + ${CACHED_TOKEN_PRICE} × cached prefix, both sides cached): ${ratioText(report.effective.ratio, style)}`,
	);
	out.push("");

	const c = report.cacheShare;
	out.push(
		`Cached share of the previous consultation, median (mean) over ${c.pairs} pair${c.pairs === 1 ? "" : "s"}: token prefix ${fixed(c.tokenPrefix.p50)} (${fixed(c.tokenPrefix.mean)}), breakpoints ${fixed(c.breakpoint.p50)} (${fixed(c.breakpoint.mean)})`,
	);
	const t = report.timing;
	out.push(
		`Fold + render: incremental ${ms(t.incrementalMs)} over ${report.points} points; from scratch ${ms(t.scratchMs)} over ${t.scratchPoints} sampled points; incremental/scratch on those points ${fixed(t.ratio)}`,
	);
	if (t.mismatches > 0)
		out.push(style.red(`Incremental and from-scratch requests differed at ${t.mismatches} points.`));
	if (report.billed.points > 0) {
		out.push(
			`Billed usage recorded by ${report.billed.points} advisor call${report.billed.points === 1 ? "" : "s"}: ${formatTokens(report.billed.prompt)} prompt tokens (all attempts and investigation rounds) vs ${formatTokens(report.billed.ledgerEstimate)} estimated for their first request; ${formatTokens(report.billed.output)} output tokens`,
		);
	}
	out.push("");

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

	const d = report.diagnostics;
	const unknownTypes = Object.entries(d.unknownEntryTypes)
		.map(([type, n]) => `${type} ×${n}`)
		.join(", ");
	out.push(
		`Reader diagnostics: ${d.badLines} bad line${d.badLines === 1 ? "" : "s"}, ${d.unknownEntries} unknown entr${d.unknownEntries === 1 ? "y" : "ies"}${unknownTypes === "" ? "" : ` (${unknownTypes})`}, ${d.brokenParents} broken parent link${d.brokenParents === 1 ? "" : "s"}`,
	);
	for (const m of d.messages) out.push(style.dim(`  ${m}`));
	if (d.filesWithoutPoints.length > 0) {
		out.push(`Files without any consultation point (${d.filesWithoutPoints.length}):`);
		for (const f of d.filesWithoutPoints) out.push(`  ${f}`);
	}
	if (d.unreadable.length > 0) {
		out.push(style.red(`Unreadable inputs, skipped (${d.unreadable.length}):`));
		for (const u of d.unreadable) out.push(`  ${u.path}: ${u.error}`);
	}
	return `${out.join("\n")}\n`;
}
