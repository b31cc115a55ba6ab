/**
 * The budget gate on the real host (docs/configuration.md): within the soft limit → sent; over the soft
 * limit only → one dialog per consultation (UI only), headless / `onExceed: "skip"` / declined →
 * skipped; over the hard limit or the branch's budget → skipped with no dialog. A skip is the docs/request-format.md
 * row with `details.skipped: true`, the estimate it was judged on, and no usage.
 */

import { type FauxResponseStep, fauxAssistantMessage, fauxToolCall } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { CONFIRM_COST_TITLE, confirmCostMessage } from "../../../../src/adapter/extension/pi/notices.ts";
import { formatUsd } from "../../../../src/policy/index.ts";
import { FAILURE, SKIP_REASONS, TOOL_BUDGET_SPENT } from "../../../../src/render/index.ts";
import { ADVISOR_KEY, anchorEntries, ask, PRICED_ADVISOR, texts } from "../../../support/budget-host.ts";
import { type Host, type HostOptions, startHost } from "../../../support/pi-host.ts";

const ADVICE = "Severity: none\nLooks right.";
let host: Host | undefined;

afterEach(async () => {
	await host?.dispose();
	host = undefined;
});

/** One consultation on a small session (its first request costs about a cent at these prices). */
async function consult(
	budget: Record<string, unknown>,
	options: Partial<HostOptions> = {},
	advisor: FauxResponseStep[] = [fauxAssistantMessage(ADVICE)],
): Promise<Host> {
	host = await startHost({
		priceAdvisor: true,
		advisorProvider: PRICED_ADVISOR,
		advisorConfig: { modelKey: ADVISOR_KEY, tools: { enabled: false }, budget },
		executor: [ask("a1"), fauxAssistantMessage("Carrying on.")],
		advisor,
		...options,
	});
	await host.runtime.session.prompt("Do the task.");
	return host;
}

function only(h: Host) {
	const results = h.advisorResults();
	expect(results).toHaveLength(1);
	expect(results[0]!.isError).toBe(false);
	return { text: results[0]!.content[0]!.text ?? "", details: results[0]!.details };
}

describe("within the soft limit", () => {
	it("is sent without a dialog, and the envelope carries the estimate it was judged on", async () => {
		const h = await consult({ perCallSoftUsd: 1, perCallHardUsd: 3 }, { confirmAnswers: [false] });
		const { text, details } = only(h);
		expect(text).toBe(ADVICE);
		expect(h.confirms).toEqual([]);
		// The first request's figures, and the consultation's: without tools it is the first request alone;
		// at most, that request with a full answer (the 16,384-token cap at $15/M) and one retry of it.
		const cap = (16_384 * 15) / 1e6;
		expect(details.estimate).toEqual({
			promptTokens: Math.ceil(details.request.estimatedTokens * 1.2),
			cacheReadTokens: 0,
			outputTokens: 0,
			costUsd: expect.any(Number),
			coldCostUsd: expect.any(Number),
			sessionUsd: 20,
			consultationUsd: details.estimate.costUsd,
			atMostUsd: expect.closeTo(2 * (details.estimate.costUsd + cap), 12),
			limitUsd: expect.closeTo(2 * (details.estimate.costUsd + cap), 12),
			expectedRounds: 0,
			basis: "prior",
		});
		// Cold, first of its kind: chars/4 + 20% at the input price (no caching model for faux's API).
		expect(details.estimate.costUsd).toBeCloseTo((details.estimate.promptTokens * 3) / 1e6, 12);
		expect(details.usage.cost.total).toBeGreaterThan(0);
	});
});

describe("over the hard limit or the branch budget: skipped, never a dialog", () => {
	it("over perCallHardUsd", async () => {
		const h = await consult({ perCallSoftUsd: 0.0005, perCallHardUsd: 0.001 }, { confirmAnswers: [true] });
		const { text, details } = only(h);
		expect(h.confirms).toEqual([]);
		expect(h.advisorCalls).toHaveLength(0);
		const cost = details.estimate.costUsd;
		expect(cost).toBeGreaterThan(0.001);
		expect(text).toBe(FAILURE.skipped(SKIP_REASONS.overCallBudget(cost, 0.001)));
		expect(details).toMatchObject({ skipped: true, errorMessage: SKIP_REASONS.overCallBudget(cost, 0.001) });
		expect(details.usage).toBeUndefined();
		expect(details.attempts).toBeUndefined();
		expect(details.request.promptTokens).toBeUndefined();
		expect(anchorEntries(h)).toEqual([]);
	});

	it("over what is left of the branch's sessionUsd", async () => {
		const h = await consult({ perCallSoftUsd: 0.0005, sessionUsd: 0.001 }, { confirmAnswers: [true] });
		const { text, details } = only(h);
		expect(h.confirms).toEqual([]);
		expect(h.advisorCalls).toHaveLength(0);
		const reason = SKIP_REASONS.overSessionBudget(details.estimate.costUsd, 0.001, 0.001);
		expect(text).toBe(FAILURE.skipped(reason));
		expect(details).toMatchObject({ skipped: true, errorMessage: reason, estimate: { sessionUsd: 0.001 } });
	});
});

