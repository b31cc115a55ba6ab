/** The advisor_expand source: the verbatim text behind a shown id. */
import { describe, expect, it } from "vitest";
import { ledgerOf } from "../../src/reducers/index.ts";
import { expandEntry } from "../../src/render/expand-source.ts";
import { assistant, bash, call, custom, result, user } from "../support/events.ts";

describe("advisor_expand source", () => {
	it("returns the verbatim text behind a card, and not-found for hidden, `!!`, state and unknown ids", () => {
		const state = ledgerOf([
			user("u1", "hi"),
			assistant("a1", { calls: [call("c1", "read", { path: "a.ts" })] }),
			result("r1", "c1", "read", "FULL TEXT"),
			custom("h1", "ext", "hidden", false),
			bash("b1", "env", "secret", true),
		]);
		expect(expandEntry(state, "#r1")).toEqual({ kind: "ok", text: 'read: {"path":"a.ts"}\nFULL TEXT' });
		expect(expandEntry(state, "u1")).toEqual({ kind: "ok", text: "hi" });
		for (const id of ["h1", "b1", "nope", "#", ""]) expect(expandEntry(state, id)).toEqual({ kind: "not-found" });
	});
});
