import { describe, expect, test } from "vitest";
import { compileGlob } from "../../../src/events/redact/glob.ts";

describe("compileGlob", () => {
	const cases: [pattern: string, path: string, expected: boolean][] = [
		["*.ts", "app.ts", true],
		["*.ts", "src/app.ts", false],
		["*.ts", ".ts", true], // dotfiles are matched like any name
		["?.md", "a.md", true],
		["?.md", "ab.md", false],
		["[abc].txt", "b.txt", true],
		["[abc].txt", "d.txt", false],
		["[a-c]x", "cx", true],
		["[!a-c]x", "cx", false],
		["[^a-c]x", "dx", true],
		["[]]x", "]x", true],
		["[unclosed", "[unclosed", true],
		["\\*", "*", true],
		["\\*", "a", false],
		["**/x", "x", true],
		["**/x", "a/b/x", true],
		["a/**", "a/b/c", true],
		["a/**", "a", true],
		["a/**/z", "a/z", true],
		["a/**/z", "a/b/c/z", true],
		["a/**/z", "a/b/c/y", false],
		["src/*.ts", "src/a.ts", true],
		["src/*.ts", "src/x/a.ts", false],
		["./lib/", "lib", true],
		["/lib", "lib", true],
		[".ENV", ".env", true], // case-insensitive
		["*.PEM", "server.pem", true],
		["a*b*c", "aXXbYYc", true],
		["a*b*c", "aXXbYY", false],
		["é?", "éa", true],
		["😀*", "😀x", true],
	];
	test.each(cases)("%s ~ %s → %s", (pattern, path, expected) => {
		expect(compileGlob(pattern)(path)).toBe(expected);
	});

	// A backtracking matcher would not finish these in the test's timeout; no duration is asserted.
	test("pathological patterns finish (no backtracking blow-up)", () => {
		const pattern = `${"*a".repeat(30)}b`;
		const path = "a".repeat(5000);
		expect(compileGlob(pattern)(path)).toBe(false);
		expect(compileGlob("**/".repeat(20) + "z")("a/".repeat(2000) + "y")).toBe(false);
	});
});
