/**
 * The key set (reducers/key-set.ts) against a plain Set: whatever keys were added, in any order and
 * with repeats, a key set holds exactly them, counts them, returns itself for a key it has, and
 * leaves every set it was made from as it was.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyKeySet, type KeySet } from "../../src/reducers/key-set.ts";

// Few distinct keys, so repeats are common; long runs, so the blocks merge several times over.
const keysArb = fc.array(
	fc.integer({ min: 0, max: 400 }).map((n) => `k${n}`),
	{ maxLength: 600 },
);

describe("key sets", () => {
	it("hold exactly the keys added, and never change the sets they came from", () => {
		fc.assert(
			fc.property(keysArb, fc.array(fc.string({ maxLength: 4 }), { maxLength: 5 }), (keys, strangers) => {
				let set = emptyKeySet();
				const model = new Set<string>();
				const history: [KeySet, Set<string>][] = [];
				for (const key of keys) {
					const had = model.has(key);
					const next = set.with(key);
					if (had) expect(next).toBe(set);
					else expect(next).not.toBe(set);
					model.add(key);
					set = next;
					history.push([set, new Set(model)]);
				}
				for (const [s, m] of history) {
					expect(s.size).toBe(m.size);
					for (const key of [...m].slice(-20)) expect(s.has(key)).toBe(true);
					for (const key of ["k401", "", ...strangers.map((x) => `x${x}`)]) expect(s.has(key)).toBe(m.has(key));
				}
				for (const key of model) expect(set.has(key)).toBe(true);
				// Laid out by the keys and their order alone.
				expect(keys.reduce((s, k) => s.with(k), emptyKeySet())).toEqual(set);
			}),
			{ numRuns: 200 },
		);
	});
});
