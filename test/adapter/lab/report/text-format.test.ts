// Tables and prose that fit the terminal: wrap, fitTable, names cut in the middle, the folder sessions share.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commonFolder, cutMiddle, fitTable, wrap } from "../../../../src/adapter/lab/report/text-format.ts";

describe("wrap", () => {
	it("keeps every word, in order, within the width; the first line keeps its indentation", () => {
		const word = fc.string({ minLength: 1, maxLength: 30 }).filter((w) => !/\s/.test(w));
		fc.assert(
			fc.property(
				fc.array(word, { maxLength: 40 }),
				fc.integer({ min: 0, max: 4 }),
				fc.integer({ min: 12, max: 100 }),
				(words, lead, width) => {
					const text = `${" ".repeat(lead)}${words.join(" ")}`;
					const lines = wrap(text, width, "    ");
					for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
					expect(lines[0]!.startsWith(" ".repeat(lead))).toBe(true);
					for (const line of lines.slice(1)) expect(line.startsWith("    ")).toBe(true);
					// Words cut in pieces only when longer than a line: joined back, nothing is lost.
					const rest = lines.map((l, i) => (i === 0 ? l.slice(lead) : l.slice(4))).join(" ");
					expect(rest.replace(/ /g, "")).toBe(words.join(""));
					if (words.every((w) => w.length <= width - 4)) expect(rest.split(" ").filter(Boolean)).toEqual(words);
				},
			),
		);
	});

	it("breaks at the last space that fits", () => {
		expect(wrap("  one two three four", 12, "    ")).toEqual(["  one two", "    three", "    four"]);
		expect(wrap("short", 100)).toEqual(["short"]);
		expect(wrap("abcdefghij", 4, "  ")).toEqual(["abcd", "  ef", "  gh", "  ij"]);
	});
});

describe("fitTable", () => {
	const rows = [
		["session", "points", "ratio"],
		["samples/long/pi-mono-large-session.jsonl", "37 sim", "0.128"],
		["total", "45", "0.124"],
	];

	it("columns as wide as their widest cell; the first cut in the middle to fit the width", () => {
		expect(fitTable(rows, 40)).toEqual([
			"session                    points  ratio",
			"samples/long/pi-…on.jsonl  37 sim  0.128",
			"total                          45  0.124",
		]);
		// Unbounded: whole names.
		expect(fitTable(rows, Number.POSITIVE_INFINITY)[1]).toBe(
			"samples/long/pi-mono-large-session.jsonl  37 sim  0.128",
		);
	});

	it("never cuts the first column below 16 characters", () => {
		expect(fitTable(rows, 10)[1]).toBe("samples/lo…jsonl  37 sim  0.128");
	});
});

describe("cutMiddle", () => {
	it("a Pi session's name keeps its project folder and date, and its end", () => {
		const name = "--home-alice-code-shop--/2026-03-01T09-15-00-000Z_0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0.jsonl";
		expect(cutMiddle(name, 60)).toBe("--home-alice-code-shop--/2026-03-01T09-1…-a5b6c7d8e9f0.jsonl");
	});

	it("at most `width` characters, the text's start and end around one `…`; whole when it fits", () => {
		fc.assert(
			fc.property(fc.string({ maxLength: 120 }), fc.integer({ min: 0, max: 130 }), (text, width) => {
				const cut = cutMiddle(text, width);
				if (text.length <= width) {
					expect(cut).toBe(text);
					return;
				}
				expect(cut.length).toBe(width);
				if (width < 2) return;
				const head = cut.slice(0, Math.ceil(((width - 1) * 2) / 3));
				const tail = cut.slice(head.length + 1);
				expect(cut[head.length]).toBe("…");
				expect(text.startsWith(head)).toBe(true);
				expect(text.endsWith(tail)).toBe(true);
				expect(head.length).toBeGreaterThanOrEqual(tail.length);
			}),
		);
	});
});

describe("commonFolder", () => {
	it("the folder every name lies in, up to its last separator; none for the root or no shared folder", () => {
		expect(commonFolder(["samples/long/a.jsonl", "samples/long/b.jsonl"], "/")).toBe("samples/long/");
		expect(commonFolder(["samples/tools.jsonl", "samples/long/taskq.jsonl"], "/")).toBe("samples/");
		expect(commonFolder(["samples/long/taskq.jsonl"], "/")).toBe("samples/long/");
		// A shared start of a name is not a folder.
		expect(commonFolder(["sessions/abc.jsonl", "sessions-old/abd.jsonl"], "/")).toBe("");
		expect(commonFolder(["/a.jsonl", "/b/c.jsonl"], "/")).toBe("");
		expect(commonFolder(["a.jsonl", "b.jsonl"], "/")).toBe("");
		expect(commonFolder(["C:\\pi\\s\\a.jsonl", "C:\\pi\\s\\b.jsonl"], "\\")).toBe("C:\\pi\\s\\");
		// On POSIX a backslash is part of a name (a control character shown escaped), never a folder.
		expect(commonFolder(["evil-\\x1b[31m-\\n-name.jsonl"], "/")).toBe("");
		expect(commonFolder([])).toBe("");
	});
});
