/**
 * `replay --watch` on one branch (src/adapter/lab/replay/watch-replay.ts, watch-cost.ts): the reviews
 * the watch would have asked for, where and why, priced after the branch's previous advisor request
 * with the output allowance; the executor's recorded tokens at the same prices; and the consultation
 * points' own figures untouched.
 */

import { describe, expect, it } from "vitest";
import { DEFAULT_WATCH_CONFIG } from "../../../../src/adapter/extension/config/watch.ts";
import { replayText } from "../../../../src/adapter/lab/replay/engine.ts";
import { usdAtPrice } from "../../../../src/adapter/lab/replay/point-bill.ts";
import { defaultCostSetup } from "../../../../src/adapter/lab/replay/point-estimate.ts";
import { reviewCost, WATCH_OUTPUT_TOKENS } from "../../../../src/adapter/lab/replay/watch-cost.ts";
import { ledgerOf } from "../../../../src/reducers/index.ts";
import { DEFAULT_LEDGER_CONFIG, renderRequest } from "../../../../src/render/index.ts";
import { assistant, call, resetParents, result, user } from "../../../support/events.ts";

const HEADER = { type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/repo" };

/** Executor usage each assistant message records: enough, at the report's prices, for the share cap to allow a review. */
const USAGE = {
	input: 20_000,
	output: 300,
	cacheRead: 200_000,
	cacheWrite: 0,
	totalTokens: 220_300,
	cost: { total: 0 },
};

type Step = { user: string } | { bash: string; fails?: boolean; out?: string } | { edit: string } | { consult: string };

/** A v3 session of these steps, one tool call per turn. */
function session(steps: readonly Step[]): string {
	const lines: object[] = [HEADER];
	let n = 0;
	let parent: string | null = null;
	const entry = (message: object) => {
		const id = `m${++n}`;
		lines.push({ type: "message", id, parentId: parent, timestamp: HEADER.timestamp, message });
		parent = id;
	};
	const turn = (name: string, args: object, text: string, isError: boolean, details?: object) => {
		const callId = `call${n}`;
		entry({
			role: "assistant",
			content: [{ type: "toolCall", id: callId, name, arguments: args }],
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude-sonnet-4-5",
			usage: USAGE,
			stopReason: "toolUse",
			timestamp: 0,
		});
		entry({
			role: "toolResult",
			toolCallId: callId,
			toolName: name,
			content: [{ type: "text", text }],
			isError,
			...(details === undefined ? {} : { details }),
			timestamp: 0,
		});
	};
	for (const step of steps) {
		if ("user" in step) entry({ role: "user", content: [{ type: "text", text: step.user }], timestamp: 0 });
		else if ("bash" in step)
			turn(
				"bash",
				{ command: step.bash },
				step.out ?? (step.fails ? "FAIL src/a.test.ts\nError: boom" : "ok"),
				!!step.fails,
			);
		else if ("edit" in step)
			turn(
				"edit",
				{ path: step.edit, oldText: "a", newText: "b" },
				`Successfully replaced text in ${step.edit}.`,
				false,
			);
		else turn("advisor", {}, step.consult, false, { advisorModel: "anthropic:claude-opus-4-1", stopReason: "stop" });
	}
	return `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
}

const failing = (n: number): Step[] =>
	Array.from({ length: n }, (_, i) => [{ bash: "npm test", fails: true }, { edit: `src/f${i}.ts` }] as Step[]).flat();

function watched(text: string, settings = DEFAULT_WATCH_CONFIG) {
	return replayText("s.jsonl", text, { every: 10, allLeaves: false, scratchSamples: 0, watch: settings }).sessions[0]!;
}

describe("replay --watch on one branch", () => {
	it("a test run failing three times is reviewed at the third failure, named by the ids the request shows", () => {
		const s = watched(session([{ user: "Fix the tests." }, ...failing(3)]));
		const w = s.watch!;
		expect(w.reviews).toBe(1);
		expect(w.bySignal).toEqual({ "failure-streak": 1, "long-run": 0, "untested-edits": 0 });
		const [review] = w.reviewed;
		// Entries: the user #1, then an assistant and a result per step: the `npm test` results are #3, #7, #b.
		expect(review!.card).toBe("b");
		expect(review!.atEntryId).toBe("m11");
		expect(review!.reason).toContain("failed 3 times with no pass between (#3, #7, #b)");
		// No consultation before it: nothing to read from the cache.
		expect(review!.cacheShare).toBeUndefined();
		expect(review!.reuse).toBeUndefined();
	});

	it("two failures, or a failing run that passes before its third try, wake nothing", () => {
		expect(watched(session([{ user: "Fix." }, ...failing(2)])).watch!.reviews).toBe(0);
		const passed = [...failing(2), { bash: "npm test" }, ...failing(2)];
		const w = watched(session([{ user: "Fix." }, ...passed])).watch!;
		expect(w.reviews).toBe(0);
		expect(w.reviewed).toEqual([]);
		expect(w.share).toBe(0);
	});

	it("prices the executor's recorded tokens at the report's model, and the share against them", () => {
		const s = watched(session([{ user: "Fix the tests." }, ...failing(3)]));
		const w = s.watch!;
		const turns = 6;
		const price = defaultCostSetup().price;
		expect(w.executor).toMatchObject({ input: 20_000 * turns, output: 300 * turns, cacheRead: 200_000 * turns });
		expect(w.executor.recordedUsd).toBe(0);
		const expected = usdAtPrice(price, {
			prompt: 220_000 * turns,
			input: 20_000 * turns,
			cacheRead: 200_000 * turns,
			cacheWrite: 0,
			output: 300 * turns,
		});
		expect(w.executor.usd).toBeCloseTo(expected, 6);
		expect(w.usd).toBe(Math.max(w.reviewed[0]!.usd.tokenPrefix, w.reviewed[0]!.usd.breakpoint));
		expect(w.share).toBeCloseTo(w.usd / w.executor.usd, 4);
	});

	it("a review after a consultation reads what it repeats of the consultation's request; the next review, of the review's", () => {
		const steps: Step[] = [{ user: "Fix the tests." }, { consult: "Severity: nit\nLooks fine." }, ...failing(6)];
		const w = watched(session(steps)).watch!;
		expect(w.reviewed.map((r) => r.reason.match(/failed (\d) times/)?.[1])).toEqual(["3", "6"]);
		const [first, second] = w.reviewed;
		expect(first!.cacheShare!.tokenPrefix).toBeGreaterThan(0.5);
		expect(first!.reuse).toBeUndefined();
		// The second's previous advisor request is the first review: its reuse is that share.
		expect(second!.reuse).toBe(second!.cacheShare!.tokenPrefix);
		expect(second!.reuse).toBeGreaterThan(0.5);
		expect(w.reuse).toMatchObject({ pairs: 1, p50: second!.reuse, min: second!.reuse });
	});

	it("the share cap holds the review back while the executor has spent too little", () => {
		const s = watched(session([{ user: "Fix the tests." }, ...failing(3)]), {
			...DEFAULT_WATCH_CONFIG,
			maxShare: 0.001,
		});
		expect(s.watch!.reviews).toBe(0);
		expect(s.watch!.skipped).toEqual({ cooldown: 0, promptCap: 0, overShare: 1 });
	});

	it("leaves the consultation points' figures as they are without --watch", () => {
		const text = session([{ user: "Fix the tests." }, { consult: "Severity: nit\nFine." }, ...failing(6)]);
		const plain = replayText("s.jsonl", text, { every: 2, allLeaves: false, scratchSamples: 0, now: () => 0 });
		const withWatch = replayText("s.jsonl", text, {
			every: 2,
			allLeaves: false,
			scratchSamples: 0,
			now: () => 0,
			watch: DEFAULT_WATCH_CONFIG,
		});
		const { watch, ...rest } = withWatch.sessions[0]!;
		expect(watch!.reviews).toBe(2);
		expect(rest).toEqual(plain.sessions[0]);
		expect(plain.sessions[0]!.watch).toBeUndefined();
	});
});

describe("what a watch review costs", () => {
	resetParents();
	const events = [user("u1", "Fix the tests.")];
	for (let i = 0; i < 150; i++) {
		events.push(assistant(`a${i}`, { calls: [call(`c${i}`, "read", { path: `src/f${i}.ts` })] }));
		events.push(result(`r${i}`, `c${i}`, "read", `export const f${i} = ${i};\n`.repeat(20)));
	}
	const options = {
		config: DEFAULT_LEDGER_CONFIG,
		catalogue: [],
		tools: [],
		toolsMode: "repo" as const,
		mode: "watch" as const,
	};
	const request = renderRequest(ledgerOf(events), options);
	const price = defaultCostSetup().price;
	const output = (WATCH_OUTPUT_TOKENS * price.cost.output) / 1e6;

	it("with nothing before it: every prompt token uncached (token prefix) or written (breakpoints), plus the output allowance", () => {
		const cost = reviewCost(undefined, request, price);
		expect(request.tokens).toBeGreaterThan(1024);
		expect(cost.shares).toBeUndefined();
		expect(cost.usd.tokenPrefix).toBeCloseTo((request.tokens * price.cost.input) / 1e6 + output, 6);
		expect(cost.usd.breakpoint).toBeCloseTo((request.tokens * price.cost.cacheWrite) / 1e6 + output, 6);
	});

	it("after the same request: the prefix both repeat is read from the cache, in both models", () => {
		const cost = reviewCost(request, request, price);
		expect(cost.shares!.tokenPrefix).toBe(1);
		expect(cost.usd.tokenPrefix).toBeCloseTo((request.tokens * price.cost.cacheRead) / 1e6 + output, 6);
		expect(cost.usd.breakpoint).toBeLessThan(reviewCost(undefined, request, price).usd.breakpoint);
	});

	it("the output allowance is what it says: none leaves the prompt alone", () => {
		const none = reviewCost(undefined, request, price, 0);
		expect(reviewCost(undefined, request, price).usd.tokenPrefix - none.usd.tokenPrefix).toBeCloseTo(output, 6);
	});
});
