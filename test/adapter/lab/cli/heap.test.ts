/**
 * The CLI's heap growth (src/adapter/lab/cli/heap.ts): set once at its start, unless the user chose a
 * factor of their own.
 */

import { describe, expect, it } from "vitest";
import { HEAP_GROWING_PERCENT, heapGrowthFlag } from "../../../../src/adapter/lab/cli/heap.ts";

describe("heapGrowthFlag", () => {
	it("sets the project's factor by default", () => {
		expect(heapGrowthFlag([], undefined)).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
		expect(heapGrowthFlag(["--enable-source-maps"], "--max-old-space-size=2048")).toBe("--heap-growing-percent=50");
	});

	it("leaves the user's own factor alone, on the command line or in NODE_OPTIONS, in either spelling", () => {
		expect(heapGrowthFlag(["--heap-growing-percent=80"], undefined)).toBeUndefined();
		expect(heapGrowthFlag([], "--max-old-space-size=2048 --heap_growing_percent=20")).toBeUndefined();
	});
});
