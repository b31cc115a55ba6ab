/**
 * The one binary search (src/events/partition.ts): the first index where a prefix-true predicate
 * fails, the same as scanning from the start.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { partitionPoint } from "../../src/events/partition.ts";

describe("partitionPoint", () => {
	it("is the lower bound of a sorted list, and 0 or the length at the edges", () => {
		const sorted = [1, 3, 3, 7, 9];
		expect(partitionPoint(sorted.length, (i) => sorted[i]! < 3)).toBe(1);
		expect(partitionPoint(sorted.length, (i) => sorted[i]! < 8)).toBe(4);
		expect(partitionPoint(sorted.length, (i) => sorted[i]! < 0)).toBe(0);
		expect(partitionPoint(sorted.length, (i) => sorted[i]! < 99)).toBe(5);
		expect(partitionPoint(0, () => true)).toBe(0);
	});

	it("equals a linear scan for any sorted list and limit", () => {
		fc.assert(
			fc.property(
				fc.array(fc.integer({ min: -50, max: 50 })),
				fc.integer({ min: -60, max: 60 }),
				(values, limit) => {
					const sorted = [...values].sort((a, b) => a - b);
					const scanned = sorted.findIndex((v) => v >= limit);
					expect(partitionPoint(sorted.length, (i) => sorted[i]! < limit)).toBe(
						scanned === -1 ? sorted.length : scanned,
					);
				},
			),
		);
	});
});
