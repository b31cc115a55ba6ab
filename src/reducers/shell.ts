/**
 * Shell runs as the ledger reads them (cards: docs/request-format.md#blocks). A call is a shell run when
 * its arguments carry the command — a `command` or `cmd` string (or a `cmd` argv) — whatever the
 * tool is called (`bash`, `exec`, `shell`, `run_command` …). A leading `cd <dir> && ` says where it
 * ran, not what it ran. A tool that sets no error flag can still report a non-zero exit in its
 * output (`exit code 1`, `Exit code: 2`, `exited with code 1`, `exit status 1`).
 */

import { sharedPrefixLength, type ToolCallInfo } from "../events/index.ts";
import { relativePath } from "./paths.ts";

/** `["bash", "-lc", "npm test"]` → `npm test`; any other argv is joined with spaces. */
function argvCommand(argv: readonly unknown[]): string | undefined {
	if (argv.length === 0 || !argv.every((a): a is string => typeof a === "string")) return undefined;
	const [program, flag, script] = argv;
	if (argv.length === 3 && /^(?:ba|z|da)?sh$/.test(program!.replace(/^.*\//, "")) && /^-l?c$/.test(flag!))
		return script;
	return argv.join(" ");
}

/** The command a call runs, when its arguments carry one: a `command` or `cmd` string, or a `cmd` argv. */
export function shellCommand(call: ToolCallInfo): string | undefined {
	const { command, cmd } = call.arguments;
	if (typeof command === "string") return command;
	if (typeof cmd === "string") return cmd;
	if (Array.isArray(cmd)) return argvCommand(cmd);
	if (Array.isArray(command)) return argvCommand(command);
	return undefined;
}

const LEADING_CD = /^\s*cd\s+("[^"]*"|'[^']*'|[^\s;&|]+)\s*(?:&&|;)\s*/;

/** A command split at a leading `cd <dir> && `: `dir` as the session sees it, absent when it is the cwd (or none). */
export interface CommandAt {
	dir?: string;
	command: string;
}

/**
 * A folder relative to `cwd`: inside it as `sub/dir`, beside it as `../other` (when that is no
 * longer than the absolute path), else as written. `.` for the cwd itself.
 */
export function folderFromCwd(dir: string, cwd: string | undefined): string {
	const inside = relativePath(dir, cwd);
	if (inside !== dir || cwd === undefined || !dir.startsWith("/") || !cwd.startsWith("/")) return inside;
	const from = cwd.split("/").filter((s) => s.length > 0);
	const to = dir.split("/").filter((s) => s.length > 0);
	const common = sharedPrefixLength(from, to);
	// Nothing shared but the root: the absolute path says it better.
	if (common === 0) return dir;
	const up = from.length - common;
	const relative = [...Array<string>(up).fill(".."), ...to.slice(common)].join("/");
	return relative.length <= dir.length ? relative || "." : dir;
}

export function splitCd(command: string, cwd: string | undefined): CommandAt {
	const match = LEADING_CD.exec(command);
	if (match === null) return { command };
	const raw = match[1]!;
	const dir = raw.startsWith('"') || raw.startsWith("'") ? raw.slice(1, -1) : raw;
	const rest = command.slice(match[0].length);
	const shown = folderFromCwd(dir, cwd);
	return shown === "." ? { command: rest } : { dir: shown, command: rest };
}

/** Collapse every run of whitespace to one space (the form cards show and the audit compares). */
export function collapse(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}

/** How much of a command's first line counts as the fact of having run it. */
export const COMMAND_FACT_CHARS = 100;

/** What was run, as the fact audit counts it: the first line after a leading `cd`, whitespace collapsed, 100 chars. */
export function commandFact(command: string, cwd: string | undefined): string {
	const { command: rest } = splitCd(command, cwd);
	const first = rest.split("\n").find((line) => line.trim().length > 0) ?? "";
	return collapse(first).slice(0, COMMAND_FACT_CHARS).trim();
}

const EXIT_CODE =
	/\b(?:exit(?:ed)?(?:\s+with)?\s+(?:code|status)|exit\s*code)\s*[:=]?\s*(-?\d+)\b|\breturn(?:ed)?\s+code\s*[:=]?\s*(-?\d+)\b/i;

/**
 * The exit code a shell tool's output reports, read from its first line and its last three
 * non-empty lines (where such tools put it: a log that merely mentions an exit code in the middle
 * says nothing about this run).
 */
export function reportedExitCode(output: string): number | undefined {
	const lines = output.split("\n").filter((line) => line.trim().length > 0);
	const candidates = lines.length <= 4 ? lines : [lines[0]!, ...lines.slice(-3)];
	for (const line of candidates) {
		const match = EXIT_CODE.exec(line);
		if (match !== null) return Number(match[1] ?? match[2]);
	}
	return undefined;
}

/** Did the run fail: the tool said so, or a shell run's output reports a non-zero exit. */
export function runFailed(call: ToolCallInfo, isError: boolean, output: () => string): boolean {
	if (isError) return true;
	if (shellCommand(call) === undefined) return false;
	const code = reportedExitCode(output());
	return code !== undefined && code !== 0;
}
