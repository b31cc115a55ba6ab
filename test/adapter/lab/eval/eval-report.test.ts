// The eval report's arithmetic: Wilson intervals, the agreement and lacking rates, the cost sums.
import { describe, expect, it } from "vitest";
import type { ArmName } from "../../../../src/adapter/lab/eval/arms.ts";
import { type BilledRequests, emptyBilled } from "../../../../src/adapter/lab/eval/billed-requests.ts";
import { buildEvalReport, rate, wilson } from "../../../../src/adapter/lab/eval/eval-report.ts";
import type { ArmOutcome, PointRecord } from "../../../../src/adapter/lab/eval/record.ts";
import { formatProportion, renderEvalReport } from "../../../../src/adapter/lab/eval/report-text.ts";

const plain = {
	bold: (t: string) => t,
	dim: (t: string) => t,
	red: (t: string) => t,
	green: (t: string) => t,
	yellow: (t: string) => t,
};

function billed(usd: number, input = 1000, output = 50): BilledRequests {
	return { requests: 1, input, output, cacheRead: 0, cacheWrite: 0, usd };
}

function arm(severity: ArmOutcome["severity"], usd: number): ArmOutcome {
	return { status: "answered", text: `Severity: ${severity}`, severity, billed: billed(usd), estimatedTokens: 900 };
}

function record(
	index: number,
	ledger: ArmOutcome["severity"],
	full: ArmOutcome["severity"],
	verdict: { agree: boolean; ledgerLacks: boolean; fullLacks: boolean; useful: ArmName | "tie" } | undefined,
): PointRecord {
	const points = [];
	if (verdict?.ledgerLacks) points.push({ arm: "full" as const, point: "p", lackedBy: ["ledger" as const] });
	if (verdict?.fullLacks) points.push({ arm: "ledger" as const, point: "q", lackedBy: ["full" as const] });
	return {
		version: 1,
		index,
		key: `s.jsonl#${index}`,
		file: "s.jsonl",
		sessionId: "s",
		atEntryId: String(index),
		kind: index === 1 ? "simulated" : "advisor",
		question: "",
		userRequest: "",
		status: verdict === undefined ? "unjudged" : "judged",
		arms: { ledger: arm(ledger, 0.01), full: arm(full, 0.1) },
		judge: {
			status: verdict === undefined ? "unjudged" : "judged",
			order: ["ledger", "full"],
			replies: [],
			problems: [],
			billed: billed(0.02, 3000, 100),
			...(verdict === undefined
				? {}
				: {
						verdict: {
							severities: {},
							sameVerdict: [{ arms: ["ledger", "full"] as [ArmName, ArmName], agree: verdict.agree }],
							points,
							moreUseful: verdict.useful,
						},
					}),
		},
	};
}

describe("Wilson intervals", () => {
	it("match the published values", () => {
		const nine = wilson(9, 12)!;
		expect(nine.low).toBeCloseTo(0.4677, 4);
		expect(nine.high).toBeCloseTo(0.9111, 4);
		expect(wilson(0, 4)!.low).toBe(0);
		expect(wilson(0, 4)!.high).toBeCloseTo(0.4899, 4);
		expect(wilson(4, 4)!.low).toBeCloseTo(0.5101, 4);
		expect(wilson(4, 4)!.high).toBeCloseTo(1, 10);
		expect(wilson(0, 0)).toBeNull();
	});

	it("narrow as points grow", () => {
		const width = (n: number) => wilson(n * 0.75, n)!.high - wilson(n * 0.75, n)!.low;
		expect(width(12)).toBeGreaterThan(width(48));
		expect(width(48)).toBeGreaterThan(width(400));
	});

	it("print as count/of = rate with the interval", () => {
		expect(formatProportion(rate(9, 12))).toBe("9/12 = 75%  (95% interval 47%–91%)");
		expect(formatProportion(rate(0, 0))).toBe("— (no points)");
	});
});

describe("the report's figures", () => {
	const records: PointRecord[] = [
		record(1, "concern", "concern", { agree: true, ledgerLacks: false, fullLacks: false, useful: "tie" }),
		record(2, "nit", "concern", { agree: false, ledgerLacks: true, fullLacks: false, useful: "full" }),
		record(3, null, "none", { agree: true, ledgerLacks: false, fullLacks: true, useful: "ledger" }),
		record(4, "blocker", "blocker", undefined),
		{
			...record(5, "none", "none", undefined),
			status: "failed",
			arms: { ledger: { ...arm(null, 0.005), status: "failed", error: "500" } },
			judge: undefined,
		},
		{
			...record(6, "none", "none", undefined),
			status: "stopped",
			arms: {},
			judge: undefined,
			abandoned: billed(0.003),
		},
	];
	const report = buildEvalReport({
		records,
		advisor: "mock/advisor-1",
		judge: "mock/advisor-1",
		judgeIsAdvisor: true,
		arms: ["ledger", "full"],
		seed: "1",
		asked: 8,
		tooLarge: 2,
		available: 30,
		stoppedByCap: true,
		out: "advisor-eval",
	});

	it("counts the points by outcome", () => {
		expect(report.points).toEqual({
			asked: 8,
			planned: 6,
			judged: 3,
			unjudged: 1,
			failed: 1,
			notSent: 1,
			tooLarge: 2,
			available: 30,
			real: 5,
			simulated: 1,
		});
	});

	it("severity agreement counts points where both lines name a level; the judge's rates count judged points", () => {
		const [c] = report.comparisons;
		// Points 1, 2 and 4 have both levels (3 has none on the ledger side): 1 and 4 agree.
		expect(c!.severityAgreement).toEqual(rate(2, 3));
		expect(c!.verdictAgreement).toEqual(rate(2, 3));
		expect(c!.armLacks).toEqual(rate(1, 3));
		expect(c!.fullLacks).toEqual(rate(1, 3));
		expect(c!.moreUseful).toEqual({ arm: 1, full: 1, tie: 1, other: 0 });
	});

	it("sums the billed cost per arm, the judge and what the cap cut off", () => {
		expect(report.cost.arms.ledger).toEqual({
			requests: 5,
			input: 5000,
			output: 250,
			cacheRead: 0,
			cacheWrite: 0,
			usd: 0.045,
		});
		expect(report.cost.arms.full!.usd).toBeCloseTo(0.4, 10);
		expect(report.cost.judge).toEqual({
			requests: 4,
			input: 12000,
			output: 400,
			cacheRead: 0,
			cacheWrite: 0,
			usd: 0.08,
		});
		expect(report.cost.abandoned).toEqual(billed(0.003));
		expect(report.cost.total.requests).toBe(5 + 4 + 4 + 1);
		expect(report.cost.total.usd).toBeCloseTo(0.045 + 0.4 + 0.08 + 0.003, 10);
		expect(emptyBilled().usd).toBe(0);
	});

	it("the text says it, with the intervals and what they cannot show", () => {
		const text = renderEvalReport(report, plain);
		expect(text).toContain("judge mock/advisor-1 (the advisor model: no --judge given)");
		expect(text).toContain("3 judged, 1 unjudged, 1 failed, 1 not sent; 2 skipped as too large");
		expect(text).toContain("severity lines agree              2/3 = 67%  (95% interval 21%–94%)");
		expect(text).toContain("--max-usd stopped the run");
		expect(text).toContain("The workspace tools (read, grep, find, ls, git_diff) were left out of every arm");
		expect(text).toContain("3 judged points: each rate is known only to within its interval");
	});
});
