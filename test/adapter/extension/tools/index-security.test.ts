/**
 * The security table: every way a path could leave the workspace or reach a
 * credential, through every tool that takes or lists paths.
 */

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { git, makeSandbox, run, type Sandbox, textOf, toolsFor } from "./fixture.ts";

let box: Sandbox;
let tools: ReturnType<typeof toolsFor>;
const SECRET = "SECRET_TOKEN_4711";

beforeAll(() => {
	box = makeSandbox();
	box.write("README.md", `hello ${SECRET.slice(0, 6)}\n`);
	box.write("src/app.ts", "export const app = 1;\n");
	box.write(".env", `API_KEY=${SECRET}\n`);
	box.write(".ENV", `API_KEY=${SECRET}\n`);
	box.write("sub/.env.local", `LOCAL=${SECRET}\n`);
	box.write("secrets/.env/x", `NESTED=${SECRET}\n`);
	box.write("deep/keys/id_rsa", `-----BEGIN OPENSSH PRIVATE KEY-----\n${SECRET}\n`);
	box.write("certs/server.pem", `-----BEGIN CERTIFICATE-----\n${SECRET}\n`);
	box.write("notes.txt", "ordinary notes\n");
	// Links: to a file outside, to a folder outside, dangling to outside, a chain, a link onto .env.
	symlinkSync(join(box.outside, "secret.txt"), join(box.root, "link-out"));
	symlinkSync(box.outside, join(box.root, "outdir"));
	symlinkSync(join(box.outside, "not-yet.txt"), join(box.root, "dangling"));
	symlinkSync(join(box.root, "dangling"), join(box.root, "chain"));
	symlinkSync(join(box.outside, "newdir"), join(box.root, "dangling-dir"));
	symlinkSync(join(box.root, ".env"), join(box.root, "innocent-name"));
	symlinkSync(join(box.root, "notes.txt"), join(box.root, ".env.link"));
	git(box.root, "init", "-q");
	git(box.root, "add", "-A");
	git(box.root, "commit", "-qm", "init");
	tools = toolsFor(box.root);
});

afterAll(() => box.cleanup());

const OUTSIDE = /outside the workspace/;
const DENIED = /denied by tools\.denyPatterns/;

async function expectRefused(name: string, args: Record<string, unknown>, reason: RegExp) {
	const r = await run(tools, name, args);
	expect(r.isError, `${name} ${JSON.stringify(args)} → ${textOf(r)}`).toBe(true);
	expect(textOf(r)).toMatch(reason);
	expect(textOf(r)).not.toContain("OUTSIDE_SECRET");
	expect(textOf(r)).not.toContain(SECRET);
}

