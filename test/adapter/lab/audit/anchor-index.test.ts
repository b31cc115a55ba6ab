import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	createAnchorIndex,
	dropAnchors,
	eachOccurrence,
	fileAnchors,
	indexedCount,
	shortItems,
} from "../../../../src/adapter/lab/audit/anchor-index.ts";

/** Every place a needle starts in a text, found one needle at a time. */
function naive(text: string, needles: ReadonlyMap<number, readonly string[]>): string[] {
	const out: string[] = [];
	for (const [item, list] of needles)
		for (const needle of new Set(list))
			for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1))
				out.push(`${item}:${needle}@${at}`);
	return out.sort();
}

describe("property: the index finds every place a filed needle starts", () => {
	it("needles that share starts and overlap, short ones asked directly, dropped ones never", () => {
		// A small alphabet with a character past one byte: windows collide, needles overlap.
		const text = fc.string({ unit: fc.constantFrom("a", "b", "/", "{", "ā", "\u0161"), maxLength: 120 });
		fc.assert(
			fc.property(
				fc.array(fc.array(text, { minLength: 1, maxLength: 3 }), { maxLength: 40 }),
				fc.array(fc.boolean(), { maxLength: 40 }),
				fc.array(text, { minLength: 1, maxLength: 4 }),
				(needleLists, drops, texts) => {
					const index = createAnchorIndex<number>();
					const filed = new Map<number, readonly string[]>();
					const short = new Set<number>();
					needleLists.forEach((list, item) => {
						const needles = list.filter((n) => n.length > 0);
						if (needles.length === 0) return;
						fileAnchors(index, item, needles);
						if (needles.some((n) => n.length < 4)) short.add(item);
						else filed.set(item, needles);
					});
					drops.forEach((drop, item) => {
						if (!drop) return;
						dropAnchors(index, item);
						filed.delete(item);
						short.delete(item);
					});
					expect(indexedCount(index)).toBe(filed.size + short.size);
					expect([...shortItems(index)].sort()).toEqual([...short].sort());
					for (const t of texts) {
						const seen: string[] = [];
						eachOccurrence(index, t, (item, needle, at) => seen.push(`${item}:${needle}@${at}`));
						expect(seen.sort()).toEqual(naive(t, filed));
					}
				},
			),
			{ numRuns: 300 },
		);
	});

	it("grows its filter as needles are filed, and still finds each", () => {
		const index = createAnchorIndex<number>();
		const needles = Array.from({ length: 5000 }, (_, i) => `[user #${i.toString(36)}] words ${i}`);
		needles.forEach((n, i) => {
			fileAnchors(index, i, [n]);
		});
		const text = needles.filter((_, i) => i % 7 === 0).join("\n");
		const seen = new Set<number>();
		eachOccurrence(index, text, (item, needle, at) => {
			expect(text.startsWith(needle, at)).toBe(true);
			seen.add(item);
		});
		// `[user #1] words 1` also starts `[user #1] words 10`: a needle found inside a longer one counts.
		for (let i = 0; i < needles.length; i += 7) expect(seen.has(i)).toBe(true);
		expect([...seen].every((i) => text.includes(needles[i]!))).toBe(true);
	});
});
