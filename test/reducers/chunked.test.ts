/**
 * The chunked list (reducers/chunked.ts) against a plain array: whatever appends, prefixes and
 * replacements made it, a list reads as the array does, is laid out by its items alone (lists of the
 * same items are deep-equal), shares its chunks with the lists it was made from, and leaves them as
 * they were.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	appended,
	appendedAt,
	CHUNK,
	type ChunkedList,
	emptyList,
	itemAt,
	listBuilder,
	listItems,
	listOf,
	sharedItems,
	withItem,
} from "../../src/reducers/chunked.ts";

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
			return [appended(list, op.items), [...model, ...op.items]];
		case "prefix": {
			const at = Math.floor(op.at * model.length);
			return [appendedAt(list, at, op.items), [...model.slice(0, at), ...op.items]];
		}
		case "replace": {
			const at = Math.min(model.length, Math.floor(op.at * (model.length + 1)));
			const next = [...model];
			next[at] = op.item;
			return [withItem(list, at, op.item), next];
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
					expect(listItems(l)).toEqual(m);
					expect(l.length).toBe(m.length);
					for (const i of [0, m.length >> 1, m.length - 1, m.length]) expect(itemAt(l, i)).toBe(m[i]);
					// Laid out by the items alone: the same as a list made of them in one go.
					expect(l).toEqual(listOf(m));
					expect(l.chunks.every((c) => c.length === CHUNK)).toBe(true);
					expect(l.tail.length).toBeLessThan(CHUNK);
				}
			}),
			{ numRuns: 300 },
		);
	});

	it("share the chunks below what they append to, and count their shared items by them", () => {
		fc.assert(
			fc.property(items, items, items, (a, b, c) => {
				const base = listOf(a);
				const left = appended(base, b);
				const right = appended(base, c);
				const full = Math.floor(a.length / CHUNK);
				for (let i = 0; i < full; i++) expect(left.chunks[i]).toBe(base.chunks[i]);
				const model = [...a, ...b];
				const other = [...a, ...c];
				let k = 0;
				while (k < model.length && k < other.length && model[k] === other[k]) k++;
				expect(sharedItems(left, right)).toBe(k);
			}),
			{ numRuns: 200 },
		);
	});
});
