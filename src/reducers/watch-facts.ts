/**
 * What the watch knows of a branch (docs/configuration.md#the-watch): which runs fail again and
 * again with no pass between (followed by subject and by error line, run-subject.ts), which files
 * changed since the last test, build or check, how long the executor has worked since the last
 * second opinion, the watch's own past reviews and notes, and what the executor's own turns cost.
 * A fold of its own beside the ledger, like the spend: the ledger keeps blocks, this keeps counts,
 * and every decision the watch makes is a pure function of it (policy/watch/).
 */

import {
	ADVISOR_TOOL_NAME,
	CUSTOM_TYPES,
	type LedgerEvent,
	parseUsageRecordData,
	parseWatchMessageDetails,
	type ToolCallInfo,
} from "../events/index.ts";
import { completedAdvice, partsText, reviewAdvice } from "./advisor-result.ts";
import { type CaseReducers, evolve, foldEvents, nothing } from "./case-reducers.ts";
import { isErrorLine } from "./error-line.ts";
import { changedPaths } from "./hidden-work.ts";
import type { Draft } from "./immer.ts";
import { relativePath } from "./paths.ts";
import { benignFailure, runSubject, troubleLine } from "./run-subject.ts";
import { runFailed } from "./shell.ts";
import { parseUsage, type TokenUsage } from "./token-usage.ts";

/** A failed round by the ids the request shows: its result entry and that entry's path position. */
export interface FailedRound {
	id: string;
	pos: number;
}

/** Failures of one subject, or with one error line, with no pass of their runs between. */
export interface FailureStreak {
	/** `subject\0<subject key>` or `error\0<error line>`. */
	key: string;
	/** The subject's label, or the error line. */
	label: string;
	/** How many failures, and the newest few (the request quotes their ids). */
	count: number;
	rounds: readonly FailedRound[];
	/** The subjects whose failures it holds: a pass of any of them ends it. */
	subjects: readonly string[];
	/** The newest failure's error line. */
	error: string | undefined;
	/** The first failure: with the key, it names this streak (a later one of the same run is another). */
	first: FailedRound;
}

/**
 * Why the watch woke: a signal and the facts it fired on (policy/watch/signals.ts finds them, the
 * request names them with their ids). `key` names the signal on these facts: each is reviewed once.
 */
export type WatchFinding =
	| {
			signal: "failure-streak";
			key: string;
			/** The streak (FailureStreak.key) and its first failure: still open when the review settles? */
			streak: string;
			/** Followed by what was run, or by the error line it kept ending in. */
			by: "run" | "error";
			firstId: string;
			label: string;
			count: number;
			rounds: readonly FailedRound[];
			error: string | undefined;
	  }
	| {
			signal: "long-run";
			key: string;
			rounds: number;
			editRounds: number;
			/** No second opinion yet on this branch: the rounds are counted from its start. */
			sinceStart: boolean;
	  }
	| {
			signal: "untested-edits";
			key: string;
			/** `verify.runs` when it fired: a test, build or check run since ends it. */
			verifyRuns: number;
			/** The first of the files changed (the request names these), and how many changed. */
			files: readonly string[];
			fileCount: number;
			editRounds: number;
	  };

/** A streak keeps this many of its newest failures. */
const STREAK_ROUNDS = 6;
/** Files changed since the last verifying run: kept up to this many, counted beyond. */
const EDITED_FILES = 64;

