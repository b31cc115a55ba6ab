/**
 * What the branch holds that an advisor needs, by category (docs/request-format.md#the-fact-audit):
 * the raw material of the fact-survival audit. Folded from every event of the branch — compactions
 * and trims hide nothing here — so the audit can ask of any request whether it still carries each
 * fact as text. How a fact is written for that comparison (framing defused, whitespace collapsed,
 * the length judged) is the renderer's side: src/adapter/lab/audit/fact-audit.ts.
 *
 * A separate fold beside the ledger, like the spend: the ledger forgets at a compaction, the facts
 * must not. The facts only accumulate, into the thousands on a long branch, so what grows with them
 * — the facts kept and the set of those seen — is shared between states (chunked.ts, key-set.ts):
 * a fold copies what changes, not all the facts, and a replay stays linear.
 */

import {
	ADVISOR_TOOL_NAME,
	assertNever,
	CUSTOM_TYPES,
	type LedgerEvent,
	pathArgument,
	READING_TOOLS,
	type ToolCallInfo,
} from "../../../events/index.ts";
import {
	type CaseReducers,
	type ChunkedList,
	changedPaths,
	collapse,
	commandFact,
	completedAdvice,
	type Draft,
	emptyKeySet,
	emptyList,
	failureLine,
	foldCases,
	type KeySet,
	mergeSections,
	nothing,
	partsText,
	relativePath,
	reviewAdvice,
	runFailed,
	runKey,
	shellCommand,
	splitCd,
	standingInstructions,
	testSummary,
} from "../../../reducers/index.ts";
import { backtickedNames } from "../../../render/index.ts";
import { emptyKeyMap, type KeyMap } from "./key-map.ts";

export const FACT_CATEGORIES = [
	"user",
	"edited",
	"read",
	"command",
	"failure",
	"test",
	"prose",
	"identifier",
	"advice",
	"instructions",
] as const;

export type FactCategory = (typeof FACT_CATEGORIES)[number];

/** One fact as the branch holds it: the raw text the audit looks for (src/adapter/lab/audit/fact-audit.ts shapes it). */
export interface Fact {
	category: FactCategory;
	text: string;
}

/** One change to the open failures: the run key and its failure now (undefined: resolved). */
export interface FailureChange {
	readonly key: string;
	readonly fact: Fact | undefined;
}

/** A call waiting for its result: what its result is judged against. */
interface OpenCall {
	call: ToolCallInfo;
}

export interface FactState {
	readonly cwd: string | undefined;
	/**
	 * Facts that only accumulate, each once, in the order first seen (frozen objects, reused across
	 * folds): a chunked list (chunked.ts), so a fold does not copy them all.
	 */
	readonly kept: ChunkedList<Fact>;
	/**
	 * The text of every kept fact, by category: sets shared between states, like `kept` (key-set.ts).
	 * Keyed by the text itself, so that a fact of many megabytes is not copied into a key.
	 */
	readonly seen: Readonly<Partial<Record<FactCategory, KeySet>>>;
	/** Failures no later success of the same run resolved, by run key: a map shared between states (key-map.ts). */
	readonly failures: KeyMap<Fact>;
	/**
	 * Every change to `failures`, in order: the run key and the failure it now has (undefined: none).
	 * Shared between states like `kept`, so a reader that kept an earlier state's log reads only what
	 * changed since (the audit along a branch: branch-audit.ts), never all the open failures.
	 */
	readonly failureLog: ChunkedList<FailureChange>;
	/** The newest summary line of each test command, by its command fact. */
	readonly tests: ReadonlyMap<string, Fact>;
	/** The newest executor prose. */
	readonly prose: Fact | undefined;
	/** Calls waiting for their result, by call id. */
	readonly calls: ReadonlyMap<string, OpenCall>;
	/** The executor's system prompt as the branch recorded it (Pi 1.x), sections merged. */
	readonly system: Readonly<{ content: string; sections: Readonly<Record<string, string>> }> | undefined;
}

export function emptyFacts(cwd?: string): FactState {
	return {
		cwd,
		kept: emptyList(),
		seen: {},
		failures: emptyKeyMap(),
		failureLog: emptyList(),
		tests: new Map(),
		prose: undefined,
		calls: new Map(),
		system: undefined,
	};
}

/** A backticked span that names something: no blanks, a letter in it, not too long to be a name. */
type FactDraft = Draft<FactState>;

function keep(draft: FactDraft, category: FactCategory, text: string): void {
	if (text.trim().length === 0) return;
	const before = draft.seen[category] ?? emptyKeySet();
	const seen = before.with(text);
	if (seen === before) return;
	draft.seen[category] = seen;
	draft.kept = draft.kept.appended([Object.freeze({ category, text })]);
}

