/**
 * The default deny list covers the credentials a workspace commonly holds beyond `.env` and
 * keys: git's own folder (remote URLs with tokens; the advisor has git_diff for the repository),
 * package-registry and netrc tokens, cloud and docker credentials, ssh folders, password vaults.
 */

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DEFAULT_DENY_PATTERNS } from "../../../../src/adapter/extension/tools/index.ts";
import { git, makeSandbox, run, type Sandbox, textOf, toolsFor } from "./fixture.ts";

let box: Sandbox;
const TOKEN = "TOKEN_9d1f";

/** Credential files by their usual names, at the root and one level down. */
const CREDENTIALS = [
	".npmrc",
	".netrc",
	".pypirc",
	".aws/credentials",
	".aws/config",
	".docker/config.json",
	".ssh/id_ed25519",
	".ssh/config",
	"vault.kdbx",
	"home/.npmrc",
	"home/.aws/credentials",
	"home/.docker/config.json",
	"home/.ssh/known_hosts",
	"backup/Passwords.KDBX",
];

beforeAll(() => {
	box = makeSandbox();
	box.write("README.md", "readme\n");
	box.write("docker/config.json", `{"not": "a credential ${TOKEN.slice(0, 5)}"}\n`);
	for (const rel of CREDENTIALS) box.write(rel, `secret=${TOKEN}\n`);
	git(box.root, "init", "-q");
	git(box.root, "config", "remote.origin.url", `https://user:${TOKEN}@example.com/repo.git`);
	git(box.root, "add", "README.md");
	git(box.root, "commit", "-qm", "init");
});

afterAll(() => box.cleanup());

describe("the default deny list", () => {
	test.each([...CREDENTIALS, ".git/config", ".git/HEAD", ".git", ".git/refs/heads/main"])(
		"read %s → denied",
		async (path) => {
			const r = await run(toolsFor(box.root), "read", { path });
			expect(r.isError).toBe(true);
			expect(textOf(r)).toBe(`${path}: denied by tools.denyPatterns`);
		},
	);

	test("grep over the root finds no credential (nor the token in .git/config)", async () => {
		const tools = toolsFor(box.root);
		expect(textOf(await run(tools, "grep", { pattern: TOKEN }))).toBe("No matches found");
		expect(textOf(await run(tools, "grep", { pattern: "secret=|credential" }))).toBe(
			`docker/config.json:1: {"not": "a credential ${TOKEN.slice(0, 5)}"}`,
		);
		expect(textOf(await run(tools, "grep", { pattern: "main", path: ".git" }))).toBe(
			".git: denied by tools.denyPatterns",
		);
	});

	test("find and ls list none of them", async () => {
		const tools = toolsFor(box.root);
		const found = textOf(await run(tools, "find", { pattern: "*" }));
		// A .docker folder may be listed; its config.json may not.
		expect(found.split("\n").sort()).toEqual([
			".docker/",
			"README.md",
			"backup/",
			"docker/",
			"docker/config.json",
			"home/",
			"home/.docker/",
		]);
		expect(textOf(await run(tools, "ls", {})).split("\n")).toEqual([
			".docker/",
			"backup/",
			"docker/",
			"home/",
			"README.md",
		]);
		expect(textOf(await run(tools, "ls", { path: "home" }))).toBe(".docker/");
		expect(textOf(await run(tools, "ls", { path: "home/.docker" }))).toBe("(empty directory)");
		expect(textOf(await run(tools, "ls", { path: "backup" }))).toBe("(empty directory)");
	});

	test("git_diff never names them, tracked or not", async () => {
		const text = textOf(await run(toolsFor(box.root), "git_diff", { patch: true }));
		expect(text.split("\n").slice(1)).toEqual(["  docker/config.json"]);
	});

	test("tools.denyPatterns still replaces the list", async () => {
		const tools = toolsFor(box.root, { config: { denyPatterns: ["*.md"] } });
		// Readable once the list no longer names it; the value itself is still redacted (docs/privacy.md).
		const npmrc = await run(tools, "read", { path: ".npmrc" });
		expect(npmrc.isError).not.toBe(true);
		expect(textOf(npmrc)).toContain("secret=[redacted: secret-assignment]");
		expect(textOf(npmrc)).not.toContain(TOKEN);
		expect(textOf(await run(tools, "read", { path: "README.md" }))).toBe("README.md: denied by tools.denyPatterns");
		expect(DEFAULT_DENY_PATTERNS).not.toContain("*.md");
	});
});
