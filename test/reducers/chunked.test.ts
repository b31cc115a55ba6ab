/**
 * The chunked list (reducers/chunked.ts) against a plain array: whatever appends, prefixes and
 * replacements made it, a list reads as the array does, is laid out by its items alone (lists of the
 * same items are deep-equal), shares its chunks with the lists it was made from, and leaves them as
 * they were.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CHUNK, type ChunkedList, emptyList, layoutOf, listBuilder, listOf } from "../../src/reducers/chunked.ts";

type Op =
	| { t: "append"; items: number[] }
	| { t: "prefix"; at: number; items: number[] }
	| { t: "replace"; at: number; item: number }
	| { t: "build"; items: number[] };

const items = fc.array(fc.integer(), { maxLength: 2 * CHUNK + 5 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
	{ weight: 4, arbitrary: fc.record({ t: fc.constant("append" as const), items }) },
	{
		weight: 2,
		arbitrary: fc.record({
			t: fc.constant("prefix" as const),
			at: fc.double({ min: 0, max: 1, noNaN: true }).map((x) => x),
			items,
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			t: fc.constant("replace" as const),
			at: fc.double({ min: 0, max: 1, noNaN: true }),
			item: fc.integer(),
		}),
	},
	{ weight: 2, arbitrary: fc.record({ t: fc.constant("build" as const), items }) },
);

function apply(list: ChunkedList<number>, model: number[], op: Op): [ChunkedList<number>, number[]] {
	switch (op.t) {
		case "append":
			return [list.appended(op.items), [...model, ...op.items]];
		case "prefix": {
			const at = Math.floor(op.at * model.length);
			return [list.prefix(at).appended(op.items), [...model.slice(0, at), ...op.items]];
		}
		case "replace": {
			if (model.length === 0) return [list, model];
			const at = Math.min(model.length - 1, Math.floor(op.at * model.length));
			return [list.with(at, op.item), model.with(at, op.item)];
		}
		case "build": {
			const builder = listBuilder(list);
			for (const item of op.items) builder.push(item);
			expect(builder.length).toBe(model.length + op.items.length);
			expect(builder.at(model.length + op.items.length - 1)).toBe(op.items.at(-1) ?? model.at(-1));
			return [builder.done(), [...model, ...op.items]];
		}
		default:
			throw new Error("op");
	}
}

describe("chunked lists", () => {
	it("read as the plain array does, whatever made them, and never change the lists they came from", () => {
		fc.assert(
			fc.property(fc.array(opArb, { maxLength: 8 }), (ops) => {
				let list = emptyList<number>();
				let model: number[] = [];
				const history: [ChunkedList<number>, number[]][] = [];
				for (const op of ops) {
					[list, model] = apply(list, model, op);
					history.push([list, model]);
				}
				for (const [l, m] of history) {
					expect(l.toArray()).toEqual(m);
					expect([...l]).toEqual(m);
					expect(l.length).toBe(m.length);
					expect(l.last).toBe(m.at(-1));
					// As Array.prototype.at: from the end when negative, undefined outside.
					for (const i of [0, m.length >> 1, m.length - 1, m.length, -1, -m.length, -m.length - 1])
						expect(l.at(i)).toBe(m.at(i));
					// Laid out by the items alone: the same as a list made of them in one go.
					expect(l).toEqual(listOf(m));
					const { chunks, tail } = layoutOf(l);
					expect(chunks.every((c) => c.length === CHUNK)).toBe(true);
					expect(tail.length).toBeLessThan(CHUNK);
				}
			}),
			{ numRuns: 300 },
		);
	});

	it("share the chunks below what they append to, and count their shared items by them", () => {
		fc.assert(
			fc.property(items, items, items, (a, b, c) => {
				const base = listOf(a);
				const left = base.appended(b);
				const right = base.appended(c);
				const full = Math.floor(a.length / CHUNK);
				for (let i = 0; i < full; i++) expect(layoutOf(left).chunks[i]).toBe(layoutOf(base).chunks[i]);
				for (let i = 0; i < full; i++)
					expect(layoutOf(base.prefix(a.length)).chunks[i]).toBe(layoutOf(base).chunks[i]);
				const model = [...a, ...b];
				const other = [...a, ...c];
				let k = 0;
				while (k < model.length && k < other.length && model[k] === other[k]) k++;
				expect(left.sharedPrefix(right)).toBe(k);
				expect(right.sharedPrefix(left)).toBe(k);
			}),
			{ numRuns: 200 },
		);
	});

	it("replace an item only inside the list, as Array.prototype.with does", () => {
		const list = listOf([1, 2, 3]);
		expect(list.with(-1, 9).toArray()).toEqual([1, 2, 9]);
		expect(() => list.with(3, 9)).toThrow(RangeError);
		expect(() => list.with(-4, 9)).toThrow(RangeError);
		expect(() => emptyList<number>().with(0, 9)).toThrow(RangeError);
		expect(list.toArray()).toEqual([1, 2, 3]);
	});
});
