/**
 * The ledger's fold: (ledger, events) → ledger, with immer — blocks, tool rounds, segments closed
 * by consultations and reviews, compactions and branch summaries (the spend and the trim anchor have
 * folds of their own). Each event is applied on its own by the handler of its kind, so folding a
 * branch in one go or in any number of pieces gives the same state (a property test holds us to it).
 */

import {
	ADVISOR_TOOL_NAME,
	type ContextReplacement,
	CUSTOM_TYPES,
	type LedgerEvent,
	type ToolCallInfo,
	type ToolResultEvent,
} from "../events/index.ts";
import { completedAdvice, partsText, reviewAdvice } from "./advisor-result.ts";
import { appended, type ChunkedList, emptyList, itemAt, type ListBuilder, listBuilder, listItems } from "./chunked.ts";
import { type ContextEdits, editedEvent, editedProse } from "./context-edits.ts";
import { changedPaths, trackWork, type WorkTracker } from "./hidden-work.ts";
import { current, type Draft, isDraft, original, produce } from "./immer.ts";
import {
	type Block,
	type CarriedFailure,
	emptyLedger,
	type LedgerState,
	type PendingConsultation,
	type RoundBlock,
	type RoundStatus,
	type UserWordsRecord,
	unansweredRound,
} from "./ledger-state.ts";
import { runFailed } from "./shell.ts";
import { mergeSections } from "./standing-instructions.ts";

type LedgerDraft = Draft<LedgerState>;

interface ApplyContext {
	/** Every event up to and including the one being applied (not a draft: reading it makes no drafts). */
	events: ChunkedList<LedgerEvent>;
	/** The event's index on the branch: the fold always starts at the root. */
	index: number;
	/** Its path position, `index + 1`: what blocks and the ids the request shows are placed by. */
	pos: number;
	/** True while a compaction re-applies its kept span: those user words are already recorded. */
	replay: boolean;
	/** The open segment's blocks, appended to in private by this fold (chunked.ts) and handed to the state at its end. */
	blocks: OpenBlocks;
}

/** One fold's open segment: replaced when a consultation closes the segment or a compaction restarts the log. */
interface OpenBlocks {
	open: ListBuilder<Block>;
}

/**
 * Events folded per immer `produce`: a produce keeps every draft it makes until it ends, so a whole
 * branch (`ledgerOf`, a `render` of a long session) is folded in pieces — the same state, since
 * the fold is piecewise — and its drafts die young instead of piling up.
 */
const EVENTS_PER_PRODUCE = 1024;

export function foldLedger(state: LedgerState, newEvents: readonly LedgerEvent[]): LedgerState {
	let next = state;
	for (let from = 0; from < newEvents.length; from += EVENTS_PER_PRODUCE)
		next = foldPiece(next, newEvents, from, Math.min(newEvents.length, from + EVENTS_PER_PRODUCE));
	return next;
}

/** `newEvents[from..to)` folded onto `state` in one produce. */
function foldPiece(state: LedgerState, newEvents: readonly LedgerEvent[], from: number, to: number): LedgerState {
	// Appended without copying the branch (chunked.ts); frozen, so immer passes over it when finalising.
	const events = appended(state.events, from === 0 && to === newEvents.length ? newEvents : newEvents.slice(from, to));
	const first = state.events.length;
	return produce(state, (draft) => {
		draft.events = events as Draft<ChunkedList<LedgerEvent>>;
		// The blocks are never drafted: a fold appends to a private copy of the open segment's last chunk.
		const blocks: OpenBlocks = { open: listBuilder(state.open) };
		// One context for the piece, moved along it (a handler reads it while it runs, never keeps it).
		const ctx: ApplyContext = { events, index: first, pos: first + 1, replay: false, blocks };
		for (let index = first; index < events.length; index++) {
			ctx.index = index;
			ctx.pos = index + 1;
			apply(draft, newEvents[from + index - first]!, ctx);
		}
		draft.open = blocks.open.done() as Draft<ChunkedList<Block>>;
	});
}

/** The ledger of a whole branch; `cwd` (the session's, from its header) makes its cards relative. */
export function ledgerOf(events: readonly LedgerEvent[], cwd?: string): LedgerState {
	return foldLedger(emptyLedger(cwd), events);
}

