/** Spend folded from the branch: one describe per rule. */
import { beforeEach, describe, expect, it } from "vitest";
import { type LedgerEvent, readSession } from "../../src/events/index.ts";
import { requestRecord } from "../../src/policy/index.ts";
import {
	emptySpend,
	foldSpend,
	outputSamples,
	previousRequest,
	remainingSessionUsd,
	spendOf,
} from "../../src/reducers/spend.ts";
import { unitAt, unitCount } from "../../src/render/index.ts";
import { advisorResult, render, USAGE, usageRecord } from "../policy/budget/helpers.ts";
import { assistant, call, resetParents, result, user } from "../support/events.ts";

beforeEach(() => resetParents());

const MODEL = "anthropic:claude-sonnet-4-5";
const ok = (id: string, usage: unknown, extra: Record<string, unknown> = {}) =>
	advisorResult(id, `c-${id}`, "Severity: none\nFine.", {
		advisorModel: MODEL,
		effort: "high",
		stopReason: "stop",
		usage,
		...extra,
	});

describe("every advisor result counts: ok, failed and skipped", () => {
	it("sums usage.cost.total of each", () => {
		const spend = spendOf([
			user("u1", "hi"),
			ok("r1", USAGE(1000, 200, 0, 0, 0.25)),
			advisorResult("r2", "c2", "Advisor call failed: overloaded", {
				advisorModel: MODEL,
				errorMessage: "overloaded",
				stopReason: "error",
				usage: USAGE(500, 10, 0, 0, 0.125),
			}),
			advisorResult("r3", "c3", "Advisor skipped: over budget", {
				skipped: true,
				errorMessage: "over budget",
				usage: USAGE(300, 0, 0, 0, 0.0625),
			}),
		]);
		expect(spend.totalUsd).toBeCloseTo(0.4375, 12);
		expect(spend.records.map((r) => [r.entryId, r.source, r.outcome])).toEqual([
			["r1", "consultation", "ok"],
			["r2", "consultation", "failed"],
			["r3", "consultation", "skipped"],
		]);
	});

	it("a result without usage is a record that costs nothing; other tools never count", () => {
		const spend = spendOf([
			advisorResult("r1", "c1", "Advisor skipped: same model", { skipped: true, errorMessage: "x" }),
			result("t1", "c9", "read", "file", { details: { usage: USAGE(1, 1, 0, 0, 9) } }),
		]);
		expect(spend.totalUsd).toBe(0);
		expect(spend.records).toHaveLength(1);
	});

	it("without cost.total, the cost parts are summed; garbage usage costs nothing", () => {
		const parts = { ...USAGE(10, 10), cost: { input: 0.1, output: 0.2, cacheRead: 0.05, cacheWrite: 0.15 } };
		expect(spendOf([ok("r1", parts)]).totalUsd).toBeCloseTo(0.5, 12);
		expect(spendOf([ok("r1", "lots")]).totalUsd).toBe(0);
		expect(spendOf([ok("r1", { input: -5, output: Number.NaN, cost: { total: -1 } })]).totalUsd).toBe(0);
	});
});

