// Which tools a recorded session had, on both sides of the comparison.
import { describe, expect, it } from "vitest";
import { sessionTools } from "../../../../src/adapter/lab/replay/tool-set.ts";

describe("the session's tools", () => {
	it("the catalogue lists every registered tool; the inventory the active and the called ones", () => {
		const tools = sessionTools("/tmp", ["read", "grep", "my_ext_tool"]);
		expect(tools.catalogue.map((t) => t.name)).toEqual([
			"read",
			"bash",
			"edit",
			"write",
			"grep",
			"find",
			"ls",
			"advisor",
			"my_ext_tool",
		]);
		expect(tools.inventory.map((t) => t.name)).toEqual([
			"read",
			"bash",
			"edit",
			"write",
			"grep",
			"advisor",
			"my_ext_tool",
		]);
		expect(tools.declarations.map((t) => t.name)).toEqual([
			"advisor_expand",
			"read",
			"grep",
			"find",
			"ls",
			"git_diff",
		]);
	});
});
