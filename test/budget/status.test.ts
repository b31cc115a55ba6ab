/** The footer status line. */
import { describe, expect, it } from "vitest";
import { formatAdvisorStatus, formatUsd } from "../../src/policy/budget/status.ts";
import { spendOf } from "../../src/reducers/spend.ts";
import { advisorResult, USAGE, usageRecord } from "./helpers.ts";

describe("Advisor $<branch spend> · cache <pct>%", () => {
	it("is undefined while the branch has no spend", () => {
		expect(formatAdvisorStatus(spendOf([]))).toBeUndefined();
		const free = advisorResult("r1", "c1", "Advisor skipped: x", { skipped: true, errorMessage: "x" });
		expect(formatAdvisorStatus(spendOf([free]))).toBeUndefined();
	});

	it("the cache share is cache reads over prompt tokens of every record on the branch", () => {
		const spend = spendOf([
			advisorResult("r1", "c1", "Severity: none", {
				advisorModel: "a:b",
				usage: USAGE(20_000, 500, 0, 10_000, 0.9),
			}),
			advisorResult("r2", "c2", "Severity: none", {
				advisorModel: "a:b",
				usage: USAGE(1_000, 500, 28_000, 1_000, 0.1),
			}),
			usageRecord("w1", { kind: "warming", model: "a:b", usage: USAGE(0, 16, 30_000, 0, 0.01), timestampMs: 0 }),
		]);
		// reads 58,000 of 90,000 prompt tokens = 64.4%
		expect(formatAdvisorStatus(spend)).toBe("Advisor $1.01 · cache 64%");
	});

	it("without prompt tokens on record, only the money", () => {
		expect(formatAdvisorStatus({ totalUsd: 0.5, promptTokens: 0, cacheReadTokens: 0 })).toBe("Advisor $0.50");
	});

	it("amounts under a cent keep a third decimal", () => {
		expect(formatUsd(0.0042)).toBe("$0.004");
		expect(formatUsd(12.345)).toBe("$12.35");
		expect(formatUsd(Number.NaN)).toBe("$0.00");
	});
});