describe("paths that leave the workspace", () => {
	test.each([
		["read", { path: "../outside/secret.txt" }],
		["read", { path: "src/../../outside/secret.txt" }],
		["ls", { path: ".." }],
		["grep", { pattern: "OUTSIDE", path: ".." }],
		["find", { pattern: "*", path: "../outside" }],
		["git_diff", { path: "../outside" }],
	])("`../`: %s %j", async (name, args) => {
		await expectRefused(name, args, OUTSIDE);
	});

	test("absolute paths outside: the sibling folder, /etc, ~", async () => {
		await expectRefused("read", { path: join(box.outside, "secret.txt") }, OUTSIDE);
		await expectRefused("read", { path: "/etc/passwd" }, OUTSIDE);
		await expectRefused("read", { path: "~/.bashrc" }, OUTSIDE);
		await expectRefused("ls", { path: "/" }, OUTSIDE);
		await expectRefused("grep", { pattern: "root", path: "/etc" }, OUTSIDE);
	});

	test("an absolute path inside the workspace is fine", async () => {
		const r = await run(tools, "read", { path: join(box.root, "notes.txt") });
		expect(r.isError).toBe(false);
		expect(textOf(r)).toContain("ordinary notes");
	});

	test("symlink to an existing file or folder outside", async () => {
		await expectRefused("read", { path: "link-out" }, OUTSIDE);
		await expectRefused("read", { path: "outdir/secret.txt" }, OUTSIDE);
		await expectRefused("ls", { path: "outdir" }, OUTSIDE);
		await expectRefused("grep", { pattern: "OUTSIDE", path: "outdir" }, OUTSIDE);
		await expectRefused("find", { pattern: "*", path: "outdir" }, OUTSIDE);
	});

	test("dangling symlink to outside (the target does not exist yet), also through a chain", async () => {
		await expectRefused("read", { path: "dangling" }, OUTSIDE);
		await expectRefused("read", { path: "chain" }, OUTSIDE);
		await expectRefused("git_diff", { path: "dangling" }, OUTSIDE);
	});

	test("symlinked folder + a new leaf beneath it", async () => {
		await expectRefused("read", { path: "outdir/new-file.txt" }, OUTSIDE);
		await expectRefused("read", { path: "dangling-dir/a/b.txt" }, OUTSIDE);
		await expectRefused("git_diff", { path: "outdir/new.txt" }, OUTSIDE);
		await expectRefused("ls", { path: "dangling-dir/sub" }, OUTSIDE);
	});

	test("traversal never follows links out: grep/find/ls over the root show nothing from outside", async () => {
		const grep = await run(tools, "grep", { pattern: "OUTSIDE_SECRET" });
		expect(textOf(grep)).toBe("No matches found");
		const find = await run(tools, "find", { pattern: "secret.txt" });
		expect(textOf(find)).not.toContain("secret.txt");
		const ls = await run(tools, "ls", {});
		// Links leading outside are left out of the listing rather than described.
		expect(textOf(ls)).not.toMatch(/link-out|outdir/);
		expect(textOf(ls)).toContain("notes.txt");
	});

	test("even when the user's ripgrep config makes rg follow symlinks, no outside line gets through", async () => {
		// Own sandbox: with --follow, rg errors out on the dangling links of the shared one.
		const small = makeSandbox();
		small.write("notes.txt", "ordinary notes\n");
		symlinkSync(small.outside, join(small.root, "outdir"));
		const config = small.write("../ripgreprc", "--follow\n");
		const saved = process.env.RIPGREP_CONFIG_PATH;
		process.env.RIPGREP_CONFIG_PATH = config;
		try {
			const r = await run(toolsFor(small.root), "grep", { pattern: "OUTSIDE_SECRET|ordinary" });
			expect(textOf(r)).toBe("notes.txt:1: ordinary notes");
			const broad = await run(tools, "grep", { pattern: "OUTSIDE_SECRET" });
			expect(textOf(broad)).not.toContain("OUTSIDE_SECRET:");
			expect(textOf(broad)).not.toMatch(/secret\.txt:\d+:/);
		} finally {
			if (saved === undefined) delete process.env.RIPGREP_CONFIG_PATH;
			else process.env.RIPGREP_CONFIG_PATH = saved;
			small.cleanup();
		}
	});
});

describe("git_diff path arguments that look like options", () => {
	test.each(["-", "--output=x", "-p", "--ext-diff"])("%s is refused and git never sees it", async (path) => {
		const r = await run(tools, "git_diff", { path });
		expect(r.isError).toBe(true);
		expect(textOf(r)).toMatch(/may not start with "-"/);
		expect(existsSync(join(box.root, "x"))).toBe(false);
	});

	test("pathspec magic in a path is taken literally", async () => {
		const r = await run(tools, "git_diff", { path: ":(top)" });
		expect(r.isError).toBe(false);
		expect(textOf(r)).toBe("(no changes)");
	});
});

describe("credential files by name", () => {
	test.each([
		".env",
		"./.env",
		"src/../.env",
		".ENV",
		"@.env",
		"sub/.env.local",
		"secrets/.env/x",
		"secrets/.env",
		"deep/keys/id_rsa",
		"certs/server.pem",
		"innocent-name", // a link whose target is .env
		".env.link", // a link named like a credential
		"sub/.env.new", // does not exist yet: still denied, not "not found"
	])("read %s → denied", async (path) => {
		await expectRefused("read", { path }, DENIED);
	});

	test("denied as a search root or listing root too", async () => {
		await expectRefused("grep", { pattern: "x", path: "secrets/.env" }, DENIED);
		await expectRefused("ls", { path: "secrets/.env" }, DENIED);
		await expectRefused("find", { pattern: "*", path: "secrets/.env" }, DENIED);
		await expectRefused("git_diff", { path: ".env" }, DENIED);
	});
});

