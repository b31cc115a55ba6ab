/**
 * What a compaction or a trim hides that the advisor must still see (docs/request-format.md):
 * every path written or edited in the hidden span, every path read there, and the failures that no later successful run
 * of the same command (or the same tool on the same path) resolved.
 */

import { pathArgument, READING_TOOLS, type ToolCallInfo } from "../events/index.ts";
import { partsText } from "./advisor-result.ts";
import type { CarriedFailure, CarriedTest, Positioned } from "./ledger-state.ts";
import type { Round } from "./round.ts";
import { commandFact, shellCommand } from "./shell.ts";
import { testSummary } from "./test-summary.ts";

/** Tools whose successful call changes the named files. */
const WRITING_TOOLS = new Set(["write", "edit", "multi_edit", "multiedit", "apply_patch", "patch", "create"]);

/** File names a patch body touches: `*** Update File: p` (apply_patch) and `+++ b/p` (unified diff). */
function patchPaths(body: string): string[] {
	const out: string[] = [];
	for (const line of body.split("\n")) {
		const patch = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/.exec(line);
		if (patch) {
			out.push(patch[1]!.trim());
			continue;
		}
		const moved = /^\*\*\* Move to: (.+)$/.exec(line);
		if (moved) {
			out.push(moved[1]!.trim());
			continue;
		}
		const diff = /^\+\+\+ (?:b\/)?(.+?)(?:\t.*)?$/.exec(line);
		if (diff && diff[1] !== "/dev/null") out.push(diff[1]!.trim());
	}
	return out;
}

/** Every path a writing call names (empty for any other tool). */
export function changedPaths(call: ToolCallInfo): string[] {
	if (!WRITING_TOOLS.has(call.name.toLowerCase())) return [];
	const args = call.arguments;
	const out: string[] = [];
	const direct = pathArgument(args);
	if (direct !== undefined) out.push(direct);
	if (Array.isArray(args.edits)) {
		for (const edit of args.edits) {
			if (typeof edit === "object" && edit !== null) {
				const path = pathArgument(edit as Record<string, unknown>);
				if (path !== undefined) out.push(path);
			}
		}
	}
	for (const key of ["patch", "input", "diff", "content"]) {
		const value = args[key];
		if (typeof value === "string" && (key !== "content" || direct === undefined)) out.push(...patchPaths(value));
	}
	return [...new Set(out)];
}

/** The path a reading call read, when it is one. */
export function readPath(call: ToolCallInfo): string | undefined {
	return READING_TOOLS.has(call.name.toLowerCase()) ? pathArgument(call.arguments) : undefined;
}

/** Which runs count as "the same": the same shell command, else the same tool on the same path or arguments. */
export function runKey(call: ToolCallInfo): string {
	const args = call.arguments;
	const command = shellCommand(call);
	if (command !== undefined) return `${call.name}\u0000${command.trim()}`;
	const path = pathArgument(args);
	if (path !== undefined) return `${call.name}\u0000${path}`;
	let json: string;
	try {
		json = JSON.stringify(args) ?? "";
	} catch {
		json = "";
	}
	return `${call.name}\u0000${json}`;
}

/** A shell run's test summary line, when its output gives one (test-summary.ts `testSummary`; keyed by its command fact). */
// A stand-in is rebuilt from the first hidden round at every cut of the log, and rounds are never
// changed once folded: a round's output is searched for a test summary once, not once per cut.
const testRuns = new WeakMap<Round, CarriedTest | null>();

export function testRun(round: Round): CarriedTest | undefined {
	const known = testRuns.get(round);
	if (known !== undefined) return known ?? undefined;
	const run = readTestRun(round);
	testRuns.set(round, run ?? null);
	return run;
}

function readTestRun(round: Round): CarriedTest | undefined {
	if (round.status !== "ok" && round.status !== "error") return undefined;
	const command = shellCommand(round.call);
	if (command === undefined) return undefined;
	const summary = testSummary(command, partsText(round.resultParts));
	return summary === undefined ? undefined : { command: commandFact(command, round.cwd), summary };
}

/** Accumulates rounds in branch order. */
export interface WorkTracker {
	/** `at`: the round's block (its id and path position), which a carried failure's card shows. */
	add(round: Round, at: Positioned): void;
	/** A path known changed already (carried by an earlier summary). */
	addFile(path: string): void;
	/** A path known read already (carried by an earlier summary). */
	addRead(path: string): void;
	/** A test summary known already (carried by an earlier summary). */
	addTest(test: CarriedTest): void;
	/** A round after the hidden span: its own card shows a newer summary of its test command. */
	later(round: Round): void;
	/** A later success of the same run: an earlier failure of it is no longer open. */
	resolve(round: Round): void;
	/** Paths written or edited, first mention first, each once. */
	files(): string[];
	/** Paths read and not changed, first read first, each once. */
	reads(): string[];
	/** The newest summary line of each test command, in the order of their newest runs. */
	tests(): CarriedTest[];
	/** Every failure not followed by a success of the same run, oldest first. */
	failures(): CarriedFailure[];
}

export function trackWork(): WorkTracker {
	const files = new Set<string>();
	const reads = new Set<string>();
	const failing = new Map<string, CarriedFailure>();
	const tests = new Map<string, CarriedTest>();
	const addTest = (test: CarriedTest) => {
		tests.delete(test.command);
		tests.set(test.command, test);
	};
	return {
		add(round, at) {
			if (round.status === "ok") for (const path of changedPaths(round.call)) files.add(path);
			const read = readPath(round.call);
			if (read !== undefined && round.status === "ok") reads.add(read);
			const test = testRun(round);
			if (test !== undefined) addTest(test);
			const key = runKey(round.call);
			if (round.status === "error") {
				// Re-inserted so the map stays in the order of the newest failure.
				failing.delete(key);
				failing.set(key, { id: at.id, pos: at.pos, round });
			} else if (round.status === "ok") failing.delete(key);
		},
		addFile(path) {
			files.add(path);
		},
		addRead(path) {
			reads.add(path);
		},
		addTest,
		later(round) {
			const test = testRun(round);
			if (test !== undefined) tests.delete(test.command);
		},
		resolve(round) {
			if (round.status === "ok") failing.delete(runKey(round.call));
		},
		files: () => [...files],
		reads: () => [...reads].filter((path) => !files.has(path)),
		failures: () => [...failing.values()],
		tests: () => [...tests.values()],
	};
}
