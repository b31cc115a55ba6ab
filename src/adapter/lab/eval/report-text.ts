/** The eval report as text for a terminal (and report.md): the figures, then what they cannot show. */

import { formatUsd } from "../../../policy/index.ts";
import { promptTokensOf } from "../../../reducers/index.ts";
import { formatTokens, type Style } from "../report/text-report.ts";
import type { BilledRequests } from "./billed-requests.ts";
import type { RunEstimate } from "./eval-plan.ts";
import type { Comparison, EvalReport, Rate } from "./eval-report.ts";

const percent = (n: number) => `${Math.round(n * 100)}%`;

/** A proportion with its 95% interval: `9/12 = 75%  (95% interval 47%–91%)`. */
export function formatProportion(r: Rate): string {
	if (r.rate === null || r.interval === null) return "— (no points)";
	return `${r.count}/${r.of} = ${percent(r.rate)}  (95% interval ${percent(r.interval.low)}–${percent(r.interval.high)})`;
}

function pad(text: string, width: number): string {
	return text.length >= width ? text : text + " ".repeat(width - text.length);
}

function padStart(text: string, width: number): string {
	return text.length >= width ? text : " ".repeat(width - text.length) + text;
}

function comparisonLines(c: Comparison): string[] {
	const useful = c.moreUseful;
	const other = useful.other > 0 ? `, another arm ${useful.other}` : "";
	const rows: [string, string][] = [
		["severity lines agree", formatProportion(c.severityAgreement)],
		["same verdict (judge)", formatProportion(c.verdictAgreement)],
		[`${c.arm} lacks a point full makes`, formatProportion(c.armLacks)],
		[`full lacks a point ${c.arm} makes`, formatProportion(c.fullLacks)],
		["more useful (judge)", `${c.arm} ${useful.arm}, full ${useful.full}, tie ${useful.tie}${other}`],
	];
	const width = Math.max(...rows.map(([label]) => label.length)) + 3;
	return [`${c.arm} vs full`, ...rows.map(([label, value]) => `  ${pad(label, width)}${value}`)];
}

function costRow(name: string, b: BilledRequests): string {
	return [
		pad(`  ${name}`, 12),
		padStart(String(b.requests), 9),
		padStart(formatTokens(promptTokensOf(b)), 12),
		padStart(formatTokens(b.cacheRead), 12),
		padStart(formatTokens(b.output), 9),
		padStart(formatUsd(b.usd), 10),
	].join("");
}

function costLines(report: EvalReport): string[] {
	const header = [
		pad("", 12),
		padStart("requests", 9),
		padStart("prompt", 12),
		padStart("cache read", 12),
		padStart("output", 9),
		padStart("cost", 10),
	].join("");
	const rows = Object.entries(report.cost.arms).map(([arm, billed]) => costRow(arm, billed));
	rows.push(costRow("judge", report.cost.judge));
	if (report.cost.abandoned.requests > 0) rows.push(costRow("cut off", report.cost.abandoned));
	rows.push(costRow("total", report.cost.total));
	return ["Cost and tokens, as billed", header, ...rows];
}

/** What the figures do not prove (docs/eval.md says it at length). */
function caveats(report: EvalReport): string[] {
	const n = report.points.judged;
	return [
		"What these figures cannot show",
		`  - ${n} judged point${n === 1 ? "" : "s"}: each rate is known only to within its interval; a difference smaller than the intervals is not shown to exist.`,
		"  - Agreement says whether the cheaper context leads to the same advice, not whether either advice was right.",
		"  - The judge is one model's reading, blinded to which arm wrote what, not ground truth; the first Severity line is the answer's own verdict.",
		"  - The workspace tools (read, grep, find, ls, git_diff) were left out of every arm: the workspace is no longer as it was at each point. The ledger arm kept advisor_expand, answered from the session file.",
		"  - Points come from your own sessions; they are not a benchmark and do not stand for other work.",
	];
}

export function renderEvalReport(report: EvalReport, style: Style): string {
	const p = report.points;
	const judge = report.judgeIsAdvisor ? `${report.judge} (the advisor model: no --judge given)` : report.judge;
	const out = [
		style.bold(
			`advisor-ledger eval: ${p.planned} point${p.planned === 1 ? "" : "s"}, arms ${report.arms.join(", ")}`,
		),
		`Advisor ${report.advisor} · judge ${judge} · seed ${report.seed}`,
		`Points: ${p.real} real advisor call${p.real === 1 ? "" : "s"}, ${p.simulated} simulated (of ${p.available} found, ${p.asked} asked); ${p.judged} judged, ${p.unjudged} unjudged, ${p.failed} failed, ${p.notSent} not sent; ${p.tooLarge} skipped as too large for the advisor's window.`,
	];
	if (report.stoppedByCap)
		out.push(style.yellow("--max-usd stopped the run: --resume with a higher cap continues it."));
	out.push("");
	for (const c of report.comparisons) out.push(...comparisonLines(c), "");
	out.push(...costLines(report), "");
	out.push(...caveats(report), "");
	out.push(`Each point's question and answers side by side: ${report.out}/points/*.md`);
	return `${out.join("\n")}\n`;
}

/** The points drawn against those asked (eval-plan.ts `RunPlan`). */
export interface EstimatedPoints {
	points: number;
	/** `--points`. */
	asked: number;
	/** Consultation points found in the sessions read. */
	available: number;
	/** Drawn and skipped: too large for the advisor's window. */
	tooLarge: number;
}

/** Why fewer points were drawn than `--points` asked for; undefined when there are as many. */
export function fewerPointsLine(p: EstimatedPoints): string | undefined {
	if (p.points >= p.asked) return undefined;
	const found = `the sessions read hold ${p.available} consultation point${p.available === 1 ? "" : "s"}`;
	const large =
		p.tooLarge === 0 ? "" : `, ${p.tooLarge} of them skipped as too large for the advisor's context window`;
	return `  ${p.points} of the ${p.asked} points asked (--points ${p.asked}): ${found}${large}.`;
}

/** The estimate shown before anything is sent. */
export function renderEstimate(estimate: RunEstimate, drawn: EstimatedPoints, expandRounds: number): string {
	const points = drawn.points;
	const lines = [
		`Estimate for ${points} point${points === 1 ? "" : "s"} (prompt estimated, output at its cap, no cache):`,
	];
	const fewer = fewerPointsLine(drawn);
	if (fewer !== undefined) lines.push(fewer);
	for (const [arm, line] of Object.entries(estimate.arms)) {
		lines.push(
			`  ${pad(arm, 8)}${padStart(String(line.requests), 4)} requests  ~${formatTokens(line.prompt)} prompt tokens  ≤${formatTokens(line.output)} output  ${formatUsd(line.usd)}`,
		);
	}
	const j = estimate.judge;
	lines.push(
		`  ${pad("judge", 8)}${padStart(String(j.requests), 4)} requests  ~${formatTokens(j.prompt)} prompt tokens  ≤${formatTokens(j.output)} output  ${formatUsd(j.usd)}`,
	);
	lines.push(
		`  total about ${formatUsd(estimate.usd)}; advisor_expand rounds (up to ${expandRounds} more requests per ledger point) and judge retries come on top, each checked against --max-usd.`,
	);
	return `${lines.join("\n")}\n`;
}
