/**
 * The ledger's fold: (ledger, events) → ledger — blocks, tool rounds, segments closed by
 * consultations and reviews, compactions and branch summaries (the spend and the trim anchor have
 * folds of their own). Each event is applied on its own by the case reducer of its kind
 * (case-reducers.ts), so folding a branch in one go or in any number of pieces gives the same state
 * (a property test holds us to it).
 */

import {
	ADVISOR_TOOL_NAME,
	type ContextReplacement,
	CUSTOM_TYPES,
	type LedgerEvent,
	parseWatchMessageDetails,
	type ToolCallInfo,
	type ToolResultEvent,
} from "../events/index.ts";
import { completedAdvice, partsText, reviewAdvice } from "./advisor-result.ts";
import { type CaseReducers, evolve, foldEvents, nothing } from "./case-reducers.ts";
import { type ChunkedList, emptyList, listOf } from "./chunked.ts";
import { editedEvent, editedProse, NO_EDITS } from "./context-edits.ts";
import { contextChars } from "./context-size.ts";
import type { Draft } from "./immer.ts";
import {
	type Block,
	type ClosedSegment,
	emptyLedger,
	type LedgerState,
	type PendingConsultation,
	type RoundBlock,
	unansweredRound,
} from "./ledger-state.ts";
import type { RoundStatus } from "./round.ts";
import { runFailed } from "./shell.ts";
import { mergeSections } from "./standing-instructions.ts";

type LedgerDraft = Draft<LedgerState>;

/** Where an event sits on the branch: what the ledger places its blocks by. */
interface EventAt {
	/** The event's index on the branch: the fold always starts at the root. */
	readonly index: number;
	/** Its path position, `index + 1`: what blocks and the ids the request shows are placed by. */
	readonly pos: number;
}

export function foldLedger(state: LedgerState, newEvents: readonly LedgerEvent[]): LedgerState {
	return foldEvents(state, newEvents, (draft: LedgerDraft, event: LedgerEvent) => {
		// Appended without copying the branch (chunked.ts): a compaction refolds from these.
		const index = draft.events.length;
		draft.events = draft.events.appended([event]);
		apply(draft, event, { index, pos: index + 1 });
	});
}

/** The ledger of a whole branch; `cwd` (the session's, from its header) makes its cards relative. */
export function ledgerOf(events: readonly LedgerEvent[], cwd?: string): LedgerState {
	return foldLedger(emptyLedger(cwd), events);
}

function apply(draft: LedgerDraft, event: LedgerEvent, at: EventAt): void {
	// An entry read after its edit (a compaction re-reads its kept span) is read as the executor's
	// context holds it; one taken out of that context makes nothing (context-edits.ts).
	const edited = editedEvent(event, draft.contextEdits);
	if (edited !== undefined) evolve(ledgerCases, draft, edited, at);
}

