import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import {
	createDenyMatcher,
	DEFAULT_DENY_PATTERNS,
	gitExcludePathspecs,
} from "../../../../src/adapter/extension/tools/git-exclude.ts";
import { git } from "./fixture.ts";

describe("deny list as git pathspecs", () => {
	const denied = createDenyMatcher(DEFAULT_DENY_PATTERNS);

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
