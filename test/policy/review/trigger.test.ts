/** Completion review trigger: one describe per rule of reviewDecision, table-driven. */
import { beforeEach, describe, expect, it } from "vitest";
import { CUSTOM_TYPES, type LedgerEvent } from "../../../src/events/index.ts";
import { type ReviewSettings, reviewDecision, wokeSinceLastUserMessage } from "../../../src/policy/review/trigger.ts";
import { ledgerOf } from "../../../src/reducers/index.ts";
import {
	advice,
	assistant,
	bash,
	call,
	compaction,
	custom,
	failedAdvice,
	resetParents,
	result,
	skippedAdvice,
	user,
} from "../../support/events.ts";

beforeEach(() => resetParents());

const ON: ReviewSettings = { enabled: true, minToolCalls: 1 };

/** A `pi.appendEntry` record. */
const entry = (id: string, customType: string, data: unknown): LedgerEvent => ({
	id,
	parentId: null,
	kind: "custom",
	customType,
	data,
});
const reviewUsage = (id: string, answerEntryId?: string) =>
	entry(id, CUSTOM_TYPES.usage, {
		kind: "review",
		model: "anthropic:claude-opus-4-5",
		usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cost: { total: 0.01 } },
		timestampMs: 1,
		...(answerEntryId === undefined ? {} : { answerEntryId }),
	});
const warmingUsage = (id: string) =>
	entry(id, CUSTOM_TYPES.usage, { kind: "warming", model: "anthropic:claude-opus-4-5", usage: {}, timestampMs: 1 });
const reviewMsg = (id: string, details: Record<string, unknown>) =>
	custom(id, CUSTOM_TYPES.review, "Advisor review of your finished work:\n\nSeverity: nit\nx", true, {
		advice: "Severity: nit\nx",
		severity: "nit",
		...details,
	});
/** A watch review's usage record: it looked up to `atEntryId` and ended `outcome`. */
const watchUsage = (id: string, atEntryId: string, outcome = "advice") =>
	entry(id, CUSTOM_TYPES.usage, {
		kind: "watch",
		model: "anthropic:claude-opus-4-5",
		usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cost: { total: 0.01 } },
		timestampMs: 1,
		signal: "failure-streak",
		watchKey: `failure-streak\u0000k\u0000${atEntryId}`,
		atEntryId,
		outcome,
		delivery: outcome === "advice" ? "steered" : "not-reviewed",
	});
/** A delivered watch note. */
const watchMsg = (id: string, atEntryId: string, triggerTurn: boolean) =>
	custom(
		id,
		CUSTOM_TYPES.watch,
		"Advisor note (it watches your run, and stepped in because x):\n\nSeverity: blocker\ny",
		true,
		{
			advice: "Severity: blocker\ny",
			severity: "blocker",
			signal: "failure-streak",
			watchKey: "k",
			atEntryId,
			reason: "x",
			triggerTurn,
		},
	);
const other = (id: string, entryType: string): LedgerEvent => ({ id, parentId: null, kind: "other", entryType });
const withStop = (event: LedgerEvent, stopReason: string, errorMessage?: string): LedgerEvent =>
	event.kind === "assistant" ? { ...event, stopReason, errorMessage } : event;

/** The usual run: one user prompt, one read, a text answer. */
const run = (): LedgerEvent[] => [
	user("u1", "fix the bug"),
	assistant("a1", { text: "Looking.", calls: [call("c1", "read", { path: "src/a.ts" })] }),
	result("r1", "c1", "read", "code"),
	assistant("a2", { text: "Fixed it." }),
];

type Case = [name: string, events: () => LedgerEvent[], expected: string, settings?: ReviewSettings];

/** "review" or the skip reason. */
function outcome(events: readonly LedgerEvent[], settings: ReviewSettings = ON): string {
	const d = reviewDecision(events, settings);
	return d.review ? "review" : d.reason;
}