/** What each kind of event does to the ledger. */
const ledgerCases: CaseReducers<LedgerState, LedgerEvent, EventAt> = {
	user: (draft, event, at) => {
		pushBlock(draft, { kind: "user", id: event.id, pos: at.pos, parts: event.parts });
	},
	assistant: (draft, event, at) => {
		// Pi writes every result of a message before the next assistant message, so calls still
		// pending now never got one: they become cards where they were given up on.
		giveUpPendingCalls(draft);
		const advisorCalls = event.calls.filter((c) => c.name === ADVISOR_TOOL_NAME);
		if (advisorCalls.length > 0)
			draft.pendingConsultations = draft.pendingConsultations.appended(
				advisorCalls.map((call) => ({
					callId: call.id,
					callEntryId: event.id,
					callPos: at.pos,
					question: event.text,
					reasoning: event.thinking,
				})),
			);
		if (event.text.trim().length > 0) draft.lastProse = { id: event.id, pos: at.pos, text: event.text };
		// The prose beside an advisor call is the question of that consultation, not a log block.
		if (advisorCalls.length === 0 && event.text.trim().length > 0) {
			pushBlock(draft, { kind: "prose", id: event.id, pos: at.pos, text: event.text });
		}
		const calls = event.calls.filter((c) => c.name !== ADVISOR_TOOL_NAME);
		if (calls.length > 0)
			draft.pendingCalls = draft.pendingCalls.appended(
				calls.map((call) => ({
					callEntryId: event.id,
					callPos: at.pos,
					call,
					reasoning: event.thinking,
					...cwdOf(draft),
				})),
			);
	},
	toolResult: (draft, event, at) => {
		const consultation = draft.pendingConsultations.toArray().findIndex((p) => p.callId === event.callId);
		if (consultation !== -1 || event.toolName === ADVISOR_TOOL_NAME)
			settleConsultation(draft, event, consultation, at.pos);
		else pushBlock(draft, answeredRound(draft, event, at.pos));
	},
	bashRun: (draft, event, at) => {
		if (event.excluded) {
			hide(draft, event.id);
			return;
		}
		pushBlock(draft, {
			kind: "shell",
			id: event.id,
			pos: at.pos,
			command: event.command,
			output: event.output,
			exitCode: event.exitCode,
			cancelled: event.cancelled,
			truncated: event.truncated,
		});
	},
	customMessage: (draft, event, at) => {
		if (event.customType === CUSTOM_TYPES.review) {
			const advice = reviewAdvice(event);
			if (advice !== undefined) closeSegment(draft, "review", "", advice, event.id, at.pos, at.pos);
			return;
		}
		if (event.customType === CUSTOM_TYPES.watch) {
			const note = parseWatchMessageDetails(event.details);
			if (note !== undefined && note.advice.trim().length > 0) {
				closeSegment(draft, "watch", note.reason, note.advice, event.id, at.pos, at.pos);
				return;
			}
		}
		if (!event.display) {
			hide(draft, event.id);
			return;
		}
		pushBlock(draft, { kind: "note", id: event.id, pos: at.pos, customType: event.customType, parts: event.parts });
	},
	compaction: (draft, event, at) => {
		// A compaction summary written as a message cuts nothing from the executor's context: a paraphrase.
		if (!event.resets) {
			pushBlock(draft, {
				kind: "summary",
				id: event.id,
				pos: at.pos,
				summaryKind: "compaction",
				summary: event.summary,
				words: [],
			});
			return;
		}
		if (event.system !== undefined)
			draft.system = {
				id: event.id,
				pos: at.pos,
				content: event.system.content,
				sections: mergeSections({}, event.system.sections),
			};
		// The log is not cut (docs/request-format.md, "The executor's horizon"): the compaction is one
		// block at its place, naming where the executor's context now starts.
		const kept = keptIndex(draft.events, event.firstKeptEntryId, at.index);
		let chars = event.summary.length;
		if (kept !== undefined) for (let i = kept; i < at.index; i++) chars += keptChars(draft, draft.events.at(i)!);
		draft.horizon = kept === undefined ? at.pos : kept + 1;
		pushBlock(draft, {
			kind: "compaction",
			id: event.id,
			pos: at.pos,
			summary: event.summary,
			...(kept !== undefined ? { keptPos: kept + 1 } : {}),
			contextChars: chars,
		});
	},
	system: (draft, event, at) => {
		const before = draft.system;
		draft.system = {
			id: event.id,
			pos: at.pos,
			content: event.content.trim().length > 0 ? event.content : (before?.content ?? ""),
			sections: mergeSections(before?.sections ?? {}, event.sections),
		};
	},
	branchSummary: (draft, event, at) => {
		pushBlock(draft, {
			kind: "summary",
			id: event.id,
			pos: at.pos,
			summaryKind: "branch",
			summary: event.summary,
			words: event.hiddenUserWords,
		});
		draft.summaryBoundary = { id: event.id, kind: "branch" };
	},
	contextEdit: (draft, event) => {
		draft.contextEdits = draft.contextEdits.with(event.targetId, event.replacement);
		retarget(draft, event.targetId, event.replacement);
	},
	// Nothing the advisor reads: model and thinking switches, extension state and labels, Pi's own
	// spend (its cache warming: the spend fold's business, and not the advisor's), unknown entries.
	modelChange: nothing,
	thinkingLevel: nothing,
	custom: nothing,
	usage: nothing,
	other: nothing,
};

/**
 * What still waits on an edited message reads it as edited from now on: its pending calls (their
 * cards are made later, when the result lands or the call is given up on), the question of its
 * pending consultation, and the newest prose the appendix may repeat. A call the replacement no
 * longer makes, or any of an omitted message, is gone.
 */
function retarget(draft: LedgerDraft, targetId: string, replacement: ContextReplacement | null): void {
	const calls = draft.pendingCalls.toArray();
	if (calls.some((p) => p.callEntryId === targetId)) {
		draft.pendingCalls = listOf(
			calls.flatMap((p) => {
				if (p.callEntryId !== targetId) return [p];
				const call = replacement?.calls.find((c) => c.id === p.call.id);
				return call === undefined || replacement === null ? [] : [{ ...p, call, reasoning: replacement.thinking }];
			}),
		);
	}
	const question = editedProse(targetId, "", NO_EDITS.with(targetId, replacement));
	const consultations = draft.pendingConsultations.toArray();
	if (consultations.some((p) => p.callEntryId === targetId)) {
		draft.pendingConsultations = listOf(
			consultations.flatMap((p) =>
				p.callEntryId !== targetId
					? [p]
					: question === undefined || replacement === null
						? []
						: [{ ...p, question, reasoning: replacement.thinking }],
			),
		);
	}
	if (draft.lastProse?.id === targetId) {
		draft.lastProse =
			question === undefined || question.trim().length === 0 ? undefined : { ...draft.lastProse, text: question };
	}
}

