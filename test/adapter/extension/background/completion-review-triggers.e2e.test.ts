/**
 * Completion review on the real host: when a review runs, in the background, and every
 * skip rule end to end (disabled, too few tool calls, consulted after the last tool call, already
 * reviewed, an errored answer, over budget without a dialog, advisor inactive, a host that cannot
 * record usage), plus the executor's guidance with reviews on.
 */

import { type Context, fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import {
	createCompletionReview,
	type ReviewTrace,
} from "../../../../src/adapter/extension/background/completion-review.ts";
import { resolveGuidance } from "../../../../src/adapter/extension/config/guidance.ts";
import { loadConfig, parseConfig } from "../../../../src/adapter/extension/config/load.ts";
import { createSessionLedger } from "../../../../src/adapter/extension/consult/session-ledger.ts";
import { CUSTOM_TYPES } from "../../../../src/events/index.ts";
import { reviewDecision } from "../../../../src/policy/index.ts";
import {
	CONSULT_INSTRUCTION,
	DEFAULT_PROMPT_GUIDELINES,
	DEFAULT_PROMPT_SNIPPET,
	LOG_CLOSE,
	REVIEW_INSTRUCTION,
	REVIEW_PROMPT_GUIDELINES,
	REVIEW_PROMPT_SNIPPET,
	TAGS,
	zeroUsage,
} from "../../../../src/render/index.ts";
import { PRICES } from "../../../support/budget-host.ts";
import { assistant, call, resetParents, result, user } from "../../../support/events.ts";
import { gate } from "../../../support/mock-llm.ts";
import {
	ADVISOR_MODEL,
	ADVISOR_NAME,
	ADVISOR_PROVIDER,
	type Host,
	startHost,
	waitFor,
} from "../../../support/pi-host.ts";
import {
	answer,
	lastAnswerId,
	REVIEW_CONFIG,
	readStep,
	recording,
	reviewableRun,
	reviewMessages,
	reviewRecords,
	settle,
	testExtension,
	untilAborted,
	waitForReviewRecords,
} from "../../../support/review-host.ts";

let host: Host | undefined;
afterEach(async () => {
	await host?.dispose();
	host = undefined;
});

/** A host whose extension reports what the review decided. */
async function traced(options: Parameters<typeof startHost>[0]): Promise<{ host: Host; traces: ReviewTrace[] }> {
	const traces: ReviewTrace[] = [];
	const h = await startHost({
		...options,
		extension: testExtension({ review: { onTrace: (t) => traces.push(t) } }),
	});
	host = h;
	return { host: h, traces };
}

/** prompt() can return before Pi's queue has run the extension's agent_end handler. */
const decided = (traces: ReviewTrace[], count = 1) =>
	waitFor(() => traces.length >= count || undefined, "the review decision");

const notStarted = (traces: ReviewTrace[]) =>
	traces.filter((t) => t.type === "not-started").map((t) => (t as { reason: string }).reason);

describe("a reviewable run", () => {
	it("is reviewed in the background after agent_end, in review mode, once (extension loaded from its path)", async () => {
		const held = gate();
		host = await startHost({
			advisorConfig: REVIEW_CONFIG,
			executor: reviewableRun("r1"),
			advisor: [
				async () => {
					await held.promise;
					return fauxAssistantMessage("Severity: none\nThe README is fine as it is.");
				},
			],
		});
		await host.runtime.session.prompt("Check the README.");
		// prompt() came back while the review is still waiting for its advisor: nobody waited for it.
		const h0 = host;
		await waitFor(() => h0.advisorCalls.length === 1 || undefined, "the review request");
		expect(reviewRecords(host)).toHaveLength(0);
		held.release();
		const [record] = await waitForReviewRecords(host);

		const request = host.advisorCalls[0]!.context;
		const last = request.messages.at(-1)!;
		expect(last.role).toBe("user");
		const parts = (last.content as { text: string }[]).map((p) => p.text);
		// Review mode: the log closes on the review instruction, not on a question.
		expect(parts.at(-1)).toBe(REVIEW_INSTRUCTION);
		expect(parts.at(-2)).toBe(LOG_CLOSE);
		expect(parts.join("")).not.toContain(`<${TAGS.question}>`);
		expect(parts.join("")).not.toContain(CONSULT_INSTRUCTION);
		expect(parts.join("")).toContain("Done: the README is fine.");
		expect(host.advisorCalls[0]!.sessionId).toBe(`advisor:${host.sessionId()}`);

		expect(record).toMatchObject({
			kind: "review",
			model: `${ADVISOR_PROVIDER}:${ADVISOR_MODEL}`,
			answerEntryId: lastAnswerId(host),
			severity: "none",
			outcome: "advice",
			request: { messageCount: request.messages.length },
		});
		expect(record.usage.input).toBeGreaterThan(0);
		// `none`: nothing shown.
		await settle();
		expect(reviewMessages(host)).toHaveLength(0);
	});

	it("resolveGuidance: the review snippet and guidelines with review on; configured wording still wins", () => {
		const base = parseConfig({}).config;
		expect(resolveGuidance(base)).toEqual({
			promptSnippet: DEFAULT_PROMPT_SNIPPET,
			promptGuidelines: DEFAULT_PROMPT_GUIDELINES,
		});
		const on = parseConfig({ review: { enabled: true } }).config;
		expect(resolveGuidance(on)).toEqual({
			promptSnippet: REVIEW_PROMPT_SNIPPET,
			promptGuidelines: REVIEW_PROMPT_GUIDELINES,
		});
		const mine = parseConfig({ review: { enabled: true }, guidance: { promptSnippet: "mine" } }).config;
		expect(resolveGuidance(mine).promptSnippet).toBe("mine");
	});

	it("with review on, the executor's guidance drops 'consult before declaring done' and explains the review", async () => {
		const seen: Context[] = [];
		host = await startHost({
			advisorConfig: REVIEW_CONFIG,
			executor: [recording(seen, "Hello.")],
		});
		await host.runtime.session.prompt("Hi.");
		const system = seen[0]!.systemPrompt!;
		expect(system).toContain(REVIEW_PROMPT_SNIPPET);
		for (const line of REVIEW_PROMPT_GUIDELINES) expect(system).toContain(line);
		expect(system).not.toContain(DEFAULT_PROMPT_SNIPPET);
		expect(system).not.toContain(DEFAULT_PROMPT_GUIDELINES[0]!);
	});
});

describe("skip rules, end to end", () => {
	it("review.enabled false (the default): no review, nothing recorded", async () => {
		const { host: h, traces } = await traced({
			advisorConfig: { modelKey: REVIEW_CONFIG.modelKey },
			executor: reviewableRun("r1"),
		});
		await h.runtime.session.prompt("Check the README.");
		await decided(traces);
		expect(notStarted(traces)).toEqual(["disabled"]);
		expect(h.advisorCalls).toHaveLength(0);
		expect(reviewRecords(h)).toHaveLength(0);
	});

	it("too few tool calls since the last user message", async () => {
		const { host: h, traces } = await traced({
			advisorConfig: REVIEW_CONFIG,
			executor: [answer("Nothing to do.")],
		});
		await h.runtime.session.prompt("Say hi.");
		await decided(traces);
		expect(notStarted(traces)).toEqual(["too-few-tool-calls"]);
		expect(h.advisorCalls).toHaveLength(0);
	});

	it("minToolCalls: 2 counts the run's calls", async () => {
		const { host: h, traces } = await traced({
			advisorConfig: { ...REVIEW_CONFIG, review: { enabled: true, minToolCalls: 2 } },
			executor: [...reviewableRun("r1"), readStep("r2"), readStep("r3"), answer("Read it twice.")],
			advisor: [fauxAssistantMessage("Severity: none\nok")],
		});
		await h.runtime.session.prompt("Check the README.");
		await decided(traces);
		await h.runtime.session.prompt("Read it twice.");
		await waitForReviewRecords(h);
		expect(notStarted(traces)).toEqual(["too-few-tool-calls"]);
		expect(traces.find((t) => t.type === "started")).toMatchObject({ toolCalls: 2 });
	});

	it("the advisor was consulted after the last tool call", async () => {
		const { host: h, traces } = await traced({
			advisorConfig: REVIEW_CONFIG,
			executor: [
				readStep("r1"),
				fauxAssistantMessage([fauxText("Am I done?"), fauxToolCall("advisor", {}, { id: "a1" })], {
					stopReason: "toolUse",
				}),
				answer("Done, the advisor agreed."),
			],
			advisor: [fauxAssistantMessage("Severity: none\nYes.")],
		});
		await h.runtime.session.prompt("Check the README.");
		await decided(traces);
		expect(notStarted(traces)).toEqual(["consulted-after-last-tool-call"]);
		expect(h.advisorCalls).toHaveLength(1);
		expect(reviewRecords(h)).toHaveLength(0);
	});

	it("a final answer already reviewed is not reviewed again (a second agent_end for it)", async () => {
		const { host: h, traces } = await traced({
			advisorConfig: REVIEW_CONFIG,
			executor: reviewableRun("r1"),
			advisor: [fauxAssistantMessage("Severity: none\nFine.")],
		});
		await h.runtime.session.prompt("Check the README.");
		await waitForReviewRecords(h);
		// Pi's own runner emits agent_end again with nothing new on the branch.
		await (h.runtime.session as any).extensionRunner.emit({ type: "agent_end", messages: [] });
		await decided(traces);
		expect(notStarted(traces)).toEqual(["already-reviewed"]);
		expect(h.advisorCalls).toHaveLength(1);
		expect(reviewRecords(h)).toHaveLength(1);
	});

	it("an errored final answer", async () => {
		const { host: h, traces } = await traced({
			advisorConfig: REVIEW_CONFIG,
			executor: [readStep("r1"), fauxAssistantMessage([], { stopReason: "error", errorMessage: "boom" })],
		});
		await h.runtime.session.prompt("Check the README.");
		await decided(traces);
		expect(notStarted(traces)).toEqual(["errored"]);
		expect(h.advisorCalls).toHaveLength(0);
	});

	it("over budget: skipped without a dialog (even with a UI and onExceed confirm), usage recorded as zero", async () => {
		const { host: h, traces } = await traced({
			advisorConfig: { ...REVIEW_CONFIG, budget: { perCallSoftUsd: 0, onExceed: "confirm" } },
			advisorProvider: {
				provider: ADVISOR_PROVIDER,
				models: [{ id: ADVISOR_MODEL, name: ADVISOR_NAME, reasoning: true, cost: PRICES }],
			},
			executor: reviewableRun("r1"),
			confirmAnswers: [true],
		});
		await h.runtime.session.prompt("Check the README.");
		const [record] = await waitForReviewRecords(h);
		expect(h.confirms).toHaveLength(0);
		expect(h.advisorCalls).toHaveLength(0);
		expect(record).toMatchObject({ kind: "review", outcome: "skipped", answerEntryId: lastAnswerId(h) });
		expect(record.errorMessage).toMatch(/over the per-call soft limit/);
		expect(record.usage).toMatchObject({ input: 0, output: 0, cost: { total: 0 } });
		// The request it was judged on, never billed (like a skipped consultation's details.request).
		expect(record.request.promptTokens).toBeUndefined();
		expect(traces.at(-1)).toMatchObject({ type: "settled", outcome: "skipped" });
		await settle();
		expect(reviewMessages(h)).toHaveLength(0);
	});

	it("no advisor model selected: the advisor is inactive, no review", async () => {
		const { host: h, traces } = await traced({
			advisorConfig: { review: { enabled: true } },
			executor: reviewableRun("r1"),
		});
		await h.runtime.session.prompt("Check the README.");
		await decided(traces);
		expect(notStarted(traces)).toEqual(["advisor-inactive"]);
		expect(reviewRecords(h)).toHaveLength(0);
	});
});

describe("however a review ends, its usage is recorded and counts in the branch spend", () => {
	it("a provider failure: recorded as failed with what was billed, nothing shown", async () => {
		const { host: h } = await traced({
			advisorConfig: REVIEW_CONFIG,
			executor: reviewableRun("r1"),
			advisor: [fauxAssistantMessage([], { stopReason: "error", errorMessage: "400 invalid request" })],
		});
		await h.runtime.session.prompt("Check the README.");
		const [record] = await waitForReviewRecords(h);
		expect(record).toMatchObject({ outcome: "failed", errorMessage: "400 invalid request" });
		expect(record.severity).toBeUndefined();
		await settle();
		expect(reviewMessages(h)).toHaveLength(0);
	});

	it("budget.timeoutSec: a review that runs too long is abandoned as a timeout", async () => {
		const { host: h } = await traced({
			advisorConfig: { ...REVIEW_CONFIG, budget: { timeoutSec: 0.05 } },
			executor: reviewableRun("r1"),
			advisor: [untilAborted()],
		});
		await h.runtime.session.prompt("Check the README.");
		const [record] = await waitForReviewRecords(h);
		expect(record).toMatchObject({ outcome: "timeout", errorMessage: "timeout" });
		await settle();
		expect(reviewMessages(h)).toHaveLength(0);
	});

	it("the review's usage counts in the footer's branch spend", async () => {
		const { host: h } = await traced({
			advisorConfig: REVIEW_CONFIG,
			advisorProvider: {
				provider: ADVISOR_PROVIDER,
				models: [{ id: ADVISOR_MODEL, name: ADVISOR_NAME, reasoning: true, cost: PRICES }],
			},
			priceAdvisor: true,
			executor: [...reviewableRun("r1"), answer("Hi.")],
			advisor: [fauxAssistantMessage("Severity: none\nFine.")],
		});
		await h.runtime.session.prompt("Check the README.");
		const [record] = await waitForReviewRecords(h);
		expect(record.usage.cost.total).toBeGreaterThan(0);
		await h.runtime.session.prompt("Hello.");
		expect(h.statuses.at(-1)?.text).toMatch(/^Advisor \$/);
	});
});

describe("one review at a time", () => {
	it("an answer that ends while a review is in flight is reviewed once that one settles", async () => {
		const held = gate();
		const { host: h, traces } = await traced({
			advisorConfig: REVIEW_CONFIG,
			executor: [...reviewableRun("r1", "First answer."), ...reviewableRun("r2", "Second answer.")],
			advisor: [
				async () => {
					await held.promise;
					return fauxAssistantMessage("Severity: nit\nAbout the first answer.");
				},
				fauxAssistantMessage("Severity: none\nThe second answer is fine."),
			],
		});
		await h.runtime.session.prompt("First task.");
		const firstAnswer = lastAnswerId(h);
		await h.runtime.session.prompt("Second task.");
		const secondAnswer = lastAnswerId(h);
		await decided(traces, 2);
		expect(notStarted(traces)).toEqual(["in-flight"]);
		held.release();
		const records = await waitForReviewRecords(h, 2);
		expect(records.map((r) => [r.answerEntryId, r.severity])).toEqual([
			[firstAnswer, "nit"],
			[secondAnswer, "none"],
		]);
		// The first review's message, shown once the second run had ended, names the first answer.
		expect(reviewMessages(h).map((m: any) => m.details.answerEntryId)).toEqual([firstAnswer]);
		expect(h.advisorCalls).toHaveLength(2);
	});

	it("a review of an OLDER answer recorded mid-run does not count as consulted after the newer run's changes", () => {
		// Rule 7 of reviewDecision (a fix found while wiring it: the usage record of a review that
		// settles during the user's next run lands in the middle of that run).
		resetParents();
		const events = [
			user("u1", "first"),
			assistant("a1", { calls: [call("c1", "read")] }),
			result("r1", "c1", "read", "x"),
			assistant("a2", { text: "First answer." }),
			user("u2", "second"),
			assistant("a3", { calls: [call("c2", "edit")] }),
			result("r2", "c2", "edit", "ok"),
			{
				id: "k1",
				parentId: "r2",
				kind: "custom" as const,
				customType: CUSTOM_TYPES.usage,
				data: { kind: "review", model: "p:m", usage: {}, timestampMs: 1, answerEntryId: "a2" },
			},
			assistant("a4", { text: "Second answer." }),
		];
		expect(reviewDecision(events, { enabled: true, minToolCalls: 1 })).toEqual({
			review: true,
			answerEntryId: "a4",
			toolCalls: 1,
		});
		// A record naming no answer (or one not on the branch) still counts, as before.
		const unnamed = events.map((e) =>
			e.id === "k1" ? { ...e, data: { ...(e as any).data, answerEntryId: undefined } } : e,
		);
		expect(reviewDecision(unnamed, { enabled: true, minToolCalls: 1 })).toMatchObject({
			review: false,
			reason: "consulted-after-last-tool-call",
		});
	});
});

describe("a host that cannot record usage", () => {
	it("never starts a review (pi.appendEntry missing)", () => {
		const traces: ReviewTrace[] = [];
		const loaded = loadConfig({ env: { XDG_CONFIG_HOME: "/nonexistent-advisor-test" }, home: "/nonexistent" });
		const config = { ...loaded.config, modelKey: REVIEW_CONFIG.modelKey, review: { enabled: true, minToolCalls: 1 } };
		const sm = SessionManager.inMemory("/tmp");
		sm.appendMessage({ role: "user", content: "go", timestamp: 0 });
		sm.appendMessage({
			role: "assistant",
			content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } }],
			api: "x",
			provider: "x",
			model: "x",
			usage: zeroUsage(),
			stopReason: "toolUse",
			timestamp: 0,
		});
		sm.appendMessage({
			role: "toolResult",
			toolCallId: "c1",
			toolName: "read",
			content: [{ type: "text", text: "x" }],
			isError: false,
			timestamp: 0,
		});
		sm.appendMessage({
			role: "assistant",
			content: [{ type: "text", text: "Done." }],
			api: "x",
			provider: "x",
			model: "x",
			usage: zeroUsage(),
			stopReason: "stop",
			timestamp: 0,
		});
		const sent: unknown[] = [];
		const review = createCompletionReview({
			pi: { sendMessage: (m: unknown) => sent.push(m) } as never,
			pipeline: {
				pi: {} as never,
				config: () => config,
				ledger: createSessionLedger(),
				loadCompleteSimple: async () => {
					throw new Error("never loaded");
				},
			},
			// Never asked: the host cannot record usage, which is judged first.
			advisorActive: () => false,
			onTrace: (t) => traces.push(t),
		});
		review.runEnded({ sessionManager: sm, isIdle: () => true } as never);
		expect(traces).toEqual([{ type: "not-started", reason: "host-cannot-record-usage" }]);
		expect(sent).toHaveLength(0);
	});
});
