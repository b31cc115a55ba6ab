/**
 * Trimming on the real host: a cold first request over both `perCallSoftUsd` and
 * `contextBudgetTokens` is trimmed, the anchor is persisted with pi.appendEntry before the request
 * is sent, and the next consultation renders with the same anchor — its request starts with the
 * first one's stable part byte for byte — without appending another one. Its estimate builds on
 * the prompt the provider billed for the first.
 */

import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CUSTOM_TYPES, eventsFromBranch } from "../../../../src/events/index.ts";
import { emptyLedger, foldLedger } from "../../../../src/reducers/index.ts";
import { buildContext, DEFAULT_LEDGER_CONFIG, LEFT_OUT_INTRO, renderRequest } from "../../../../src/render/index.ts";
import {
	ADVISOR_KEY,
	anchorEntries,
	ask,
	billedPrompt,
	fileEntries,
	flattenParts,
	PRICED_ADVISOR,
	steps,
} from "../../../support/budget-host.ts";
import { type Host, startHost } from "../../../support/pi-host.ts";
import { sentCatalogue } from "../../../support/requests.ts";

const BUDGET_TOKENS = 9000;
// 12 000 prompt tokens at $3/M: the untrimmed request (~15 500 tokens, cold) is over it, the
// trimmed one (≤ 9000) and its warm follow-up are not.
const SOFT_USD = 0.036;
const ADVICE_1 = "Severity: none\nKeep going.";
const ADVICE_2 = "Severity: nit\nAdd a test.";

