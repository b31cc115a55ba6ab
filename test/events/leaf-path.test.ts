import { describe, expect, it } from "vitest";
import { readSession } from "../../src/events/index.ts";
import { listLeaves, selectBranch } from "../../src/events/leaf-path.ts";
import { e, header, jsonl, msg, user } from "./helpers.ts";

const node = (id: string, parentId: string | null) => ({ id, parentId });
const ids = (xs: readonly { id: string }[]) => xs.map((x) => x.id);

// root ─ a ─ b ─ c
//          └ d ─ e
const tree = [node("r", null), node("a", "r"), node("b", "a"), node("c", "b"), node("d", "a"), node("e", "d")];

describe("the branch is the path from the root to the leaf", () => {
	it("the default leaf is the last entry in file order", () => {
		expect(ids(selectBranch(tree).path)).toEqual(["r", "a", "d", "e"]);
		expect(selectBranch(tree).leafId).toBe("e");
	});

	it("a requested leaf selects its own path", () => {
		expect(ids(selectBranch(tree, "c").path)).toEqual(["r", "a", "b", "c"]);
		expect(ids(selectBranch(tree, "a").path)).toEqual(["r", "a"]);
	});

	it("the default leaf may be any entry type, as in Pi (a label after a branch switch)", () => {
		const text = jsonl([
			header(),
			msg("u1", null, user("one")),
			msg("u2", "u1", user("two")),
			e("label", "l1", "u1", { targetId: "u1", label: "here" }),
		]);
		const read = readSession(text);
		expect(ids(read.path)).toEqual(["u1", "l1"]);
		expect(read.events.map((x) => x.kind)).toEqual(["user", "other"]);
	});

	it("a null leaf is the empty branch before the first entry", () => {
		expect(selectBranch(tree, null)).toEqual({ path: [], leafId: undefined, diagnostics: [] });
	});

	it("an empty session has an empty branch and nothing to report", () => {
		expect(selectBranch([])).toEqual({ path: [], leafId: undefined, diagnostics: [] });
	});
});

describe("an unknown requested leaf gives unknown-leaf and an empty path", () => {
	it("reports the id it could not find", () => {
		const selection = selectBranch(tree, "nope");
		expect(selection.path).toEqual([]);
		expect(selection.diagnostics).toEqual([expect.objectContaining({ reason: "unknown-leaf", entryId: "nope" })]);
	});
});

describe("a missing parent ends the walk with a diagnostic", () => {
	it("the path starts at the entry whose parent is gone", () => {
		const selection = selectBranch([node("b", "gone"), node("c", "b")]);
		expect(ids(selection.path)).toEqual(["b", "c"]);
		expect(selection.diagnostics).toEqual([expect.objectContaining({ reason: "missing-parent", entryId: "b" })]);
		expect(selection.diagnostics[0]!.message).toMatch(/gone/);
	});
});

describe("a cycle ends the walk with a diagnostic, never a hang", () => {
	it("a two-entry loop", () => {
		const selection = selectBranch([node("a", "b"), node("b", "a")]);
		expect(ids(selection.path)).toEqual(["a", "b"]);
		expect(selection.diagnostics).toEqual([expect.objectContaining({ reason: "cycle", entryId: "a" })]);
	});

	it("an entry that is its own parent", () => {
		const selection = selectBranch([node("a", "a")]);
		expect(ids(selection.path)).toEqual(["a"]);
		expect(selection.diagnostics.map((d) => d.reason)).toEqual(["cycle"]);
	});

	it("a long loop hanging off a tail", () => {
		const loop = Array.from({ length: 10_000 }, (_, i) => node(`n${i}`, `n${(i + 1) % 10_000}`));
		const selection = selectBranch([...loop, node("leaf", "n0")]);
		expect(selection.path).toHaveLength(10_001);
		expect(selection.diagnostics.map((d) => d.reason)).toEqual(["cycle"]);
	});
});

describe("listLeaves lists every entry no other entry names as parent, in file order", () => {
	it("one leaf per branch", () => {
		expect(ids(listLeaves(tree))).toEqual(["c", "e"]);
	});

	it("a self-parented entry is still a leaf; an entry whose parent is missing can be one too", () => {
		expect(ids(listLeaves([node("a", "a"), node("b", "gone")]))).toEqual(["a", "b"]);
	});

	it("every leaf's branch ends at that leaf", () => {
		for (const leaf of listLeaves(tree)) expect(selectBranch(tree, leaf.id).path.at(-1)).toBe(leaf);
	});
});