describe("over the soft limit only", () => {
	it("asks once per consultation, with what it is expected to cost and at most; accepted → sent, every round, within that", async () => {
		const h = await consult(
			{ perCallSoftUsd: 0.001, perCallHardUsd: 1 },
			{
				confirmAnswers: [true, true],
				advisorConfig: { modelKey: ADVISOR_KEY, budget: { perCallSoftUsd: 0.001, perCallHardUsd: 1 } },
			},
			[
				fauxAssistantMessage(fauxToolCall("ls", {}, { id: "t1" }), { stopReason: "toolUse" }),
				fauxAssistantMessage(ADVICE),
			],
		);
		const { text, details } = only(h);
		expect(text).toBe(ADVICE);
		expect(h.advisorCalls).toHaveLength(2);
		expect(h.confirms).toHaveLength(1);
		const [dialog] = h.confirms;
		expect(dialog!.title).toBe(CONFIRM_COST_TITLE);
		const e = details.estimate;
		// Tools on (three calls allowed), no consultation on record: the prior's two rounds are expected.
		expect(e.expectedRounds).toBe(2);
		expect(e.basis).toBe("prior");
		expect(dialog!.message).toBe(
			confirmCostMessage({
				expectedUsd: e.consultationUsd,
				firstUsd: e.costUsd,
				rounds: 3,
				atMostUsd: e.limitUsd,
				softUsd: 0.001,
			}),
		);
		expect(dialog!.message).toMatch(
			/^This advisor consultation is expected to cost about \$0\.\d{3} \(first request \$0\.\d{3}, up to 3 investigation rounds; at most \$\d\.\d{2,3}\)\. /,
		);
		// A yes covers the at most (within the hard limit), and the bill stays within it.
		expect(e.limitUsd).toBe(Math.min(e.atMostUsd, 1));
		expect(details.usage.cost.total).toBeLessThanOrEqual(e.limitUsd);
		expect(details.toolCalls).toEqual({ count: 1, names: ["ls"] });
		expect(details.attempts).toHaveLength(2);
	});

	it("a yes covers the consultation's limit; a request that would leave no room for a round after it goes with the in-band notice to answer now", async () => {
		// Two calls allowed, each result up to 16,000 chars (about 4,850 tokens with the call), 10-token answers.
		const config = (budget: Record<string, unknown>) => ({
			modelKey: ADVISOR_KEY,
			tools: { maxRounds: 2, maxResultChars: 16_000 },
			advice: { maxOutputTokens: 10 },
			budget,
		});
		// Measured first: what this consultation is expected to cost (the prior's two rounds of 2,000 tokens).
		const probe = await consult({}, { advisorConfig: config({}) }, [fauxAssistantMessage(ADVICE)]);
		const expected = only(probe).details.estimate.consultationUsd as number;
		await probe.dispose();
		host = undefined;
		// A yes for just that: the first request fits, but not with room for a round of two full results after it.
		const limit = expected * 1.02;
		const h = await consult(
			{},
			{ confirmAnswers: [true], advisorConfig: config({ perCallSoftUsd: expected / 10, perCallHardUsd: limit }) },
			[fauxAssistantMessage(ADVICE)],
		);
		const { text, details } = only(h);
		expect(h.confirms).toHaveLength(1);
		expect(h.confirms[0]!.message).toContain(`Yes allows up to ${formatUsd(limit)}`);
		expect(details.estimate.limitUsd).toBeCloseTo(limit, 12);
		// One request, told to answer with what it has; it did, within what the yes allowed.
		expect(h.advisorCalls).toHaveLength(1);
		expect(texts(h.advisorCalls[0]!.context.messages.at(-1)!)).toEqual([TOOL_BUDGET_SPENT]);
		expect(text).toBe(ADVICE);
		expect(details.toolCalls).toBeUndefined();
		expect(details.usage.cost.total).toBeLessThanOrEqual(limit);
	});

	it("declined → skipped, nothing sent", async () => {
		const h = await consult({ perCallSoftUsd: 0.001, perCallHardUsd: 1 }, { confirmAnswers: [false] });
		const { text, details } = only(h);
		expect(h.confirms).toHaveLength(1);
		expect(h.advisorCalls).toHaveLength(0);
		const reason = SKIP_REASONS.declined(details.estimate.costUsd);
		expect(text).toBe(FAILURE.skipped(reason));
		expect(details).toMatchObject({ skipped: true, errorMessage: reason });
		expect(details.usage).toBeUndefined();
	});

	it("headless → skipped without asking", async () => {
		const h = await consult({ perCallSoftUsd: 0.001, perCallHardUsd: 1 }, { ui: false });
		const { text, details } = only(h);
		expect(h.advisorCalls).toHaveLength(0);
		const reason = SKIP_REASONS.overSoftBudget(details.estimate.costUsd, 0.001);
		expect(text).toBe(FAILURE.skipped(reason));
		expect(details.skipped).toBe(true);
	});

	it("onExceed: skip → skipped without asking, even with a UI", async () => {
		const h = await consult({ perCallSoftUsd: 0.001, onExceed: "skip" }, { confirmAnswers: [true] });
		const { details } = only(h);
		expect(h.confirms).toEqual([]);
		expect(h.advisorCalls).toHaveLength(0);
		expect(details).toMatchObject({ skipped: true });
		expect(details.errorMessage).toBe(SKIP_REASONS.overSoftBudget(details.estimate.costUsd, 0.001));
	});
});
