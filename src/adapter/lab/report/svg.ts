/**
 * `replay --svg FILE`: a header with the totals, a dollar panel (the first requests' prompts priced
 * without a cache and with one in both caching models, baseline, masked baseline and ledger), then tokens per
 * consultation, one small panel per session (each with its own y scale, so a short session is as
 * readable as a long one). One column for one session, two otherwise. Plain SVG, no fonts or
 * scripts beyond a generic sans-serif.
 *
 * Text never overlaps: every label is placed in its own band and clipped to the width it has,
 * measured with a conservative 0.6 em per character.
 */

import type { PointReport, PriceReport, ReplayReport, SessionReport } from "./replay-report.ts";
import { cutMiddle, formatPerMillion, formatTokens, formatUsdFixed, usdDigits, wrap } from "./text-format.ts";

const PANEL_W = 420;
const PANEL_H = 222;
/** A session panel's subtitle: its lines, each in a band of its own under the title. */
const SUBTITLE_LINES = 2;
const SUBTITLE_LINE = 12;
/** Plot margins inside a session panel: the top one leaves the title and subtitle their own bands. */
const MARGIN = { top: 36 + SUBTITLE_LINES * SUBTITLE_LINE, right: 14, bottom: 30, left: 62 };
const MAX_COLUMNS = 2;
const GAP = 16;
const LINE = 16;
/** Past this many sessions the chart keeps the ones with the largest baselines. */
export const MAX_PANELS = 60;
/** Width of a character, as a share of the font size (sans-serif averages about 0.5; this errs wide). */
export const CHAR_EM = 0.6;

const BASELINE_COLOUR = "#d9822b";
const LEDGER_COLOUR = "#2b6cd9";
const MASKED_COLOUR = "#9a9a9a";

