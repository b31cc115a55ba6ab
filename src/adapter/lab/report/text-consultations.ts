/**
 * The text report's whole consultations (docs/cli.md, "Billed and estimated"): what the extension
 * estimates a consultation costs at every point — its first request and the follow-ups expected —
 * and, where the session recorded what its advisor calls were billed, the two side by side with
 * the billed / estimated ratio, first requests apart from follow-ups.
 */

import { addUsageSplit } from "./consultation-totals.ts";
import { DEFAULT_PRICE_MODEL } from "./price-lookup.ts";
import type { BilledByRequest, EstimateTotals, PointReport, ReplayReport, UsageSplit } from "./replay-report.ts";
import { fitTable, fixed, formatTokens, formatUsdFixed, plural, type Style, usdDigits, wrap } from "./text-format.ts";

/** pi-ai's scripted test provider: the bundled samples' advisor. */
const FAUX_PREFIX = "faux:";

function basisCell(t: EstimateTotals): string {
	const prior = t.points - t.history;
	if (t.history === 0) return `prior ${prior}`;
	return prior === 0 ? `history ${t.history}` : `history ${t.history}, prior ${prior}`;
}

/** The extension's estimates at every point, advisor calls and simulated points apart. */
function estimateLines(report: ReplayReport, style: Style, model: string): string[] {
	const kinds: [string, EstimateTotals][] = [
		["advisor calls", report.estimate.advisor],
		["simulated", report.estimate.simulated],
	];
	const shown = kinds.filter(([, t]) => t.points > 0);
	if (shown.length === 0) return [];
	const digits = usdDigits(shown.flatMap(([, t]) => [t.firstUsd, t.usd]));
	const rows = [
		["points", "count", "follow-ups", "first request", "consultation", "basis"],
		...shown.map(([label, t]) => [
			label,
			String(t.points),
			fixed(t.followUps, 2),
			formatUsdFixed(t.firstUsd, digits),
			formatUsdFixed(t.usd, digits),
			basisCell(t),
		]),
	];
	const lines = fitTable(rows);
	return [
		...wrap(`Whole consultations (ledger), estimated as the extension does, at ${model} prices`).map((l) =>
			style.bold(l),
		),
		style.bold(lines[0]!),
		...lines.slice(1),
	];
}

function splitCells(split: UsageSplit): string[] {
	return [formatTokens(split.input), formatTokens(split.cacheRead), formatTokens(split.cacheWrite)];
}

/** Billed / estimated, as the tables print a ratio; a dash when nothing was estimated. */
function formatBilledRatio(billed: number, estimated: number): string {
	return estimated > 0 ? (billed / estimated).toFixed(3) : "—";
}

/** Billed next to estimated, over the calls that recorded every request. */
function billedTable(b: BilledByRequest, style: Style): string[] {
	const followUpEstimate = Math.max(0, b.estimate.usd - b.estimate.firstUsd);
	const billedUsd = b.first.usd + b.followUps.usd;
	const whole = addUsageSplit(b.first, b.followUps);
	const digits = usdDigits([b.first.usd, b.followUps.usd, b.estimate.firstUsd, followUpEstimate].filter((n) => n > 0));
	const usd = (n: number) => formatUsdFixed(n, digits);
	const rows = [
		["", "requests", "fresh", "cache read", "cache write", "output", "billed", "estimated", "ratio"],
		[
			"first requests",
			String(b.points),
			...splitCells(b.first),
			formatTokens(b.first.output),
			usd(b.first.usd),
			usd(b.estimate.firstUsd),
			fixed(b.ratio.first),
		],
		[
			"follow-ups",
			String(b.requests - b.points),
			...splitCells(b.followUps),
			formatTokens(b.followUps.output),
			usd(b.followUps.usd),
			usd(followUpEstimate),
			formatBilledRatio(b.followUps.usd, followUpEstimate),
		],
		[
			"consultations",
			String(b.requests),
			...splitCells(whole),
			formatTokens(whole.output),
			usd(billedUsd),
			usd(b.estimate.usd),
			fixed(b.ratio.consultation),
		],
	];
	const lines = fitTable(rows);
	return [style.bold(lines[0]!), ...lines.slice(1, -1), style.bold(lines.at(-1)!)];
}

