/**
 * The watch in `/advisor stats` (docs/configuration.md#the-watch): reviews by signal, answers by
 * severity and delivery, reviews without an answer, skips by reason, its spend beside the
 * executor's; and an advisor whose newest background reviews answered nothing usable, said — and
 * nothing said otherwise.
 */

import type { AssistantMessage } from "@mariozechner/pi-ai";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { inventoryMessage } from "../../../../src/adapter/extension/baseline/messages.ts";
import { sessionStats, sumScopes } from "../../../../src/adapter/extension/stats/session-stats.ts";
import { statsLines } from "../../../../src/adapter/extension/stats/stats-text.ts";
import { CUSTOM_TYPES, entryRecords } from "../../../../src/events/index.ts";
import { zeroUsage } from "../../../../src/render/index.ts";

const costing = (total: number) => ({ ...zeroUsage(), input: 1_000, output: 50, cost: { ...zeroUsage().cost, total } });

/** A session: one executor turn that cost `executorUsd`, then the records given. */
function stats(records: Record<string, unknown>[], executorUsd = 0.3) {
	const sm = SessionManager.inMemory("/tmp/x");
	sm.appendMessage({ role: "user", content: "Fix it.", timestamp: 0 });
	sm.appendMessage({
		role: "assistant",
		content: [{ type: "text", text: "Working." }],
		api: "x",
		provider: "exec",
		model: "small",
		usage: costing(executorUsd),
		stopReason: "stop",
		timestamp: 0,
	} as AssistantMessage);
	for (const data of records)
		sm.appendCustomEntry(CUSTOM_TYPES.usage, { model: "anthropic:opus", timestampMs: 1, ...data });
	return sessionStats({
		entries: entryRecords(sm.getEntries()),
		path: entryRecords(sm.getBranch()),
		inventory: inventoryMessage([]),
		price: () => undefined,
	});
}

const watch = (data: Record<string, unknown>) => ({
	kind: "watch",
	usage: zeroUsage(),
	signal: "failure-streak",
	watchKey: `k${Math.random()}`,
	atEntryId: "e1",
	...data,
});

describe("the watch's figures", () => {
	it("reviews by signal, answers by severity and delivery, no answers, skips by reason, the share of the executor's spend", () => {
		const s = stats([
			watch({ usage: costing(0.012), outcome: "advice", severity: "concern", delivery: "steered" }),
			watch({ usage: costing(0.006), signal: "long-run", outcome: "advice", severity: "nit", delivery: "kept" }),
			watch({ signal: "untested-edits", outcome: "failed", delivery: "none", errorMessage: "overloaded" }),
			watch({ outcome: "skipped", delivery: "not-reviewed", errorMessage: "cooldown" }),
			watch({ outcome: "skipped", delivery: "not-reviewed", errorMessage: "over-share" }),
			watch({
				outcome: "skipped",
				delivery: "not-reviewed",
				errorMessage: "this consultation is expected to cost…",
			}),
		]);
		const w = s.branch.watch;
		expect(w).toMatchObject({
			reviews: 3,
			bySignal: { "failure-streak": 1, "long-run": 1, "untested-edits": 1 },
			bySeverity: { none: 0, nit: 1, concern: 1, blocker: 0 },
			byDelivery: { steered: 1, kept: 1, queued: 0, turn: 0, stale: 0, none: 0 },
			failed: 1,
			skipped: { cooldown: 1, "prompt-cap": 0, "over-share": 1, budget: 1 },
		});
		expect(w.usd).toBeCloseTo(0.018, 12);
		expect(w.executorUsd).toBeCloseTo(0.3, 12);
		// A watch review is neither a warming refresh nor a completion review; its spend is the advisor's.
		expect(s.branch).toMatchObject({ warming: 0, reviews: 0 });
		expect(s.branch.usd).toBeCloseTo(0.018, 12);
		const lines = statsLines(s);
		expect(lines).toContain(
			"  watch: 3 reviews (failure-streak 1, long-run 1, untested-edits 1), $0.018, 6% of the executor's $0.300",
		);
		expect(lines).toContain("    answers: nit 1, concern 1 — steered 1, kept 1");
		expect(lines).toContain("    no answer: failed 1");
		expect(lines).toContain("    skipped: cooldown 1, over-share 1, budget 1");
		expect(lines).toContain("    $0.012 · 1 request · 0% from cache — watch review at #3");
	});

	it("a session the watch never woke in shows no watch line; a sum adds the watches", () => {
		const quiet = stats([{ kind: "warming", usage: costing(0.001) }]);
		expect(statsLines(quiet).some((line) => line.includes("watch:"))).toBe(false);
		const one = stats([watch({ outcome: "advice", severity: "none", delivery: "none" })]);
		const total = sumScopes([one.branch, one.branch, quiet.branch]);
		expect(total.watch).toMatchObject({ reviews: 2, bySeverity: { none: 2 }, byDelivery: { none: 2 } });
		expect(total.watch.executorUsd).toBeCloseTo(0.9, 12);
		expect(total.unusable).toBeNull();
	});

	it("an executor that recorded no cost: no share, said so", () => {
		const s = stats([watch({ usage: costing(0.01), outcome: "advice", severity: "none", delivery: "none" })], 0);
		expect(statsLines(s)).toContain(
			"  watch: 1 review (failure-streak 1), $0.010 (the executor's turns recorded no cost)",
		);
	});
});

describe("an advisor that answers nothing usable", () => {
	const review = (data: Record<string, unknown>) => ({
		kind: "review",
		usage: zeroUsage(),
		answerEntryId: "a1",
		...data,
	});

	it("is said after three background reviews in a row without a usable answer, reviews and the watch's alike", () => {
		const s = stats([
			review({ outcome: "advice", severity: "none" }),
			review({ outcome: "failed", errorMessage: "401 Unauthorized" }),
			// A skip or a cancel is not the advisor's answer: it neither breaks nor extends the run.
			watch({ outcome: "skipped", delivery: "not-reviewed", errorMessage: "cooldown" }),
			watch({ outcome: "timeout", delivery: "none", errorMessage: "timeout" }),
			review({ outcome: "cancelled" }),
			review({ outcome: "failed" }),
		]);
		expect(s.branch.unusable).toEqual({ count: 3, failed: 1, timeout: 1, empty: 1 });
		expect(statsLines(s)).toContain(
			"  the advisor answered nothing usable in its last 3 background reviews (failed 1, timed out 1, empty 1): check its model, its key and budget.timeoutSec",
		);
	});

	it("is not said for fewer, nor once an answer came; and nothing ever calls it healthy", () => {
		const two = stats([
			review({ outcome: "failed", errorMessage: "x" }),
			watch({ outcome: "timeout", errorMessage: "timeout" }),
		]);
		expect(two.branch.unusable?.count).toBe(2);
		const recovered = stats([
			review({ outcome: "failed", errorMessage: "x" }),
			review({ outcome: "failed", errorMessage: "x" }),
			review({ outcome: "failed", errorMessage: "x" }),
			watch({ outcome: "advice", severity: "nit", delivery: "kept" }),
		]);
		expect(recovered.branch.unusable?.count).toBe(0);
		for (const s of [two, recovered]) {
			const lines = statsLines(s);
			expect(lines.some((line) => line.includes("nothing usable"))).toBe(false);
			expect(lines.some((line) => /healthy/i.test(line))).toBe(false);
		}
	});
});
