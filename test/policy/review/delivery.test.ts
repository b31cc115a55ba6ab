/** Completion review delivery: by first-line severity, one wake per user prompt, nextTurn while a run is active. */
import { beforeEach, describe, expect, it } from "vitest";
import { CUSTOM_TYPES, type LedgerEvent, parseUsageRecordData } from "../../../src/events/index.ts";
import {
	type DeliveryState,
	reviewDelivery,
	reviewSendOptions,
	reviewUsageRecord,
} from "../../../src/policy/review/delivery.ts";
import { wokeSinceLastUserMessage } from "../../../src/policy/review/trigger.ts";
import { spendOf } from "../../../src/reducers/spend.ts";
import { reviewMessage } from "../../../src/render/index.ts";
import { REVIEW_MESSAGE } from "../../../src/render/model-text.ts";
import { assistant, call, custom, resetParents, result, user } from "../../support/events.ts";

beforeEach(() => resetParents());

const IDLE: DeliveryState = { wokeThisPrompt: false, runActive: false };

describe("severity decides what is shown", () => {
	it.each([
		["Severity: none\nAll good.", { show: false, severity: "none" }],
		["Severity: nit\nRename x.", { show: true, severity: "nit", triggerTurn: false, deliverAs: "now" }],
		[
			"Severity: concern\nThe test is wrong.",
			{ show: true, severity: "concern", triggerTurn: false, deliverAs: "now" },
		],
		[
			"Severity: blocker\nYou deleted the data.",
			{ show: true, severity: "blocker", triggerTurn: true, deliverAs: "now" },
		],
		// Markdown decoration is tolerated.
		["**Severity: Blocker**\nStop.", { show: true, severity: "blocker", triggerTurn: true, deliverAs: "now" }],
		["## Severity — none", { show: false, severity: "none" }],
		// No severity line → nit: shown, never a turn.
		["Looks fine, but add a test.", { show: true, severity: "nit", triggerTurn: false, deliverAs: "now" }],
		["The plan is fine.\nSeverity: blocker", { show: true, severity: "nit", triggerTurn: false, deliverAs: "now" }],
	])("%j", (advice, expected) => {
		expect(reviewDelivery(advice, IDLE)).toEqual(expected);
	});

	it("advice with no text is never shown", () => {
		expect(reviewDelivery("  \n", IDLE).show).toBe(false);
	});
});

describe("a blocker starts at most one turn per user prompt", () => {
	it("the second blocker of the same prompt is shown without a turn", () => {
		expect(reviewDelivery("Severity: blocker\nx", { wokeThisPrompt: true, runActive: false })).toEqual({
			show: true,
			severity: "blocker",
			triggerTurn: false,
			deliverAs: "now",
		});
	});

	it("the branch remembers the wake until the next user message", () => {
		const events: LedgerEvent[] = [
			user("u1", "fix it"),
			assistant("a1", { calls: [call("c1", "edit")] }),
			result("r1", "c1", "edit", "ok"),
			assistant("a2", { text: "Done." }),
		];
		const first = reviewDelivery("Severity: blocker\nWrong file.", {
			wokeThisPrompt: wokeSinceLastUserMessage(events),
			runActive: false,
		});
		expect(first).toMatchObject({ show: true, triggerTurn: true });
		if (!first.show) throw new Error("unreachable");
		const message = reviewMessage({ advice: "Severity: blocker\nWrong file.", answerEntryId: "a2", delivery: first });
		events.push(custom("rv1", message.customType, message.content, true, message.details));
		events.push(assistant("a3", { calls: [call("c3", "edit")] }), result("r3", "c3", "edit", "ok"));
		events.push(assistant("a4", { text: "Fixed the right file." }));

		const second = reviewDelivery("Severity: blocker\nStill wrong.", {
			wokeThisPrompt: wokeSinceLastUserMessage(events),
			runActive: false,
		});
		expect(second).toMatchObject({ show: true, triggerTurn: false, deliverAs: "now" });

		events.push(user("u2", "try again"), assistant("a5", { text: "Done." }));
		expect(
			reviewDelivery("Severity: blocker\nx", { wokeThisPrompt: wokeSinceLastUserMessage(events), runActive: false }),
		).toMatchObject({ triggerTurn: true });
	});
});

