/** The footer status line. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatAdvisorStatus, formatUsd } from "../../../src/policy/budget/status.ts";
import { spendOf } from "../../../src/reducers/spend.ts";
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
		expect(formatAdvisorStatus({ totalUsd: 0.5, promptTokens: 0, cacheReadTokens: 0 })).toBe("Advisor $0.500");
	});

	it("one rule for every figure: tenths of a cent under $1, cents from $1", () => {
		// The footer after one consultation of $0.0055 and after two: no switch from $0.005 to $0.01.
		expect(formatUsd(0.0055 - 1e-12)).toBe("$0.005");
		expect(formatUsd(0.011)).toBe("$0.011");
		expect(formatUsd(0.0042)).toBe("$0.004");
		expect(formatUsd(0.25)).toBe("$0.250");
		expect(formatUsd(0.9996)).toBe("$1.00");
		expect(formatUsd(12.345)).toBe("$12.35");
		expect(formatUsd(0.0004)).toBe("<$0.001");
		expect(formatUsd(0)).toBe("$0.000");
		expect(formatUsd(-1)).toBe("$0.000");
		expect(formatUsd(Number.NaN)).toBe("$0.000");
	});

	it("under $1 every amount has three decimals; a larger amount never reads smaller", () => {
		const value = (text: string) => (text.startsWith("<") ? 0 : Number(text.slice(1)));
		fc.assert(
			fc.property(
				fc.double({ min: 0, max: 1000, noNaN: true }),
				fc.double({ min: 0, max: 1000, noNaN: true }),
				(a, b) => {
					const [lo, hi] = a <= b ? [a, b] : [b, a];
					expect(value(formatUsd(lo))).toBeLessThanOrEqual(value(formatUsd(hi)));
					const text = formatUsd(lo);
					if (text.startsWith("$") && Number(text.slice(1)) < 1) expect(text).toMatch(/^\$0\.\d{3}$/);
				},
			),
		);
	});
});