describe("settings and host", () => {
	it.each<Case>([
		["review.enabled false", run, "disabled", { enabled: false, minToolCalls: 1 }],
		["a host that cannot record usage", run, "host-cannot-record-usage", { ...ON, hostRecordsUsage: false }],
		["a host that can", run, "review", { ...ON, hostRecordsUsage: true }],
	])("%s → %s", (_, events, expected, settings) => {
		expect(outcome(events(), settings)).toBe(expected);
	});

	it("a review names the answer and counts the calls", () => {
		expect(reviewDecision(run(), ON)).toEqual({ review: true, answerEntryId: "a2", toolCalls: 1 });
	});

	it("the folded ledger state gives the same decision as its events", () => {
		const events = run();
		expect(reviewDecision(ledgerOf(events), ON)).toEqual(reviewDecision(events, ON));
	});
});

describe("the run ends in a final text answer", () => {
	it.each<Case>([
		["empty branch", () => [], "no-final-answer"],
		["only a user message", () => [user("u1", "hi")], "no-final-answer"],
		["a tool result last", () => run().slice(0, 3), "no-final-answer"],
		["a new user message after the answer", () => [...run(), user("u2", "more")], "no-final-answer"],
		["a !cmd run after the answer", () => [...run(), bash("b1", "ls", "a")], "no-final-answer"],
		["a compaction after the answer", () => [...run(), compaction("k1", "summary", "u1")], "no-final-answer"],
		[
			"an answer with thinking only",
			() => [...run().slice(0, 3), assistant("a2", { thinking: "hm" })],
			"no-final-answer",
		],
		["an answer of whitespace", () => [...run().slice(0, 3), assistant("a2", { text: "  \n" })], "no-final-answer"],
		// Bookkeeping after the answer does not end it.
		["extension state after", () => [...run(), entry("e1", "other-ext", { x: 1 })], "review"],
		["a label and session info after", () => [...run(), other("l1", "label"), other("s1", "session_info")], "review"],
		[
			"model and thinking changes after",
			() => [
				...run(),
				{ id: "m1", parentId: null, kind: "modelChange", provider: "p", modelId: "m" } as LedgerEvent,
				{ id: "t1", parentId: null, kind: "thinkingLevel", level: "high" } as LedgerEvent,
			],
			"review",
		],
		["another extension's message after", () => [...run(), custom("x1", "ext", "note", true)], "review"],
		["a warming usage record after", () => [...run(), warmingUsage("w1")], "review"],
	])("%s → %s", (_, events, expected) => {
		expect(outcome(events())).toBe(expected);
	});
});

describe("not errored or aborted", () => {
	it.each<Case>([
		[
			"stopReason aborted",
			() => [...run().slice(0, 3), withStop(assistant("a2", { text: "Fi" }), "aborted")],
			"aborted",
		],
		[
			"stopReason error",
			() => [...run().slice(0, 3), withStop(assistant("a2", { text: "x" }), "error", "boom")],
			"errored",
		],
		[
			"an error message on a stop",
			() => [...run().slice(0, 3), withStop(assistant("a2", { text: "x" }), "stop", "overloaded")],
			"errored",
		],
		[
			"stopReason length is still an answer",
			() => [...run().slice(0, 3), withStop(assistant("a2", { text: "Fixed" }), "length")],
			"review",
		],
	])("%s → %s", (_, events, expected) => {
		expect(outcome(events())).toBe(expected);
	});
});

describe("no tool call in the answer", () => {
	it.each<Case>([
		[
			"a call that never got its result (interrupted)",
			() => [...run().slice(0, 3), assistant("a2", { text: "Next:", calls: [call("c2", "bash")] })],
			"tool-call-in-answer",
		],
		[
			"an advisor call in the answer",
			() => [...run().slice(0, 3), assistant("a2", { text: "Done?", calls: [call("c2", "advisor")] })],
			"tool-call-in-answer",
		],
	])("%s → %s", (_, events, expected) => {
		expect(outcome(events())).toBe(expected);
	});
});

