/**
 * What a tool round runs, as the watch follows it (docs/configuration.md#the-watch). Real executors
 * change a command between tries (`npm test -- -t x`, then `npx vitest run x`), so a run is followed
 * by its subject — a test, build or check run and the files it names, another program and its
 * script, a tool and its path — and by the line that says what went wrong, not by its exact text.
 * Failures that are answers rather than trouble (a `grep` that finds nothing, a probe behind `||`,
 * a command the user stopped) do not count.
 */

import { pathArgument, type ToolCallInfo } from "../events/index.ts";
import { failureLine } from "./error-line.ts";
import { collapse, shellCommand, splitCd } from "./shell.ts";
import { isTestRun } from "./test-summary.ts";

/** A run that tells whether the work holds: the tests, a build, a type or lint check. */
export type VerifyKind = "test" | "build" | "check";

/** Builds and checks by their usual spellings (tests: test-summary.ts `isTestRun`). */
const BUILD_COMMAND =
	/(?:^|[\s;&|(/])(?:(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?build(?:[:._-][\w:.-]*)?|cargo\s+build|go\s+build|make(?:\s+(?:all|build))?|gradlew?\s+(?:\S+\s+){0,4}(?:build|assemble)|mvn\s+(?:\S+\s+){0,4}(?:compile|package)|dotnet\s+build|astro\s+build|vite\s+build|next\s+build)(?=$|[\s;&|)])/;
const CHECK_COMMAND =
	/(?:^|[\s;&|(/])(?:tsc|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:check|typecheck|type-check|lint|tsc|verify)(?:[:._-][\w:.-]*)?|eslint|biome|ruff|mypy|pyright|flake8|clippy|cargo\s+(?:check|clippy)|go\s+vet|astro\s+check|svelte-check|vue-tsc)(?=$|[\s;&|)])/;

export function verifyKind(command: string): VerifyKind | undefined {
	if (isTestRun(command)) return "test";
	if (CHECK_COMMAND.test(command)) return "check";
	if (BUILD_COMMAND.test(command)) return "build";
	return undefined;
}

export interface RunSubject {
	/** What counts as "the same run": a verify kind and the files it names, a program and its script, a tool and its path. */
	key: string;
	/** The same, as a reader would say it (a card-like form). */
	label: string;
	verify?: VerifyKind;
}

/** Words that say what a program is asked to do rather than to what: flags and option values stay out of a subject. */
function isFlag(word: string): boolean {
	return word.startsWith("-");
}

/** A word that names a file or folder: it has a slash or an extension. */
function isPathWord(word: string): boolean {
	return /[/\\]/.test(word) || /\.[A-Za-z0-9]{1,6}$/.test(word);
}