export interface WatchFacts {
	readonly cwd: string | undefined;
	/** Path positions folded (one event per path entry). */
	readonly position: number;
	/** Executor tool rounds on the branch (advisor calls excluded). */
	readonly rounds: number;
	/** Calls waiting for their result (frozen wrappers: immer never walks into the host's arguments). */
	readonly pending: ReadonlyMap<string, Readonly<{ call: ToolCallInfo }>>;
	readonly streaks: ReadonlyMap<string, FailureStreak>;
	/** Test, build and check runs, and what changed since the newest one. */
	readonly verify: {
		readonly runs: number;
		/** `rounds` when the newest one ran. */
		readonly lastRound: number;
		readonly editedSince: readonly string[];
		readonly editRoundsSince: number;
	};
	/** Since the last second opinion: a completed consultation, a completion review, a watch review. */
	readonly opinion: { readonly count: number; readonly lastRound: number; readonly editRounds: number };
	/** Since the last user message. */
	readonly prompt: { readonly pos: number; readonly notes: number };
	/** The watch's own past: what it reviewed (or skipped), when, what it steered in, and what it cost. */
	readonly watch: {
		readonly keys: ReadonlySet<string>;
		readonly reviews: number;
		/** `rounds` at the newest watch review (any outcome, skips included). */
		readonly lastReviewRound: number | undefined;
		/** Executor messages since the newest delivered note (undefined: none yet). */
		readonly turnsSinceNote: number | undefined;
		readonly usd: number;
	};
	/** What the executor's own turns cost, as their messages recorded it. */
	readonly executor: Readonly<TokenUsage>;
	/** The newest executor message: the turn the watch decides at. */
	readonly turn:
		| { readonly id: string; readonly pos: number; readonly calls: number; readonly rounds: number }
		| undefined;
}

export function emptyWatchFacts(cwd?: string): WatchFacts {
	return {
		cwd,
		position: 0,
		rounds: 0,
		pending: new Map(),
		streaks: new Map(),
		verify: { runs: 0, lastRound: 0, editedSince: [], editRoundsSince: 0 },
		opinion: { count: 0, lastRound: 0, editRounds: 0 },
		prompt: { pos: 0, notes: 0 },
		watch: { keys: new Set(), reviews: 0, lastReviewRound: undefined, turnsSinceNote: undefined, usd: 0 },
		executor: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, usd: 0 },
		turn: undefined,
	};
}

type FactsDraft = Draft<WatchFacts>;

function secondOpinion(draft: FactsDraft): void {
	draft.opinion.count++;
	draft.opinion.lastRound = draft.rounds;
	draft.opinion.editRounds = 0;
}

function failed(
	draft: FactsDraft,
	subject: { key: string; label: string },
	error: string | undefined,
	at: FailedRound,
): void {
	const keys: [string, string][] = [[`subject\u0000${subject.key}`, subject.label]];
	// Only a line that says what went wrong joins different runs: a placeholder a host left where the
	// output was ("[Compacted history content evicted …]") is the same for any failure
	// (docs/configuration.md#the-watch).
	if (error !== undefined && isErrorLine(error)) keys.push([`error\u0000${error}`, error]);
	for (const [key, label] of keys) {
		const before = draft.streaks.get(key);
		const rounds = [...(before?.rounds ?? []), at].slice(-STREAK_ROUNDS);
		const subjects = before?.subjects.includes(subject.key)
			? before.subjects
			: [...(before?.subjects ?? []), subject.key];
		draft.streaks.set(key, {
			key,
			label,
			count: (before?.count ?? 0) + 1,
			rounds,
			subjects,
			error: error ?? before?.error,
			first: before?.first ?? at,
		});
	}
}

/** A pass of `subject` ends every streak that holds its failures; a whole suite that passes ends those of its kind. */
function passed(draft: FactsDraft, subject: { key: string; verify?: string }): void {
	const whole = subject.verify !== undefined && subject.key === `${subject.verify}\u0000`;
	for (const [key, streak] of draft.streaks) {
		const ends = streak.subjects.some((s) => s === subject.key || (whole && s.startsWith(`${subject.verify}\u0000`)));
		if (ends) draft.streaks.delete(key);
	}
}