/** The first requests' prompt tokens three ways: billed, estimated, and as sent when recorded. */
function promptLines(b: BilledByRequest): string[] {
	const sent =
		b.sentTokens === null
			? ""
			: `; sent then as ${formatTokens(b.sentTokens)} (chars/4, as recorded), rendered now as ${formatTokens(b.ledger)}`;
	return wrap(
		`Prompt tokens of the first requests: billed ${formatTokens(b.first.prompt)}, estimated ${formatTokens(b.estimate.firstPrompt)} (ratio ${fixed(b.ratio.firstPrompt)})${sent}.`,
	);
}

/** Points whose result records it was billed by pi-ai's faux provider. */
function fauxPoints(report: ReplayReport): PointReport[] {
	return report.sessions.flatMap((s) => s.points).filter((p) => p.billed?.model?.startsWith(FAUX_PREFIX) === true);
}

function billedLines(report: ReplayReport, style: Style, wide: boolean): string[] {
	const billed = report.billed;
	if (billed.points === 0) return [];
	const title = `Billed vs estimated: the ${plural(billed.points, "advisor call")} that recorded their usage, at the same prices`;
	const faux = fauxPoints(report).length;
	// A test model's bill is no provider's: a first reader is not asked to make sense of it.
	if (!wide && faux === billed.points) {
		return wrap(
			`Billed vs estimated: the ${plural(billed.points, "advisor call")} that recorded their usage went to faux:…, pi-ai's scripted test model, whose bills are not a provider's; --wide shows them.`,
		);
	}
	const b = billed.byRequest;
	const out: string[] = [];
	out.push(...wrap(title).map((l) => style.bold(l)));
	if (b.points > 0) out.push(...billedTable(b, style), ...(wide ? promptLines(b) : []));
	const aggregateOnly = billed.points - b.points;
	if (aggregateOnly > 0) {
		const onlyTotal = report.sessions
			.flatMap((s) => s.points)
			.filter((p) => p.billed !== undefined && p.billed.first === undefined);
		const usd = onlyTotal.reduce((n, p) => n + p.billed!.usd, 0);
		const estimated = onlyTotal.reduce((n, p) => n + (p.estimate?.usd ?? 0), 0);
		out.push(
			...wrap(
				`${plural(aggregateOnly, "call")} recorded only ${aggregateOnly === 1 ? "its" : "their"} total: ${formatTokens(billed.prompt - b.first.prompt - b.followUps.prompt)} prompt tokens, ${formatUsdFixed(usd, 4)} billed vs ${formatUsdFixed(estimated, 4)} estimated.`,
			),
		);
	}
	// The table's last row says it when every call recorded its requests.
	if (aggregateOnly > 0)
		out.push(
			...wrap(
				`All ${plural(billed.points, "call")}: ${formatUsdFixed(billed.usd, 4)} billed vs ${formatUsdFixed(billed.estimateUsd, 4)} estimated for the whole consultation (ratio ${fixed(billed.ratio)}).`,
			),
		);
	if (wide) out.push(...fauxLines(report));
	else if (faux > 0)
		out.push(
			...wrap(
				`${formatTokens(faux)} of these calls went to faux:…, pi-ai's scripted test model; --wide says what that does to the bill.`,
			),
		);
	return out;
}

/**
 * pi-ai's faux provider (the bundled samples' advisor) reports the tokens it writes to its cache
 * twice, as input and as cache write (docs/cli.md, "Billed and estimated"): said, with what the
 * bill is without the copy, so the ratio on the samples is read for what it is.
 */
function fauxLines(report: ReplayReport): string[] {
	const points = fauxPoints(report);
	if (points.length === 0 || report.price === undefined) return [];
	const input = points.reduce((n, p) => n + p.billed!.input, 0);
	const copyUsd = (input * report.price.perMillion.input) / 1e6;
	const billed = report.billed.usd - copyUsd;
	return wrap(
		`${plural(points.length, "call")} went to faux:…, pi-ai's scripted test model, which reports what it writes to its cache twice, as input and as cache write. Without the copy (${formatTokens(input)} input tokens, ${formatUsdFixed(copyUsd, 4)}): ${formatUsdFixed(billed, 4)} billed, ratio ${formatBilledRatio(billed, report.billed.estimateUsd)}.`,
	);
}

export function consultationLines(report: ReplayReport, style: Style, options: { wide?: boolean } = {}): string[] {
	const model = report.price?.model ?? DEFAULT_PRICE_MODEL;
	const estimates = estimateLines(report, style, model);
	const billed = billedLines(report, style, options.wide === true);
	return [...estimates, ...(estimates.length > 0 && billed.length > 0 ? [""] : []), ...billed];
}
