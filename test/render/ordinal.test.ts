/** The ids the request shows: path ordinals in base 36, and what they resolve to. */
import { describe, expect, it } from "vitest";
import { ledgerOf } from "../../src/reducers/index.ts";
import { expandEntry } from "../../src/render/expand-source.ts";
import { DEFAULT_LEDGER_CONFIG, type LedgerConfig } from "../../src/render/ledger-section.ts";
import { ordinalId, ordinalPosition } from "../../src/render/ordinal.ts";
import { type RenderOptions, renderRequest } from "../../src/render/request-assembly.ts";
import { buildContext } from "../../src/render/request-units.ts";
import { advice, assistant, call, custom, resetParents, result, user } from "../support/events.ts";

const options = (config: LedgerConfig): RenderOptions => ({
	config,
	catalogue: [{ name: "read", description: "Read a file." }],
	tools: [],
	toolsMode: "repo",
	mode: "consult",
});

describe("ordinals", () => {
	it("base 36, lower case, canonical only", () => {
		expect([1, 9, 10, 35, 36, 100, 10_000].map(ordinalId)).toEqual(["1", "9", "a", "z", "10", "2s", "7ps"]);
		expect(["1", "a", "2s", "7ps"].map(ordinalPosition)).toEqual([1, 10, 100, 10_000]);
		// Not ordinals: a leading zero (an 8-hex entry id such as 0a1b2c3d), upper case, anything else.
		for (const text of ["0", "0a1b2c3d", "A", "2S", "a-b", "", "#a"]) expect(ordinalPosition(text)).toBeUndefined();
	});

	it("#a resolves to the 10th entry of the branch; the full entry id still works; past the end is not found", () => {
		resetParents();
		const events = [
			user("u1", "hi"),
			assistant("a1", { calls: [call("c1", "read", { path: "a.ts" })] }),
			result("r1", "c1", "read", "FULL TEXT"),
			custom("h1", "ext", "hidden", false),
			assistant("a2", { calls: [call("c2", "read", { path: "b.ts" })] }),
			result("r2", "c2", "read", "B"),
			assistant("a3", { calls: [call("c3", "read", { path: "c.ts" })] }),
			result("r3", "c3", "read", "C"),
			assistant("a4", { text: "ok?", calls: [call("c4", "advisor")] }),
			user("u10", "the tenth entry"),
		];
		const state = ledgerOf(events);
		expect(expandEntry(state, "#a")).toEqual({ kind: "ok", text: "the tenth entry" });
		expect(expandEntry(state, "a")).toEqual({ kind: "ok", text: "the tenth entry" });
		expect(expandEntry(state, "#3")).toEqual({ kind: "ok", text: 'read: {"path":"a.ts"}\nFULL TEXT' });
		expect(expandEntry(state, "#r1")).toEqual(expandEntry(state, "#3"));
		expect(expandEntry(state, "u10")).toEqual(expandEntry(state, "#a"));
		// A hidden entry is not found by its position either.
		expect(expandEntry(state, "#4")).toEqual({ kind: "not-found" });
		for (const id of ["#b", "#0", "#03", "#A"]) expect(expandEntry(state, id)).toEqual({ kind: "not-found" });
		const text = JSON.stringify(buildContext(renderRequest(state, options(DEFAULT_LEDGER_CONFIG))));
		expect(text).toContain("[user #a]\\nthe tenth entry\\n");
	});

	it("a capped question of a closed consultation names the message that asked it, not the advice", () => {
		resetParents();
		const question = `Should I ${"really ".repeat(30)}mock the fs?`;
		const events = [
			user("u1", "go"),
			assistant("a1", { text: question, calls: [call("c1", "advisor")] }),
			advice("v1", "c1", "Severity: none\nNo."),
			user("u2", "next"),
		];
		const state = ledgerOf(events);
		const config = { ...DEFAULT_LEDGER_CONFIG, tailMaxChars: 80 };
		const text = JSON.stringify(buildContext(renderRequest(state, options(config))));
		expect(text).toContain("advisor_expand #2 returns them");
		expect(expandEntry(state, "#2")).toEqual({ kind: "ok", text: `prose:\n${question}\n\ncall advisor: {}` });
	});
});