/** `FOO=1 npx --yes vitest run src/a.test.ts` → [`vitest`, `run`, `src/a.test.ts`]: the program and what follows it. */
function programWords(segment: string): string[] {
	const words = segment
		.trim()
		.split(/\s+/)
		.filter((w) => w.length > 0);
	let i = 0;
	while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) i++;
	while (i < words.length && /^(?:sudo|time|nice|env|exec|npx|pnpx|bunx|uv|poetry|pipenv)$/.test(words[i]!)) {
		i++;
		while (i < words.length && isFlag(words[i]!)) i++;
		if (words[i - 1] === "run" || words[i] === "run") i++;
	}
	return words.slice(i).map((w) => w.replace(/^["']|["']$/g, ""));
}

/** The command's pieces in the order they run: `a && b; c | d` → `a`, `b`, `c`, `d` (not inside quotes). */
function segments(command: string): string[] {
	const out: string[] = [];
	let quote: string | undefined;
	let start = 0;
	for (let i = 0; i < command.length; i++) {
		const c = command[i]!;
		if (quote !== undefined) {
			if (c === quote) quote = undefined;
			else if (c === "\\" && quote === '"') i++;
			continue;
		}
		if (c === '"' || c === "'") quote = c;
		else if (c === ";" || c === "|" || (c === "&" && command[i + 1] === "&")) {
			out.push(command.slice(start, i));
			if (command[i + 1] === c) i++;
			start = i + 1;
		}
	}
	out.push(command.slice(start));
	return out.map((s) => s.trim()).filter((s) => s.length > 0);
}

/** Programs that only say or set up, never what a command is about: `echo "=== x ===" && grep …` is a grep. */
const SETUP_PROGRAMS = new Set(["echo", "printf", "cd", "export", "set", "source", ".", "sleep", "true", ":"]);

/** The piece a command is about: the first one that does more than say or set up. */
function mainSegment(line: string): string {
	const pieces = segments(line);
	return pieces.find((s) => !SETUP_PROGRAMS.has(programWords(s)[0] ?? "")) ?? pieces[0] ?? line;
}

/** The first line of a command, after a leading `cd` (where it ran says nothing of what it ran). */
function firstLine(command: string, cwd: string | undefined): string {
	const rest = splitCd(command, cwd).command;
	return collapse(rest.split("\n").find((line) => line.trim().length > 0) ?? "");
}

function shellSubject(command: string, cwd: string | undefined): RunSubject {
	const line = firstLine(command, cwd);
	const verify = verifyKind(line);
	if (verify !== undefined) {
		// The run that verifies: its kind and the files it names (`vitest run src/a.test.ts`).
		const piece = segments(line).find((s) => verifyKind(s) !== undefined) ?? line;
		const files = programWords(piece)
			.filter((w) => !isFlag(w) && isPathWord(w))
			.sort();
		const target = files.join(" ");
		return {
			key: `${verify}\u0000${target}`,
			label: target.length > 0 ? `${verify} ${target}` : verify,
			verify,
		};
	}
	// Any other program: its name and the first word that is not a flag (`python3 scrape.py`, `gh issue`).
	const words = programWords(mainSegment(line));
	const program = words[0] ?? "";
	const object = words.slice(1).find((w) => !isFlag(w));
	const label = object === undefined ? program : `${program} ${object}`;
	return { key: `run\u0000${label}`, label };
}

/** What a round runs: a shell command by its subject, any other tool by its name and path. */
export function runSubject(call: ToolCallInfo, cwd: string | undefined): RunSubject {
	const command = shellCommand(call);
	if (command !== undefined) return shellSubject(command, cwd);
	const path = pathArgument(call.arguments);
	const label = path === undefined ? call.name : `${call.name} ${path}`;
	return { key: `tool\u0000${label}`, label };
}

/** Programs whose non-zero exit is an answer (no match, a difference, a missing file, no such process). */
const ANSWERING_PROGRAMS = new Set([
	"grep",
	"egrep",
	"fgrep",
	"rg",
	"ag",
	"ack",
	"diff",
	"cmp",
	"test",
	"[",
	"[[",
	"which",
	"command",
	"type",
	"pgrep",
	"pkill",
	"kill",
	"ls",
	"stat",
]);

/** The line a stopped command leaves (Pi's bash tool), which is the user's doing, not the executor's trouble. */
const STOPPED = /^\s*(?:Command aborted|Aborted|Command was (?:aborted|cancelled)|Interrupted)\b/im;

/**
 * A failed round that is no trouble: a shell command that expects to fail (`… || …`), whose last
 * program answers with its exit code (`grep`, `diff`, `test`, `ls` …), or that was stopped. Other
 * tools' failures always count.
 */
export function benignFailure(call: ToolCallInfo, output: string): boolean {
	const command = shellCommand(call);
	if (command === undefined) return false;
	if (STOPPED.test(output)) return true;
	const line = firstLine(command, undefined);
	if (line.includes("||")) return true;
	const last = segments(line).at(-1);
	const program = last === undefined ? undefined : programWords(last)[0];
	return program !== undefined && ANSWERING_PROGRAMS.has(program.replace(/^.*\//, ""));
}

/** The line that says what went wrong, as the watch compares it: its failure line, whitespace collapsed, numbers of time left out. */
export function troubleLine(output: string): string | undefined {
	const line = collapse(failureLine(output));
	if (line.length === 0) return undefined;
	return line.replace(/\b\d+(?:\.\d+)?\s*m?s\b/g, "").slice(0, 160);
}
