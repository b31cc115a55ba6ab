/**
 * git_diff: the net change, as git sees it, with a fixed argv and no shell.
 *
 * - Nothing the repository configures can run: the diff runs against an isolated GIT_DIR
 *   that holds none of the repository's config (git-isolation.ts explains why flags alone
 *   cannot promise that), plus `--no-ext-diff --no-textconv`, no pager, no color.
 * - `--ignore-submodules=dirty`: a submodule whose commit moved still shows, but git does not
 *   run `git status` inside it (that would read the submodule's config and run its filters).
 * - `--relative` plus a positive pathspec keep the diff (and its path names) inside the
 *   workspace even when the repository root lies above it.
 * - The path argument is judged by the path policy, refused when it starts with `-`, and
 *   passed after `--` as a `:(literal)` pathspec, so neither option syntax nor pathspec
 *   magic in it means anything to git.
 * - Denied paths are excluded with `:(exclude,glob,icase)` pathspecs built from the same list.
 * - Untracked files are listed after the diff: a net change that hides new files would make
 *   a completeness check look at half the work.
 * - GIT_OPTIONAL_LOCKS=0: git may otherwise refresh (write) the index while diffing.
 */

import { type Tool, Type } from "@mariozechner/pi-ai";
import { assertNever } from "../../../events/index.ts";
import { GIT_DIFF_TOOL_DESCRIPTION, GIT_DIFF_TOOL_NAME, TOOL_REFUSAL, TOOL_TEXT } from "../../../render/index.ts";
import { gitExcludePathspecs } from "./git-exclude.ts";
import {
	COPIED_CONFIG_ARGV,
	copiedConfigArgs,
	GIT_GLOBAL_ARGS,
	HEAD_ARGV,
	isolateGit,
	LAYOUT_ARGV,
	parseLayout,
	safeGitEnv,
} from "./git-isolation.ts";
import { booleanArg, fail, ok, stringArg, type ToolArgs, type ToolOutcome } from "./result.ts";
import type { RunContext } from "./run-context.ts";
import { type RunOutcome, runFile } from "./run-file.ts";
import { refusalText } from "./workspace.ts";

export const GIT_DIFF_DECLARATION: Tool = Object.freeze({
	name: GIT_DIFF_TOOL_NAME,
	description: GIT_DIFF_TOOL_DESCRIPTION,
	parameters: Type.Object({
		path: Type.Optional(Type.String()),
		patch: Type.Optional(Type.Boolean()),
		staged: Type.Optional(Type.Boolean()),
	}),
});

/** Collected per git process; the result is clipped to maxResultChars later anyway. */
const GIT_MAX_BYTES = 4 * 1024 * 1024;
/** How much of git's stderr a failure shows. */
const STDERR_EXCERPT_CHARS = 400;
/** Untracked names listed before "… and N more". */
const UNTRACKED_MAX_LISTED = 200;

export interface GitDiffRequest {
	/** A `:(literal)` pathspec, "." for the whole workspace. */
	pathspec: string;
	patch: boolean;
	staged: boolean;
	excludes: readonly string[];
	/** `-c key=value` pairs copied from the repository (git-isolation.ts's allow-list). */
	config: readonly string[];
	/** The repository's info/exclude, which the isolated GIT_DIR does not lead to. */
	excludeFile?: string | undefined;
}

/** The exact argv of the diff; exported so tests can pin it. */
export function gitDiffArgv(req: GitDiffRequest): string[] {
	return [
		...GIT_GLOBAL_ARGS,
		...req.config,
		"diff",
		"--no-ext-diff",
		"--no-textconv",
		"--no-color",
		"--ignore-submodules=dirty",
		"--relative",
		...(req.patch ? [] : ["--stat"]),
		...(req.staged ? ["--staged"] : []),
		"--",
		req.pathspec,
		...req.excludes,
	];
}

export function gitUntrackedArgv(req: GitDiffRequest): string[] {
	return [
		...GIT_GLOBAL_ARGS,
		...req.config,
		"ls-files",
		"--others",
		"--exclude-standard",
		...(req.excludeFile === undefined ? [] : [`--exclude-from=${req.excludeFile}`]),
		"-z",
		"--",
		req.pathspec,
		...req.excludes,
	];
}