describe("top-level usage or details.usage, never both", () => {
	it("top-level usage wins when the host kept it", () => {
		const event = advisorResult(
			"r1",
			"c1",
			"Severity: none",
			{ advisorModel: MODEL, usage: USAGE(100, 10, 0, 0, 0.5) },
			USAGE(100, 10, 0, 0, 0.5),
		);
		expect(spendOf([event]).totalUsd).toBe(0.5);
	});
	it("details.usage counts when there is no top-level usage", () => {
		expect(spendOf([ok("r1", USAGE(100, 10, 0, 0, 0.3))]).totalUsd).toBe(0.3);
	});
	it("top-level usage is read through the events layer from a session file", () => {
		const usage = USAGE(100, 10, 50, 0, 0.7);
		const lines = [
			{ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" },
			msg("u1", null, { role: "user", content: "hi" }),
			msg("a1", "u1", advisorCall("c1")),
			msg("r1", "a1", {
				role: "toolResult",
				toolCallId: "c1",
				toolName: "advisor",
				content: [{ type: "text", text: "Severity: none" }],
				isError: false,
				details: { advisorModel: MODEL, usage },
				usage,
			}),
		];
		const read = readSession(lines.map((l) => JSON.stringify(l)).join("\n"));
		expect(read.stats.unknownFields).toEqual({});
		const spend = spendOf(read.events);
		expect(spend.totalUsd).toBe(0.7);
		expect(spend.cacheReadTokens).toBe(50);
	});
});

describe("review and warming usage records", () => {
	it("count toward the spend and the cache share", () => {
		const spend = spendOf([
			usageRecord("w1", { kind: "warming", model: MODEL, usage: USAGE(0, 16, 90_000, 0, 0.03), timestampMs: 1 }),
			usageRecord("v1", {
				kind: "review",
				model: MODEL,
				effort: "high",
				usage: USAGE(5000, 700, 0, 0, 0.2),
				timestampMs: 2,
			}),
		]);
		expect(spend.totalUsd).toBeCloseTo(0.23, 12);
		expect(spend.promptTokens).toBe(95_000);
		expect(spend.cacheReadTokens).toBe(90_000);
		expect(spend.records.map((r) => r.source)).toEqual(["warming", "review"]);
	});
	it("malformed records are ignored", () => {
		const spend = spendOf([
			usageRecord("x1", { kind: "bonus", model: MODEL, usage: USAGE(1, 1, 0, 0, 1) }),
			usageRecord("x2", { kind: "review", usage: USAGE(1, 1, 0, 0, 1) }),
		]);
		expect(spend).toEqual(emptySpend());
	});
});

describe("switching branches changes the spend", () => {
	it("each leaf sees only its own branch's results", () => {
		const lines = [
			{ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" },
			msg("u1", null, { role: "user", content: "hi" }),
			msg("a1", "u1", advisorCall("c1")),
			msg("r1", "a1", advisorToolResult("c1", 0.5)),
			msg("a2", "u1", advisorCall("c2")),
			msg("r2", "a2", advisorToolResult("c2", 0.2)),
		];
		const text = lines.map((l) => JSON.stringify(l)).join("\n");
		expect(spendOf(readSession(text, { leafId: "r1" }).events).totalUsd).toBe(0.5);
		expect(spendOf(readSession(text, { leafId: "r2" }).events).totalUsd).toBe(0.2);
		expect(spendOf(readSession(text, { leafId: "u1" }).events).totalUsd).toBe(0);
	});
});

describe("output samples: the last five positive counts per model and effort", () => {
	it("keeps ok consultations and reviews, newest five, per key", () => {
		const events: LedgerEvent[] = [];
		for (const [i, out] of [100, 0, 200, 300, 400, 500, 600].entries()) events.push(ok(`r${i}`, USAGE(10, out)));
		events.push(ok("lo", USAGE(10, 999), { effort: "low" }));
		events.push(
			advisorResult("f1", "cf", "Advisor call failed: x", {
				advisorModel: MODEL,
				effort: "high",
				errorMessage: "x",
				usage: USAGE(10, 5000),
			}),
		);
		events.push(
			usageRecord("w", { kind: "warming", model: MODEL, effort: "high", usage: USAGE(0, 16), timestampMs: 0 }),
		);
		events.push(
			usageRecord("v", { kind: "review", model: MODEL, effort: "high", usage: USAGE(0, 700), timestampMs: 0 }),
		);
		const spend = spendOf(events);
		expect(outputSamples(spend, MODEL, "high")).toEqual([300, 400, 500, 600, 700]);
		expect(outputSamples(spend, MODEL, "low")).toEqual([999]);
		expect(outputSamples(spend, MODEL, undefined)).toEqual([]);
		expect(outputSamples(spend, "openai:gpt-5", "high")).toEqual([]);
	});
});

describe("the previous request's fingerprint", () => {
	const request = () => render([user("u1", "hi"), assistant("q", { text: "ok?", calls: [call("adv", "advisor")] })]);

	it("comes from the newest billed request of each model, with the recorded request", () => {
		const req = request();
		const rec = (t: number, prompt?: number) =>
			requestRecord(req, {
				routingKey: "advisor:s1",
				timestampMs: t,
				...(prompt !== undefined ? { promptTokens: prompt } : {}),
			});
		const spend = spendOf([
			ok("r1", USAGE(900, 10), { request: rec(1000, 900) }),
			ok("r2", USAGE(950, 10), { request: rec(2000, 950) }),
			ok("r3", USAGE(10, 10), { request: rec(3000), advisorModel: "openai:gpt-5" }), // never billed
		]);
		const prev = previousRequest(spend, MODEL)!;
		expect(prev).toMatchObject({
			model: MODEL,
			effort: "high",
			routingKey: "advisor:s1",
			stableHash: req.stable.hash,
			stableUnits: req.stable.unitCount,
			stableTokens: req.stable.tokens,
			hash: req.hash,
			unitCount: unitCount(req),
			estimatedTokens: req.tokens,
			systemHash: unitAt(req, 0)!.prefixHash,
			toolsHash: unitAt(req, 1)!.prefixHash,
			promptTokens: 950,
			timestampMs: 2000,
		});
		expect(previousRequest(spend, "openai:gpt-5")).toBeUndefined();
	});

	it("lastSentMs moves the warm clock; a warming record takes its prompt from its own usage", () => {
		const req = request();
		const spend = spendOf([
			ok("r1", USAGE(900, 10), {
				request: requestRecord(req, { routingKey: "k", timestampMs: 1000, promptTokens: 900, lastSentMs: 1500 }),
			}),
		]);
		expect(previousRequest(spend, MODEL)!.timestampMs).toBe(1500);
		const warmed = foldSpend(spend, [
			usageRecord("w1", {
				kind: "warming",
				model: MODEL,
				effort: "high",
				usage: USAGE(0, 16, 880, 30, 0.001),
				request: requestRecord(req, { routingKey: "k", timestampMs: 9000 }),
				timestampMs: 9000,
			}),
		]);
		expect(previousRequest(warmed, MODEL)).toMatchObject({ promptTokens: 910, timestampMs: 9000 });
	});
});

describe("remaining session budget", () => {
	it("is sessionUsd minus the branch spend, never negative", () => {
		const spend = spendOf([ok("r1", USAGE(1, 1, 0, 0, 3))]);
		expect(remainingSessionUsd(spend, 20)).toBe(17);
		expect(remainingSessionUsd(spend, 2)).toBe(0);
	});
});

describe("incremental folding", () => {
	it("folding in pieces equals folding at once, and never mutates its input", () => {
		const events = [ok("r1", USAGE(1, 100, 0, 0, 0.1)), ok("r2", USAGE(1, 200, 0, 0, 0.2)), ok("r3", USAGE(1, 300))];
		const one = spendOf(events);
		const a = foldSpend(emptySpend(), events.slice(0, 1));
		const before = JSON.stringify(a);
		const b = foldSpend(a, events.slice(1));
		expect(JSON.stringify(a)).toBe(before);
		expect(b).toEqual(one);
	});
});

// ---------------------------------------------------------------------------------------------

function msg(id: string, parentId: string | null, message: Record<string, unknown>) {
	return {
		type: "message",
		id,
		parentId,
		timestamp: "2026-01-01T00:00:00.000Z",
		message: { timestamp: 0, ...message },
	};
}

function advisorCall(callId: string) {
	return {
		role: "assistant",
		content: [{ type: "toolCall", id: callId, name: "advisor", arguments: {} }],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-x",
		stopReason: "toolUse",
	};
}

function advisorToolResult(callId: string, cost: number) {
	return {
		role: "toolResult",
		toolCallId: callId,
		toolName: "advisor",
		content: [{ type: "text", text: "Severity: none" }],
		isError: false,
		details: { advisorModel: MODEL, usage: USAGE(10, 10, 0, 0, cost) },
	};
}
