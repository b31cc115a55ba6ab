/**
 * grep, find and ls read their programs' output structurally (ripgrep's JSON, fd's NUL
 * separators, readdir's array), so a file name cannot pose as two files or as a match line,
 * and a match line cannot pose as a file name.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_MAX_BYTES, formatSize, truncateHead } from "@mariozechner/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeSandbox, run, type Sandbox, textOf, toolsFor } from "./fixture.ts";

let box: Sandbox;
const SECRET = "SECRET_TOKEN_0815";

beforeAll(() => {
	box = makeSandbox();
	box.write("ok.txt", "fine line\n");
	// A denied name whose tail, after the newline, looks like an allowed file.
	writeFileSync(join(box.root, ".env.x\nok.txt"), `${SECRET}\n`);
	// A denied folder (`.env.*`) whose name carries a newline, holding an innocently named file.
	mkdirSync(join(box.root, "nested"));
	mkdirSync(join(box.root, "nested/.env.d\nplain"));
	writeFileSync(join(box.root, "nested/.env.d\nplain/notes.txt"), `${SECRET}\n`);
	// An allowed file whose name carries a newline and other control characters.
	writeFileSync(join(box.root, "bell\u0007\nname.txt"), "fine too\n");
});

afterAll(() => box.cleanup());

describe("a name with a newline cannot smuggle a denied file through", () => {
	test("grep over the root: no line of a denied file, with or without context", async () => {
		const tools = toolsFor(box.root);
		for (const args of [{ pattern: SECRET }, { pattern: SECRET, context: 1 }, { pattern: "SECRET|fine" }]) {
			const text = textOf(await run(tools, "grep", args));
			expect(text, JSON.stringify(args)).not.toContain(SECRET);
		}
		expect(textOf(await run(tools, "grep", { pattern: SECRET }))).toBe("No matches found");
	});

	test("grep shows an allowed file with a control character in its name on one escaped line", async () => {
		const text = textOf(await run(toolsFor(box.root), "grep", { pattern: "fine" }));
		expect(text.split("\n").sort()).toEqual(["bell\\x07\\nname.txt:1: fine too", "ok.txt:1: fine line"]);
	});

	test("find lists no part of a denied name, and escapes control characters", async () => {
		const text = textOf(await run(toolsFor(box.root), "find", { pattern: "*" }));
		expect(text).not.toMatch(/\.env/);
		expect(text.split("\n").sort()).toEqual(["bell\\x07\\nname.txt", "nested/", "ok.txt"]);
	});

	test("ls leaves denied names out and escapes control characters", async () => {
		const tools = toolsFor(box.root);
		expect(textOf(await run(tools, "ls", {})).split("\n")).toEqual(["bell\\x07\\nname.txt", "nested/", "ok.txt"]);
		expect(textOf(await run(tools, "ls", { path: "nested" }))).toBe("(empty directory)");
	});
});

describe("every match ripgrep finds in an allowed file comes back, up to the caps", () => {
	/** 1,000 lines that each carry `:N: ` or `-N- ` far beyond 255 characters in. */
	const LINES = Array.from({ length: 1000 }, (_, i) => {
		const filler = "a".repeat(260 + (i % 7));
		return i % 2 === 0 ? `${filler}:${i}: needle ${i}` : `${filler}-${i}- needle ${i}`;
	});

	test("a match line looking like `file:N: ` deep inside is not mistaken for a file name", async () => {
		const local = makeSandbox();
		try {
			local.write("long.txt", `${LINES.join("\n")}\n`);
			// A large result cap so only Pi's own caps (the match limit, 50KB) apply.
			const tools = toolsFor(local.root, { config: { maxResultChars: 1_000_000 } });
			const text = textOf(await run(tools, "grep", { pattern: "needle", limit: 1000 }));
			const all = LINES.map((line, i) => `long.txt:${i + 1}: ${line}`).join("\n");
			const cut = truncateHead(all, { maxLines: Number.MAX_SAFE_INTEGER });
			expect(cut.truncated).toBe(true);
			expect(text).toBe(
				`${cut.content}\n\n[1000 matches limit reached. Use limit=2000 for more, or refine pattern. ${formatSize(DEFAULT_MAX_BYTES)} limit reached]`,
			);
			expect(text.split("\n").filter((l) => l.startsWith("long.txt:")).length).toBe(cut.outputLines);
		} finally {
			local.cleanup();
		}
	});

	test("all matches below the byte cap come back, whatever the line looks like", async () => {
		const local = makeSandbox();
		try {
			const lines = Array.from({ length: 150 }, (_, i) => `${"b".repeat(270)}:${i}: x-${i}- needle`);
			local.write("sub/long:1: name.txt", `${lines.join("\n")}\n`);
			const tools = toolsFor(local.root, { config: { maxResultChars: 1_000_000 } });
			const text = textOf(await run(tools, "grep", { pattern: "needle", limit: 1000 }));
			expect(text).toBe(lines.map((line, i) => `sub/long:1: name.txt:${i + 1}: ${line}`).join("\n"));
		} finally {
			local.cleanup();
		}
	});
});