function round(draft: FactsDraft, call: ToolCallInfo, event: Extract<LedgerEvent, { kind: "toolResult" }>): void {
	draft.rounds++;
	if (draft.turn !== undefined && draft.turn.calls > draft.turn.rounds) draft.turn.rounds++;
	const subject = runSubject(call, draft.cwd);
	const output = () => partsText(event.parts);
	const isFailure = runFailed(call, event.isError, output);
	if (subject.verify !== undefined) {
		draft.verify.runs++;
		draft.verify.lastRound = draft.rounds;
		draft.verify.editedSince = [];
		draft.verify.editRoundsSince = 0;
	}
	if (isFailure) {
		if (!benignFailure(call, output()))
			failed(draft, subject, troubleLine(output()), { id: event.id, pos: draft.position });
		return;
	}
	passed(draft, subject);
	const paths = changedPaths(call);
	if (paths.length === 0) return;
	draft.opinion.editRounds++;
	draft.verify.editRoundsSince++;
	const edited = draft.verify.editedSince;
	for (const raw of paths) {
		const path = relativePath(raw, draft.cwd);
		if (edited.length < EDITED_FILES && !edited.includes(path)) edited.push(path);
	}
}

function watchRecord(draft: FactsDraft, data: unknown): void {
	const record = parseUsageRecordData(data);
	if (record === undefined) return;
	if (record.kind === "review" && record.outcome !== "skipped" && record.outcome !== "failed") secondOpinion(draft);
	if (record.kind !== "watch") return;
	if (record.watchKey !== undefined) draft.watch.keys = new Set([...draft.watch.keys, record.watchKey]);
	draft.watch.reviews++;
	draft.watch.lastReviewRound = draft.rounds;
	draft.watch.usd += parseUsage(record.usage)?.usd ?? 0;
	if (record.outcome === "advice") secondOpinion(draft);
}

const watchCases: CaseReducers<WatchFacts, LedgerEvent> = {
	user: (draft) => {
		draft.prompt = { pos: draft.position, notes: 0 };
	},
	assistant: (draft, event) => {
		const calls = event.calls.filter((c) => c.name !== ADVISOR_TOOL_NAME);
		for (const call of calls) draft.pending.set(call.id, Object.freeze({ call }));
		draft.turn = { id: event.id, pos: draft.position, calls: calls.length, rounds: 0 };
		if (draft.watch.turnsSinceNote !== undefined) draft.watch.turnsSinceNote++;
		const usage = parseUsage(event.usage);
		if (usage === undefined) return;
		const spent = draft.executor;
		spent.input += usage.input;
		spent.output += usage.output;
		spent.cacheRead += usage.cacheRead;
		spent.cacheWrite += usage.cacheWrite;
		spent.usd += usage.usd;
	},
	toolResult: (draft, event) => {
		if (event.toolName === ADVISOR_TOOL_NAME) {
			if (completedAdvice(event) !== undefined) secondOpinion(draft);
			return;
		}
		const waiting = draft.pending.get(event.callId);
		if (waiting === undefined) return;
		draft.pending.delete(event.callId);
		round(draft, waiting.call as ToolCallInfo, event);
	},
	customMessage: (draft, event) => {
		if (event.customType === CUSTOM_TYPES.review) {
			if (reviewAdvice(event) !== undefined) secondOpinion(draft);
			return;
		}
		if (event.customType !== CUSTOM_TYPES.watch || parseWatchMessageDetails(event.details) === undefined) return;
		draft.prompt.notes++;
		draft.watch.turnsSinceNote = 0;
	},
	custom: (draft, event) => {
		if (event.customType === CUSTOM_TYPES.usage) watchRecord(draft, event.data);
	},
	// What the watch follows is the executor's work: a compaction or a summary changes what the
	// executor remembers, not what it did, and a `!` run is the user's.
	bashRun: nothing,
	compaction: nothing,
	branchSummary: nothing,
	modelChange: nothing,
	thinkingLevel: nothing,
	system: nothing,
	other: nothing,
	contextEdit: nothing,
	usage: nothing,
};

/** `events` folded onto `state` (one event per path entry: positions are counted here). */
export function foldWatchFacts(state: WatchFacts, events: readonly LedgerEvent[]): WatchFacts {
	return foldEvents(state, events, (draft: FactsDraft, event: LedgerEvent) => {
		draft.position++;
		evolve(watchCases, draft, event, undefined);
	});
}

export function watchFactsOf(events: readonly LedgerEvent[], cwd?: string): WatchFacts {
	return foldWatchFacts(emptyWatchFacts(cwd), events);
}
