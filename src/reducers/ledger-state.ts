/**
 * The ledger: what the branch folds into. Append-only: a block, once created, is never changed, and
 * a compaction of the executor's context is one more block (the advisor keeps what the executor
 * forgot); what the request leaves out of a long log is the renderer's choice (render/log-cut.ts).
 */

import type { ContentPart, HiddenUserWords, LedgerEvent, ToolCallInfo } from "../events/index.ts";
import { type ChunkedList, emptyList } from "./chunked.ts";
import { type ContextEdits, NO_EDITS } from "./context-edits.ts";
import type { Round } from "./round.ts";

/**
 * `pos` is the entry's 1-based position on the branch path, counted by the fold (one event per path
 * entry, folded from the root): the same at every consultation of the branch and on every branch
 * sharing that trunk. The request shows it, in base 36, as the block's id (docs/request-format.md);
 * `id`, the entry id, stays internal (the trim anchor names it).
 */
export interface Positioned {
	id: string;
	pos: number;
}

export interface UserBlock extends Positioned {
	kind: "user";
	parts: ContentPart[];
}

/** The executor's visible prose (an assistant message's text). */
export interface ProseBlock extends Positioned {
	kind: "prose";
	text: string;
}

/** A finished tool round, placed where its result landed (or where it was given up on). */
/** `id`/`pos`: the result entry, or the call's entry for a call that never got a result. */
export interface RoundBlock extends Positioned {
	kind: "round";
	round: Round;
	/**
	 * The round of the card right above this one, when the block before it in the segment is a card:
	 * a card on the same path as that one says so briefly. Set when the block is made, so it never changes.
	 */
	previous?: Round;
}

/**
 * A paraphrase that is not a compaction of this branch: a branch summary (the executor came back from
 * an abandoned branch), or a compaction summary written as a message, which cuts nothing.
 */
export interface SummaryBlock extends Positioned {
	kind: "summary";
	summaryKind: "compaction" | "branch";
	summary: string;
	/** A branch summary's user words from the abandoned branch, re-stated verbatim before the paraphrase. */
	words: SummaryWords[];
}

/**
 * Pi compacted the executor's context here (docs/request-format.md, "The executor's horizon"): the log
 * above stays as it was, and this block says what the executor has of it from now on — Pi's summary,
 * and the entries from `keptPos` on.
 */
export interface CompactionBlock extends Positioned {
	kind: "compaction";
	summary: string;
	/** The first entry Pi kept, by path position; absent when the entry names none on this path. */
	keptPos?: number;
	/**
	 * Characters of Pi's context right after the compaction (its summary and the kept entries, as the
	 * executor's messages hold them): the log is held under it (render/log-cut.ts).
	 */
	contextChars: number;
}

/** A test command's newest summary line, carried past a compaction or a trim: the command as its fact reads. */
export interface CarriedTest {
	command: string;
	summary: string;
}

/** A failed round carried past a compaction or a trim, by the id its card shows (the result's). */
export interface CarriedFailure extends Positioned {
	round: Round;
}

/**
 * A user message a summary re-states. Words from the summarised span of this branch carry their
 * position; a branch summary's words come from an abandoned branch, off this path, and have none
 * (they are shown by entry id).
 */
export interface SummaryWords extends HiddenUserWords {
	pos?: number;
}

/** A visible extension message (preview only). */
export interface NoteBlock extends Positioned {
	kind: "note";
	customType: string;
	parts: ContentPart[];
}

/** A `!cmd` run by the user (in the executor's context). */
export interface ShellBlock extends Positioned {
	kind: "shell";
	command: string;
	output: string;
	exitCode: number | undefined;
	cancelled: boolean;
	truncated: boolean;
}

export type Block = UserBlock | ProseBlock | RoundBlock | SummaryBlock | CompactionBlock | NoteBlock | ShellBlock;

/** A stretch of the log that a completed consultation or a delivered review closed. */
export interface ClosedSegment {
	/** An advisor() consultation, a delivered completion review, or a delivered watch note. */
	closedBy: "consultation" | "review" | "watch";
	blocks: Block[];
	/** The executor's prose alongside the advisor call (consultations; may be empty), or why the watch woke (watch notes). */
	question: string;
	/** The advice that answered it: replayed as the advisor's own assistant turn. */
	advice: string;
	/** Entry id of the advisor result or review message that closed the segment. */
	closingId: string;
	/** Its position on the branch path (see Positioned). */
	closingPos: number;
	/**
	 * Position of the message that asked the question (the closing entry's when unknown, as for a
	 * review): the entry advisor_expand returns the whole question from.
	 */
	questionPos: number;
}

