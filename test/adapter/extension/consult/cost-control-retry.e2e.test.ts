/**
 * Retry and timeout on the real host (docs/configuration.md): one retry for a transient failure while
 * under half of `timeoutSec`, none for a deterministic one, an empty answer asked again once, each
 * retry gated like any request; `timeoutSec` over the whole consultation, paused while the budget
 * dialog is open. Every attempt's usage is kept in `attempts` and in the sum.
 */

import { type FauxResponseStep, fauxAssistantMessage } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { addUsage } from "../../../../src/adapter/extension/consult/consultation-input.ts";
import { FAILURE, SKIP_REASONS, zeroUsage } from "../../../../src/render/index.ts";
import { ADVISOR_KEY, ask, PRICED_ADVISOR } from "../../../support/budget-host.ts";
import { type Host, type HostOptions, startHost } from "../../../support/pi-host.ts";

const ADVICE = "Severity: none\nLooks right.";
let hosts: Host[] = [];

afterEach(async () => {
	for (const h of hosts) await h.dispose();
	hosts = [];
});

async function consult(
	advisor: FauxResponseStep[],
	budget: Record<string, unknown> = {},
	options: Partial<HostOptions> = {},
): Promise<Host> {
	const host = await startHost({
		priceAdvisor: true,
		advisorProvider: PRICED_ADVISOR,
		advisorConfig: { modelKey: ADVISOR_KEY, tools: { enabled: false }, budget },
		executor: [ask("a1"), fauxAssistantMessage("Carrying on.")],
		advisor,
		...options,
	});
	hosts.push(host);
	await host.runtime.session.prompt("Do the task.");
	return host;
}

function only(h: Host) {
	const results = h.advisorResults();
	expect(results).toHaveLength(1);
	return { text: results[0]!.content[0]!.text ?? "", details: results[0]!.details };
}

