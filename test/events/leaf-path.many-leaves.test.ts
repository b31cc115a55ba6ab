// selectBranches, the many-leaf form replay --all-leaves uses, must give exactly what selectBranch
// gives leaf by leaf: the same paths (same entry objects) and the same diagnostics, on any tree,
// including damaged ones with cycles and dangling parents.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readSession } from "../../src/events/index.ts";
import { listLeaves, selectBranch, selectBranches } from "../../src/events/leaf-path.ts";
import { applyMutations, FC_RUNS, mutationArb, PROPERTY_TIMEOUT, treeSessionArb } from "./helpers.ts";

describe("selectBranches ≡ selectBranch for every leaf", () => {
	it(
		"on trees, damaged trees (cycles, dangling parents), unknown and default leaves",
		() => {
			fc.assert(
				fc.property(
					fc.oneof(treeSessionArb(2), treeSessionArb(3)),
					fc.array(mutationArb, { maxLength: 4 }),
					fc.array(fc.nat(), { maxLength: 6 }),
					({ text }, mutations, picks) => {
						const { entries } = readSession(applyMutations(text, mutations, false));
						const ids = entries.map((e) => e.id);
						// Every leaf, in file order, then arbitrary entries (inner ones too), the default leaf and an unknown id.
						const wanted: (string | undefined)[] = [
							...listLeaves(entries).map((e) => e.id),
							...picks.map((p) => ids[p % Math.max(1, ids.length)]),
							undefined,
							"no-such-entry",
						];
						const many = selectBranches(entries, wanted);
						expect(many).toHaveLength(wanted.length);
						wanted.forEach((leaf, i) => {
							const one = selectBranch(entries, leaf);
							expect(many[i]!.leafId).toBe(one.leafId);
							// The very same entry objects, in the same order.
							expect(many[i]!.path.every((entry, k) => entry === one.path[k])).toBe(true);
							expect(many[i]!.path.length).toBe(one.path.length);
							expect(many[i]!.diagnostics).toEqual(one.diagnostics);
						});
					},
				),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);

	it("a long trunk with many leaves: each walk stops where it joins a known path", () => {
		const trunk = Array.from({ length: 2000 }, (_, i) => ({
			id: `t${i}`,
			parentId: i === 0 ? null : `t${i - 1}`,
		}));
		const leaves = Array.from({ length: 500 }, (_, k) => ({ id: `l${k}`, parentId: `t${(k * 4) % 2000}` }));
		const entries = [...trunk, ...leaves];
		const many = selectBranches(
			entries,
			listLeaves(entries).map((e) => e.id),
		);
		for (const branch of many) {
			const one = selectBranch(entries, branch.leafId);
			expect(branch.path.map((e) => e.id)).toEqual(one.path.map((e) => e.id));
		}
	});
});
