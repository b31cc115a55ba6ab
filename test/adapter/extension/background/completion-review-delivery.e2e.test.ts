/**
 * Completion review delivery on the real host: by the first-line severity — none shows
 * nothing (usage still recorded), nit/concern add a visible `advisor-review` message to the
 * executor's context without a turn, a blocker also starts one turn (at most one per user prompt);
 * while the user's next run is going the message waits for the next prompt; and a later
 * consultation replays the delivered review as the advisor's own turn under the review marker.
 */

import { type Context, fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import type { ReviewTrace } from "../../../../src/adapter/extension/background/completion-review.ts";
import { REVIEW_MARKER, REVIEW_MESSAGE, TAGS } from "../../../../src/render/index.ts";
import { gate } from "../../../support/mock-llm.ts";
import { type Host, startHost, waitFor } from "../../../support/pi-host.ts";
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
	textOf,
	waitForReviewRecords,
} from "../../../support/review-host.ts";

let host: Host | undefined;
afterEach(async () => {
	await host?.dispose();
	host = undefined;
});

async function start(options: Parameters<typeof startHost>[0]) {
	const traces: ReviewTrace[] = [];
	host = await startHost({
		advisorConfig: REVIEW_CONFIG,
		...options,
		extension: testExtension({ review: { onTrace: (t) => traces.push(t) } }),
	});
	return { host, traces };
}

/** Executor requests so far (the faux executor's call count). */
const executorRequests = (h: Host) => h.executor.state.callCount;

describe("delivery by severity", () => {
	it("none: nothing shown, no turn; the usage record says none", async () => {
		const { host: h } = await start({
			executor: reviewableRun("r1"),
			advisor: [fauxAssistantMessage("Severity: none\nAll good.")],
		});
		await h.runtime.session.prompt("Check the README.");
		const [record] = await waitForReviewRecords(h);
		await settle();
		expect(record).toMatchObject({ severity: "none", outcome: "advice" });
		expect(reviewMessages(h)).toHaveLength(0);
		expect(executorRequests(h)).toBe(2);
	});

	it.each([
		["nit", "Severity: nit\nMention the license in the README."],
		["concern", "Severity: concern\nThe README does not say how to run the tests."],
		["nit", "The README could mention the license."], // no severity line → nit
	])(
		"%s: a visible advisor-review message, no turn, in the executor's context on its next turn",
		async (severity, advice) => {
			const seen: Context[] = [];
			const { host: h } = await start({
				executor: [...reviewableRun("r1"), recording(seen, "Noted.")],
				advisor: [fauxAssistantMessage(advice)],
			});
			await h.runtime.session.prompt("Check the README.");
			const answerId = lastAnswerId(h);
			await waitForReviewRecords(h);
			const [message] = await waitFor(() => {
				const m = reviewMessages(h);
				return m.length > 0 ? m : undefined;
			}, "the review message");
			await settle();
			// No turn: the executor was asked twice (tool call, answer), not a third time.
			expect(executorRequests(h)).toBe(2);
			expect(message).toMatchObject({
				display: true,
				content: REVIEW_MESSAGE(advice),
				details: {
					advice,
					severity,
					answerEntryId: answerId,
					triggerTurn: false,
					advisorModel: "advisor-faux:advisor-1",
				},
			});
			// The usage record comes first, then the message, right after the answer.
			const entries = h.entries();
			const recordAt = entries.findIndex((e: any) => e.type === "custom" && e.customType === "advisor-usage");
			expect(entries.indexOf(message)).toBe(recordAt + 1);
			expect(entries[recordAt - 1]!.id).toBe(answerId);

			await h.runtime.session.prompt("Thanks.");
			const context = seen[0]!.messages;
			const at = context.findIndex((m) => textOf(m) === REVIEW_MESSAGE(advice));
			expect(at).toBeGreaterThan(0);
			expect(context[at]!.role).toBe("user");
			expect(textOf(context[at + 1]!)).toBe("Thanks.");
		},
	);

	it("blocker: the message and one executor turn; that turn's answer is not reviewed again", async () => {
		const seen: Context[] = [];
		const advice = "**Severity: Blocker**\nThe README still says `a - b`; the fix was never saved.";
		const { host: h, traces } = await start({
			executor: [...reviewableRun("r1"), recording(seen, "You are right; I disagree on the details, though.")],
			advisor: [fauxAssistantMessage(advice)],
		});
		await h.runtime.session.prompt("Check the README.");
		await waitFor(() => seen.length === 1, "the blocker's turn");
		await waitFor(() => traces.filter((t) => t.type === "not-started").length > 0, "the wake turn's agent_end");
		const [message] = reviewMessages(h);
		expect(message).toMatchObject({ details: { severity: "blocker", triggerTurn: true } });
		// The turn was started by the review message itself: it is the last thing the executor read.
		expect(textOf(seen[0]!.messages.at(-1)!)).toBe(REVIEW_MESSAGE(advice));
		expect(executorRequests(h)).toBe(3);
		expect(traces.filter((t) => t.type === "not-started")).toEqual([
			{ type: "not-started", reason: "consulted-after-last-tool-call", answerEntryId: lastAnswerId(h) },
		]);
		expect(h.advisorCalls).toHaveLength(1);
	});

	it("at most one blocker turn per user prompt: a second blocker is shown without a turn", async () => {
		const { host: h } = await start({
			executor: [...reviewableRun("r1"), readStep("r2", "Fixing."), answer("Fixed for real now.")],
			advisor: [
				fauxAssistantMessage("Severity: blocker\nNot saved."),
				fauxAssistantMessage("Severity: blocker\nStill wrong."),
			],
		});
		await h.runtime.session.prompt("Check the README.");
		await waitForReviewRecords(h, 2);
		const messages = await waitFor(() => {
			const m = reviewMessages(h);
			return m.length === 2 ? m : undefined;
		}, "two review messages");
		await settle();
		expect(messages.map((m: any) => m.details.triggerTurn)).toEqual([true, false]);
		// Tool call + answer, then the one woken turn (tool call + answer): four executor requests.
		expect(executorRequests(h)).toBe(4);
		expect(reviewRecords(h).map((r) => r.severity)).toEqual(["blocker", "blocker"]);
	});

	it("a new user prompt allows a new wake", async () => {
		const { host: h } = await start({
			executor: [
				...reviewableRun("r1"),
				answer("Woken once."),
				...reviewableRun("r2", "Done again."),
				answer("Woken twice."),
			],
			advisor: [fauxAssistantMessage("Severity: blocker\nA."), fauxAssistantMessage("Severity: blocker\nB.")],
		});
		await h.runtime.session.prompt("Check the README.");
		await waitFor(() => executorRequests(h) === 3, "the first wake");
		await waitFor(() => !h.runtime.session.isStreaming || undefined, "the woken turn to end");
		await h.runtime.session.prompt("Check it again.");
		await waitFor(() => executorRequests(h) === 6, "the second wake");
		expect(reviewMessages(h).map((m: any) => m.details.triggerTurn)).toEqual([true, true]);
	});
});