describe("credential files reached by traversing a folder", () => {
	test("grep over the root leaks no denied file, with or without context lines", async () => {
		for (const args of [{ pattern: SECRET }, { pattern: SECRET, context: 2 }, { pattern: "BEGIN" }]) {
			const r = await run(tools, "grep", args);
			expect(r.isError).toBe(false);
			expect(textOf(r)).toBe("No matches found");
		}
		const partial = await run(tools, "grep", { pattern: "SECRET|hello", ignoreCase: true });
		expect(textOf(partial)).toBe(`README.md:1: hello ${SECRET.slice(0, 6)}`);
	});

	test("grep with a glob naming .env still finds nothing", async () => {
		const r = await run(tools, "grep", { pattern: "API_KEY", glob: ".env*" });
		expect(textOf(r)).toBe("No matches found");
	});

	test("grep over a subfolder holding id_rsa", async () => {
		const r = await run(tools, "grep", { pattern: "OPENSSH", path: "deep" });
		expect(textOf(r)).toBe("No matches found");
	});

	test("find lists no denied file or folder content", async () => {
		const all = textOf(await run(tools, "find", { pattern: "*" }));
		expect(all).toContain("notes.txt");
		expect(all).not.toMatch(/\.env|id_rsa|server\.pem/i);
		expect(textOf(await run(tools, "find", { pattern: "id_rsa*" }))).toBe("No files found matching pattern");
		expect(textOf(await run(tools, "find", { pattern: "**/x" }))).toBe("No files found matching pattern");
	});

	test("ls leaves denied entries out", async () => {
		const root = textOf(await run(tools, "ls", {}));
		expect(root.split("\n")).toEqual(
			expect.arrayContaining(["README.md", "certs/", "deep/", "notes.txt", "secrets/", "src/", "sub/"]),
		);
		expect(root).not.toMatch(/\.env|\.ENV|innocent-name/);
		expect(textOf(await run(tools, "ls", { path: "sub" }))).toBe("(empty directory)");
		expect(textOf(await run(tools, "ls", { path: "deep/keys" }))).toBe("(empty directory)");
		expect(textOf(await run(tools, "ls", { path: "secrets" }))).toBe("(empty directory)");
	});

	test("git_diff never names or shows a denied file, tracked or untracked", async () => {
		writeFileSync(join(box.root, ".env"), `API_KEY=${SECRET}-changed\n`);
		writeFileSync(join(box.root, "deep/keys/id_rsa"), "changed\n");
		mkdirSync(join(box.root, "new/.env"), { recursive: true });
		writeFileSync(join(box.root, "new/.env/y"), SECRET);
		writeFileSync(join(box.root, "new/id_rsa.pub"), SECRET);
		writeFileSync(join(box.root, "notes.txt"), "changed notes\n");
		try {
			for (const patch of [false, true]) {
				const r = textOf(await run(tools, "git_diff", { patch }));
				expect(r).toContain("notes.txt");
				expect(r).not.toMatch(/\.env|id_rsa|SECRET_TOKEN/);
			}
		} finally {
			git(box.root, "checkout", "--", ".");
			git(box.root, "clean", "-fdq", "new");
		}
	});
});

