/**
 * `replay --svg FILE`: tokens per consultation, baseline vs ledger, one small panel per session
 * (each with its own y scale, so a short session is as readable as a long one). Plain SVG, no
 * fonts or scripts beyond a generic sans-serif.
 */

import type { ReplayReport, SessionReport } from "./report.ts";
import { formatTokens } from "./text-report.ts";

const PANEL_W = 420;
const PANEL_H = 200;
const MARGIN = { top: 34, right: 14, bottom: 28, left: 62 };
const COLUMNS = 2;
const GAP = 16;
const HEADER_H = 58;
/** Past this many sessions the chart keeps the ones with the largest baselines. */
export const MAX_PANELS = 60;

const BASELINE_COLOUR = "#d9822b";
const LEDGER_COLOUR = "#2b6cd9";

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

function clipLabel(text: string, max: number): string {
	return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}

function panel(session: SessionReport, x0: number, y0: number, allLeaves: boolean): string {
	const w = PANEL_W - MARGIN.left - MARGIN.right;
	const h = PANEL_H - MARGIN.top - MARGIN.bottom;
	const points = session.points;
	const top = niceMax(Math.max(1, ...points.map((p) => Math.max(p.baseline, p.ledger))));
	const x = (i: number) => MARGIN.left + (points.length <= 1 ? w / 2 : (i * w) / (points.length - 1));
	const y = (v: number) => MARGIN.top + h - (v / top) * h;
	const name = allLeaves && session.leafId !== null ? `${session.file}@${session.leafId}` : session.file;
	const ratio = session.tokens.ratio === null ? "—" : session.tokens.ratio.toFixed(3);
	const parts: string[] = [];
	parts.push(`<g transform="translate(${x0},${y0})">`);
	parts.push(`<rect width="${PANEL_W}" height="${PANEL_H}" fill="#fff" stroke="#ddd"/>`);
	parts.push(`<text x="10" y="16" font-size="12" font-weight="bold">${escapeXml(clipLabel(name, 58))}</text>`);
	parts.push(
		`<text x="10" y="29" font-size="10" fill="#555">${points.length} point${points.length === 1 ? "" : "s"} (${session.pointKind}) · ledger/baseline ${ratio}</text>`,
	);
	// Axes and gridlines at 0, ½ and the top of the scale.
	for (const fraction of [0, 0.5, 1]) {
		const gy = y(top * fraction);
		parts.push(
			`<line x1="${MARGIN.left}" x2="${MARGIN.left + w}" y1="${gy.toFixed(1)}" y2="${gy.toFixed(1)}" stroke="${fraction === 0 ? "#999" : "#eee"}"/>`,
		);
		parts.push(
			`<text x="${MARGIN.left - 6}" y="${(gy + 3).toFixed(1)}" font-size="9" text-anchor="end" fill="#555">${formatTokens(top * fraction)}</text>`,
		);
	}
	parts.push(
		`<text x="${MARGIN.left + w / 2}" y="${PANEL_H - 8}" font-size="9" text-anchor="middle" fill="#555">consultation 1…${points.length}</text>`,
	);
	for (const [key, colour] of [
		["baseline", BASELINE_COLOUR],
		["ledger", LEDGER_COLOUR],
	] as const) {
		const coords = points.map((p, i) => `${x(i).toFixed(1)},${y(p[key]).toFixed(1)}`);
		if (coords.length > 1) {
			parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="1.6" points="${coords.join(" ")}"/>`);
		}
		if (coords.length <= 40) {
			for (const c of coords) {
				const [cx, cy] = c.split(",");
				parts.push(`<circle cx="${cx}" cy="${cy}" r="2.2" fill="${colour}"/>`);
			}
		}
	}
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
	const rows = Math.max(1, Math.ceil(sessions.length / COLUMNS));
	const width = GAP + COLUMNS * (PANEL_W + GAP);
	const height = HEADER_H + rows * (PANEL_H + GAP) + GAP;
	const ratio = report.tokens.ratio === null ? "—" : report.tokens.ratio.toFixed(3);
	const out: string[] = [];
	out.push(
		`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
	);
	out.push(`<rect width="${width}" height="${height}" fill="#f7f7f7"/>`);
	out.push(
		`<text x="${GAP}" y="24" font-size="15" font-weight="bold">Tokens per consultation: baseline vs ledger</text>`,
	);
	out.push(
		`<text x="${GAP}" y="42" font-size="11" fill="#333">${report.points} points in ${report.sessions.length} sessions · total ledger ${formatTokens(report.tokens.ledger.total)} / baseline ${formatTokens(report.tokens.baseline.total)} = ${ratio}${omitted > 0 ? ` · ${omitted} smaller sessions not drawn` : ""}</text>`,
	);
	const legendX = width - GAP - 210;
	out.push(`<rect x="${legendX}" y="14" width="14" height="4" fill="${BASELINE_COLOUR}"/>`);
	out.push(`<text x="${legendX + 18}" y="20" font-size="11">baseline (Pi context + tools)</text>`);
	out.push(`<rect x="${legendX}" y="32" width="14" height="4" fill="${LEDGER_COLOUR}"/>`);
	out.push(`<text x="${legendX + 18}" y="38" font-size="11">ledger request</text>`);
	if (sessions.length === 0) {
		out.push(`<text x="${GAP}" y="${HEADER_H + 20}" font-size="12">No consultation points.</text>`);
	}
	sessions.forEach((s, i) => {
		const col = i % COLUMNS;
		const rowIndex = Math.floor(i / COLUMNS);
		out.push(panel(s, GAP + col * (PANEL_W + GAP), HEADER_H + rowIndex * (PANEL_H + GAP), report.options.allLeaves));
	});
	out.push("</svg>");
	return `${out.join("\n")}\n`;
}
