// The report's statistics.
import { describe, expect, it } from "vitest";
import { percentile } from "../../../../src/adapter/lab/report/report-totals.ts";

describe("statistics", () => {
	it("nearest-rank percentiles", () => {
		expect(percentile([], 50)).toBe(0);
		expect(percentile([5], 90)).toBe(5);
		expect(percentile([4, 1, 3, 2], 50)).toBe(2);
		expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90)).toBe(9);
	});
});