/**
 * The result of an advisor call (or of a call whose consultation is pending): advice closes the
 * segment under its question; a failure or skip leaves the executor's prose once no other advisor
 * call of the same message is still pending.
 */
function settleConsultation(draft: LedgerDraft, event: ToolResultEvent, consultation: number, pos: number): void {
	const advice = completedAdvice(event);
	const all = draft.pendingConsultations.toArray();
	const pending = all[consultation];
	if (pending === undefined) {
		if (advice !== undefined) closeSegment(draft, "consultation", "", advice, event.id, pos, pos);
		return;
	}
	// Answered, the other advisor calls of the same message are too: they shared this question.
	const rest = all.filter(
		(p, i) => i !== consultation && (advice === undefined || p.callEntryId !== pending.callEntryId),
	);
	draft.pendingConsultations = listOf(rest);
	if (advice !== undefined)
		closeSegment(draft, "consultation", pending.question, advice, event.id, pos, pending.callPos);
	else if (!rest.some((p) => p.callEntryId === pending.callEntryId)) keepProse(draft, pending);
}

/** A tool round completed by its result: the pending call it answers (taken off the list) and the result. */
function answeredRound(draft: LedgerDraft, event: ToolResultEvent, pos: number): RoundBlock {
	const all = draft.pendingCalls.toArray();
	const callIndex = all.findIndex((p) => p.call.id === event.callId);
	const pending = all[callIndex];
	if (pending !== undefined) draft.pendingCalls = listOf(all.filter((_, i) => i !== callIndex));
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
 * Blocks are frozen (shallowly) as they are made: they never change afterwards, and the open
 * segment's list shares them with every later ledger.
 */
function pushBlock(draft: LedgerDraft, block: Block): void {
	const open = draft.open;
	if (block.kind === "round") {
		// The card above: only the executor's prose may sit between (user words start a new thought).
		let i = open.length - 1;
		while (i >= 0 && open.at(i)!.kind === "prose") i--;
		const above = i >= 0 ? open.at(i) : undefined;
		// Set on the new block itself (every block is made fresh for its push), not on a copy of it.
		if (above?.kind === "round") block.previous = above.round;
	}
	draft.open = open.appended([Object.freeze(block)]);
}

/**
 * A failed, skipped or abandoned consultation leaves nothing of itself, but the executor's prose
 * beside the call is still its prose (it may state what it did): it stays in the log as a block,
 * placed where the consultation ended.
 */
function keepProse(draft: LedgerDraft, pending: PendingConsultation): void {
	if (pending.question.trim().length > 0)
		pushBlock(draft, { kind: "prose", id: pending.callEntryId, pos: pending.callPos, text: pending.question });
}

/** The cwd to stamp on a call, as an optional field (absent, not undefined, when unknown). */
function cwdOf(draft: LedgerDraft): { cwd?: string } {
	return draft.cwd === undefined ? {} : { cwd: draft.cwd };
}

function hide(draft: LedgerDraft, id: string): void {
	if (!draft.hidden.includes(id)) draft.hidden.push(id);
}

function giveUpPendingCalls(draft: LedgerDraft): void {
	if (draft.pendingCalls.length > 0) {
		for (const pending of draft.pendingCalls.toArray())
			pushBlock(draft, {
				kind: "round",
				id: pending.callEntryId,
				pos: pending.callPos,
				round: unansweredRound(pending),
			});
		draft.pendingCalls = emptyList();
	}
	// A consultation that never got a result leaves nothing, like a failed one — but the executor's prose stays.
	if (draft.pendingConsultations.length > 0) {
		const seen = new Set<string>();
		for (const pending of draft.pendingConsultations.toArray()) {
			if (seen.has(pending.callEntryId)) continue;
			seen.add(pending.callEntryId);
			keepProse(draft, pending);
		}
		draft.pendingConsultations = emptyList();
	}
}

function closeSegment(
	draft: LedgerDraft,
	closedBy: ClosedSegment["closedBy"],
	question: string,
	advice: string,
	closingId: string,
	closingPos: number,
	questionPos: number,
): void {
	// A closed segment is a plain array of its blocks: it never grows again.
	draft.closed.push({ closedBy, blocks: draft.open.toArray(), question, advice, closingId, closingPos, questionPos });
	draft.open = emptyList();
}

/** The index of the entry a compaction keeps from, when it is on the branch before the compaction. */
function keptIndex(
	events: ChunkedList<LedgerEvent>,
	firstKeptEntryId: string | null,
	before: number,
): number | undefined {
	if (firstKeptEntryId === null) return undefined;
	for (let i = before - 1; i >= 0; i--) if (events.at(i)!.id === firstKeptEntryId) return i;
	return undefined;
}

/** What a kept entry adds to Pi's context: read as that context holds it now (edited, or nothing when omitted). */
function keptChars(draft: LedgerDraft, event: LedgerEvent): number {
	const edited = editedEvent(event, draft.contextEdits);
	return edited === undefined ? 0 : contextChars(edited);
}
