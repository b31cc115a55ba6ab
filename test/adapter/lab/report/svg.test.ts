// The replay chart (`replay --svg`), read back as geometry: plurals, a width that follows the
// session count, no two labels on top of each other or on a bar, everything inside its panel,
// and the dollar panel. Reports are built in-process from the bundled samples.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type FileReplay, replayText } from "../../../../src/adapter/lab/replay/engine.ts";
import { DEFAULT_PRICE_MODEL, resolvePriceModel } from "../../../../src/adapter/lab/report/price-lookup.ts";
import type { ReplayReport } from "../../../../src/adapter/lab/report/replay-report.ts";
import { buildReport } from "../../../../src/adapter/lab/report/report-totals.ts";
import { renderSvg } from "../../../../src/adapter/lab/report/svg.ts";
import { samplesDir } from "../../../support/cli-build.ts";

const replays = new Map<string, FileReplay>();

function replay(name: string, allLeaves: boolean, shownAs = `samples/${name}`): FileReplay {
	const key = `${name}|${allLeaves}|${shownAs}`;
	let r = replays.get(key);
	if (r === undefined) {
		r = replayText(shownAs, readFileSync(path.join(samplesDir, name), "utf8"), {
			every: 10,
			allLeaves,
			scratchSamples: 1,
		});
		replays.set(key, r);
	}
	return r;
}

function report(files: FileReplay[], allLeaves = false): ReplayReport {
	return buildReport(
		files.flatMap((f) => f.sessions),
		files.map((f) => f.diagnostics),
		[],
		{ every: 10, allLeaves, inputs: ["samples"] },
		resolvePriceModel(DEFAULT_PRICE_MODEL),
	);
}

interface Box {
	text: string;
	left: number;
	right: number;
	top: number;
	bottom: number;
	/** The panel the label sits in (its group's background rect), if any. */
	panel?: Rect;
}

interface Rect {
	x: number;
	y: number;
	width: number;
	height: number;
	fill: string;
}

/** Width of a character as a share of the font size: the chart's own budget, an upper bound for sans-serif. */
const EM = 0.6;

function attrs(source: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const m of source.matchAll(/([\w-]+)="([^"]*)"/g)) out[m[1]!] = m[2]!;
	return out;
}

