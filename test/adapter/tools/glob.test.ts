import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { createDenyMatcher, DEFAULT_DENY_PATTERNS, gitExcludePathspecs } from "../../../src/adapter/tools/deny.ts";
import { compileGlob } from "../../../src/adapter/tools/glob.ts";
import { git } from "./fixture.ts";

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

	test("pathological patterns stay fast (no backtracking blow-up)", () => {
		const pattern = `${"*a".repeat(30)}b`;
		const path = "a".repeat(5000);
		const start = performance.now();
		expect(compileGlob(pattern)(path)).toBe(false);
		expect(compileGlob("**/".repeat(20) + "z")("a/".repeat(2000) + "y")).toBe(false);
		expect(performance.now() - start).toBeLessThan(1000);
	});
});

describe("deny matcher", () => {
	const denied = createDenyMatcher(DEFAULT_DENY_PATTERNS);
	test.each([
		[".env", ".env"],
		["config/.env", ".env"],
		[".env.local", ".env.*"],
		["secrets/.env/x", ".env"],
		["deep/a/b/id_rsa", "id_rsa*"],
		["keys/id_rsa.pub", "id_rsa*"],
		["certs/server.pem", "*.pem"],
		["CERTS/SERVER.PEM", "*.pem"],
		["x.key", "*.key"],
		["store.p12", "*.p12"],
		["store.pfx", "*.pfx"],
	])("%s is denied by %s", (path, pattern) => {
		expect(denied(path)).toBe(pattern);
	});
	test.each(["README.md", "src/env.ts", "environment/x", "keys.txt", "", "envy/.envelope"])(
		"%s is allowed",
		(path) => {
			expect(denied(path)).toBeUndefined();
		},
	);

	test("a configured list replaces the default; slash patterns deny a subtree", () => {
		const custom = createDenyMatcher(["private/data", "*.sqlite"]);
		expect(custom(".env")).toBeUndefined();
		expect(custom("private/data")).toBe("private/data");
		expect(custom("private/data/x/y.txt")).toBe("private/data");
		expect(custom("other/private/data")).toBeUndefined();
		expect(custom("db/app.sqlite")).toBe("*.sqlite");
		expect(createDenyMatcher([])("id_rsa")).toBeUndefined();
	});

	test("git pathspecs exclude exactly what the matcher denies", () => {
		const base = mkdtempSync(join(tmpdir(), "advisor-pathspec-"));
		try {
			const files = [
				"a.txt",
				".env",
				"sub/.env.local",
				"sub/.env/inner.txt",
				"sub/deep/id_rsa",
				"Server.PEM",
				"x.key",
				"keep/notes.md",
			];
			for (const f of files) {
				mkdirSync(dirname(join(base, f)), { recursive: true });
				writeFileSync(join(base, f), "x\n");
			}
			git(base, "init", "-q");
			const listed = execFileSync(
				"git",
				["ls-files", "--others", "-z", "--", ".", ...gitExcludePathspecs(DEFAULT_DENY_PATTERNS)],
				{ cwd: base, encoding: "utf8" },
			)
				.split("\0")
				.filter(Boolean)
				.sort();
			expect(listed).toEqual(files.filter((f) => denied(f) === undefined).sort());
			expect(listed).toEqual(["a.txt", "keep/notes.md"]);
		} finally {
			rmSync(base, { recursive: true, force: true });
		}
	});
});