describe("resource abuse", () => {
	test("a 50 MB file: read returns a capped head saying how much it covered, grep a capped match list", async () => {
		const line = "0123456789 abcdefghijklmnopqrstuvwxyz\n";
		box.write("big/huge.log", Buffer.alloc(50 * 1024 * 1024, line));
		const r = await run(tools, "read", { path: "big/huge.log" });
		expect(r.isError).toBe(false);
		const text = textOf(r);
		expect(text.length).toBeLessThanOrEqual(12000);
		expect(text.startsWith("0123456789 abc")).toBe(true);
		expect(text).toMatch(/read covers only the first 8\.0MB of this 50\.0MB file/);
		const grep = await run(tools, "grep", { pattern: "abc", path: "big" });
		expect(textOf(grep).length).toBeLessThanOrEqual(12000);
		expect(textOf(grep)).toMatch(/100 matches limit reached/);
	});

	test("a binary file: a marker, not garbage", async () => {
		const bytes = Buffer.concat([
			Buffer.from("ELF"),
			Buffer.alloc(64, 0),
			Buffer.from([0xff, 0xfe, 0x80]),
			Buffer.from("BINMARK"),
		]);
		box.write("bin/tool.bin", bytes);
		const r = await run(tools, "read", { path: "bin/tool.bin" });
		expect(r.isError).toBe(false);
		expect(textOf(r)).toMatch(/^\[binary file, \d+B: not shown\]$/);
		const grep = textOf(await run(tools, "grep", { pattern: "BINMARK" }));
		expect(grep).not.toContain("\u0000");
	});

	// A backtracking engine would not finish this in the test's timeout; no duration is asserted.
	test("a regex that backtracks catastrophically elsewhere finishes; unsupported syntax is a tool error", async () => {
		box.write("re/aaa.txt", `${"a".repeat(50_000)}b\n`);
		const r = await run(tools, "grep", { pattern: "(a+)+$", path: "re" });
		expect(r.isError).toBe(false);
		expect(textOf(r)).toBe("No matches found");
		const backref = await run(tools, "grep", { pattern: "(a)\\1", path: "re" });
		expect(backref.isError).toBe(true);
		expect(textOf(backref)).toMatch(/backreferences are not supported/);
	});

	test("a file name that is not UTF-8 breaks nothing", async () => {
		const name = Buffer.concat([Buffer.from(join(box.root, "odd")), Buffer.from([0xff, 0xfe]), Buffer.from(".txt")]);
		writeFileSync(name, "NONUTF8_CONTENT\n");
		try {
			for (const [tool, args] of [
				["ls", {}],
				["find", { pattern: "odd*" }],
				["grep", { pattern: "NONUTF8_CONTENT" }],
				["git_diff", {}],
				["read", { path: "odd\uFFFD\uFFFD.txt" }],
			] as const) {
				const r = await run(tools, tool, args);
				expect(r.content[0]?.type).toBe("text");
				expect(typeof r.isError).toBe("boolean");
			}
			expect(textOf(await run(tools, "find", { pattern: "odd*" }))).toContain("odd");
			expect(textOf(await run(tools, "git_diff", {}))).toMatch(/Untracked files[\s\S]*odd/);
			expect(textOf(await run(tools, "read", { path: "odd\uFFFD\uFFFD.txt" }))).toMatch(/not found/);
		} finally {
			git(box.root, "clean", "-fq", "--", ".");
		}
	});

	test("a FIFO is refused instead of blocking the read forever", async () => {
		execFileSync("mkfifo", [join(box.root, "pipe")]);
		try {
			const r = await run(tools, "read", { path: "pipe" });
			expect(r.isError).toBe(true);
			expect(textOf(r)).toBe("pipe: not a regular file");
			const grep = await run(tools, "grep", { pattern: "x", path: "pipe" });
			expect(textOf(grep)).toBe("pipe: not a regular file");
			expect(textOf(await run(tools, "grep", { pattern: "ordinary" }))).toBe("notes.txt:1: ordinary notes");
		} finally {
			rmSync(join(box.root, "pipe"));
		}
	});

	test("a NUL byte in a path is refused, not passed on", async () => {
		await expectRefused("read", { path: "notes.txt\u0000.env" }, /not a usable path/);
	});
});

describe("grep judges each match by the file rg names, never by the look of a line", () => {
	test("a file name that itself contains `:3: ` cannot smuggle a denied line through", async () => {
		const local = makeSandbox();
		try {
			local.write("ok.txt", "fine\n");
			local.write("weird:3: name.txt", "text fine\n");
			local.write("weird", "1\n2\n name.txt:7: text fine\n");
			for (const denied of ["weird", "weird:3: name.txt"]) {
				const tools = toolsFor(local.root, { config: { denyPatterns: [denied] } });
				const kept = denied === "weird" ? "weird:3: name.txt:1: text fine" : "weird:3:  name.txt:7: text fine";
				const text = textOf(await run(tools, "grep", { pattern: "fine" }));
				expect(text.split("\n").sort()).toEqual(["ok.txt:1: fine", kept].sort());
			}
		} finally {
			local.cleanup();
		}
	});

	test("a file whose name looks like a notice is still judged", async () => {
		const local = makeSandbox();
		try {
			local.write("[x", "leaked\n");
			const tools = toolsFor(local.root, { config: { denyPatterns: ["\\[x"] } });
			expect(textOf(await run(tools, "grep", { pattern: "leaked" }))).toBe("No matches found");
		} finally {
			local.cleanup();
		}
	});

	test("paths are judged relative to the workspace, not to the searched folder", async () => {
		const local = makeSandbox();
		try {
			local.write("src/sub/x.ts", "hit\n");
			local.write("src/sub/y.ts", "hit\n");
			const tools = toolsFor(local.root, { config: { denyPatterns: ["src/sub/x.ts"] } });
			expect(textOf(await run(tools, "grep", { pattern: "hit", path: "src/sub" }))).toBe("y.ts:1: hit");
			expect(textOf(await run(tools, "grep", { pattern: "hit", path: "src/sub/x.ts" }))).toBe(
				"src/sub/x.ts: denied by tools.denyPatterns",
			);
		} finally {
			local.cleanup();
		}
	});
});