function unescapeXml(text: string): string {
	return text.replace(
		/&(lt|gt|amp|quot|apos);/g,
		(_, e: string) => ({ lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" })[e]!,
	);
}

/** Every label and rectangle, in absolute coordinates (groups only ever translate, and never nest). */
function geometry(svg: string): { width: number; height: number; texts: Box[]; rects: Rect[]; panels: Rect[] } {
	const root = attrs(/<svg ([^>]*)>/.exec(svg)![1]!);
	const texts: Box[] = [];
	const rects: Rect[] = [];
	const panels: Rect[] = [];
	let dx = 0;
	let dy = 0;
	let panel: Rect | undefined;
	let inGroup = false;
	for (const m of svg.matchAll(
		/<g transform="translate\(([\d.]+),([\d.]+)\)">|<\/g>|<text ([^>]*)>([^<]*)<\/text>|<rect ([^>]*)\/>/g,
	)) {
		if (m[1] !== undefined) {
			dx = Number(m[1]);
			dy = Number(m[2]);
			inGroup = true;
			panel = undefined;
		} else if (m[0] === "</g>") {
			dx = 0;
			dy = 0;
			inGroup = false;
			panel = undefined;
		} else if (m[3] !== undefined) {
			const a = attrs(m[3]);
			const content = unescapeXml(m[4]!);
			const size = Number(a["font-size"]);
			const x = Number(a.x) + dx;
			const y = Number(a.y) + dy;
			const w = content.length * size * EM;
			const anchor = a["text-anchor"] ?? "start";
			const left = anchor === "middle" ? x - w / 2 : anchor === "end" ? x - w : x;
			texts.push({ text: content, left, right: left + w, top: y - 0.8 * size, bottom: y + 0.25 * size, panel });
		} else {
			const a = attrs(m[5]!);
			const rect = {
				x: Number(a.x ?? 0) + dx,
				y: Number(a.y ?? 0) + dy,
				width: Number(a.width),
				height: Number(a.height),
				fill: a.fill ?? "",
			};
			if (inGroup && panel === undefined) {
				panel = rect;
				panels.push(rect);
			} else rects.push(rect);
		}
	}
	return { width: Number(root.width), height: Number(root.height), texts, rects, panels };
}

const overlaps = (a: { left: number; right: number; top: number; bottom: number }, b: typeof a) =>
	a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

const asBox = (r: Rect) => ({ left: r.x, right: r.x + r.width, top: r.y, bottom: r.y + r.height });

function checkLayout(svg: string): ReturnType<typeof geometry> {
	const g = geometry(svg);
	for (const t of g.texts) {
		expect(t.left, t.text).toBeGreaterThanOrEqual(0);
		expect(t.right, t.text).toBeLessThanOrEqual(g.width);
		expect(t.bottom, t.text).toBeLessThanOrEqual(g.height);
		if (t.panel !== undefined) {
			expect(t.left, `${t.text} inside its panel`).toBeGreaterThanOrEqual(t.panel.x);
			expect(t.right, `${t.text} inside its panel`).toBeLessThanOrEqual(t.panel.x + t.panel.width);
			expect(t.top, `${t.text} inside its panel`).toBeGreaterThanOrEqual(t.panel.y);
			expect(t.bottom, `${t.text} inside its panel`).toBeLessThanOrEqual(t.panel.y + t.panel.height);
		}
	}
	for (let i = 0; i < g.texts.length; i++) {
		for (let j = i + 1; j < g.texts.length; j++) {
			const a = g.texts[i]!;
			const b = g.texts[j]!;
			expect(overlaps(a, b), `"${a.text}" collides with "${b.text}"`).toBe(false);
		}
		// Bars and legend swatches are the coloured rects: no label on them.
		for (const r of g.rects.filter((r) => r.fill === "#d9822b" || r.fill === "#2b6cd9")) {
			expect(overlaps(g.texts[i]!, asBox(r)), `"${g.texts[i]!.text}" on a bar`).toBe(false);
		}
	}
	for (let i = 0; i < g.panels.length; i++) {
		for (let j = i + 1; j < g.panels.length; j++)
			expect(overlaps(asBox(g.panels[i]!), asBox(g.panels[j]!))).toBe(false);
		expect(g.panels[i]!.x + g.panels[i]!.width).toBeLessThanOrEqual(g.width);
		expect(g.panels[i]!.y + g.panels[i]!.height).toBeLessThanOrEqual(g.height);
	}
	return g;
}

/** Session panels fill the width: the first row reaches from the left margin to the right one. */
function expectFilled(g: ReturnType<typeof geometry>, sessions: number): void {
	const sessionPanels = g.panels.filter((p) => p.height === g.panels.at(-1)!.height);
	expect(sessionPanels).toHaveLength(sessions);
	const firstRow = sessionPanels.filter((p) => p.y === sessionPanels[0]!.y);
	const left = Math.min(...firstRow.map((p) => p.x));
	const right = Math.max(...firstRow.map((p) => p.x + p.width));
	expect(left).toBe(g.width - right);
	expect(firstRow).toHaveLength(Math.min(2, sessions));
}

const allTexts = (svg: string) => geometry(svg).texts.map((t) => t.text);

describe("replay --svg", () => {
	it("one session: one column as wide as its panel, singular words, a dollar panel", () => {
		const svg = renderSvg(report([replay("long/taskq.jsonl", false)]));
		const g = checkLayout(svg);
		expectFilled(g, 1);
		expect(g.panels).toHaveLength(2);
		const texts = allTexts(svg);
		expect(texts).toContain("6 consultation points in 1 session");
		expect(texts.join("\n")).not.toMatch(/\b1 (session|point|consultation)s\b/);
		expect(texts).toContain("Prompt cost of 6 first requests, by side");
		for (const label of ["no cache", "token prefix", "breakpoints"]) expect(texts).toContain(label);
		// Baseline, masked and ledger dollars per caching model, masked and ledger with their ratio to the baseline.
		expect(texts.filter((t) => /^\$\d+\.\d+$/.test(t))).toHaveLength(3);
		expect(texts.filter((t) => /^\$\d+\.\d+ \(\d\.\d{3}\)$/.test(t))).toHaveLength(6);
		expect(texts).toContain("masked");
		expect(texts.some((t) => t.startsWith("anthropic/claude-sonnet-4-5"))).toBe(true);
	});

	it("the default run's two long sessions: two columns, both filled", () => {
		const r = report([replay("long/pi-mono-large-session.jsonl", false), replay("long/taskq.jsonl", false)]);
		const svg = renderSvg(r);
		expectFilled(checkLayout(svg), 2);
		expect(allTexts(svg)).toContain(`${r.points} consultation points in 2 sessions`);
	});

	it("every sample with every leaf, and a panel with a single point", () => {
		const files = ["tools.jsonl", "compaction.jsonl", "branching.jsonl", "long/taskq.jsonl"].map((f) =>
			replay(f, true),
		);
		const r = report(files, true);
		const svg = renderSvg(r);
		expectFilled(checkLayout(svg), r.sessions.length);
		expect(r.sessions.length).toBe(5);
		expect(allTexts(svg).some((t) => t.startsWith("1 point (simulated)"))).toBe(true);
	});

	it("a very long file name is cut in the middle (its folder and its end kept), not drawn over the panel's edge", () => {
		const long = `--home-alice-code-project--/${"deeply/nested/folder/".repeat(8)}session-with-a-long-name.jsonl`;
		const svg = renderSvg(report([replay("tools.jsonl", false, long)]));
		const g = checkLayout(svg);
		const title = g.texts.find((t) => t.text.startsWith("--home-alice-code-project--/"))!;
		expect(title.text).toMatch(/^--home-alice-code-project--\/deeply\/[^…]*…[^…]*name\.jsonl$/);
	});

	it("no subtitle or header line is cut: each says all it has to", () => {
		for (const r of [
			report([replay("long/taskq.jsonl", false)]),
			report([replay("long/pi-mono-large-session.jsonl", false), replay("long/taskq.jsonl", false)]),
			report(
				["tools.jsonl", "compaction.jsonl", "branching.jsonl"].map((f) => replay(f, true)),
				true,
			),
		]) {
			const texts = allTexts(renderSvg(r));
			expect(texts.filter((t) => t.endsWith("…"))).toEqual([]);
			for (const s of r.sessions) {
				const facts = `facts: ledger ${s.facts.ledgerShare!.toFixed(3)}, Pi's context ${s.facts.baselineShare!.toFixed(3)}`;
				expect(texts.some((t) => t.startsWith(facts))).toBe(true);
			}
			expect(texts).toContain(
				`masked baseline: ${r.tokens.masked.total.toLocaleString("en-US")} tokens = ${r.tokens.maskedRatio!.toFixed(3)} of the baseline`,
			);
		}
	});

	it("a line equal to another stays visible: drawn under a narrower or dashed one, and named", () => {
		// branching.jsonl is too short for masking to hide anything: masked = baseline at every point.
		const r = report([replay("branching.jsonl", false), replay("long/taskq.jsonl", false)]);
		const [short, long] = r.sessions;
		expect(short!.points.every((p) => p.masked === p.baseline)).toBe(true);
		expect(long!.points.some((p) => p.masked !== p.baseline)).toBe(true);
		const svg = renderSvg(r);
		const panels = svg.split("<g ").slice(1);
		const lines = (panel: string) =>
			[...panel.matchAll(/<polyline ([^>]*)\/>/g)].map((m) => {
				const a = attrs(m[1]!);
				return { points: a.points!, width: Number(a["stroke-width"]), dashed: a["stroke-dasharray"] !== undefined };
			});
		let equalPairs = 0;
		for (const panel of panels) {
			const drawn = lines(panel);
			for (let i = 0; i < drawn.length; i++) {
				for (let j = i + 1; j < drawn.length; j++) {
					if (drawn[i]!.points !== drawn[j]!.points) continue;
					equalPairs++;
					// The later line leaves the earlier one showing.
					expect(drawn[j]!.dashed || drawn[j]!.width < drawn[i]!.width).toBe(true);
				}
			}
		}
		expect(equalPairs).toBeGreaterThan(0);
		const texts = allTexts(svg);
		const subtitle = (name: string) => {
			const i = texts.indexOf(name);
			return texts.slice(i + 1, i + 3).join(" ");
		};
		expect(subtitle("samples/branching.jsonl")).toContain("masked = baseline");
		expect(subtitle("samples/long/taskq.jsonl")).not.toContain("masked = baseline");
	});

	it("no consultation points: a line that says so, no dollar panel, one column", () => {
		const svg = renderSvg(report([]));
		const g = checkLayout(svg);
		expect(allTexts(svg)).toContain("No consultation points.");
		expect(allTexts(svg)).toContain("0 consultation points in 0 sessions");
		expect(g.panels).toHaveLength(0);
		expect(g.width).toBeLessThan(500);
	});
});
