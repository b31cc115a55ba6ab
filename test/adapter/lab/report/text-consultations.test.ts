// The text report's whole consultations: the estimates by kind of point, and billed next to estimated.
import { describe, expect, it } from "vitest";
import { replayText } from "../../../../src/adapter/lab/replay/engine.ts";
import { DEFAULT_PRICE_MODEL, resolvePriceModel } from "../../../../src/adapter/lab/report/price-lookup.ts";
import type { ReplayReport } from "../../../../src/adapter/lab/report/replay-report.ts";
import { buildReport } from "../../../../src/adapter/lab/report/report-totals.ts";
import { consultationLines } from "../../../../src/adapter/lab/report/text-consultations.ts";
import { plain } from "../../../../src/adapter/lab/report/text-format.ts";
import { renderTextReport } from "../../../../src/adapter/lab/report/text-report.ts";
import { sampleText } from "../../../support/cli-build.ts";
import { buildSession, type CallPlan } from "../../../support/session-gen.ts";

function replay(files: { name: string; jsonl: string }[]): ReplayReport {
	const replays = files.map((f) => replayText(f.name, f.jsonl, { every: 10, allLeaves: false, scratchSamples: 0 }));
	return buildReport(
		replays.flatMap((r) => r.sessions),
		replays.map((r) => r.diagnostics),
		[],
		{ every: 10, allLeaves: false, inputs: files.map((f) => f.name) },
		resolvePriceModel(DEFAULT_PRICE_MODEL),
	);
}

describe("billed vs estimated", () => {
	it("tools.jsonl, --wide: first requests, follow-ups and whole consultations, the prompt three ways, the faux note", () => {
		const r = replay([{ name: "tools.jsonl", jsonl: sampleText("tools.jsonl") }]);
		expect(consultationLines(r, plain, { wide: true })).toEqual([
			"Whole consultations (ledger), estimated as the extension does, at anthropic/claude-sonnet-4-5 prices",
			"points         count  follow-ups  first request  consultation               basis",
			"advisor calls      3        4.00        $0.0182       $0.0411  history 2, prior 1",
			"",
			"Billed vs estimated: the 2 advisor calls that recorded their usage, at the same prices",
			"                requests  fresh  cache read  cache write  output   billed  estimated  ratio",
			"first requests         2  4,005         770        4,005      42  $0.0279    $0.0121  2.303",
			"follow-ups             2  2,359       2,655        2,361      79  $0.0179    $0.0219  0.818",
			"consultations          4  6,364       3,425        6,366     121  $0.0458    $0.0340  1.347",
			"Prompt tokens of the first requests: billed 8,780, estimated 3,126 (ratio 2.809); sent then as 4,748",
			"  (chars/4, as recorded), rendered now as 2,604.",
			"2 calls went to faux:…, pi-ai's scripted test model, which reports what it writes to its cache",
			"  twice, as input and as cache write. Without the copy (6,364 input tokens, $0.0191): $0.0267",
			"  billed, ratio 0.785.",
		]);
		// The figures are the JSON report's.
		const b = r.billed.byRequest;
		expect([b.points, b.requests, b.first.input, b.followUps.cacheRead]).toEqual([2, 4, 4005, 2655]);
		expect(b.ratio.first).toBe(2.3029);
		expect(b.ratio.consultation).toBe(1.3466);
		expect(r.billed.usd).toBe(0.045807);
	});

	it("tools.jsonl by default: a test model's bills are not shown as a provider's, only said to be in --wide", () => {
		const r = replay([{ name: "tools.jsonl", jsonl: sampleText("tools.jsonl") }]);
		expect(consultationLines(r, plain).slice(3)).toEqual([
			"",
			"Billed vs estimated: the 2 advisor calls that recorded their usage went to faux:…, pi-ai's scripted",
			"  test model, whose bills are not a provider's; --wide shows them.",
		]);
	});

	it("real bills beside a test model's: the table, and one line saying how many went to the test model", () => {
		const tools = sampleText("tools.jsonl");
		// The same calls, recorded as billed by a real provider's model.
		const real = tools.replace(/"advisorModel":"faux:[^"]*"/g, '"advisorModel":"anthropic:claude-sonnet-4-5"');
		expect(real).not.toBe(tools);
		const r = replay([
			{ name: "tools.jsonl", jsonl: tools },
			{ name: "real.jsonl", jsonl: real },
		]);
		const lines = consultationLines(r, plain);
		// Twice tools.jsonl's two calls: the table sums both files' bills.
		expect(lines).toContain(
			"first requests         4   8,010       1,540        8,010      84  $0.0558    $0.0242  2.303",
		);
		expect(lines.slice(-2)).toEqual([
			"2 of these calls went to faux:…, pi-ai's scripted test model; --wide says what that does to the",
			"  bill.",
		]);
		expect(lines.join("\n")).not.toContain("Prompt tokens of the first requests");
	});

	it("calls that recorded only a total: said apart, with the whole-consultation ratio over all calls; no faux note", () => {
		const read: CallPlan = { tool: "read", arg: "src/app.ts", text: "x".repeat(3000), outcome: "ok", image: false };
		const session = buildSession([
			{ t: "user", text: "Fix the parser bug in src/app.ts, please.", long: false, images: 0 },
			{ t: "turn", prose: "Looking.", thinking: "", calls: [read], order: [0] },
			{
				t: "consult",
				prose: "Tokenizer?",
				thinking: "",
				outcome: "ok",
				advice: "Severity: nit\nOK.",
				sibling: null,
			},
			{ t: "consult", prose: "Done?", thinking: "", outcome: "ok", advice: "Severity: none\nYes.", sibling: null },
		]);
		const r = replay([{ name: "gen.jsonl", jsonl: session.jsonl }]);
		const lines = consultationLines(r, plain);
		// The generator records 10 prompt and 5 output tokens per call, without attempts: no table.
		expect(lines.slice(-3)).toEqual([
			"Billed vs estimated: the 2 advisor calls that recorded their usage, at the same prices",
			"2 calls recorded only their total: 20 prompt tokens, $0.0002 billed vs $0.0303 estimated.",
			"All 2 calls: $0.0002 billed vs $0.0303 estimated for the whole consultation (ratio 0.007).",
		]);
		expect(r.billed.byRequest.points).toBe(0);
		expect(lines.join("\n")).not.toContain("faux");
	});

	it("a session without advisor calls: only the estimates, from the prior", () => {
		const r = replay([{ name: "compaction.jsonl", jsonl: sampleText("compaction.jsonl") }]);
		expect(consultationLines(r, plain)).toEqual([
			"Whole consultations (ledger), estimated as the extension does, at anthropic/claude-sonnet-4-5 prices",
			"points     count  follow-ups  first request  consultation    basis",
			"simulated      1        2.00        $0.0298       $0.0546  prior 1",
		]);
		expect(renderTextReport(r)).not.toContain("Billed vs estimated");
	});
});
