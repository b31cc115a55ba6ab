import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { gitDiffArgv, gitUntrackedArgv } from "../../../../src/adapter/extension/tools/git-diff.ts";
import { running, settledPid } from "../../../support/processes.ts";
import { git, makeSandbox, run, type Sandbox, textOf, toolsFor } from "./fixture.ts";

let box: Sandbox;

beforeAll(() => {
	box = makeSandbox();
	box.write("src/app.ts", "export const a = 1;\n");
	box.write("src/util.ts", "export const u = 1;\n");
	box.write("docs/guide.md", "# Guide\n");
	box.write(".env", "K=1\n");
	git(box.root, "init", "-q");
	git(box.root, "add", "-A");
	git(box.root, "commit", "-qm", "init");
});

afterAll(() => box.cleanup());

afterEach(() => {
	git(box.root, "reset", "-q", "--hard");
	git(box.root, "clean", "-fdq");
});

const diff = (args: Record<string, unknown> = {}, root = box.root) => run(toolsFor(root), "git_diff", args);

describe("git_diff", () => {
	test("the argv is fixed: no shell, no external diff or textconv, no submodule status, --stat unless patch, -- before paths", () => {
		const excludes = [":(exclude,glob,icase)**/.env"];
		const config = ["-c", "core.filemode=false"];
		expect(gitDiffArgv({ pathspec: ".", patch: false, staged: false, excludes, config })).toEqual([
			"-c",
			"core.fsmonitor=false",
			"--no-pager",
			"-c",
			"core.filemode=false",
			"diff",
			"--no-ext-diff",
			"--no-textconv",
			"--no-color",
			"--ignore-submodules=dirty",
			"--relative",
			"--stat",
			"--",
			".",
			":(exclude,glob,icase)**/.env",
		]);
		const patchStaged = gitDiffArgv({
			pathspec: ":(literal)src",
			patch: true,
			staged: true,
			excludes: [],
			config: [],
		});
		expect(patchStaged).not.toContain("--stat");
		expect(patchStaged.slice(-3)).toEqual(["--staged", "--", ":(literal)src"]);
		const untracked = { pathspec: ".", patch: false, staged: false, excludes: [], config: [] };
		expect(gitUntrackedArgv(untracked).slice(3)).toEqual([
			"ls-files",
			"--others",
			"--exclude-standard",
			"-z",
			"--",
			".",
		]);
		expect(gitUntrackedArgv({ ...untracked, excludeFile: "/r/.git/info/exclude" }).slice(3, 7)).toEqual([
			"ls-files",
			"--others",
			"--exclude-standard",
			"--exclude-from=/r/.git/info/exclude",
		]);
	});

	test("no changes → (no changes)", async () => {
		const r = await diff();
		expect(r).toMatchObject({ isError: false, summary: "git_diff --stat ." });
		expect(textOf(r)).toBe("(no changes)");
	});

	test("--stat by default, the patch with patch: true", async () => {
		writeFileSync(join(box.root, "src/app.ts"), "export const a = 2;\n");
		const stat = textOf(await diff());
		expect(stat).toMatch(/^ src\/app\.ts \| 2 \+-\n 1 file changed, 1 insertion\(\+\), 1 deletion\(-\)$/);
		const patch = textOf(await diff({ patch: true }));
		expect(patch).toContain("diff --git a/src/app.ts b/src/app.ts");
		expect(patch).toContain("-export const a = 1;\n+export const a = 2;");
	});

	test("staged: true shows the index against HEAD only", async () => {
		writeFileSync(join(box.root, "src/app.ts"), "export const a = 2;\n");
		writeFileSync(join(box.root, "src/util.ts"), "export const u = 2;\n");
		git(box.root, "add", "src/util.ts");
		const staged = textOf(await diff({ staged: true }));
		expect(staged).toContain("src/util.ts");
		expect(staged).not.toContain("src/app.ts");
		const unstaged = textOf(await diff());
		expect(unstaged).toContain("src/app.ts");
		expect(unstaged).not.toContain("src/util.ts");
	});

	test("untracked files are listed after the diff (ignored ones are not)", async () => {
		writeFileSync(join(box.root, ".gitignore"), "build/\n");
		mkdirSync(join(box.root, "build"));
		writeFileSync(join(box.root, "build/out.js"), "x");
		writeFileSync(join(box.root, "src/new.ts"), "export {};\n");
		writeFileSync(join(box.root, "src/app.ts"), "export const a = 3;\n");
		const text = textOf(await diff());
		expect(text).toMatch(
			/^ src\/app\.ts \| 2 \+-\n 1 file changed.*\n\nUntracked files \(new, not in the diff above; read them to see their content\):\n {2}\.gitignore\n {2}src\/new\.ts$/,
		);
		expect(text).not.toContain("build/");
		const onlyNew = textOf(await diff({ path: "src/new.ts" }));
		expect(onlyNew).toMatch(/^Untracked files.*\n {2}src\/new\.ts$/);
	});

	test("a path limits the diff; a denied path is refused; denied files are excluded", async () => {
		writeFileSync(join(box.root, "src/app.ts"), "export const a = 4;\n");
		writeFileSync(join(box.root, "docs/guide.md"), "# Guide 2\n");
		writeFileSync(join(box.root, ".env"), "K=2\n");
		const docs = textOf(await diff({ path: "docs" }));
		expect(docs).toContain("docs/guide.md");
		expect(docs).not.toContain("src/app.ts");
		const all = textOf(await diff({ patch: true }));
		expect(all).not.toContain(".env");
		expect(all).not.toContain("K=2");
		const denied = await diff({ path: ".env" });
		expect(denied.isError).toBe(true);
		expect(textOf(denied)).toBe(".env: denied by tools.denyPatterns");
	});

	test("a workspace below the repository root sees only itself, with paths relative to it", async () => {
		writeFileSync(join(box.root, "src/app.ts"), "export const a = 5;\n");
		writeFileSync(join(box.root, "docs/guide.md"), "# Guide 3\n");
		writeFileSync(join(box.root, "docs/extra.md"), "new\n");
		const text = textOf(await diff({}, join(box.root, "docs")));
		expect(text).toMatch(/^ guide\.md \| 2 \+-/);
		expect(text).toContain("  extra.md");
		expect(text).not.toContain("app.ts");
	});

	test("an empty repository (no commits yet)", async () => {
		const empty = makeSandbox();
		try {
			git(empty.root, "init", "-q");
			expect(textOf(await diff({}, empty.root))).toBe("(no changes)");
			empty.write("first.txt", "1\n");
			expect(textOf(await diff({}, empty.root))).toMatch(/^Untracked files.*\n {2}first\.txt$/);
			git(empty.root, "add", "first.txt");
			expect(textOf(await diff({ staged: true }, empty.root))).toMatch(/^ first\.txt \| 1 \+\n 1 file changed/);
		} finally {
			empty.cleanup();
		}
	});

	test("a folder that is not a git repository → tool error", async () => {
		const r = await diff({}, box.outside);
		expect(r.isError).toBe(true);
		expect(textOf(r)).toBe("git_diff: the workspace is not inside a git repository.");
	});

	test("a non-zero exit is a tool error with a stderr excerpt", async () => {
		writeFileSync(join(box.root, "src/app.ts"), "export const a = 6;\n");
		// A corrupt index makes git fail loudly.
		writeFileSync(join(box.root, ".git/index"), "garbage");
		const r = await diff();
		expect(r.isError).toBe(true);
		expect(textOf(r)).toMatch(/^git diff failed \(exit 128\): .*index/s);
		git(box.root, "read-tree", "HEAD");
	});

	test("a hanging git is killed at the deadline", async () => {
		const fake = join(box.outside, "fake-git");
		mkdirSync(fake, { recursive: true });
		const pidFile = join(fake, "pid");
		writeFileSync(join(fake, "git"), `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 10\n`);
		chmodSync(join(fake, "git"), 0o755);
		const saved = process.env.PATH;
		process.env.PATH = `${fake}:${saved}`;
		try {
			const r = await run(toolsFor(box.root, { timeoutMs: 300 }), "git_diff", {});
			expect(r.isError).toBe(true);
			expect(textOf(r)).toBe("git_diff timed out after 0.3s. Narrow the request.");
			// Killed, not left sleeping: no duration is asserted, the process is looked for.
			expect(running(await settledPid(pidFile))).toBe(false);
		} finally {
			process.env.PATH = saved;
		}
	});
});

