// The replay's sampling of points rebuilt from scratch.
import { describe, expect, it } from "vitest";
import { scratchIndices } from "../../../../src/adapter/lab/replay/timing-samples.ts";

describe("statistics", () => {
	it("scratch samples are spread evenly and always include the last point", () => {
		expect([...scratchIndices(5, 20)]).toEqual([0, 1, 2, 3, 4]);
		const picked = [...scratchIndices(100, 5)];
		expect(picked).toEqual([0, 25, 50, 74, 99]);
		expect([...scratchIndices(10, 1)]).toEqual([9]);
	});
});