/** An advisor() call that has no result yet. The newest one is the consultation in flight. */
export interface PendingConsultation {
	callId: string;
	callEntryId: string;
	/** The calling message's position on the branch path (see Positioned). */
	callPos: number;
	question: string;
	reasoning: string;
}

/** A non-advisor tool call still waiting for its result. */
export interface PendingCall {
	callEntryId: string;
	/** The calling message's position on the branch path (see Positioned). */
	callPos: number;
	call: ToolCallInfo;
	reasoning: string;
	/** The session cwd when the call was folded (see Round.cwd). */
	cwd?: string;
}

/** The round of a call that has no result: still running, or given up on. */
export function unansweredRound(pending: PendingCall): Round {
	return {
		callEntryId: pending.callEntryId,
		callPos: pending.callPos,
		call: pending.call,
		resultId: undefined,
		resultParts: [],
		status: "no-result",
		reasoning: pending.reasoning,
		...(pending.cwd !== undefined ? { cwd: pending.cwd } : {}),
	};
}

/** The newest branch summary: the branch was re-pathed there, so a trim chosen before it names another path. */
export interface SummaryBoundary {
	id: string;
	kind: "branch";
}

export interface LedgerState {
	closed: ClosedSegment[];
	/** Blocks of the open segment, in order: a chunked list (chunked.ts), so that a fold does not copy them all. */
	open: ChunkedList<Block>;
	/**
	 * Calls waiting for their result, in order. A list (chunked.ts) rather than an array: the fold
	 * makes cards from them, and immer hands a fold a list as it is, never a draft of a call.
	 */
	pendingCalls: ChunkedList<PendingCall>;
	/** Advisor calls waiting for their result, in order (a list, like the pending calls). */
	pendingConsultations: ChunkedList<PendingConsultation>;
	/** Entries that must never reach the advisor: hidden extension messages and `!!` runs. */
	hidden: string[];
	/** The newest branch summary on the branch. */
	summaryBoundary: SummaryBoundary | undefined;
	/**
	 * The executor's newest horizon: the path position its context starts at since Pi's newest
	 * compaction (the first entry kept, or the compaction itself when it keeps none). Before it the
	 * executor has only Pi's summary (docs/request-format.md, "The executor's horizon").
	 */
	horizon: number | undefined;
	/**
	 * Every event on the branch, in order (a compaction measures its kept span from them; advisor_expand
	 * reads them): a chunked list (chunked.ts), so that folding new events does not copy the branch.
	 */
	events: ChunkedList<LedgerEvent>;
	/** The session's working directory, from the session header; cards show paths relative to it. */
	cwd: string | undefined;
	/**
	 * The executor's newest prose on the branch (any assistant text, a question included). A request
	 * may leave its block out; the appendix then repeats it, as it is what the executor says now.
	 */
	lastProse: { id: string; pos: number; text: string } | undefined;
	/**
	 * The newest context edit (Pi 1.x) of each edited entry, by entry id: its replacement, or null
	 * when it was taken out of the executor's context (reducers/context-edits.ts). Replaced whole on
	 * every edit, never changed in place; like a list, immer stores it as a value.
	 */
	contextEdits: ContextEdits;
	/**
	 * The executor's system prompt as Pi 1.x recorded it on the branch, its sections merged in order
	 * (a compaction's copy replaces them): where the user's standing instructions come from. `id` and
	 * `pos` name the newest system entry, which advisor_expand answers for.
	 */
	system: { id: string; pos: number; content: string; sections: Record<string, string> } | undefined;
}

/** `cwd` comes from the session header (absent for a headerless file: paths are then shown as written). */
export function emptyLedger(cwd?: string): LedgerState {
	return {
		closed: [],
		open: emptyList(),
		pendingCalls: emptyList(),
		pendingConsultations: emptyList(),
		hidden: [],
		summaryBoundary: undefined,
		horizon: undefined,
		events: emptyList(),
		cwd,
		lastProse: undefined,
		contextEdits: NO_EDITS,
		system: undefined,
	};
}
