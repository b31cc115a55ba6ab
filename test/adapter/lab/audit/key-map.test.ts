/**
 * The key map (adapter/lab/audit/key-map.ts) against a plain Map: whatever keys were set and
 * resolved, in any order and with repeats, a key map gives exactly the model's values, counts them,
 * in the order the Map gives them, returns itself when nothing changes, and leaves every map it was
 * made from as it was.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyKeyMap, type KeyMap } from "../../../../src/adapter/lab/audit/key-map.ts";

// Few distinct keys, so a key is set, resolved and set again; long runs, so the maps merge many times.
const changesArb = fc.array(
	fc.tuple(
		fc.integer({ min: 0, max: 300 }).map((n) => `k${n}`),
		fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined, freq: 3 }),
	),
	{ maxLength: 800 },
);

describe("key maps", () => {
	it("give exactly the values set and not resolved since, and never change the maps they came from", () => {
		fc.assert(
			fc.property(changesArb, (changes) => {
				let map = emptyKeyMap<number>();
				const model = new Map<string, number>();
				const history: [KeyMap<number>, Map<string, number>][] = [];
				for (const [key, value] of changes) {
					const same = model.get(key) === value;
					const next = map.with(key, value);
					if (same) expect(next).toBe(map);
					else expect(next).not.toBe(map);
					if (value === undefined) model.delete(key);
					else model.set(key, value);
					map = next;
					history.push([map, new Map(model)]);
				}
				for (const [m, expected] of history.filter((_, i) => i % 37 === 0 || i === history.length - 1)) {
					expect(m.size).toBe(expected.size);
					expect(m.entries()).toEqual([...expected.entries()]);
					expect(m.values()).toEqual([...expected.values()]);
					for (const key of ["k0", "k7", "k300", "none"]) {
						expect(m.get(key)).toBe(expected.get(key));
						expect(m.has(key)).toBe(expected.has(key));
					}
				}
				// Laid out by the changes and their order alone.
				expect(changes.reduce((m, [k, v]) => m.with(k, v), emptyKeyMap<number>())).toEqual(map);
			}),
			{ numRuns: 200 },
		);
	});
});