export async function runGitDiff(args: ToolArgs, ctx: RunContext): Promise<ToolOutcome> {
	const ws = ctx.workspace;
	const rawPath = stringArg(args, "path");
	let pathspec = ".";
	if (rawPath !== undefined && rawPath !== "") {
		if (rawPath.startsWith("-")) return fail(TOOL_REFUSAL.optionLikePath(rawPath));
		const verdict = await ws.resolveArgument(rawPath);
		if (verdict.kind !== "ok") return fail(refusalText(verdict, rawPath));
		pathspec = verdict.relative === "" ? "." : `:(literal)${verdict.relative}`;
	}
	const git = (argv: readonly string[], env: NodeJS.ProcessEnv) =>
		runFile("git", argv, {
			cwd: ws.realCwd,
			timeoutMs: ctx.timeoutMs,
			maxBytes: GIT_MAX_BYTES,
			signal: ctx.signal,
			env,
		});

	// Discovery, in the repository itself. Outside a repository `git diff` would turn into
	// `git diff --no-index`; asking first avoids that too.
	const discoveryEnv = safeGitEnv();
	const probe = await git(LAYOUT_ARGV, discoveryEnv);
	if (probe.kind === "exit") return fail(TOOL_TEXT.notGitRepo);
	if (probe.kind !== "ok") return failure(probe, ctx);
	const layout = parseLayout(probe.stdout);
	if (layout === undefined) return fail(TOOL_TEXT.notGitRepo);
	const head = await git(HEAD_ARGV, discoveryEnv);
	if (head.kind !== "ok" && head.kind !== "exit") return failure(head, ctx);
	const copied = await git(COPIED_CONFIG_ARGV, discoveryEnv);
	if (copied.kind !== "ok" && copied.kind !== "exit") return failure(copied, ctx);

	const isolated = await isolateGit(layout, head.kind === "ok" ? head.stdout.trim() : undefined);
	let diff: RunOutcome;
	let untracked: RunOutcome;
	try {
		const req: GitDiffRequest = {
			pathspec,
			patch: booleanArg(args, "patch"),
			staged: booleanArg(args, "staged"),
			excludes: gitExcludePathspecs(ws.denyPatterns),
			config: copied.kind === "ok" ? copiedConfigArgs(copied.stdout) : [],
			excludeFile: isolated.excludeFile,
		};
		diff = await git(gitDiffArgv(req), isolated.env);
		untracked = diff.kind === "ok" ? await git(gitUntrackedArgv(req), isolated.env) : diff;
	} finally {
		await isolated.dispose();
	}
	if (diff.kind !== "ok") return failure(diff, ctx);
	if (untracked.kind !== "ok") return failure(untracked, ctx);

	// Our own matcher filters the untracked list too: it is the authority, git's glob the first pass.
	const newFiles = untracked.stdout.split("\0").filter((name) => name !== "" && ws.deniedBy(name) === undefined);
	const sections: string[] = [];
	const diffText = diff.stdout.replace(/\s+$/, "");
	if (diffText !== "") sections.push(diff.cut ? `${diffText}\n${TOOL_TEXT.gitOutputCut}` : diffText);
	if (newFiles.length > 0) {
		const listed = newFiles.slice(0, UNTRACKED_MAX_LISTED).map((name) => `  ${name}`);
		if (newFiles.length > UNTRACKED_MAX_LISTED)
			listed.push(TOOL_TEXT.untrackedMore(newFiles.length - UNTRACKED_MAX_LISTED));
		sections.push(`${TOOL_TEXT.untrackedHeader}\n${listed.join("\n")}`);
	}
	return ok(sections.length === 0 ? TOOL_TEXT.noChanges : sections.join("\n\n"));
}

/** The tool result for a git run that did not succeed. */
function failure(run: Exclude<RunOutcome, { kind: "ok" }>, ctx: RunContext): ToolOutcome {
	switch (run.kind) {
		case "exit":
			return fail(TOOL_TEXT.gitFailed(run.code, excerpt(run.stderr)));
		case "timeout":
			return fail(TOOL_TEXT.timedOut(GIT_DIFF_TOOL_NAME, ctx.timeoutMs / 1000));
		case "aborted":
			return fail(TOOL_TEXT.cancelled(GIT_DIFF_TOOL_NAME));
		case "spawn-error":
			return fail(TOOL_TEXT.failed(GIT_DIFF_TOOL_NAME, run.message));
		default:
			return assertNever(run, "git run outcome");
	}
}

function excerpt(stderr: string): string {
	const s = stderr.trim();
	return s.length <= STDERR_EXCERPT_CHARS ? s : `${s.slice(0, STDERR_EXCERPT_CHARS)}…`;
}