describe("a run already going when the review settles", () => {
	it("the message waits for the next prompt (deliverAs nextTurn) and starts no turn, even for a blocker", async () => {
		const held = gate();
		const seen: Context[] = [];
		const advice = "Severity: blocker\nThe first answer was wrong.";
		const { host: h } = await start({
			executor: [
				...reviewableRun("r1"),
				// The second run: the review settles while it is going.
				async (context) => {
					seen.push(structuredClone({ messages: context.messages }) as Context);
					held.release();
					await waitFor(() => reviewRecords(h).length === 1, "the review to settle mid-run");
					await settle();
					return fauxAssistantMessage("Second answer.");
				},
				recording(seen, "Third answer."),
			],
			advisor: [
				async () => {
					await held.promise;
					return fauxAssistantMessage(advice);
				},
			],
		});
		await h.runtime.session.prompt("Check the README.");
		await h.runtime.session.prompt("Something else.");
		await settle();
		// Not injected into the second run, not appended, no turn of its own.
		expect(reviewMessages(h)).toHaveLength(0);
		expect(seen[0]!.messages.some((m) => textOf(m).includes("first answer was wrong"))).toBe(false);
		expect(executorRequests(h)).toBe(3);

		await h.runtime.session.prompt("And now?");
		const [message] = reviewMessages(h);
		expect(message).toMatchObject({ details: { severity: "blocker", triggerTurn: false } });
		const context = seen[1]!.messages;
		const user = context.findIndex((m) => textOf(m) === "And now?");
		expect(textOf(context[user + 1]!)).toBe(REVIEW_MESSAGE(advice));
		expect(executorRequests(h)).toBe(4);
	});
});

describe("a delivered review in later consultations", () => {
	it("is replayed as the advisor's own past answer under the review marker", async () => {
		const advice = "Severity: concern\nThe README lacks a usage section.";
		const { host: h } = await start({
			executor: [
				...reviewableRun("r1"),
				fauxAssistantMessage(
					[fauxText("Should I add the usage section now?"), fauxToolCall("advisor", {}, { id: "a1" })],
					{
						stopReason: "toolUse",
					},
				),
				answer("Adding it."),
			],
			advisor: [fauxAssistantMessage(advice), fauxAssistantMessage("Severity: none\nYes, add it.")],
		});
		await h.runtime.session.prompt("Check the README.");
		await waitFor(() => reviewMessages(h).length === 1, "the review message");
		await h.runtime.session.prompt("Go on.");
		const consultation = h.advisorCalls[1]!.context.messages;
		expect(consultation.map((m) => m.role)).toEqual(["user", "user", "assistant", "user"]);
		const closed = textOf(consultation[1]!);
		expect(closed).toContain(`<${TAGS.review}>\n${REVIEW_MARKER}\n</${TAGS.review}>`);
		expect(closed).not.toContain(`<${TAGS.question}>`);
		expect(textOf(consultation[2]!)).toBe(advice);
		// The review message itself is not a log block (it closed the segment instead).
		expect(textOf(consultation[3]!)).not.toContain("Advisor review of your finished work");
	});
});