/** One handler per event kind: what that event does to the ledger (the fold's `evolve`). */
type Handlers = {
	[K in LedgerEvent["kind"]]: (
		draft: LedgerDraft,
		event: Extract<LedgerEvent, { kind: K }>,
		ctx: ApplyContext,
	) => void;
};

/** Events that change nothing the advisor reads: model and thinking switches, extension state, labels. */
const ignore = (): void => {};

const handlers: Handlers = {
	user: (draft, event, ctx) => {
		pushBlock(ctx.blocks, { kind: "user", id: event.id, pos: ctx.pos, parts: event.parts });
		if (!ctx.replay) {
			const words = Object.freeze({ id: event.id, parts: event.parts, index: ctx.index });
			draft.userWords = appended(plain(draft.userWords), [words]) as Draft<ChunkedList<UserWordsRecord>>;
		}
	},
	assistant: (draft, event, ctx) => {
		// Pi writes every result of a message before the next assistant message, so calls still
		// pending now never got one: they become cards where they were given up on.
		giveUpPendingCalls(draft, ctx.blocks);
		const advisorCalls = event.calls.filter((c) => c.name === ADVISOR_TOOL_NAME);
		for (const call of advisorCalls) {
			draft.pendingConsultations.push({
				callId: call.id,
				callEntryId: event.id,
				callPos: ctx.pos,
				question: event.text,
				reasoning: event.thinking,
			});
		}
		if (event.text.trim().length > 0) draft.lastProse = { id: event.id, pos: ctx.pos, text: event.text };
		// The prose beside an advisor call is the question of that consultation, not a log block.
		if (advisorCalls.length === 0 && event.text.trim().length > 0) {
			pushBlock(ctx.blocks, { kind: "prose", id: event.id, pos: ctx.pos, text: event.text });
		}
		for (const call of event.calls) {
			if (call.name === ADVISOR_TOOL_NAME) continue;
			draft.pendingCalls.push({
				callEntryId: event.id,
				callPos: ctx.pos,
				call,
				reasoning: event.thinking,
				...cwdOf(draft),
			});
		}
	},
	toolResult: (draft, event, ctx) => {
		const consultation = draft.pendingConsultations.findIndex((p) => p.callId === event.callId);
		if (consultation !== -1 || event.toolName === ADVISOR_TOOL_NAME)
			settleConsultation(draft, event, consultation, ctx);
		else pushBlock(ctx.blocks, answeredRound(draft, event, ctx.pos));
	},
	bashRun: (draft, event, ctx) => {
		if (event.excluded) {
			hide(draft, event.id);
			return;
		}
		pushBlock(ctx.blocks, {
			kind: "shell",
			id: event.id,
			pos: ctx.pos,
			command: event.command,
			output: event.output,
			exitCode: event.exitCode,
			cancelled: event.cancelled,
			truncated: event.truncated,
		});
	},
	customMessage: (draft, event, ctx) => {
		if (event.customType === CUSTOM_TYPES.review) {
			const advice = reviewAdvice(event);
			if (advice !== undefined) closeSegment(draft, ctx.blocks, "review", "", advice, event.id, ctx.pos, ctx.pos);
			return;
		}
		if (!event.display) {
			hide(draft, event.id);
			return;
		}
		pushBlock(ctx.blocks, {
			kind: "note",
			id: event.id,
			pos: ctx.pos,
			customType: event.customType,
			parts: event.parts,
		});
	},
	compaction: (draft, event, ctx) => {
		if (!event.resets) {
			pushBlock(ctx.blocks, {
				kind: "summary",
				id: event.id,
				pos: ctx.pos,
				summaryKind: "compaction",
				summary: event.summary,
				words: [],
				files: [],
				reads: [],
				tests: [],
				failures: [],
			});
			return;
		}
		// Like Pi, only the newest compaction counts: an older one inside a kept span is skipped.
		if (ctx.replay) return;
		if (event.system !== undefined)
			draft.system = {
				id: event.id,
				pos: ctx.pos,
				content: event.system.content,
				sections: mergeSections({}, event.system.sections),
			};
		compact(draft, event.id, event.summary, event.firstKeptEntryId, ctx);
	},
	system: (draft, event, ctx) => {
		const before = draft.system;
		draft.system = {
			id: event.id,
			pos: ctx.pos,
			content: event.content.trim().length > 0 ? event.content : (before?.content ?? ""),
			sections: mergeSections(before === undefined ? {} : current(before.sections), event.sections),
		};
	},
	branchSummary: (draft, event, ctx) => {
		pushBlock(ctx.blocks, {
			kind: "summary",
			id: event.id,
			pos: ctx.pos,
			summaryKind: "branch",
			summary: event.summary,
			words: event.hiddenUserWords,
			files: [],
			reads: [],
			tests: [],
			failures: [],
		});
		draft.summaryBoundary = { id: event.id, kind: "branch" };
	},
	contextEdit: (draft, event) => {
		// A new record each time, never a change to the old one: the fold reads it as a plain value.
		draft.contextEdits = { ...plain(draft.contextEdits), [event.targetId]: event.replacement };
		retarget(draft, event.targetId, event.replacement);
	},
	modelChange: ignore,
	thinkingLevel: ignore,
	custom: ignore,
	usage: ignore,
	other: ignore,
};