describe("a cold request over the soft limit and the context budget", () => {
	let host: Host;
	/** Trim anchors on the session when the advisor received each request. */
	const anchorsAtCall: number[] = [];

	beforeAll(async () => {
		const ref: { host?: Host } = {};
		const answer = (text: string) => () => {
			anchorsAtCall.push(
				ref.host!.entries().filter((e: any) => e.type === "custom" && e.customType === CUSTOM_TYPES.trimAnchor)
					.length,
			);
			return fauxAssistantMessage(text);
		};
		host = await startHost({
			priceAdvisor: true,
			advisorProvider: PRICED_ADVISOR,
			advisorConfig: {
				modelKey: ADVISOR_KEY,
				tools: { enabled: false },
				// The steps' 3000-char prose is what makes the request big: keep it whole in the log.
				// The log keeps every entry (logTargetTokens 0): the budget trim is what cuts it here.
				ledger: { proseMaxChars: 4000, logTargetTokens: 0 },
				budget: { contextBudgetTokens: BUDGET_TOKENS, perCallSoftUsd: SOFT_USD, perCallHardUsd: 1, sessionUsd: 5 },
			},
			executor: [
				...steps(16, 3000),
				ask("a1", "Is the plan right?"),
				fauxAssistantMessage(
					[fauxText("One more step."), fauxToolCall("bash", { command: "true" }, { id: "x1" })],
					{
						stopReason: "toolUse",
					},
				),
				ask("a2", "And now?"),
				fauxAssistantMessage("Done."),
			],
			advisor: [answer(ADVICE_1), answer(ADVICE_2)],
		});
		ref.host = host;
		await host.runtime.session.prompt("Please fix the build.");
	});

	afterAll(async () => {
		await host?.dispose();
	});

	it("both consultations were answered", () => {
		const [first, second] = host.advisorResults();
		expect(first!.content[0]!.text).toBe(ADVICE_1);
		expect(second!.content[0]!.text).toBe(ADVICE_2);
		expect(host.advisorCalls).toHaveLength(2);
		expect(host.confirms).toEqual([]);
	});

	it("persists the anchor once, with pi.appendEntry, before the first request was sent", () => {
		const anchors = anchorEntries(host);
		expect(anchors).toHaveLength(1);
		expect(anchorsAtCall).toEqual([1, 1]);
		const entries = fileEntries(host);
		const firstResult = entries.findIndex((e) => e.type === "message" && e.message.toolCallId === "a1");
		expect(entries.indexOf(anchors[0])).toBeLessThan(firstResult);
		expect(anchors[0].data).toEqual({ anchorEntryId: expect.any(String), summaryBoundaryId: null });
	});

	it("sends the trimmed request: the oldest steps left out, the user's words re-stated before the marker", () => {
		const first = host.advisorResults()[0]!.details;
		const anchorId = anchorEntries(host)[0].data.anchorEntryId;
		expect(first.context).toEqual({
			trimmed: true,
			anchorEntryId: anchorId,
			originalPromptTokens: expect.any(Number),
		});
		expect(first.context.originalPromptTokens).toBeGreaterThan(BUDGET_TOKENS);
		expect(first.estimate.promptTokens).toBeLessThanOrEqual(BUDGET_TOKENS);
		expect(first.estimate.costUsd).toBeLessThanOrEqual(SOFT_USD);
		expect(Math.ceil(first.request.estimatedTokens * 1.2)).toBeLessThanOrEqual(BUDGET_TOKENS);

		const sent = flattenParts(host.advisorCalls[0]!.context.messages);
		expect(sent).not.toContain("Step s1: ");
		expect(sent).toContain("Step s16: ");
		const intro = sent.indexOf(LEFT_OUT_INTRO);
		const marker = sent.indexOf("[omitted] End of what stands in for the entries up to #");
		expect(intro).toBeGreaterThan(-1);
		expect(marker).toBeGreaterThan(intro);
		const restated = sent.slice(intro, marker);
		expect(restated).toContain("Please fix the build.");
	});

	it("the second consultation renders with the same anchor: its request starts with the first one's stable part", () => {
		const [first, second] = host.advisorResults();
		const anchor = anchorEntries(host)[0].data;
		expect(second!.details.context).toMatchObject({ trimmed: true, anchorEntryId: anchor.anchorEntryId });

		// The first request re-rendered by the core from the session log with the persisted anchor,
		// to learn where its stable part ends (and that the anchor alone reproduces it).
		const entries = host.entries();
		const callEntry = entries.find(
			(e: any) =>
				e.type === "message" && e.message.role === "assistant" && e.message.content.some((c: any) => c.id === "a1"),
		)!;
		const branch = host.runtime.session.sessionManager.getBranch(callEntry.id);
		const state = foldLedger(
			emptyLedger(host.runtime.session.sessionManager.getCwd()),
			eventsFromBranch(branch, entries).events,
		);
		const sentFirst = host.advisorCalls[0]!.context;
		const catalogue = sentCatalogue(sentFirst.messages);
		const rerendered = renderRequest(state, {
			config: { ...DEFAULT_LEDGER_CONFIG, proseMaxChars: 4000, logTargetTokens: 0 },
			catalogue,
			tools: [],
			toolsMode: "none",
			mode: "consult",
			inFlightCallId: "a1",
			trim: { anchorEntryId: anchor.anchorEntryId },
		});
		expect(rerendered.hash).toBe(first!.details.request.hash);
		expect(buildContext(rerendered).messages.slice(1)).toEqual(sentFirst.messages.slice(1).map((m) => ({ ...m })));

		const stable = flattenParts(sentFirst.messages, rerendered.stable);
		expect(stable).toContain("[omitted] End of what stands in for the entries up to #");
		const secondAll = flattenParts(host.advisorCalls[1]!.context.messages);
		expect(secondAll.startsWith(stable)).toBe(true);
		expect(second!.details.request.stableHash).not.toBe(first!.details.request.stableHash);
	});

	it("the second estimate builds on the prompt billed for the first request", () => {
		const [first, second] = host.advisorResults();
		const billed = billedPrompt(first!.details.attempts[0].usage);
		expect(first!.details.request.promptTokens).toBe(billed);
		const p1 = billed;
		const t1 = first!.details.request.estimatedTokens;
		const t2 = second!.details.request.estimatedTokens;
		expect(second!.details.estimate.promptTokens).toBe(Math.max(p1 + t2 - t1, Math.ceil((t2 * p1) / t1)));
		// Not the cold chars/4 + 20% a request without a matching predecessor gets.
		expect(second!.details.estimate.promptTokens).not.toBe(Math.ceil(t2 * 1.2));
	});
});

describe("contextBudgetTokens: 0", () => {
	it("disables trimming: the same cold request over the soft limit goes out whole (after the dialog)", async () => {
		const host = await startHost({
			priceAdvisor: true,
			advisorProvider: PRICED_ADVISOR,
			advisorConfig: {
				modelKey: ADVISOR_KEY,
				tools: { enabled: false },
				// The log keeps every entry (logTargetTokens 0): the budget trim is what cuts it here.
				ledger: { proseMaxChars: 4000, logTargetTokens: 0 },
				budget: { contextBudgetTokens: 0, perCallSoftUsd: SOFT_USD, perCallHardUsd: 1, sessionUsd: 5 },
			},
			confirmAnswers: [true],
			executor: [...steps(16, 3000), ask("a1"), fauxAssistantMessage("Done.")],
			advisor: [fauxAssistantMessage(ADVICE_1)],
		});
		try {
			await host.runtime.session.prompt("Please fix the build.");
			const [result] = host.advisorResults();
			expect(result!.content[0]!.text).toBe(ADVICE_1);
			expect(result!.details.context).toBeUndefined();
			expect(result!.details.estimate.costUsd).toBeGreaterThan(SOFT_USD);
			expect(anchorEntries(host)).toEqual([]);
			expect(host.confirms).toHaveLength(1);
			expect(flattenParts(host.advisorCalls[0]!.context.messages)).toContain("Step s1: ");
		} finally {
			await host.dispose();
		}
	});
});
