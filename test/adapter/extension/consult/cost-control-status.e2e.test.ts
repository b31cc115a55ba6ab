/**
 * The footer status and the spend across calls on the real host:
 * `Advisor $<branch spend> · cache <pct>%` after each consultation and before every prompt, cleared
 * on a branch without spend; spend and the previous request come back from the session file after
 * a restart (resume), so the next estimate still builds on the billed prompt.
 */

import { fauxAssistantMessage } from "@mariozechner/pi-ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATUS_KEY } from "../../../../src/adapter/extension/pi/notices.ts";
import { formatAdvisorStatus } from "../../../../src/policy/index.ts";
import { ADVISOR_KEY, ask, billedPrompt, PRICED_ADVISOR, steps } from "../../../support/budget-host.ts";
import { type Host, startHost } from "../../../support/pi-host.ts";

const ADVICE_1 = "Severity: none\nGo on.";
const ADVICE_2 = "Severity: nit\nName the file better.";

function statusOf(usages: { input: number; cacheRead: number; cacheWrite: number; cost: { total: number } }[]) {
	return formatAdvisorStatus({
		totalUsd: usages.reduce((a, u) => a + u.cost.total, 0),
		promptTokens: usages.reduce((a, u) => a + billedPrompt(u), 0),
		cacheReadTokens: usages.reduce((a, u) => a + u.cacheRead, 0),
	});
}

describe("the branch's advisor spend", () => {
	let host: Host;
	const marks: Record<string, number> = {};

	beforeAll(async () => {
		host = await startHost({
			priceAdvisor: true,
			advisorProvider: PRICED_ADVISOR,
			advisorConfig: { modelKey: ADVISOR_KEY, tools: { enabled: false } },
			executor: [
				...steps(3, 400),
				ask("a1"),
				fauxAssistantMessage("Carrying on."),
				// After the resume:
				...steps(1, 400, "r"),
				ask("a2", "And the name?"),
				fauxAssistantMessage("Renamed."),
				// On the other branch:
				fauxAssistantMessage("Starting over."),
			],
			advisor: [fauxAssistantMessage(ADVICE_1), fauxAssistantMessage(ADVICE_2)],
		});
		await host.runtime.session.prompt("Add a config file.");
		marks.afterFirst = host.statuses.length;

		// A restart: the same session file opened by a fresh copy of the extension.
		const file = host.runtime.session.sessionFile!;
		await host.runtime.switchSession(file);
		marks.afterResume = host.statuses.length;
		await host.runtime.session.prompt("Also rename it.");
		marks.afterSecond = host.statuses.length;

		// Back to before any consultation: a branch without advisor spend.
		const firstUser = host
			.entries()
			.find((e: any) => e.type === "message" && e.message.role === "user" && e.message.content !== undefined)!;
		await host.runtime.session.navigateTree(firstUser.id, { summarize: false });
		await host.runtime.session.prompt("Let us do something else.");
	});

	afterAll(async () => {
		await host?.dispose();
	});

	it("is shown after the consultation: `Advisor $<spend> · cache <pct>%`", () => {
		const first = host.advisorResults()[0]!.details;
		const expected = statusOf([first.usage]);
		expect(expected).toMatch(/^Advisor \$\d+\.\d+ · cache \d+%$/);
		// Before the prompt (no spend yet): cleared; after the consultation: the spend.
		const before = host.statuses.slice(0, marks.afterFirst!);
		expect(before[0]).toEqual({ key: STATUS_KEY, text: undefined });
		expect(before.at(-1)).toEqual({ key: STATUS_KEY, text: expected });
	});

	it("comes back from the session file after a restart, and grows with the next consultation", () => {
		const [first, second] = host.advisorResults();
		const resumed = host.statuses.slice(marks.afterFirst!, marks.afterResume!);
		expect(resumed.at(-1)).toEqual({ key: STATUS_KEY, text: statusOf([first!.details.usage]) });
		const afterSecond = host.statuses[marks.afterSecond! - 1];
		expect(afterSecond).toEqual({
			key: STATUS_KEY,
			text: statusOf([first!.details.usage, second!.details.usage]),
		});
		// The faux provider's prompt cache served the second request's prefix.
		expect(second!.details.usage.cacheRead).toBeGreaterThan(0);
	});

	it("after the restart, the next estimate still builds on the first request's billed prompt", () => {
		const [first, second] = host.advisorResults();
		const p1 = first!.details.request.promptTokens;
		expect(p1).toBe(billedPrompt(first!.details.attempts[0].usage));
		const t1 = first!.details.request.estimatedTokens;
		const t2 = second!.details.request.estimatedTokens;
		expect(second!.details.estimate.promptTokens).toBe(Math.max(p1 + t2 - t1, Math.ceil((t2 * p1) / t1)));
		// The branch budget left, as the gate saw it.
		expect(second!.details.estimate.sessionUsd).toBeCloseTo(20 - first!.details.usage.cost.total, 12);
	});

	it("is cleared on a branch without advisor spend", () => {
		expect(host.statuses.at(-1)).toEqual({ key: STATUS_KEY, text: undefined });
		expect(host.statuses.slice(marks.afterSecond!).some((s) => s.text !== undefined)).toBe(false);
	});
});