const error = (message: string) => fauxAssistantMessage([], { stopReason: "error", errorMessage: message });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("retry", () => {
	it("a transient failure, then success: two attempts, the same request, usage summed", async () => {
		const h = await consult([error("503 Service Unavailable: overloaded"), fauxAssistantMessage(ADVICE)]);
		const { text, details } = only(h);
		expect(text).toBe(ADVICE);
		expect(h.advisorCalls).toHaveLength(2);
		expect(h.advisorCalls[1]!.context).toEqual(h.advisorCalls[0]!.context);
		expect(h.advisorCalls[1]!.sessionId).toBe(h.advisorCalls[0]!.sessionId);
		expect(details.attempts.map((a: any) => a.stopReason)).toEqual(["error", "stop"]);
		expect(details.attempts[0].errorMessage).toBe("503 Service Unavailable: overloaded");
		const sum = details.attempts.reduce((acc: any, a: any) => addUsage(acc, a.usage), zeroUsage());
		expect(details.usage).toEqual(sum);
		expect(details.usage.cost.total).toBeCloseTo(
			details.attempts[0].usage.cost.total + details.attempts[1].usage.cost.total,
			12,
		);
		expect(details.usage.cost.total).toBeGreaterThan(details.attempts[1].usage.cost.total);
	});

	it("only one retry: transient twice is reported", async () => {
		const h = await consult([error("overloaded_error"), error("overloaded_error"), fauxAssistantMessage(ADVICE)]);
		const { text, details } = only(h);
		expect(text).toBe(FAILURE.failed("overloaded_error"));
		expect(details.attempts).toHaveLength(2);
		expect(h.advisorCalls).toHaveLength(2);
	});

	it("a deterministic failure is returned at once: auth", async () => {
		const h = await consult([error("401 invalid x-api-key"), fauxAssistantMessage(ADVICE)]);
		const { text, details } = only(h);
		expect(text).toBe(FAILURE.failed("401 invalid x-api-key"));
		expect(details.attempts).toHaveLength(1);
		expect(h.advisorCalls).toHaveLength(1);
	});

	it("a deterministic failure is returned at once: context overflow", async () => {
		const overflow = "prompt is too long: 213462 tokens > 200000 maximum";
		const h = await consult([error(overflow), fauxAssistantMessage(ADVICE)]);
		expect(only(h).text).toBe(FAILURE.failed(overflow));
		expect(h.advisorCalls).toHaveLength(1);
	});

	it("an empty answer is asked again once, at once", async () => {
		const h = await consult([fauxAssistantMessage(""), fauxAssistantMessage(ADVICE)]);
		const { text, details } = only(h);
		expect(text).toBe(ADVICE);
		expect(details.attempts.map((a: any) => a.stopReason)).toEqual(["stop", "stop"]);
		expect(h.advisorCalls).toHaveLength(2);
	});

	it("not past half of timeoutSec", async () => {
		const h = await consult(
			[
				async () => {
					await sleep(300);
					return error("503 overloaded");
				},
				fauxAssistantMessage(ADVICE),
			],
			{ timeoutSec: 0.5 },
		);
		expect(only(h).text).toBe(FAILURE.failed("503 overloaded"));
		expect(h.advisorCalls).toHaveLength(1);
	});

	it("a retry passes the gate too: one that would take the consultation past its limit is not sent, and it ends as a skip that keeps the usage already billed", async () => {
		// The same session, measured first: its first request's prompt, as estimated.
		const probe = await consult([fauxAssistantMessage(ADVICE)]);
		const prompt = only(probe).details.estimate.costUsd as number;
		// A 100-token output cap ($0.0015 at $15/M): the hard limit holds one request with a full
		// answer, not the billed first attempt and a retry besides.
		const cap = (100 * 15) / 1e6;
		const limit = (prompt + cap) * 1.3;
		const h = await consult(
			[error("503 overloaded"), fauxAssistantMessage(ADVICE)],
			{},
			{
				advisorConfig: {
					modelKey: ADVISOR_KEY,
					tools: { enabled: false },
					advice: { maxOutputTokens: 100 },
					budget: { perCallSoftUsd: limit, perCallHardUsd: limit },
				},
			},
		);
		const { text, details } = only(h);
		expect(details.estimate.costUsd).toBe(prompt);
		expect(details.estimate.limitUsd).toBeCloseTo(limit, 12);
		expect(h.advisorCalls).toHaveLength(1);
		expect(details.skipped).toBe(true);
		const billed = details.usage.cost.total as number;
		expect(billed).toBeGreaterThan(0);
		expect(text).toBe(FAILURE.skipped(SKIP_REASONS.overConsultationLimit(details.estimate.limitUsd, billed)));
		expect(details.attempts).toHaveLength(1);
		expect(details.usage).toEqual(details.attempts[0].usage);
	});
});

describe("timeout", () => {
	it("covers the whole consultation: expiry → the timeout row (errorMessage `timeout`)", async () => {
		const h = await consult(
			[
				(_context, options) =>
					new Promise((resolve) => {
						options?.signal?.addEventListener("abort", () => resolve(fauxAssistantMessage("too late")));
					}),
			],
			{ timeoutSec: 0.3 },
		);
		const { text, details } = only(h);
		expect(text).toBe(FAILURE.timeout(0.3));
		expect(text).toBe("Advisor timed out after 0.3s. Continue without advisor; do not retry this consultation.");
		expect(details.errorMessage).toBe("timeout");
		expect(h.advisorCalls).toHaveLength(1);
	});

	it("is paused while the budget dialog is open", async () => {
		const h = await consult(
			[fauxAssistantMessage(ADVICE)],
			{ timeoutSec: 0.3, perCallSoftUsd: 0.0001 },
			{
				confirmAnswers: [
					async () => {
						await sleep(500);
						return true;
					},
				],
			},
		);
		expect(h.confirms).toHaveLength(1);
		expect(only(h).text).toBe(ADVICE);
	});

	it("a declined dialog skips (the SKIP_REASONS text), not a timeout", async () => {
		const h = await consult(
			[fauxAssistantMessage(ADVICE)],
			{ timeoutSec: 0.3, perCallSoftUsd: 0.0001 },
			{
				confirmAnswers: [
					async () => {
						await sleep(400);
						return false;
					},
				],
			},
		);
		const { details } = only(h);
		expect(details.errorMessage).toBe(SKIP_REASONS.declined(details.estimate.costUsd));
	});
});
