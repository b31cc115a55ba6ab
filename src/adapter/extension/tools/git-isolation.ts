/**
 * Running git on a repository that may be hostile, without git ever starting a program the
 * repository (or anything else but git itself) names.
 *
 * Why flags are not enough: `--no-ext-diff --no-textconv` stop diff drivers, but git also
 * runs the `filter.<x>.clean`/`process` driver that any `.gitattributes` names whenever it must
 * hash a work-tree file, and git 2.39 has no way to ignore in-tree attributes (`--attr-source`
 * arrived in 2.40, and even then a tree's `.gitattributes` would still apply). A submodule's own
 * config is read by the `git status` that diff runs inside it, and a partial clone fetches
 * missing objects on demand through whatever transport, ssh command, upload-pack or credential
 * helper its config names. Overriding each key with `-c` needs every driver's name in advance,
 * and the config can change between reading it and running git.
 *
 * So the repository's config is never read by the git that diffs. It runs with GIT_DIR set to
 * a fresh temporary folder holding only a minimal config we write (format version, object
 * format, and a few boolean/enum keys copied from the repository that change how the work
 * tree is compared, never what runs), a detached HEAD at the repository's HEAD commit, and
 * the repository's own objects (GIT_OBJECT_DIRECTORY), index (GIT_INDEX_FILE) and work tree
 * (GIT_WORK_TREE). Every attribute still names its driver, but no driver is defined anywhere
 * git looks, so none can run; without `extensions.partialClone` there is no promisor remote
 * to fetch from. The rest closes what config is not:
 * - GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null, every inherited GIT_* variable removed
 *   (GIT_EXTERNAL_DIFF, GIT_PAGER, GIT_SSH_COMMAND, GIT_CONFIG_PARAMETERS, GIT_DIR, ...);
 * - GIT_ALLOW_PROTOCOL empty: no transport at all, should anything still try to fetch;
 * - `--no-ext-diff --no-textconv --no-pager`, `-c core.fsmonitor=false`;
 * - `--ignore-submodules=dirty` in the diff itself (in git-diff.ts): a submodule's moved
 *   commit still shows, but git does not run `git status` inside it (which would read the
 *   submodule's own config and run its filters);
 * - GIT_OPTIONAL_LOCKS=0: the real index is read, never refreshed or written.
 *
 * Discovery (where the repository is, its HEAD) does run in the repository: `git rev-parse`
 * and `git config --get-regexp` read config but hash no work-tree file and start nothing.
 */

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Global options of every git run: nothing may start a pager or an fsmonitor hook. */
export const GIT_GLOBAL_ARGS = ["-c", "core.fsmonitor=false", "--no-pager"] as const;

/** Inherited variables that only steer discovery, and so may stay. */
const KEPT_GIT_VARIABLES = new Set(["GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"]);

/**
 * Config keys copied from the repository into the isolated config: how the work tree is
 * compared to the index (exec bits, symlinks, case, line endings, stat fields). Each takes a
 * boolean or a short keyword, and is passed only if it looks like one.
 */
const COPIED_KEYS = [
	"core.filemode",
	"core.symlinks",
	"core.ignorecase",
	"core.precomposeunicode",
	"core.autocrlf",
	"core.eol",
	"core.checkstat",
	"core.trustctime",
] as const;
const COPIED_VALUE = /^[A-Za-z0-9_-]{1,16}$/;

/** The environment for every git run: the caller's, with no GIT_* variable git could obey. */
export function safeGitEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(base)) {
		if (key.toUpperCase().startsWith("GIT_") && !KEPT_GIT_VARIABLES.has(key)) continue;
		if (key === "SSH_ASKPASS") continue;
		env[key] = value;
	}
	return {
		...env,
		GIT_CONFIG_NOSYSTEM: "1",
		GIT_CONFIG_GLOBAL: "/dev/null",
		GIT_ATTR_NOSYSTEM: "1",
		GIT_ALLOW_PROTOCOL: "",
		GIT_TERMINAL_PROMPT: "0",
		GIT_OPTIONAL_LOCKS: "0",
	};
}

