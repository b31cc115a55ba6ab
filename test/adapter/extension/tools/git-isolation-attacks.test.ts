/**
 * git_diff as a hostile repository would attack it: every way the repository's config, its
 * attributes, a submodule or a partial clone's promisor remote could make git start a program.
 * Each vector plants a driver that creates a marker file; the marker must never appear, and
 * where git can still diff, the diff must still come back.
 */

import { chmodSync, existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { copiedConfigArgs, parseLayout, safeGitEnv } from "../../../../src/adapter/extension/tools/git-isolation.ts";
import { git, makeSandbox, run, type Sandbox, textOf, toolsFor } from "./fixture.ts";

const boxes: Sandbox[] = [];
afterEach(() => {
	for (const b of boxes.splice(0)) b.cleanup();
});

interface Planted {
	box: Sandbox;
	marker: string;
	/** A shell command that creates the marker, then runs `tail` (e.g. `cat` for a filter). */
	cmd(tail: string): string;
	config(key: string, value: string): void;
}

function repoWithTrackedFile(): Planted {
	const box = makeSandbox();
	boxes.push(box);
	box.write("a.txt", "one\n");
	git(box.root, "init", "-q");
	git(box.root, "add", "-A");
	git(box.root, "commit", "-qm", "init");
	const marker = join(box.outside, "MARKER");
	return {
		box,
		marker,
		cmd: (tail) => `sh -c 'touch ${marker}; ${tail}'`,
		config: (key, value) => {
			git(box.root, "config", key, value);
		},
	};
}

/** Every hook name git knows, each creating the marker. */
const HOOK_NAMES = [
	"applypatch-msg",
	"pre-applypatch",
	"post-applypatch",
	"pre-commit",
	"pre-merge-commit",
	"prepare-commit-msg",
	"commit-msg",
	"post-commit",
	"pre-rebase",
	"post-checkout",
	"post-merge",
	"pre-push",
	"pre-receive",
	"update",
	"proc-receive",
	"post-receive",
	"post-update",
	"reference-transaction",
	"push-to-checkout",
	"pre-auto-gc",
	"post-rewrite",
	"sendemail-validate",
	"fsmonitor-watchman",
	"p4-changelist",
	"p4-prepare-changelist",
	"p4-post-changelist",
	"p4-pre-submit",
	"post-index-change",
];

const VECTORS: [string, (p: Planted) => void][] = [
	[
		"filter.<x>.clean named by an in-tree .gitattributes",
		(p) => {
			p.box.write(".gitattributes", "*.txt filter=x\n");
			p.config("filter.x.clean", p.cmd("cat"));
		},
	],
	[
		"filter.<x>.process (long-running filter)",
		(p) => {
			p.box.write(".gitattributes", "*.txt filter=x\n");
			p.config("filter.x.process", p.cmd("exit 1"));
		},
	],
	[
		"filter.<x>.smudge, required",
		(p) => {
			p.box.write(".gitattributes", "*.txt filter=x\n");
			p.config("filter.x.smudge", p.cmd("cat"));
			p.config("filter.x.required", "true");
		},
	],
	[
		"a filter defined in a file pulled in by include.path",
		(p) => {
			const inc = join(p.box.outside, "inc.cfg");
			// Double quotes: an unquoted `;` would start a comment in a config file.
			writeFileSync(inc, `[filter "x"]\n\tclean = "${p.cmd("cat")}"\n`);
			p.box.write(".gitattributes", "*.txt filter=x\n");
			p.config("include.path", inc);
		},
	],
	[
		"a filter named in $GIT_DIR/info/attributes",
		(p) => {
			mkdirSync(join(p.box.root, ".git/info"), { recursive: true });
			writeFileSync(join(p.box.root, ".git/info/attributes"), "*.txt filter=x\n");
			p.config("filter.x.clean", p.cmd("cat"));
		},
	],
	[
		"diff.<x>.command (a diff driver)",
		(p) => {
			p.box.write(".gitattributes", "*.txt diff=x\n");
			p.config("diff.x.command", p.cmd("true"));
		},
	],
	[
		"diff.<x>.textconv",
		(p) => {
			p.box.write(".gitattributes", "*.txt diff=x\n");
			p.config("diff.x.textconv", p.cmd('cat "$0"'));
		},
	],
	["diff.external", (p) => p.config("diff.external", p.cmd("true"))],
	["core.fsmonitor", (p) => p.config("core.fsmonitor", p.cmd("true"))],
	[
		"core.hooksPath (every hook name)",
		(p) => {
			const hooks = join(p.box.outside, "hooks");
			mkdirSync(hooks);
			for (const name of HOOK_NAMES) {
				writeFileSync(join(hooks, name), `#!/bin/sh\ntouch ${p.marker}\n`);
				chmodSync(join(hooks, name), 0o755);
			}
			p.config("core.hooksPath", hooks);
		},
	],
	[
		"core.pager and pager.diff",
		(p) => {
			p.config("core.pager", p.cmd("cat"));
			p.config("pager.diff", p.cmd("cat"));
		},
	],
	[
		"a submodule's own clean filter (git would run `git status` inside it)",
		(p) => {
			const sub = join(p.box.root, "sub");
			p.box.write("sub/s.txt", "s\n");
			p.box.write("sub/.gitattributes", "*.txt filter=x\n");
			git(sub, "init", "-q");
			git(sub, "add", "-A");
			git(sub, "commit", "-qm", "sub");
			git(p.box.root, "add", "sub");
			git(p.box.root, "commit", "-qm", "add sub");
			git(sub, "config", "filter.x.clean", p.cmd("cat"));
			// Same size, another mtime: only hashing the file (through the filter) tells whether it changed.
			writeFileSync(join(sub, "s.txt"), "S\n");
			const future = new Date("2035-01-01T00:00:00Z");
			utimesSync(join(sub, "s.txt"), future, future);
		},
	],
];

describe("git_diff runs no program the repository names", () => {
	test.each(VECTORS)("%s", async (_name, plant) => {
		const p = repoWithTrackedFile();
		plant(p);
		writeFileSync(join(p.box.root, "a.txt"), "two\n");
		const tools = toolsFor(p.box.root);
		const stat = await run(tools, "git_diff", {});
		const patch = await run(tools, "git_diff", { patch: true });
		expect(existsSync(p.marker), "marker created").toBe(false);
		expect(stat.isError, textOf(stat)).toBe(false);
		expect(textOf(stat)).toMatch(/^ a\.txt \| 2 \+-$/m);
		expect(patch.isError, textOf(patch)).toBe(false);
		expect(textOf(patch)).toContain("-one\n+two");
	});

	test("GIT_EXTERNAL_DIFF in the environment", async () => {
		const p = repoWithTrackedFile();
		writeFileSync(join(p.box.root, "a.txt"), "two\n");
		const saved = process.env.GIT_EXTERNAL_DIFF;
		process.env.GIT_EXTERNAL_DIFF = p.cmd("true");
		try {
			const patch = await run(toolsFor(p.box.root), "git_diff", { patch: true });
			expect(existsSync(p.marker), "marker created").toBe(false);
			expect(textOf(patch)).toContain("-one\n+two");
		} finally {
			if (saved === undefined) delete process.env.GIT_EXTERNAL_DIFF;
			else process.env.GIT_EXTERNAL_DIFF = saved;
		}
	});
});

/**
 * A partial clone fetches missing objects on demand, from whatever remote its config names,
 * with whatever transport, ssh command, upload-pack or credential helper that config names.
 */
describe("git_diff never fetches: a promisor remote cannot run a program", () => {
	function partialClone(): Planted {
		const box = makeSandbox();
		boxes.push(box);
		const origin = join(box.outside, "origin");
		mkdirSync(origin);
		git(origin, "init", "-q");
		git(origin, "config", "uploadpack.allowFilter", "true");
		writeFileSync(join(origin, "a.txt"), "one\n");
		git(origin, "add", "-A");
		git(origin, "commit", "-qm", "init");
		// The workspace: a blobless clone whose only blob (a.txt at HEAD) was never fetched.
		git(box.outside, "clone", "-q", "--no-checkout", "--filter=blob:none", `file://${origin}`, box.root);
		git(box.root, "reset", "-q");
		writeFileSync(join(box.root, "a.txt"), "two\n");
		const marker = join(box.outside, "MARKER");
		return {
			box,
			marker,
			cmd: (tail) => `sh -c 'touch ${marker}; ${tail}'`,
			config: (key, value) => {
				git(box.root, "config", key, value);
			},
		};
	}

	async function expectNoMarker(p: Planted) {
		const tools = toolsFor(p.box.root);
		const stat = await run(tools, "git_diff", {});
		const patch = await run(tools, "git_diff", { patch: true });
		expect(existsSync(p.marker), `marker created; results: ${textOf(stat)} / ${textOf(patch)}`).toBe(false);
		// Without the old blob there is nothing to diff against: an honest error, not a fetch.
		expect(stat.isError).toBe(true);
		expect(textOf(stat)).toMatch(/^git diff failed/);
	}

	test("core.sshCommand on an ssh remote", async () => {
		const p = partialClone();
		p.config("remote.origin.url", "ssh://git@127.0.0.1:1/x.git");
		p.config("core.sshCommand", p.cmd("exit 1"));
		await expectNoMarker(p);
	});

	test("remote.<name>.uploadpack on a local remote", async () => {
		const p = partialClone();
		p.config("remote.origin.uploadpack", p.cmd("exit 1"));
		await expectNoMarker(p);
	});

	test("the ext:: transport, allowed by the repository's own config", async () => {
		const p = partialClone();
		p.config("protocol.ext.allow", "always");
		// ext:: splits its command on spaces; `% ` is a space inside one argument.
		p.config("remote.origin.url", `ext::sh -c touch% ${p.marker}`);
		await expectNoMarker(p);
	});

	test("credential.helper, asked by an http remote that answers 401", async () => {
		const p = partialClone();
		const server: Server = createServer((_req, res) => {
			res.writeHead(401, { "WWW-Authenticate": 'Basic realm="x"' });
			res.end();
		});
		await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
		try {
			const port = (server.address() as AddressInfo).port;
			p.config("remote.origin.url", `http://127.0.0.1:${port}/x.git`);
			p.config("credential.helper", `!${p.cmd("exit 1")}`);
			p.config("core.askPass", p.cmd("exit 1"));
			await expectNoMarker(p);
		} finally {
			server.close();
		}
	});
});

describe("what reaches the isolated git", () => {
	test("only allow-listed keys with plain values are copied from the repository", () => {
		const out = [
			"core.filemode\nfalse",
			"core.autocrlf\ninput",
			"core.eol\nlf; touch x",
			"filter.x.clean\nsh -c 'touch x'",
			"core.fsmonitor\ntrue",
			"core.symlinks",
			"",
		].join("\0");
		expect(copiedConfigArgs(out)).toEqual(["-c", "core.filemode=false", "-c", "core.autocrlf=input"]);
	});

	test("no inherited GIT_* variable survives but the discovery ones; config outside the repository is off", () => {
		const env = safeGitEnv({
			PATH: "/bin",
			HOME: "/home/u",
			GIT_EXTERNAL_DIFF: "x",
			GIT_CONFIG_PARAMETERS: "'filter.x.clean'='x'",
			GIT_CONFIG_COUNT: "1",
			GIT_DIR: "/elsewhere",
			GIT_SSH_COMMAND: "x",
			git_pager: "x",
			SSH_ASKPASS: "x",
			GIT_CEILING_DIRECTORIES: "/home",
		});
		expect(env).toEqual({
			PATH: "/bin",
			HOME: "/home/u",
			GIT_CEILING_DIRECTORIES: "/home",
			GIT_CONFIG_NOSYSTEM: "1",
			GIT_CONFIG_GLOBAL: "/dev/null",
			GIT_ATTR_NOSYSTEM: "1",
			GIT_ALLOW_PROTOCOL: "",
			GIT_TERMINAL_PROMPT: "0",
			GIT_OPTIONAL_LOCKS: "0",
		});
	});

	test("rev-parse output is read strictly", () => {
		expect(parseLayout("true\n/r\n/r/.git\n/r/.git/index\nsha1\n")).toEqual({
			topLevel: "/r",
			commonDir: "/r/.git",
			indexFile: "/r/.git/index",
			objectFormat: "sha1",
		});
		expect(parseLayout("false\n")).toBeUndefined();
		expect(parseLayout("true\n/r\n/r/.git\n/r/.git/index\nmd5\n")).toBeUndefined();
		expect(parseLayout("true\n/r\nwith\nnewline\n/r/.git\n/r/.git/index\nsha1\n")).toBeUndefined();
	});
});