/** Which runs are the same run: a shell command where it ran (a `cd` into the cwd is no move), else runKey. */
function sameRunKey(call: ToolCallInfo, cwd: string | undefined): string {
	const command = shellCommand(call);
	if (command === undefined) return runKey(call);
	const at = splitCd(command, cwd);
	return `$\u0000${at.dir ?? "."}\u0000${collapse(at.command)}`;
}

function onResult(draft: FactDraft, call: ToolCallInfo, isError: boolean, text: string): void {
	const cwd = draft.cwd;
	const failed = runFailed(call, isError, () => text);
	if (!failed) for (const path of changedPaths(call)) keep(draft, "edited", relativePath(path, cwd));
	const path = pathArgument(call.arguments);
	if (READING_TOOLS.has(call.name.toLowerCase()) && path !== undefined) keep(draft, "read", relativePath(path, cwd));
	const key = sameRunKey(call, cwd);
	const line = failed ? failureLine(text) : "";
	if (line.length > 0) setFailure(draft, key, Object.freeze({ category: "failure", text: line }));
	else if (draft.failures.has(key)) setFailure(draft, key, undefined);
	const command = shellCommand(call);
	if (command !== undefined) keepTest(draft, command, text);
}

/** The newest summary line of a test command's runs (test-summary.ts `testSummary` says which runs and lines). */
function keepTest(draft: FactDraft, command: string, output: string): void {
	const summary = testSummary(command, output);
	if (summary !== undefined)
		draft.tests.set(commandFact(command, draft.cwd), Object.freeze({ category: "test", text: summary }));
}

/** Sets or resolves the open failure of a run, and logs the change. */
function setFailure(draft: FactDraft, key: string, fact: Fact | undefined): void {
	draft.failures = draft.failures.with(key, fact);
	draft.failureLog = draft.failureLog.appended([Object.freeze({ key, fact })]);
}

/** What each kind of event adds to the facts. */
const factCases: CaseReducers<FactState, LedgerEvent> = {
	user: (draft, event) => {
		// The first text part: a pasted image between parts is shown as a note, so the words run on from it.
		const first = event.parts.find((p) => p.type === "text" && p.text.trim().length > 0);
		if (first?.type === "text") keep(draft, "user", first.text);
	},
	assistant: (draft, event) => {
		if (event.text.trim().length > 0) {
			draft.prose = Object.freeze({ category: "prose", text: event.text });
			for (const name of backtickedNames(event.text)) keep(draft, "identifier", name);
		}
		for (const call of event.calls) {
			if (call.name === ADVISOR_TOOL_NAME) continue;
			// Frozen, so immer does not walk into the call when it finishes the fold (the call is the host's).
			draft.calls.set(call.id, Object.freeze({ call }));
			const command = shellCommand(call);
			if (command !== undefined) keep(draft, "command", commandFact(command, draft.cwd));
		}
	},
	toolResult: (draft, event) => {
		if (event.toolName === ADVISOR_TOOL_NAME) {
			const advice = completedAdvice(event);
			if (advice !== undefined) keep(draft, "advice", advice);
			draft.calls.delete(event.callId);
			return;
		}
		const open = draft.calls.get(event.callId);
		draft.calls.delete(event.callId);
		// A result whose call is not on the branch: its arguments are unknown, as on its card.
		const call = open?.call ?? { id: event.callId, name: event.toolName, arguments: {} };
		onResult(draft, call, event.isError, partsText(event.parts));
	},
	bashRun: (draft, event) => {
		if (event.excluded) return;
		keep(draft, "command", commandFact(event.command, draft.cwd));
		keepTest(draft, event.command, event.output);
	},
	customMessage: (draft, event) => {
		if (event.customType !== CUSTOM_TYPES.review) return;
		const advice = reviewAdvice(event);
		if (advice !== undefined) keep(draft, "advice", advice);
	},
	system: (draft, event) => {
		draft.system = Object.freeze({
			content: event.content.trim().length > 0 ? event.content : (draft.system?.content ?? ""),
			sections: mergeSections(draft.system?.sections ?? {}, event.sections),
		});
	},
	compaction: (draft, event) => {
		if (event.system !== undefined)
			draft.system = Object.freeze({
				content: event.system.content,
				sections: mergeSections({}, event.system.sections),
			});
	},
	// Facts are the entries as written: a compaction, a branch summary or a context edit hides
	// nothing from the audit, and switches, extension state and spend state no fact.
	branchSummary: nothing,
	modelChange: nothing,
	thinkingLevel: nothing,
	custom: nothing,
	other: nothing,
	contextEdit: nothing,
	usage: nothing,
};

/** Folding a branch in one go or in any number of pieces gives the same state; the input is never changed. */
export function foldFacts(state: FactState, events: readonly LedgerEvent[]): FactState {
	return foldCases(factCases, state, events);
}

