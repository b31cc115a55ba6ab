// The text report's opening: at most six lines within 100 columns, the figures the report holds, and
// a line to look below only when there is something to look at — not for a bundled sample's damage.
import { describe, expect, it } from "vitest";
import { replayText } from "../../../../src/adapter/lab/replay/engine.ts";
import { DEFAULT_PRICE_MODEL, resolvePriceModel } from "../../../../src/adapter/lab/report/price-lookup.ts";
import type { ReplayReport } from "../../../../src/adapter/lab/report/replay-report.ts";
import { buildReport } from "../../../../src/adapter/lab/report/report-totals.ts";
import { plain, WIDTH } from "../../../../src/adapter/lab/report/text-format.ts";
import { renderTextReport } from "../../../../src/adapter/lab/report/text-report.ts";
import { summaryLines } from "../../../../src/adapter/lab/report/text-summary.ts";
import { sampleText } from "../../../support/cli-build.ts";

function replay(
	files: { name: string; jsonl: string }[],
	allLeaves = false,
	price = DEFAULT_PRICE_MODEL,
): ReplayReport {
	const replays = files.map((f) => replayText(f.name, f.jsonl, { every: 10, allLeaves, scratchSamples: 0 }));
	return buildReport(
		replays.flatMap((r) => r.sessions),
		replays.map((r) => r.diagnostics),
		[],
		{ every: 10, allLeaves, inputs: files.map((f) => f.name) },
		resolvePriceModel(price),
	);
}

const opening = (text: string) => text.split("\n").slice(0, text.split("\n").indexOf(""));

describe("the summary", () => {
	it("a clean replay: five lines, each within the width, the report's figures", () => {
		const r = replay([{ name: "samples/long/taskq.jsonl", jsonl: sampleText("long/taskq.jsonl") }]);
		const lines = summaryLines(r, plain, { wide: false, expectedDiagnostics: false });
		expect(lines).toEqual([
			"Replayed       6 consultation points in 1 session file: 6 advisor calls",
			`Tokens         the ledger sends ${r.tokens.ratio!.toFixed(3)} of the baseline's (Pi's full context + tool schemas)`,
			`Cost, cached   ${r.price!.tokenPrefix.ratio!.toFixed(3)} of the baseline's dollars with a token-prefix cache, ${r.price!.breakpoint.ratio!.toFixed(3)} with breakpoints`,
			`Facts carried  ledger ${r.facts.ledgerShare!.toFixed(3)}, Pi's context ${r.facts.baselineShare!.toFixed(3)}; executor-lost ${r.facts.lost.ledgerShare!.toFixed(3)}; user messages: all 24`,
			"Detail         per session, in dollars, by fact below; --wide shows more, --json every point",
		]);
		expect(opening(renderTextReport(r))).toEqual(lines);
	});

	it("without a price model the cost line gives the token-weighted ratios, and says so", () => {
		const r = replay([{ name: "samples/long/taskq.jsonl", jsonl: sampleText("long/taskq.jsonl") }]);
		const unpriced: ReplayReport = { ...r, price: undefined };
		expect(summaryLines(unpriced, plain, { wide: false, expectedDiagnostics: false })[2]).toBe(
			`Cost, cached   ${r.cache.effectiveRatio!.toFixed(3)} of the baseline's token-weighted cost with a token-prefix cache, ${r.cache.effectiveRatioBreakpoint!.toFixed(3)} with breakpoints`,
		);
	});

	it("something to look at: a sixth line names it; every leaf replayed: branches of a file", () => {
		const damaged = `${sampleText("tools.jsonl")}not json\n`;
		const r = replay(
			[
				{ name: "mine/tools.jsonl", jsonl: damaged },
				{ name: "mine/compaction.jsonl", jsonl: sampleText("compaction.jsonl") },
				{ name: "mine/branching.jsonl", jsonl: sampleText("branching.jsonl") },
			],
			true,
		);
		const lines = opening(renderTextReport(r));
		expect(lines.length).toBe(6);
		for (const line of lines) expect(line.length).toBeLessThanOrEqual(WIDTH);
		expect(lines[0]).toBe(
			`Replayed       ${r.points} consultation points in ${r.sessions.length} branches of 3 files: ${r.sessions.flatMap((s) => s.points).filter((p) => p.kind === "advisor").length} advisor calls, 1 simulated point`,
		);
		expect(lines[4]).toBe("Look below     1 request larger than its baseline, 1 reader diagnostic");
	});

	it("a bundled sample's damage is not something to look at: the diagnostics line says it is expected", () => {
		const damaged = `${sampleText("tools.jsonl")}not json\n`;
		const r = replay([{ name: "samples/tools.jsonl", jsonl: damaged }]);
		const mine = renderTextReport(r);
		const bundled = renderTextReport(r, plain, { bundled: new Set(["samples/tools.jsonl"]) });
		expect(mine).toMatch(/^Look below {5}1 reader diagnostic$/m);
		expect(mine).toMatch(/^Reader diagnostics: 1 bad line, 0 unknown entries, 0 broken parent links$/m);
		expect(mine).toMatch(/^ {2}samples\/tools\.jsonl:\d+: invalid-json/m);
		expect(bundled).not.toMatch(/^Look below/m);
		expect(bundled.replace(/\n +/g, " ")).toContain(
			"Reader diagnostics: 1 bad line, 0 unknown entries, 0 broken parent links in samples/tools.jsonl: expected",
		);
		expect(bundled).not.toContain("invalid-json");
		expect(renderTextReport(r, plain, { bundled: new Set(["samples/tools.jsonl"]), wide: true })).toMatch(
			/^ {2}samples\/tools\.jsonl:\d+: invalid-json/m,
		);
	});
});

describe("next to the dollars", () => {
	it("a side dearer with breakpoints than with no cache is said to be, and why; none dearer, nothing said", () => {
		const taskq = { name: "samples/long/taskq.jsonl", jsonl: sampleText("long/taskq.jsonl") };
		const long = replay([taskq]);
		const short = replay([{ name: "samples/branching.jsonl", jsonl: sampleText("branching.jsonl") }]);
		// A model whose registry entry lists no cache-write price: writes are charged as input, never dearer.
		const noWritePrice = replay([taskq], false, "openai/gpt-4o-mini");
		const dearer = (r: ReplayReport) =>
			(["baseline", "masked", "ledger"] as const).filter(
				(side) => r.price!.breakpoint[side] > r.price!.uncached[side],
			);
		expect(dearer(long)).toEqual(["baseline", "masked"]);
		// Two points: the first writes everything, on every side.
		expect(dearer(short)).toEqual(["baseline", "masked", "ledger"]);
		expect(dearer(noWritePrice)).toEqual([]);
		const note = (r: ReplayReport) =>
			renderTextReport(r)
				.replace(/\n +/g, " ")
				.split("\n")
				.find((l) => l.startsWith("With breakpoints"));
		expect(note(long)).toBe(
			`With breakpoints the baseline and the masked baseline cost more than with no cache: Anthropic's rule reads a prefix only up to a breakpoint the previous request set at most 20 blocks back, so they read little of it (median ${long.baselineCacheShare.breakpoint.p50!.toFixed(3)} and ${long.maskedCacheShare.breakpoint.p50!.toFixed(3)}) and pay 1.25 × the input price to write the rest.`,
		);
		expect(note(short)).toMatch(/^With breakpoints the baseline, the masked baseline and the ledger cost more /);
		expect(note(noWritePrice)).toBeUndefined();
	});
});