function apply(draft: LedgerDraft, event: LedgerEvent, ctx: ApplyContext): void {
	// An entry read after its edit (a compaction re-reads its kept span) is read as the executor's
	// context holds it; one taken out of that context makes nothing (context-edits.ts).
	const edited = editedEvent(event, plain(draft.contextEdits));
	if (edited === undefined) return;
	// The map has a handler of the right kind for every event; TypeScript cannot pair them by itself.
	const handle = handlers[edited.kind] as (draft: LedgerDraft, event: LedgerEvent, ctx: ApplyContext) => void;
	handle(draft, edited, ctx);
}

/**
 * What still waits on an edited message reads it as edited from now on: its pending calls (their
 * cards are made later, when the result lands or the call is given up on), the question of its
 * pending consultation, and the newest prose the appendix may repeat. A call the replacement no
 * longer makes, or any of an omitted message, is gone.
 */
function retarget(draft: LedgerDraft, targetId: string, replacement: ContextReplacement | null): void {
	if (draft.pendingCalls.some((p) => p.callEntryId === targetId)) {
		draft.pendingCalls = current(draft.pendingCalls).flatMap((p) => {
			if (p.callEntryId !== targetId) return [p];
			const call = replacement?.calls.find((c) => c.id === p.call.id);
			return call === undefined || replacement === null ? [] : [{ ...p, call, reasoning: replacement.thinking }];
		});
	}
	const question = editedProse(targetId, "", { [targetId]: replacement });
	if (draft.pendingConsultations.some((p) => p.callEntryId === targetId)) {
		draft.pendingConsultations = current(draft.pendingConsultations).flatMap((p) =>
			p.callEntryId !== targetId
				? [p]
				: question === undefined || replacement === null
					? []
					: [{ ...p, question, reasoning: replacement.thinking }],
		);
	}
	if (draft.lastProse?.id === targetId) {
		draft.lastProse =
			question === undefined || question.trim().length === 0
				? undefined
				: { ...plain(draft.lastProse), text: question };
	}
}

/**
 * The result of an advisor call (or of a call whose consultation is pending): advice closes the
 * segment under its question; a failure or skip leaves the executor's prose once no other advisor
 * call of the same message is still pending.
 */
function settleConsultation(draft: LedgerDraft, event: ToolResultEvent, consultation: number, ctx: ApplyContext): void {
	const { pos } = ctx;
	const pending = consultation === -1 ? undefined : plain(draft.pendingConsultations[consultation]);
	if (consultation !== -1) draft.pendingConsultations.splice(consultation, 1);
	const advice = completedAdvice(event);
	if (advice !== undefined) {
		// Other advisor calls of the same message shared this question; it is answered now.
		if (pending !== undefined) {
			draft.pendingConsultations = draft.pendingConsultations.filter((p) => p.callEntryId !== pending.callEntryId);
		}
		const question = pending?.question ?? "";
		closeSegment(draft, ctx.blocks, "consultation", question, advice, event.id, pos, pending?.callPos ?? pos);
	} else if (pending !== undefined && !draft.pendingConsultations.some((p) => p.callEntryId === pending.callEntryId)) {
		keepProse(ctx.blocks, pending);
	}
}