/** Every fact of the branch, by category in FACT_CATEGORIES order within each kind of source. */
export function branchFacts(state: FactState): Fact[] {
	const out: Fact[] = state.kept.toArray();
	out.push(...replacedFacts(state));
	return out;
}

/**
 * The facts a later event replaces or resolves rather than appends to (the open failures, the test
 * summaries, the newest prose, the standing instructions): the same objects while their source is
 * the same object, so a reader that kept `replacedSources` can tell that nothing changed.
 */
export function replacedFacts(state: FactState): Fact[] {
	const out: Fact[] = [...state.failures.values(), ...state.tests.values()];
	if (state.prose !== undefined) out.push(state.prose);
	if (state.system !== undefined) out.push(...instructionFacts(state.system));
	return out;
}

/** What `replacedFacts` is made from: while each is the same object, so are the facts. */
export function replacedSources(state: FactState): readonly unknown[] {
	return [state.failures, state.tests, state.prose, state.system];
}

/** The facts that replace and are replaced, but the open failures (read from `failureLog`): few, and each source changes seldom. */
export function otherReplacedFacts(state: FactState): Fact[] {
	const out: Fact[] = [...state.tests.values()];
	if (state.prose !== undefined) out.push(state.prose);
	if (state.system !== undefined) out.push(...instructionFacts(state.system));
	return out;
}

/** What `otherReplacedFacts` is made from. */
export function otherReplacedSources(state: FactState): readonly unknown[] {
	return [state.tests, state.prose, state.system];
}

const instructionFactsOf = new WeakMap<object, Fact[]>();

/** Each non-empty line of the user's standing instructions is a fact (the same objects while the prompt is). */
function instructionFacts(system: NonNullable<FactState["system"]>): Fact[] {
	let facts = instructionFactsOf.get(system);
	if (facts === undefined) {
		const lines = new Set<string>();
		for (const instruction of standingInstructions(system))
			for (const line of instruction.text.split("\n")) if (line.trim().length > 0) lines.add(line.trim());
		facts = [...lines].map((text) => Object.freeze({ category: "instructions" as const, text }));
		instructionFactsOf.set(system, facts);
	}
	return facts;
}

const heldTexts = new WeakMap<FactState, { failures: Set<string>; tests: Set<string> }>();

/**
 * Does `state` hold `fact` (the same category and text)? Asked of the facts folded from the
 * executor's horizon on: a fact the branch holds that they do not is one the executor lost
 * (docs/request-format.md, "The executor's horizon"). The standing instructions are never lost: Pi
 * keeps the system prompt.
 */
export function holdsFact(state: FactState, fact: Fact): boolean {
	switch (fact.category) {
		case "user":
		case "edited":
		case "read":
		case "command":
		case "identifier":
		case "advice":
			return state.seen[fact.category]?.has(fact.text) === true;
		case "failure":
		case "test": {
			let texts = heldTexts.get(state);
			if (texts === undefined) {
				texts = {
					failures: new Set(state.failures.values().map((f) => f.text)),
					tests: new Set([...state.tests.values()].map((f) => f.text)),
				};
				heldTexts.set(state, texts);
			}
			return (fact.category === "failure" ? texts.failures : texts.tests).has(fact.text);
		}
		case "prose":
			return state.prose?.text === fact.text;
		case "instructions":
			return true;
		default:
			return assertNever(fact.category, "fact category");
	}
}

/**
 * The facts the executor still has: those of the branch from its newest horizon on (the first entry
 * Pi's newest compaction kept). Folded on from `previous` while the horizon stays; folded from the
 * horizon anew when a compaction moved it.
 */
export interface HorizonFacts {
	/** The horizon's path position. */
	readonly from: number;
	readonly facts: FactState;
}

/** `events[0, upTo)` of a branch whose first `folded` were folded into `previous`. */
export function factsSinceHorizon(
	previous: HorizonFacts | undefined,
	horizon: number | undefined,
	events: readonly LedgerEvent[],
	folded: number,
	upTo: number,
	cwd: string | undefined,
): HorizonFacts | undefined {
	if (horizon === undefined) return undefined;
	if (previous?.from === horizon)
		return { from: horizon, facts: foldFacts(previous.facts, events.slice(folded, upTo)) };
	return { from: horizon, facts: foldFacts(emptyFacts(cwd), events.slice(horizon - 1, upTo)) };
}

/** Which facts the executor lost: none without a horizon; with one, those it no longer holds. */
export function lostFacts(since: HorizonFacts | undefined): ((fact: Fact) => boolean) | undefined {
	return since === undefined ? undefined : (fact) => !holdsFact(since.facts, fact);
}