describe("at least minToolCalls executor tool calls since the last user message", () => {
	const parallel = () => [
		user("u1", "go"),
		assistant("a1", { calls: [call("c1", "read"), call("c2", "grep")] }),
		result("r1", "c1", "read", "x"),
		result("r2", "c2", "grep", "y"),
		assistant("a2", { text: "Done." }),
	];
	it.each<Case>([
		["no tool call at all", () => [user("u1", "hi"), assistant("a1", { text: "Hello." })], "too-few-tool-calls"],
		[
			"minToolCalls 0 and no tool call",
			() => [user("u1", "hi"), assistant("a1", { text: "Hello." })],
			"review",
			{ enabled: true, minToolCalls: 0 },
		],
		["one call, minToolCalls 2", run, "too-few-tool-calls", { enabled: true, minToolCalls: 2 }],
		["parallel calls each count", parallel, "review", { enabled: true, minToolCalls: 2 }],
		[
			"advisor calls do not count",
			() => [
				user("u1", "go"),
				assistant("a1", { calls: [call("v1", "advisor")] }),
				advice("av1", "v1", "Severity: none\nok"),
				assistant("a2", { text: "Done." }),
			],
			"too-few-tool-calls",
		],
		[
			"calls before the last user message do not count",
			() => [...run(), user("u2", "and now?"), assistant("a3", { text: "Nothing to do." })],
			"too-few-tool-calls",
		],
		[
			"a call that never got a result still counts",
			() => [
				user("u1", "go"),
				assistant("a1", { calls: [call("c1", "bash")] }),
				assistant("a2", { text: "The command hung; stopped." }),
			],
			"review",
		],
	])("%s → %s", (_, events, expected, settings) => {
		expect(outcome(events(), settings)).toBe(expected);
	});
});

describe("no advisor consultation after the last executor tool call", () => {
	const consultAfter = (result: (id: string, callId: string) => LedgerEvent) => () => [
		...run().slice(0, 3),
		assistant("a2", { text: "Is it right?", calls: [call("v1", "advisor")] }),
		result("av1", "v1"),
		assistant("a3", { text: "Fixed it." }),
	];
	it.each<Case>([
		[
			"a completed consultation after it",
			consultAfter((id, c) => advice(id, c, "Severity: none\nGood.")),
			"consulted-after-last-tool-call",
		],
		["a failed consultation after it", consultAfter(failedAdvice), "review"],
		["a skipped consultation after it", consultAfter(skippedAdvice), "review"],
		[
			"a consultation before it",
			() => [
				user("u1", "go"),
				assistant("a1", { text: "Plan?", calls: [call("v1", "advisor")] }),
				advice("av1", "v1", "Severity: none\nGo."),
				assistant("a2", { calls: [call("c1", "edit")] }),
				result("r1", "c1", "edit", "ok"),
				assistant("a3", { text: "Done." }),
			],
			"review",
		],
		[
			"an advisor call beside the last tool call (parallel: it may not have seen the result)",
			() => [
				user("u1", "go"),
				assistant("a1", { calls: [call("c1", "edit"), call("v1", "advisor")] }),
				advice("av1", "v1", "Severity: none\nGo."),
				result("r1", "c1", "edit", "ok"),
				assistant("a2", { text: "Done." }),
			],
			"review",
		],
		[
			"a review of an earlier answer after it (a blocker's turn made no new change)",
			() => [
				...run(),
				reviewMsg("rv1", { answerEntryId: "a2", triggerTurn: true }),
				assistant("a3", { text: "I disagree: the test covers it." }),
			],
			"consulted-after-last-tool-call",
		],
		[
			"a review of an earlier answer, then new tool calls",
			() => [
				...run(),
				reviewMsg("rv1", { answerEntryId: "a2", triggerTurn: true }),
				assistant("a3", { calls: [call("c3", "edit")] }),
				result("r3", "c3", "edit", "ok"),
				assistant("a4", { text: "Fixed the blocker." }),
			],
			"review",
		],
	])("%s → %s", (_, events, expected) => {
		expect(outcome(events())).toBe(expected);
	});
});