function escapeXml(text: string): string {
	return text.replace(/[<>&"']/g, (c) => `&${{ "<": "lt", ">": "gt", "&": "amp", '"': "quot", "'": "apos" }[c]};`);
}

/** Round a maximum up to 1, 2 or 5 × a power of ten. */
function niceMax(value: number): number {
	if (value <= 0) return 1;
	const power = 10 ** Math.floor(Math.log10(value));
	for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
	return 10 * power;
}

/** Characters that fit `width` pixels at `size`. */
function charsIn(width: number, size: number): number {
	return Math.max(2, Math.floor(width / (size * CHAR_EM)));
}

/** A name within `width` pixels at `size`, cut in the middle as the text report cuts it. */
function clipMiddle(text: string, width: number, size: number): string {
	return cutMiddle(text, charsIn(width, size));
}

/** Keep the start within `width` pixels at `size`. */
function clipRight(text: string, width: number, size: number): string {
	const max = charsIn(width, size);
	return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function count(n: number, one: string, many = `${one}s`): string {
	return `${formatTokens(n)} ${n === 1 ? one : many}`;
}

function text(
	x: number,
	y: number,
	size: number,
	content: string,
	extra: { anchor?: "start" | "middle" | "end"; bold?: boolean; fill?: string } = {},
): string {
	const attrs = [`x="${x.toFixed(1)}"`, `y="${y.toFixed(1)}"`, `font-size="${size}"`];
	if (extra.anchor !== undefined && extra.anchor !== "start") attrs.push(`text-anchor="${extra.anchor}"`);
	if (extra.bold === true) attrs.push(`font-weight="bold"`);
	if (extra.fill !== undefined) attrs.push(`fill="${extra.fill}"`);
	return `<text ${attrs.join(" ")}>${escapeXml(content)}</text>`;
}

function sessionPanel(session: SessionReport, x0: number, y0: number, allLeaves: boolean): string {
	const w = PANEL_W - MARGIN.left - MARGIN.right;
	const h = PANEL_H - MARGIN.top - MARGIN.bottom;
	const points = session.points;
	const top = niceMax(Math.max(1, ...points.map((p) => Math.max(p.baseline, p.masked, p.ledger))));
	const x = (i: number) => MARGIN.left + (points.length <= 1 ? w / 2 : (i * w) / (points.length - 1));
	const y = (v: number) => MARGIN.top + h - (v / top) * h;
	const name = allLeaves && session.leafId !== null ? `${session.file}@${session.leafId}` : session.file;
	const parts: string[] = [];
	parts.push(`<g transform="translate(${x0},${y0})">`);
	parts.push(`<rect width="${PANEL_W}" height="${PANEL_H}" fill="#fff" stroke="#ddd"/>`);
	parts.push(text(10, 17, 12, clipMiddle(name, PANEL_W - 20, 12), { bold: true }));
	sessionSubtitle(session).forEach((line, i) => {
		parts.push(text(10, 32 + i * SUBTITLE_LINE, 10, clipRight(line, PANEL_W - 20, 10), { fill: "#555" }));
	});
	// Axes and gridlines at 0, ½ and the top of the scale.
	for (const fraction of [0, 0.5, 1]) {
		const gy = y(top * fraction);
		parts.push(
			`<line x1="${MARGIN.left}" x2="${MARGIN.left + w}" y1="${gy.toFixed(1)}" y2="${gy.toFixed(1)}" stroke="${fraction === 0 ? "#999" : "#eee"}"/>`,
		);
		parts.push(text(MARGIN.left - 6, gy + 3, 9, formatTokens(top * fraction), { anchor: "end", fill: "#555" }));
	}
	parts.push(
		text(
			MARGIN.left + w / 2,
			PANEL_H - 9,
			9,
			points.length === 1 ? "tokens at the one consultation" : `tokens per consultation, 1…${points.length}`,
			{ anchor: "middle", fill: "#555" },
		),
	);
	for (const series of SERIES) {
		const coords = points.map((p, i) => `${x(i).toFixed(1)},${y(p[series.key]).toFixed(1)}`);
		const dash = series.dash === undefined ? "" : ` stroke-dasharray="${series.dash}"`;
		if (coords.length > 1) {
			parts.push(
				`<polyline fill="none" stroke="${series.colour}" stroke-width="${series.width}"${dash} points="${coords.join(" ")}"/>`,
			);
		}
		if (coords.length <= 40) {
			for (const c of coords) {
				const [cx, cy] = c.split(",");
				parts.push(`<circle cx="${cx}" cy="${cy}" r="${series.radius}" fill="${series.colour}"/>`);
			}
		}
	}
	parts.push("</g>");
	return parts.join("");
}

type SeriesKey = "baseline" | "masked" | "ledger";

/**
 * The three lines of a session panel, drawn in this order. A series equal to another must not hide
 * under it (masking leaves a short session as it is): the baseline is drawn widest, the masked
 * baseline dashed over it, the ledger thinnest on top, each point's dot smaller than the one
 * below; and the subtitle says which are equal.
 */
const SERIES: readonly { key: SeriesKey; colour: string; width: number; radius: number; dash?: string }[] = [
	{ key: "baseline", colour: BASELINE_COLOUR, width: 3.2, radius: 3.4 },
	{ key: "masked", colour: MASKED_COLOUR, width: 1.8, radius: 2.4, dash: "6 4" },
	{ key: "ledger", colour: LEDGER_COLOUR, width: 1.4, radius: 1.6 },
];

/** Pairs of series equal at every point, as the subtitle names them (`masked = baseline`). */
function equalSeries(points: readonly PointReport[]): string[] {
	if (points.length === 0) return [];
	const pairs: [SeriesKey, SeriesKey][] = [
		["masked", "baseline"],
		["ledger", "baseline"],
		["ledger", "masked"],
	];
	return pairs.filter(([a, b]) => points.every((p) => p[a] === p[b])).map(([a, b]) => `${a} = ${b}`);
}

/** Two lines: the points and the ratios, then the facts and which lines coincide. */
function sessionSubtitle(session: SessionReport): string[] {
	const ratio = session.tokens.ratio === null ? "—" : session.tokens.ratio.toFixed(3);
	const effective = session.cache.effectiveRatio === null ? "—" : session.cache.effectiveRatio.toFixed(3);
	const equal = equalSeries(session.points);
	return [
		`${count(session.points.length, "point")} (${session.pointKind}) · ledger/baseline ${ratio}, cached ${effective}`,
		`facts: ledger ${share(session.facts.ledgerShare)}, Pi's context ${share(session.facts.baselineShare)}${equal.length > 0 ? ` · ${equal.join(", ")}` : ""}`,
	];
}

const COST_ROWS = [
	["no cache", "uncached"],
	["token prefix", "tokenPrefix"],
	["breakpoints", "breakpoint"],
] as const;
const BAR_H = 13;
const BAR_GAP = 3;
const GROUP_GAP = 12;
const COST_LABEL_W = 92;
const COST_VALUE_W = 118;

/** The model and its prices: one line when it fits the panel, else the prices on a line of their own. */
function costSubtitle(price: PriceReport, width: number): string[] {
	const p = price.perMillion;
	const rate = (n: number) => (n > 0 ? formatPerMillion(n) : "as input");
	const prices = `input ${rate(p.input)}, cache read ${rate(p.cacheRead)}, cache write ${rate(p.cacheWrite)}`;
	const one = `${price.model} · per million tokens: ${prices}`;
	if (one.length * 10 * CHAR_EM <= width - 20) return [one];
	return [`${price.model}, per million tokens:`, prices];
}

function costTop(subtitle: readonly string[]): number {
	return 32 + subtitle.length * 14;
}

/** Bars per caching model: baseline, masked, ledger. */
const COST_BARS = 3;
const GROUP_H = COST_BARS * BAR_H + (COST_BARS - 1) * BAR_GAP + GROUP_GAP;

function costPanelHeight(subtitle: readonly string[]): number {
	return costTop(subtitle) + COST_ROWS.length * GROUP_H + 4;
}

function share(value: number | null): string {
	return value === null ? "—" : value.toFixed(3);
}

/** Horizontal bars: per caching model, baseline, masked and ledger, the dollar amount (and ratio) after each bar. */
function costPanel(price: PriceReport, points: number, x0: number, y0: number, width: number): string {
	const subtitle = costSubtitle(price, width);
	const height = costPanelHeight(subtitle);
	const top = costTop(subtitle);
	const barW = width - 10 - COST_LABEL_W - COST_VALUE_W;
	const amounts = COST_ROWS.flatMap(([, key]) => [price[key].baseline, price[key].masked, price[key].ledger]);
	const max = Math.max(...amounts, 1e-12);
	const digits = usdDigits(amounts);
	const parts: string[] = [];
	parts.push(`<g transform="translate(${x0},${y0})">`);
	parts.push(`<rect width="${width}" height="${height}" fill="#fff" stroke="#ddd"/>`);
	parts.push(
		text(10, 17, 12, clipRight(`Prompt cost of ${count(points, "first request")}, by side`, width - 20, 12), {
			bold: true,
		}),
	);
	subtitle.forEach((line, i) => {
		parts.push(text(10, 32 + i * 14, 10, clipRight(line, width - 20, 10), { fill: "#555" }));
	});
	COST_ROWS.forEach(([label, key], row) => {
		const gy = top + row * GROUP_H;
		parts.push(text(10, gy + BAR_H + 2, 11, label));
		const pair = price[key];
		const ratio = (r: number | null) => (r === null ? "" : ` (${r.toFixed(3)})`);
		[
			[pair.baseline, BASELINE_COLOUR, ""],
			[pair.masked, MASKED_COLOUR, ratio(pair.maskedRatio)],
			[pair.ledger, LEDGER_COLOUR, ratio(pair.ratio)],
		].forEach(([value, colour, suffix], i) => {
			const v = value as number;
			const by = gy + i * (BAR_H + BAR_GAP);
			const bw = Math.max(1, (v / max) * barW);
			parts.push(
				`<rect x="${10 + COST_LABEL_W}" y="${by}" width="${bw.toFixed(1)}" height="${BAR_H}" fill="${colour as string}"/>`,
			);
			parts.push(
				text(10 + COST_LABEL_W + bw + 5, by + BAR_H - 3, 10, `${formatUsdFixed(v, digits)}${suffix as string}`),
			);
		});
	});
	parts.push("</g>");
	return parts.join("");
}

export function renderSvg(report: ReplayReport): string {
	let sessions = report.sessions.filter((s) => s.points.length > 0);
	const omitted = Math.max(0, sessions.length - MAX_PANELS);
	if (omitted > 0) {
		const keep = new Set(
			[...sessions].sort((a, b) => b.tokens.baseline.total - a.tokens.baseline.total).slice(0, MAX_PANELS),
		);
		sessions = sessions.filter((s) => keep.has(s));
	}
	const columns = Math.max(1, Math.min(MAX_COLUMNS, sessions.length));
	const rows = Math.ceil(sessions.length / columns);
	const width = GAP + columns * (PANEL_W + GAP);
	const inner = width - 2 * GAP;

	const lines: string[] = [
		`${count(report.points, "consultation point")} in ${count(report.sessions.length, "session")}${omitted > 0 ? ` (${omitted} smaller not drawn)` : ""}`,
		`tokens: ledger ${formatTokens(report.tokens.ledger.total)} / baseline ${formatTokens(report.tokens.baseline.total)} = ${share(report.tokens.ratio)}`,
		`masked baseline: ${formatTokens(report.tokens.masked.total)} tokens = ${share(report.tokens.maskedRatio)} of the baseline`,
	];
	if (report.cache.effectiveRatio !== null) {
		lines.push(`effective cost, both cached (uncached + 0.1 × cached): ${report.cache.effectiveRatio.toFixed(3)}`);
	}
	lines.push(
		`facts carried as text: ledger ${share(report.facts.ledgerShare)}, Pi's context ${share(report.facts.baselineShare)}`,
	);
	// Wrapped, not cut: a one-column chart is narrow.
	const shownLines = lines.flatMap((line) => wrap(line, charsIn(inner, 11), "  "));
	const titleY = 24;
	const linesTop = titleY + LINE + 2;
	const legendY = linesTop + shownLines.length * LINE + 4;
	let y = legendY + LINE;
	const out: string[] = [];
	const body: string[] = [];
	if (report.price !== undefined && report.points > 0) {
		body.push(costPanel(report.price, report.points, GAP, y, inner));
		y += costPanelHeight(costSubtitle(report.price, inner)) + GAP;
	}
	if (sessions.length === 0) {
		body.push(text(GAP, y + 16, 12, "No consultation points."));
		y += 32;
	}
	sessions.forEach((s, i) => {
		const col = i % columns;
		const rowIndex = Math.floor(i / columns);
		body.push(sessionPanel(s, GAP + col * (PANEL_W + GAP), y + rowIndex * (PANEL_H + GAP), report.options.allLeaves));
	});
	const height = y + rows * (PANEL_H + GAP) + (sessions.length === 0 ? GAP : 0);

	out.push(
		`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
	);
	out.push(`<rect width="${width}" height="${height}" fill="#f7f7f7"/>`);
	out.push(text(GAP, titleY, 15, clipRight("Advisor requests: baseline vs ledger", inner, 15), { bold: true }));
	shownLines.forEach((line, i) => {
		out.push(text(GAP, linesTop + i * LINE, 11, clipRight(line, inner, 11), { fill: "#333" }));
	});
	const labels: Record<SeriesKey, string> = {
		baseline: "baseline (Pi context + tools)",
		masked: "masked",
		ledger: "ledger request",
	};
	let lx = GAP;
	// Each swatch drawn as its line is: the dashes say which line is the masked one.
	for (const series of SERIES) {
		const dash = series.dash === undefined ? "" : ` stroke-dasharray="${series.dash}"`;
		out.push(
			`<line x1="${lx}" x2="${lx + 14}" y1="${legendY - 4}" y2="${legendY - 4}" stroke="${series.colour}" stroke-width="${series.width}"${dash}/>`,
		);
		out.push(text(lx + 18, legendY, 11, labels[series.key]));
		lx += 18 + labels[series.key].length * 11 * CHAR_EM + 16;
	}
	out.push(...body);
	out.push("</svg>");
	return `${out.join("\n")}\n`;
}
