/**
 * The text report's watch section (`replay --watch`; docs/cli.md, "replay --watch"): one table, a
 * row per session and the total — the reviews the watch would have asked for, by signal, the
 * findings it held back, what the reviews and the executor's turns cost at the same prices, the
 * share, and how much of one review's request the next repeats — within WIDTH columns. `--wide`
 * adds every review: where it woke (`#N`), why, and what it cost. Nothing without `--watch`.
 */

import type { ReplayReport, SessionReport } from "./replay-report.ts";
import { commonFolder, fitTable, fixed, formatUsdFixed, type Style, usdDigits, WIDTH, wrap } from "./text-format.ts";
import type { WatchSummary } from "./watch-report.ts";

const HEADER = ["session", "reviews", "streak", "untested", "long", "held", "watch", "executor", "share", "reuse"];

function cells(w: WatchSummary, digits: number): string[] {
	const held = w.skipped.cooldown + w.skipped.promptCap + w.skipped.overShare;
	return [
		String(w.reviews),
		String(w.bySignal["failure-streak"]),
		String(w.bySignal["untested-edits"]),
		String(w.bySignal["long-run"]),
		String(held),
		formatUsdFixed(w.usd, digits),
		formatUsdFixed(w.executor.usd, 2),
		fixed(w.share, 4),
		fixed(w.reuse.p50, 2),
	];
}

function sessionName(report: ReplayReport, s: SessionReport): string {
	return s.leafId !== null && report.options.allLeaves ? `${s.file}@${s.leafId}` : s.file;
}

/** Every review, one entry each: where it woke, the signal, its dollars, and why. */
function reviewLines(report: ReplayReport, digits: number): string[] {
	const out: string[] = [];
	for (const s of report.sessions) {
		for (const r of s.watch?.reviewed ?? []) {
			const usd = `${formatUsdFixed(r.usd.tokenPrefix, digits)} / ${formatUsdFixed(r.usd.breakpoint, digits)}`;
			out.push(...wrap(`  ${sessionName(report, s)} #${r.card} ${r.signal}, ${usd}: ${r.reason}`, WIDTH, "    "));
		}
	}
	return out;
}

export function watchLines(report: ReplayReport, style: Style, options: { wide: boolean }): string[] {
	const total = report.watch;
	if (total === undefined) return [];
	const s = total.settings;
	const folder = options.wide ? "" : commonFolder(report.sessions.map((x) => x.file));
	const digits = usdDigits(report.sessions.map((x) => x.watch?.usd ?? 0));
	const rows = [HEADER];
	for (const session of report.sessions) {
		if (session.watch === undefined) continue;
		rows.push([sessionName(report, session).slice(folder.length), ...cells(session.watch, digits)]);
	}
	rows.push(["total", ...cells(total, digits)]);
	const lines = fitTable(rows, options.wide ? Number.POSITIVE_INFINITY : WIDTH);
	const longRun = s.longRunRounds === 0 ? "long run off" : `long run ${s.longRunRounds} rounds`;
	const title = `The watch, as if it had been on${folder === "" ? "" : `, per session in ${folder}`} (failure streak ${s.failureStreak}, untested files ${s.untestedFiles}, ${longRun}, cooldown ${s.cooldownRounds}, share cap ${s.maxShare})`;
	const note = `Reviews by signal (failure streak, untested edits, long run); held: findings the cooldown, the prompt cap or the share cap held back. watch: each review after the branch's previous advisor request, at the dearer cache model, with ${total.outputTokens.toLocaleString("en-US")} output tokens; executor: its recorded tokens at the same prices; share = watch / executor. reuse: median share of one review's request the next repeats.${options.wide ? "" : " --wide lists every review."}`;
	return [
		...wrap(title).map((line) => style.bold(line)),
		...lines.map((line, i) => (i === 0 || i === lines.length - 1 ? style.bold(line) : line)),
		...wrap(note).map((line) => style.dim(line)),
		...(options.wide
			? [style.bold("Every review: where it woke, token prefix / breakpoints, why"), ...reviewLines(report, digits)]
			: []),
	];
}