describe("a watch review counts as the advisor looking, from the entry its signal fired at", () => {
	/** Two rounds, the watch firing at the first or the second; its record lands where it settled. */
	const twoRounds = (tail: LedgerEvent[]) => () => [
		user("u1", "fix the bug"),
		assistant("a1", { calls: [call("c1", "bash", { command: "npm test" })] }),
		result("r1", "c1", "bash", "FAIL", { isError: true }),
		assistant("a2", { calls: [call("c2", "edit", { path: "src/a.ts" })] }),
		result("r2", "c2", "edit", "ok"),
		...tail,
	];
	it.each<Case>([
		[
			"one that answered at the last tool call's round, recorded before the answer",
			twoRounds([watchUsage("w1", "r2"), assistant("a3", { text: "Fixed it." })]),
			"consulted-after-last-tool-call",
		],
		[
			"one that answered at the last round, settling after the answer (its record trails it)",
			twoRounds([assistant("a3", { text: "Fixed it." }), watchUsage("w1", "r2")]),
			"consulted-after-last-tool-call",
		],
		[
			"its delivered note alone",
			twoRounds([watchMsg("n1", "r2", false), assistant("a3", { text: "Fixed it." })]),
			"consulted-after-last-tool-call",
		],
		[
			"one that fired at an earlier round (it did not see the last change)",
			twoRounds([watchUsage("w1", "r1"), assistant("a3", { text: "Fixed it." })]),
			"review",
		],
		[
			"one that did not answer (failed, skipped, cancelled)",
			twoRounds([
				watchUsage("w1", "r2", "failed"),
				watchUsage("w2", "r2", "skipped"),
				watchUsage("w3", "r2", "cancelled"),
				assistant("a3", { text: "Fixed it." }),
			]),
			"review",
		],
		[
			"one whose point is not on the branch: placed by its record",
			twoRounds([assistant("a3", { text: "Fixed it." }), watchUsage("w1", "elsewhere")]),
			"consulted-after-last-tool-call",
		],
	])("%s → %s", (_, events, expected) => {
		expect(outcome(events())).toBe(expected);
	});
});

describe("each final answer is reviewed once", () => {
	it.each<Case>([
		[
			"a review usage record naming it (a `none` review, or a failed one)",
			() => [...run(), reviewUsage("k1", "a2")],
			"already-reviewed",
		],
		[
			"a delivered review message naming it",
			() => [...run(), reviewUsage("k1", "a2"), reviewMsg("rv1", { answerEntryId: "a2", triggerTurn: false })],
			"already-reviewed",
		],
		[
			"a review message after it that names no answer",
			() => [...run(), reviewMsg("rv1", { triggerTurn: false })],
			"already-reviewed",
		],
		["a review usage record naming no answer after it", () => [...run(), reviewUsage("k1")], "already-reviewed"],
		["a usage record naming another answer", () => [...run(), reviewUsage("k1", "zz")], "review"],
	])("%s → %s", (_, events, expected) => {
		expect(outcome(events())).toBe(expected);
	});

	it("the decision is a function of the branch: the same answer on another branch is its own", () => {
		const events = [...run(), reviewUsage("k1", "a2")];
		expect(outcome(events)).toBe("already-reviewed");
		// Navigating back to the answer (the record is on the abandoned branch only) makes it reviewable again.
		expect(outcome(events.slice(0, -1))).toBe("review");
	});
});

describe("wokeSinceLastUserMessage", () => {
	it.each<[string, () => LedgerEvent[], boolean]>([
		["no review", run, false],
		[
			"a review that did not start a turn",
			() => [...run(), reviewMsg("rv1", { answerEntryId: "a2", triggerTurn: false })],
			false,
		],
		[
			"a blocker that started a turn",
			() => [...run(), reviewMsg("rv1", { answerEntryId: "a2", triggerTurn: true })],
			true,
		],
		[
			"a watch note that started a turn (one wake per prompt, shared)",
			() => [...run(), watchMsg("n1", "r1", true)],
			true,
		],
		["a watch note that started none", () => [...run(), watchMsg("n1", "r1", false)], false],
		[
			"a wake before the last user message does not count",
			() => [...run(), reviewMsg("rv1", { answerEntryId: "a2", triggerTurn: true }), user("u2", "thanks")],
			false,
		],
	])("%s → %s", (_, events, expected) => {
		expect(wokeSinceLastUserMessage(events())).toBe(expected);
		expect(wokeSinceLastUserMessage(ledgerOf(events()))).toBe(expected);
	});
});
