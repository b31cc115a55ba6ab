// `render` in-process: `--at` takes the ids the request shows (#N, base 36) as well as entry ids, the
// text output says how entries are named, and a file without entries is refused in the reader's words.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { styleFor } from "../../../src/adapter/lab/report/text-report.ts";
import { renderReadable } from "../../../src/adapter/lab/request/readable.ts";
import { RenderInputError, renderAt } from "../../../src/adapter/lab/request/render-at.ts";
import { readSession } from "../../../src/events/index.ts";
import { flatten } from "../../../src/render/index.ts";

const TOOLS = readFileSync(fileURLToPath(new URL("../../../samples/tools.jsonl", import.meta.url)), "utf8");
const BRANCHING = readFileSync(fileURLToPath(new URL("../../../samples/branching.jsonl", import.meta.url)), "utf8");

function refusal(run: () => unknown): { message: string; exitCode: number } {
	try {
		run();
	} catch (error) {
		if (error instanceof RenderInputError) return { message: error.message, exitCode: error.exitCode };
		throw error;
	}
	throw new Error("not refused");
}

describe("--at takes the entry ids the request shows", () => {
	const path = readSession(TOOLS).path;

	it("#N is the entry at position N of the branch, in base 36, and renders the same request as its id", () => {
		for (const position of [1, 5, 10, 36, path.length]) {
			const shown = `#${position.toString(36)}`;
			const byOrdinal = renderAt("tools", TOOLS, undefined, shown);
			const byId = renderAt("tools", TOOLS, undefined, path[position - 1]!.id);
			expect(byOrdinal.summary.atEntryId).toBe(path[position - 1]!.id);
			expect(byOrdinal.summary.atOrdinal).toBe(shown);
			expect(byOrdinal.request.hash).toBe(byId.request.hash);
			expect(byId.summary.atOrdinal).toBe(shown);
		}
		// Without the #, as a shell that reads `#a` as a comment forces one to write it.
		expect(renderAt("tools", TOOLS, undefined, "a").summary.atEntryId).toBe(path[9]!.id);
	});

	it("the ordinal counts on the branch --leaf names", () => {
		const read = readSession(BRANCHING);
		const other = read.entries.find(
			(e) => !read.path.includes(e) && e.kind === "known" && e.entry.type === "message",
		);
		expect(other).toBeDefined();
		const branch = readSession(BRANCHING, { leafId: other!.id }).path;
		const rendered = renderAt("branching", BRANCHING, other!.id, `#${branch.length.toString(36)}`);
		expect(rendered.summary.atEntryId).toBe(other!.id);
	});

	it("an id that is neither is refused, naming both readings and the branch's range (exit 1)", () => {
		expect(refusal(() => renderAt("tools", TOOLS, undefined, "#zz"))).toEqual({
			message: `tools: --at #zz: no entry with that id, and no #zz on the branch (it has ${path.length}: #1 … #${path.length.toString(36)})`,
			exitCode: 1,
		});
		expect(refusal(() => renderAt("tools", TOOLS, undefined, "no-such_id")).message).toBe(
			"tools: --at no-such_id: no such entry (an entry id of the file, or #N as the request names it: the position on the branch in base 36)",
		);
	});

	it("the text output names the entry both ways and says how entries are named", () => {
		const text = renderReadable(renderAt("tools", TOOLS, undefined, "#5"), styleFor(false, {}));
		const [title, naming] = text.split("\n");
		expect(title).toBe(`Advisor request for tools, dispatched after entry ${path[4]!.id} (#5)`);
		expect(naming).toBe(
			"The request names entries #N: their position on the branch in base 36 (#1 … #9, #a … #z, #10 …); --at takes that or the entry id.",
		);
		// …and that is how the request itself names them.
		expect(flatten(renderAt("tools", TOOLS, undefined, undefined).request)).toContain("#5");
	});
});

describe("the fact audit runs only when asked (--facts)", () => {
	it("without it the summary has no counts and the text says how to get them; with it, the audit's counts", () => {
		const plain = renderAt("tools", TOOLS, undefined, undefined);
		expect(plain.summary.facts).toBeNull();
		expect(plain.summary.lostFacts).toBeNull();
		expect(renderReadable(plain, styleFor(false, {}))).toContain("The fact audit was not run (--facts runs it).");
		const audited = renderAt("tools", TOOLS, undefined, undefined, { facts: true });
		expect(audited.summary.facts!.total).toBeGreaterThan(0);
		expect(audited.summary.facts!.carried).toBeLessThanOrEqual(audited.summary.facts!.total);
		expect(renderReadable(audited, styleFor(false, {}))).toContain(
			`Facts the request carries (the fact audit): ${audited.summary.facts!.carried} of ${audited.summary.facts!.total}.`,
		);
		// The request is the same either way.
		expect(audited.request.hash).toBe(plain.request.hash);
	});
});

describe("a file without session entries is refused in the reader's words (exit 2)", () => {
	it("empty", () => {
		expect(refusal(() => renderAt("f", "", undefined, undefined))).toEqual({ message: "f: empty file", exitCode: 2 });
		expect(refusal(() => renderAt("f", "\n\n", undefined, undefined)).message).toBe("f: empty file");
	});

	it("binary, or JSON of another shape: the first line the reader could not use", () => {
		expect(refusal(() => renderAt("f", "\u007fELF\u0002\u0001", undefined, undefined)).message).toMatch(
			/^f: not a Pi session file \(line 1: invalid-json: .*\\x7fELF\\x02\\x01/,
		);
		expect(refusal(() => renderAt("f", '{"a":1}\n', undefined, undefined)).message).toBe(
			"f: not a Pi session file (line 1: schema-mismatch: entry has no string `type`)",
		);
	});

	it("a header alone", () => {
		const header = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n';
		expect(refusal(() => renderAt("f", header, undefined, undefined)).message).toBe(
			"f: no session entries (only a session header)",
		);
	});
});