/** A tool round completed by its result: the pending call it answers (taken off the list) and the result. */
function answeredRound(draft: LedgerDraft, event: ToolResultEvent, pos: number): RoundBlock {
	const callIndex = draft.pendingCalls.findIndex((p) => p.call.id === event.callId);
	const pending = callIndex === -1 ? undefined : plain(draft.pendingCalls[callIndex]);
	if (callIndex !== -1) draft.pendingCalls.splice(callIndex, 1);
	// A result whose call is not on the branch still deserves a card; its arguments are unknown.
	const call = pending?.call ?? { id: event.callId, name: event.toolName, arguments: {} };
	return {
		kind: "round",
		id: event.id,
		pos,
		round: {
			callEntryId: pending?.callEntryId ?? event.id,
			callPos: pending?.callPos ?? pos,
			call,
			resultId: event.id,
			resultParts: event.parts,
			status: resultStatus(call, event),
			...(event.withheld !== undefined ? { withheld: event.withheld } : {}),
			reasoning: pending?.reasoning ?? "",
			...cwdOf(draft),
		},
	};
}

/** How a round ended: the tool's error flag, or a shell run's reported non-zero exit. */
function resultStatus(call: ToolCallInfo, event: ToolResultEvent): RoundStatus {
	return runFailed(call, event.isError, () => partsText(event.parts)) ? "error" : "ok";
}

/**
 * The plain value behind a draft. Pending calls are never modified, so their original is exact;
 * a draft must not end up inside a frozen block, where immer would not finalise it.
 */
function plain<T>(value: T): T {
	return isDraft(value) ? (original(value as Draft<T>) as T) : value;
}

/**
 * Blocks are frozen (shallowly) as they are made: they never change afterwards, and immer skips
 * frozen values when it finalises, so a block costs nothing in later folds.
 */
function pushBlock(blocks: OpenBlocks, block: Block): void {
	const { open } = blocks;
	if (block.kind === "round") {
		// The card above: only the executor's prose may sit between (user words start a new thought).
		let i = open.length - 1;
		while (i >= 0 && open.at(i)!.kind === "prose") i--;
		const above = open.at(i);
		// Set on the new block itself (every block is made fresh for its push), not on a copy of it.
		if (above?.kind === "round") block.previous = above.round;
	}
	open.push(Object.freeze(block) as Block);
}

/**
 * A failed, skipped or abandoned consultation leaves nothing of itself, but the executor's prose
 * beside the call is still its prose (it may state what it did): it stays in the log as a block,
 * placed where the consultation ended.
 */
function keepProse(blocks: OpenBlocks, pending: PendingConsultation): void {
	if (pending.question.trim().length > 0)
		pushBlock(blocks, { kind: "prose", id: pending.callEntryId, pos: pending.callPos, text: pending.question });
}

/** The cwd to stamp on a call, as an optional field (absent, not undefined, when unknown). */
function cwdOf(draft: LedgerDraft): { cwd?: string } {
	return draft.cwd === undefined ? {} : { cwd: draft.cwd };
}

function hide(draft: LedgerDraft, id: string): void {
	if (!draft.hidden.includes(id)) draft.hidden.push(id);
}

function giveUpPendingCalls(draft: LedgerDraft, blocks: OpenBlocks): void {
	if (draft.pendingCalls.length > 0) {
		for (const drafted of draft.pendingCalls) {
			const pending = plain(drafted);
			pushBlock(blocks, {
				kind: "round",
				id: pending.callEntryId,
				pos: pending.callPos,
				round: unansweredRound(pending),
			});
		}
		draft.pendingCalls = [];
	}
	// A consultation that never got a result leaves nothing, like a failed one — but the executor's prose stays.
	if (draft.pendingConsultations.length > 0) {
		const seen = new Set<string>();
		for (const drafted of draft.pendingConsultations) {
			const pending = plain(drafted);
			if (seen.has(pending.callEntryId)) continue;
			seen.add(pending.callEntryId);
			keepProse(blocks, pending);
		}
		draft.pendingConsultations = [];
	}
}

function closeSegment(
	draft: LedgerDraft,
	blocks: OpenBlocks,
	closedBy: "consultation" | "review",
	question: string,
	advice: string,
	closingId: string,
	closingPos: number,
	questionPos: number,
): void {
	// A closed segment is a plain array of its blocks: it never grows again.
	draft.closed.push({
		closedBy,
		blocks: listItems(blocks.open.done()),
		question,
		advice,
		closingId,
		closingPos,
		questionPos,
	});
	blocks.open = listBuilder(emptyList());
}