/** `git rev-parse` asking where everything is; its output is parsed by parseLayout. */
export const LAYOUT_ARGV = [
	...GIT_GLOBAL_ARGS,
	"rev-parse",
	"--path-format=absolute",
	"--is-inside-work-tree",
	"--show-toplevel",
	"--git-common-dir",
	"--git-path",
	"index",
	"--show-object-format",
] as const;

export const HEAD_ARGV = [...GIT_GLOBAL_ARGS, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"] as const;

export const COPIED_CONFIG_ARGV = [
	...GIT_GLOBAL_ARGS,
	"config",
	"-z",
	"--get-regexp",
	`^(${COPIED_KEYS.map((k) => k.replace(".", "\\.")).join("|")})$`,
] as const;

export interface RepoLayout {
	topLevel: string;
	commonDir: string;
	indexFile: string;
	objectFormat: "sha1" | "sha256";
}

/** undefined when not inside a work tree (or the output is not what was asked for). */
export function parseLayout(stdout: string): RepoLayout | undefined {
	const lines = stdout.replace(/\n$/, "").split("\n");
	if (lines.length !== 5 || lines[0] !== "true") return undefined;
	const [, topLevel, commonDir, indexFile, objectFormat] = lines as [string, string, string, string, string];
	if (objectFormat !== "sha1" && objectFormat !== "sha256") return undefined;
	return { topLevel, commonDir, indexFile, objectFormat };
}

/** `-c key=value` pairs from `git config -z --get-regexp` output, allow-listed keys and plain values only. */
export function copiedConfigArgs(stdout: string): string[] {
	const args: string[] = [];
	for (const record of stdout.split("\0")) {
		const newline = record.indexOf("\n");
		if (newline < 0) continue;
		const key = record.slice(0, newline).toLowerCase();
		const value = record.slice(newline + 1);
		if ((COPIED_KEYS as readonly string[]).includes(key) && COPIED_VALUE.test(value))
			args.push("-c", `${key}=${value}`);
	}
	return args;
}

export interface IsolatedGit {
	/** The environment that points git at the isolated GIT_DIR and the repository's data. */
	env: NodeJS.ProcessEnv;
	/** The repository's info/exclude, for `ls-files --exclude-from` (GIT_DIR no longer leads to it). */
	excludeFile: string | undefined;
	dispose(): Promise<void>;
}

/** A full object id, as `rev-parse --verify` prints it (sha1 or sha256). */
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** A throwaway GIT_DIR for `layout`, at `head` (undefined: no commit yet). */
export async function isolateGit(layout: RepoLayout, head: string | undefined): Promise<IsolatedGit> {
	// HEAD is written into a file git parses: only ever an object id.
	if (head !== undefined && !OBJECT_ID.test(head)) throw new Error(`unexpected HEAD ${JSON.stringify(head)}`);
	const gitDir = await mkdtemp(join(tmpdir(), "advisor-git-"));
	try {
		await mkdir(join(gitDir, "refs"));
		// A commit-less repository: HEAD names a branch that does not exist, as after `git init`.
		await writeFile(join(gitDir, "HEAD"), head === undefined ? "ref: refs/heads/unborn\n" : `${head}\n`);
		const sha256 = layout.objectFormat === "sha256";
		const config = [
			"[core]",
			`\trepositoryformatversion = ${sha256 ? 1 : 0}`,
			"\tbare = false",
			...(sha256 ? ["[extensions]", "\tobjectformat = sha256"] : []),
			"",
		].join("\n");
		await writeFile(join(gitDir, "config"), config);
	} catch (e) {
		await rm(gitDir, { recursive: true, force: true });
		throw e;
	}
	const exclude = join(layout.commonDir, "info", "exclude");
	return {
		env: {
			...safeGitEnv(),
			GIT_DIR: gitDir,
			GIT_WORK_TREE: layout.topLevel,
			GIT_INDEX_FILE: layout.indexFile,
			GIT_OBJECT_DIRECTORY: join(layout.commonDir, "objects"),
		},
		excludeFile: existsSync(exclude) ? exclude : undefined,
		dispose: () => rm(gitDir, { recursive: true, force: true }),
	};
}
