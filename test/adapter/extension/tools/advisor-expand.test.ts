import { describe, expect, test } from "vitest";
import { parseExpandIds } from "../../../../src/adapter/extension/tools/advisor-expand.ts";
import { clipHeadTail, fairShares } from "../../../../src/adapter/extension/tools/clip.ts";
import type { ExpandSource } from "../../../../src/adapter/extension/tools/index.ts";
import type { LedgerState } from "../../../../src/reducers/index.ts";
import { EXPAND_MAX_IDS, expandSource } from "../../../../src/render/index.ts";
import { run, textOf, toolsFor } from "./fixture.ts";

/** The ledger core's part, faked: a map of visible ids. Hidden/!!/off-branch ids are simply absent. */
function fakeSource(entries: Record<string, string>): ExpandSource & { asked: string[] } {
	const asked: string[] = [];
	return {
		asked,
		lookup(id) {
			asked.push(id);
			const text = entries[id];
			return text === undefined ? { kind: "not-found" } : { kind: "ok", text };
		},
	};
}

const cwd = process.cwd();

// The ledger core's adapter plugs straight in (checked by tsc).
const ledgerSourceFits: (state: LedgerState) => ExpandSource = expandSource;

describe("parseExpandIds", () => {
	test("the ledger core's expandSource is an ExpandSource", () => {
		expect(typeof ledgerSourceFits).toBe("function");
	});

	test.each([
		[["#a1b2c3d4"], ["a1b2c3d4"]],
		[["a1b2c3d4"], ["a1b2c3d4"]],
		[["#a", "a", "##a"], ["a"]],
		[
			["#a #b", "c,#d", " e "],
			["a", "b", "c", "d", "e"],
		],
		["#x #y", ["x", "y"]],
		[["", "#", 7, null], []],
		[undefined, []],
	])("%j → %j", (raw, ids) => {
		expect(parseExpandIds(raw)).toEqual(ids);
	});
});

describe("clipHeadTail / fairShares", () => {
	test("never exceeds the cap, keeps both ends, never splits a surrogate pair", () => {
		const text = `${"😀".repeat(300)}MIDDLE${"z".repeat(600)}`;
		for (const max of [0, 5, 40, 100, 333, 1000]) {
			const out = clipHeadTail(text, max);
			expect(out.length).toBeLessThanOrEqual(max);
			expect(out).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
		}
		const out = clipHeadTail(text, 200);
		expect(out.startsWith("😀")).toBe(true);
		expect(out.endsWith("z")).toBe(true);
		expect(out).toMatch(/\n\[… \d+ chars omitted …\]\n/);
		expect(clipHeadTail("short", 100)).toBe("short");
	});

	test("water-filling: short texts keep everything, long ones split the rest", () => {
		expect(fairShares([10, 1000, 1000], 610)).toEqual([10, 300, 300]);
		expect(fairShares([10, 20], 1000)).toEqual([10, 20]);
		expect(fairShares([500, 500, 500], 300)).toEqual([100, 100, 100]);
		expect(fairShares([5], -10)).toEqual([0]);
		expect(fairShares([], 100)).toEqual([]);
	});
});

describe("advisor_expand", () => {
	test("returns the verbatim text per id, # optional, duplicates once", async () => {
		const source = fakeSource({ aaaa1111: "first text", bbbb2222: "second\ntext" });
		const tools = toolsFor(cwd, { expand: source });
		const r = await run(tools, "advisor_expand", { ids: ["#aaaa1111", "bbbb2222", "aaaa1111"] });
		expect(r).toMatchObject({ isError: false, summary: "advisor_expand #aaaa1111 #bbbb2222" });
		expect(textOf(r)).toBe("#aaaa1111\nfirst text\n\n#bbbb2222\nsecond\ntext");
		expect(source.asked).toEqual(["aaaa1111", "bbbb2222"]);
	});

	test("ids the ledger could not have shown answer not found; all unknown is an error", async () => {
		const tools = toolsFor(cwd, { expand: fakeSource({ seen: "visible" }) });
		const mixed = await run(tools, "advisor_expand", { ids: ["#hidden", "#seen"] });
		expect(mixed.isError).toBe(false);
		expect(textOf(mixed)).toBe("#hidden: not found (only ids shown in the log can be expanded)\n\n#seen\nvisible");
		const none = await run(tools, "advisor_expand", { ids: ["#bash-excluded"] });
		expect(none.isError).toBe(true);
		expect(textOf(none)).toMatch(/not found/);
	});

	test(`at most ${EXPAND_MAX_IDS} ids per call; the rest are named back`, async () => {
		const entries = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`id${i}`, `text ${i}`]));
		const source = fakeSource(entries);
		const r = await run(toolsFor(cwd, { expand: source }), "advisor_expand", { ids: Object.keys(entries) });
		expect(source.asked).toHaveLength(EXPAND_MAX_IDS);
		expect(textOf(r)).toMatch(/Not expanded \(at most 8 ids per call\): #id8, #id9, #id10, #id11$/);
	});

	test("maxResultChars is shared fairly per id and each text is clipped head + tail", async () => {
		const long = (c: string) => `${c}-HEAD ${c.repeat(5000)} ${c}-TAIL`;
		const source = fakeSource({ s: "short text", l1: long("x"), l2: long("y") });
		const tools = toolsFor(cwd, { expand: source, config: { maxResultChars: 2000 } });
		const r = await run(tools, "advisor_expand", { ids: ["s", "l1", "l2"] });
		const text = textOf(r);
		expect(text.length).toBeLessThanOrEqual(2000);
		expect(text).toContain("#s\nshort text");
		for (const c of ["x", "y"]) {
			expect(text).toContain(`${c}-HEAD`);
			expect(text).toContain(`${c}-TAIL`);
		}
		const xs = text.split("").filter((ch) => ch === "x").length;
		const ys = text.split("").filter((ch) => ch === "y").length;
		expect(Math.abs(xs - ys)).toBeLessThan(10);
		expect(text.match(/chars omitted/g)).toHaveLength(2);
	});

	test("no usable id, or a source that throws, is a tool error", async () => {
		const tools = toolsFor(cwd, { expand: fakeSource({}) });
		expect(textOf(await run(tools, "advisor_expand", { ids: ["#", " "] }))).toMatch(/needs at least one id/);
		const throwing: ExpandSource = {
			lookup: () => {
				throw new Error("ledger not ready");
			},
		};
		const r = await run(toolsFor(cwd, { expand: throwing }), "advisor_expand", { ids: ["a"] });
		expect(r).toMatchObject({ isError: true });
		expect(textOf(r)).toBe("ledger not ready");
	});

	test("a bare string is accepted (pi-ai's validator wraps it)", async () => {
		const r = await run(toolsFor(cwd, { expand: fakeSource({ a: "A", b: "B" }) }), "advisor_expand", {
			ids: "#a #b",
		});
		expect(textOf(r)).toBe("#a\nA\n\n#b\nB");
	});
});
