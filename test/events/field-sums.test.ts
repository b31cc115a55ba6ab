/**
 * The one field-by-field adder (src/events/field-sums.ts): sums key by key over the keys named, in
 * their order (the order a report's JSON is written in), and zero is its neutral element.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sumFields, zeroFields } from "../../src/events/field-sums.ts";

const KEYS = ["prompt", "input", "cacheRead", "cacheWrite", "output"] as const;

describe("sumFields", () => {
	it("adds each named key, writes them in the order named, and leaves other keys out", () => {
		const a = { output: 5, input: 1, prompt: 2, cacheRead: 3, cacheWrite: 4, usd: 0.5 };
		const b = { prompt: 20, input: 10, cacheRead: 30, cacheWrite: 40, output: 50 };
		expect(JSON.stringify(sumFields(KEYS, a, b))).toBe(
			'{"prompt":22,"input":11,"cacheRead":33,"cacheWrite":44,"output":55}',
		);
	});

	it("zero is neutral, the sum is commutative and associative, and no input changes", () => {
		const record = fc.record({
			prompt: fc.integer({ min: 0, max: 1e9 }),
			input: fc.integer({ min: 0, max: 1e9 }),
			cacheRead: fc.integer({ min: 0, max: 1e9 }),
			cacheWrite: fc.integer({ min: 0, max: 1e9 }),
			output: fc.integer({ min: 0, max: 1e9 }),
		});
		fc.assert(
			fc.property(record, record, record, (a, b, c) => {
				const before = JSON.stringify([a, b, c]);
				expect(sumFields(KEYS, zeroFields(KEYS), a)).toEqual(a);
				expect(sumFields(KEYS, a, b)).toEqual(sumFields(KEYS, b, a));
				expect(sumFields(KEYS, sumFields(KEYS, a, b), c)).toEqual(sumFields(KEYS, a, sumFields(KEYS, b, c)));
				for (const key of KEYS) expect(sumFields(KEYS, a, b)[key]).toBe(a[key] + b[key]);
				expect(JSON.stringify([a, b, c])).toBe(before);
			}),
		);
	});

	it("zeroFields: every key 0, in order", () => {
		expect(JSON.stringify(zeroFields(KEYS))).toBe('{"prompt":0,"input":0,"cacheRead":0,"cacheWrite":0,"output":0}');
		expect(zeroFields([])).toEqual({});
	});
});