/** The isolated GIT_DIR (no repository config) must still see each kind of repository as git does. */
describe("git_diff on repositories of every shape", () => {
	const scratch: Sandbox[] = [];
	afterAll(() => {
		for (const b of scratch) b.cleanup();
	});
	function fresh(...initArgs: string[]): Sandbox {
		const b = makeSandbox();
		scratch.push(b);
		b.write("a.txt", "one\n");
		git(b.root, "init", "-q", ...initArgs);
		git(b.root, "add", "-A");
		git(b.root, "commit", "-qm", "init");
		return b;
	}

	test("a sha256 repository", async () => {
		const b = fresh("--object-format=sha256");
		writeFileSync(join(b.root, "a.txt"), "two\n");
		expect(textOf(await diff({ patch: true }, b.root))).toContain("-one\n+two");
	});

	test("a linked worktree: its own HEAD and index, the shared objects", async () => {
		const b = fresh();
		const linked = join(b.outside, "linked");
		git(b.root, "worktree", "add", "-q", "-b", "side", linked);
		writeFileSync(join(linked, "a.txt"), "side\n");
		git(linked, "commit", "-qam", "side");
		writeFileSync(join(linked, "a.txt"), "side 2\n");
		writeFileSync(join(linked, "new.txt"), "n\n");
		const text = textOf(await diff({ patch: true }, linked));
		expect(text).toContain("-side\n+side 2");
		expect(text).toMatch(/Untracked files.*\n {2}new\.txt$/);
		expect(textOf(await diff({}, b.root))).toBe("(no changes)");
	});

	test("the repository's info/exclude still hides untracked files", async () => {
		const b = fresh();
		writeFileSync(join(b.root, ".git/info/exclude"), "scratch-*\n");
		writeFileSync(join(b.root, "scratch-1.txt"), "x\n");
		writeFileSync(join(b.root, "kept.txt"), "x\n");
		expect(textOf(await diff({}, b.root))).toMatch(/Untracked files.*\n {2}kept\.txt$/);
	});

	test("core.filemode from the repository is honoured", async () => {
		const b = fresh();
		git(b.root, "config", "core.filemode", "false");
		chmodSync(join(b.root, "a.txt"), 0o755);
		expect(textOf(await diff({}, b.root))).toBe("(no changes)");
		git(b.root, "config", "core.filemode", "true");
		expect(textOf(await diff({ patch: true }, b.root))).toContain("old mode 100644\nnew mode 100755");
	});

	test("a submodule whose commit moved still shows", async () => {
		const b = fresh();
		const sub = join(b.root, "sub");
		b.write("sub/s.txt", "s\n");
		git(sub, "init", "-q");
		git(sub, "add", "-A");
		git(sub, "commit", "-qm", "s1");
		git(b.root, "add", "sub");
		git(b.root, "commit", "-qm", "add sub");
		writeFileSync(join(sub, "s.txt"), "s2\n");
		git(sub, "commit", "-qam", "s2");
		expect(textOf(await diff({}, b.root))).toMatch(/^ sub \| 2 \+-/);
	});
});