describe("a run already active: deliver on the next turn, never into it", () => {
	it.each([
		["Severity: nit\nx", { show: true, severity: "nit", triggerTurn: false, deliverAs: "nextTurn" }],
		["Severity: concern\nx", { show: true, severity: "concern", triggerTurn: false, deliverAs: "nextTurn" }],
		["Severity: blocker\nx", { show: true, severity: "blocker", triggerTurn: false, deliverAs: "nextTurn" }],
		["Severity: none\nx", { show: false, severity: "none" }],
	])("%j", (advice, expected) => {
		expect(reviewDelivery(advice, { wokeThisPrompt: false, runActive: true })).toEqual(expected);
	});
});

describe("pi.sendMessage options", () => {
	it.each([
		[{ wokeThisPrompt: false, runActive: false }, "Severity: blocker\nx", { triggerTurn: true }],
		[{ wokeThisPrompt: true, runActive: false }, "Severity: blocker\nx", {}],
		[{ wokeThisPrompt: false, runActive: false }, "Severity: concern\nx", {}],
		[{ wokeThisPrompt: false, runActive: true }, "Severity: blocker\nx", { deliverAs: "nextTurn" }],
	])("%j %j", (state, advice, expected) => {
		const delivery = reviewDelivery(advice, state);
		if (!delivery.show) throw new Error("expected a shown review");
		expect(reviewSendOptions(delivery)).toEqual(expected);
	});
});

describe("the review message and its usage record", () => {
	it("content is REVIEW_MESSAGE(advice); details carry the advice verbatim", () => {
		const advice = "**Severity: concern**\nThe migration drops a column.";
		const delivery = reviewDelivery(advice, IDLE);
		if (!delivery.show) throw new Error("expected a shown review");
		const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, cost: { total: 0.02 } };
		expect(
			reviewMessage({
				advice,
				answerEntryId: "a9",
				delivery,
				usage,
				advisorModel: "anthropic:claude-opus-4-5",
				effort: "high",
			}),
		).toEqual({
			customType: CUSTOM_TYPES.review,
			content: REVIEW_MESSAGE(advice),
			display: true,
			details: {
				advice,
				severity: "concern",
				answerEntryId: "a9",
				usage,
				advisorModel: "anthropic:claude-opus-4-5",
				effort: "high",
				triggerTurn: false,
			},
		});
	});

	it("the usage record names the answer, parses back, and counts in the branch spend", () => {
		const data = reviewUsageRecord({
			model: "anthropic:claude-opus-4-5",
			effort: "high",
			usage: { input: 1000, output: 50, cacheRead: 0, cacheWrite: 0, cost: { total: 0.25 } },
			answerEntryId: "a2",
			severity: "none",
			timestampMs: 5,
		});
		expect(parseUsageRecordData(data)).toEqual(data);
		const event: LedgerEvent = { id: "k1", parentId: null, kind: "custom", customType: CUSTOM_TYPES.usage, data };
		const spend = spendOf([event]);
		expect(spend.totalUsd).toBe(0.25);
		expect(spend.records[0]).toMatchObject({ entryId: "k1", source: "review" });
	});

	it("a malformed answerEntryId or severity costs only that field", () => {
		const parsed = parseUsageRecordData({
			kind: "review",
			model: "m",
			usage: {},
			timestampMs: 0,
			answerEntryId: 7,
			severity: "fatal",
		});
		expect(parsed).toEqual({ kind: "review", model: "m", usage: {}, timestampMs: 0 });
		// Warming records never carry them.
		expect(
			parseUsageRecordData({ kind: "warming", model: "m", usage: {}, timestampMs: 0, answerEntryId: "a1" }),
		).toEqual({ kind: "warming", model: "m", usage: {}, timestampMs: 0 });
	});
});