/**
 * Pi replaced everything before `firstKeptEntryId` with a summary; the advisor's log follows,
 * except that the user's own words from the summarised span are re-stated ahead of the paraphrase.
 */
function compact(
	draft: LedgerDraft,
	id: string,
	summary: string,
	firstKeptEntryId: string | null,
	ctx: ApplyContext,
): void {
	let kept = ctx.index;
	if (firstKeptEntryId !== null) {
		for (let i = 0; i < ctx.index; i++) {
			if (itemAt(ctx.events, i)!.id === firstKeptEntryId) {
				kept = i;
				break;
			}
		}
	}
	const edits = plain(draft.contextEdits);
	// The words re-stated as the executor's context holds them now: replaced, or left out when omitted.
	const words = listItems(plain(draft.userWords))
		.filter((w) => w.index < kept)
		.flatMap((w) => {
			const edit = Object.hasOwn(edits, w.id) ? edits[w.id] : undefined;
			if (edit === null) return [];
			return [{ id: w.id, parts: edit?.parts ?? w.parts, pos: w.index + 1 }];
		});
	const work = hiddenWork(ctx.events, kept, ctx.index, draft.cwd, edits);
	draft.closed = [];
	ctx.blocks.open = listBuilder(emptyList());
	ctx.blocks.open.push(
		Object.freeze({
			kind: "summary",
			id,
			pos: ctx.index + 1,
			summaryKind: "compaction",
			summary,
			words,
			...cwdOf(draft),
			files: work.files(),
			reads: work.reads(),
			tests: work.tests(),
			failures: work.failures(),
		}) as Block,
	);
	draft.pendingCalls = [];
	draft.pendingConsultations = [];
	for (let i = kept; i < ctx.index; i++)
		apply(draft, itemAt(ctx.events, i)!, { ...ctx, index: i, pos: i + 1, replay: true });
	draft.summaryBoundary = { id, kind: "compaction" };
}

/**
 * The work a compaction hides: rounds whose result lies before `kept`. A success anywhere before
 * the compaction (`end`) resolves an earlier failure of the same run; paths come from the hidden
 * rounds only, the kept ones show their cards (save a kept result whose call was hidden).
 */
function hiddenWork(
	events: ChunkedList<LedgerEvent>,
	kept: number,
	end: number,
	cwd: string | undefined,
	edits: ContextEdits,
): WorkTracker {
	const tracker = trackWork();
	const calls = new Map<string, { callEntryId: string; call: ToolCallInfo; reasoning: string; at: number }>();
	const late: CarriedFailure[] = [];
	for (let i = 0; i < end; i++) {
		// Read as the executor's context holds it now: an omitted entry carries nothing past the summary.
		const event = editedEvent(itemAt(events, i)!, edits);
		if (event === undefined) continue;
		if (event.kind === "assistant") {
			for (const call of event.calls)
				calls.set(call.id, { callEntryId: event.id, call, reasoning: event.thinking, at: i });
			continue;
		}
		if (event.kind !== "toolResult" || event.toolName === ADVISOR_TOOL_NAME) continue;
		const pending = calls.get(event.callId);
		const call = pending?.call ?? { id: event.callId, name: event.toolName, arguments: {} };
		const round = {
			callEntryId: pending?.callEntryId ?? event.id,
			callPos: (pending?.at ?? i) + 1,
			call,
			resultId: event.id,
			resultParts: event.parts,
			status: resultStatus(call, event),
			reasoning: "",
			...(cwd === undefined ? {} : { cwd }),
		};
		if (i < kept) tracker.add(round, { id: event.id, pos: i + 1 });
		else tracker.later(round);
		if (i >= kept && round.status === "ok") {
			late.push({ id: event.id, pos: i + 1, round });
			// A kept result whose call the compaction hid: its card cannot name the path, so the list does.
			if (pending !== undefined && pending.at < kept)
				for (const path of changedPaths(round.call)) tracker.addFile(path);
		}
	}
	// Successes in the kept span resolve hidden failures; they add no paths (their cards are in the log).
	for (const success of late) tracker.resolve(success.round);
	return tracker;
}
