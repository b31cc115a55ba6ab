/**
 * The one binary search (src/events/partition.ts): the first index where a prefix-true predicate
 * fails, the same as scanning from the start; and the one shared-prefix scan beside it.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { partitionPoint, sharedPrefixLength } from "../../src/events/partition.ts";

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

describe("sharedPrefixLength", () => {
	it("counts the same objects from the start, stops at the first that differs, and at the shorter end", () => {
		const [x, y, z] = [{ n: 1 }, { n: 2 }, { n: 3 }];
		expect(sharedPrefixLength([x, y, z], [x, y])).toBe(2);
		expect(sharedPrefixLength([x, y, z], [x, z, z])).toBe(1);
		// An equal copy is another object: not shared.
		expect(sharedPrefixLength([x, y], [{ n: 1 }, y])).toBe(0);
		expect(sharedPrefixLength([], [x])).toBe(0);
		expect(sharedPrefixLength(["a", "b", "c"], ["a", "b", "d", "c"])).toBe(2);
	});

	it("is the k where every earlier item matches and item k does not (or a list ends), for any two lists", () => {
		fc.assert(
			fc.property(fc.array(fc.integer({ min: 0, max: 2 })), fc.array(fc.integer({ min: 0, max: 2 })), (a, b) => {
				const k = sharedPrefixLength(a, b);
				for (let i = 0; i < k; i++) expect(a[i]).toBe(b[i]);
				if (k < Math.min(a.length, b.length)) expect(a[k]).not.toBe(b[k]);
				else expect(k).toBe(Math.min(a.length, b.length));
				expect(sharedPrefixLength(b, a)).toBe(k);
			}),
		);
	});
});
