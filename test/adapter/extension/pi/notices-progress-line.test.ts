import { describe, expect, it } from "vitest";
import { advisorToolLine, confirmCostMessage, consultationCost } from "../../../../src/adapter/extension/pi/notices.ts";

describe("the advisor: progress line", () => {
	it("escapes control characters, even in a tool name that never passed a tool summary", () => {
		expect(advisorToolLine("re\u001b[31mad\nsrc")).toBe("advisor: re\\x1b[31mad\\nsrc");
	});
	it("leaves an already escaped summary as it is", () => {
		expect(advisorToolLine("read src/\\x1b[31mred\\nx")).toBe("advisor: read src/\\x1b[31mred\\nx");
	});
});

describe("what a consultation costs, as the budget dialog says it", () => {
	it("about, then the first request and the rounds, then the most it can cost", () => {
		expect(consultationCost({ expectedUsd: 0.021, firstUsd: 0.015, rounds: 4, atMostUsd: 0.05 })).toBe(
			"about $0.021 (first request $0.015, up to 4 investigation rounds; at most $0.050)",
		);
		expect(consultationCost({ expectedUsd: 0.021, firstUsd: 0.015, rounds: 1, atMostUsd: 0.05 })).toBe(
			"about $0.021 (first request $0.015, up to 1 investigation round; at most $0.050)",
		);
	});
	it("one figure where two read the same", () => {
		// No tools: the first request is the consultation.
		expect(consultationCost({ expectedUsd: 0.015, firstUsd: 0.015, rounds: 0, atMostUsd: 0.04 })).toBe(
			"about $0.015 (at most $0.040)",
		);
		expect(consultationCost({ expectedUsd: 0.0151, firstUsd: 0.015, rounds: 0, atMostUsd: 0.0152 })).toBe(
			"about $0.015",
		);
		expect(consultationCost({ expectedUsd: 0.02, firstUsd: 0.015, rounds: 2, atMostUsd: 0.02 })).toBe(
			"about $0.020 (first request $0.015, up to 2 investigation rounds)",
		);
	});
	it("the dialog: that, the soft limit it is over, and what a yes allows", () => {
		expect(
			confirmCostMessage({ expectedUsd: 0.021, firstUsd: 0.015, rounds: 4, atMostUsd: 0.05, softUsd: 0.001 }),
		).toBe(
			"This advisor consultation is expected to cost about $0.021 (first request $0.015, up to 4 investigation rounds; at most $0.050). That is over the per-call soft limit of $0.001 (advisor.json budget.perCallSoftUsd). Yes allows up to $0.050; the advisor is told to answer with what it has before a request would pass that. Send it?",
		);
	});
});
