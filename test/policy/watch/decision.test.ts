/** The watch's signals and decision: one describe per rule of watchDecision, one per signal. */
import { beforeEach, describe, expect, it } from "vitest";
import { CUSTOM_TYPES, type LedgerEvent } from "../../../src/events/index.ts";
import { type WatchSettings, watchDecision } from "../../../src/policy/watch/decision.ts";
import { findingHolds, watchFindings } from "../../../src/policy/watch/signals.ts";
import { foldWatchFacts, type WatchFacts, watchFactsOf } from "../../../src/reducers/watch-facts.ts";
import { assistant, call, custom, resetParents, result, user } from "../../support/events.ts";

beforeEach(() => {
	resetParents();
	n = 0;
});

const ON: WatchSettings = {
	enabled: true,
	failureStreak: 3,
	untestedFiles: 3,
	longRunRounds: 10,
	cooldownRounds: 5,
	maxNotesPerPrompt: 2,
	maxShare: 0.1,
};

let n = 0;
function run(command: string, output: string, failed = false): LedgerEvent[] {
	n++;
	return [
		assistant(`a${n}`, { calls: [call(`c${n}`, "bash", { command })] }),
		result(`r${n}`, `c${n}`, "bash", output, { isError: failed }),
	];
}
function edit(path: string): LedgerEvent[] {
	n++;
	return [assistant(`a${n}`, { calls: [call(`c${n}`, "edit", { path })] }), result(`r${n}`, `c${n}`, "edit", "ok")];
}
const failing = () => run("npm test", "FAIL src/a.test.ts > adds", true);
const decide = (facts: WatchFacts, settings: Partial<WatchSettings> = {}, usd = { executor: 10, expected: 0.1 }) =>
	watchDecision({ facts, settings: { ...ON, ...settings }, executorUsd: usd.executor, expectedUsd: usd.expected });
const watchRecord = (id: string, key: string, outcome = "advice", cost = 0.05): LedgerEvent => ({
	id,
	parentId: null,
	kind: "custom",
	customType: CUSTOM_TYPES.usage,
	data: {
		kind: "watch",
		model: "anthropic:opus",
		usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: { total: cost } },
		timestampMs: 1,
		watchKey: key,
		outcome,
	},
});

describe("failure-streak", () => {
	it("fires at the turn that brings one run to three failures, naming them by position", () => {
		const two = watchFactsOf([user("u", "fix"), ...failing(), ...failing()]);
		expect(decide(two)).toEqual({ review: false, reason: "quiet" });
		const three = foldWatchFacts(two, failing());
		const decision = decide(three);
		expect(decision.review).toBe(true);
		const finding = decision.review ? decision.finding : undefined;
		expect(finding).toMatchObject({
			signal: "failure-streak",
			count: 3,
			label: "test",
			firstId: "r1",
			error: "FAIL src/a.test.ts > adds",
		});
		expect(finding?.signal === "failure-streak" && finding.rounds.map((r) => r.pos)).toEqual([3, 5, 7]);
	});
	it("the subject and the error line crossing together are one finding; a later turn does not fire the other", () => {
		const three = watchFactsOf([...failing(), ...failing(), ...failing()]);
		expect(watchFindings(three, ON).filter((f) => f.signal === "failure-streak")).toHaveLength(2);
		const next = foldWatchFacts(three, run("ls", "x"));
		expect(watchFindings(next, ON).filter((f) => f.signal === "failure-streak")).toEqual([]);
	});
	it("fires again at six failures, not at four or five", () => {
		let facts = watchFactsOf([...failing(), ...failing(), ...failing()]);
		const fired = [decide(facts).review];
		for (let i = 0; i < 3; i++) {
			facts = foldWatchFacts(facts, failing());
			fired.push(watchFindings(facts, ON).some((f) => f.signal === "failure-streak"));
		}
		expect(fired).toEqual([true, false, false, true]);
	});
	it("holds until a pass of its run", () => {
		const facts = watchFactsOf([...failing(), ...failing(), ...failing()]);
		const finding = watchFindings(facts, ON)[0]!;
		expect(findingHolds(finding, foldWatchFacts(facts, edit("src/a.ts")))).toBe(true);
		expect(findingHolds(finding, foldWatchFacts(facts, run("npm test", "Tests 3 passed")))).toBe(false);
	});
	it("0 turns it off", () => {
		expect(decide(watchFactsOf([...failing(), ...failing(), ...failing()]), { failureStreak: 0 }).review).toBe(false);
	});
});

describe("untested-edits", () => {
	it("fires once the files changed since the last verifying run reach the threshold, on a branch that ran one", () => {
		const without = watchFactsOf([...edit("a.ts"), ...edit("b.ts"), ...edit("c.ts")]);
		expect(decide(without)).toEqual({ review: false, reason: "quiet" });
		const facts = watchFactsOf([...run("npm test", "ok"), ...edit("a.ts"), ...edit("b.ts"), ...edit("c.ts")]);
		const decision = decide(facts);
		expect(decision.review && decision.finding).toMatchObject({
			signal: "untested-edits",
			files: ["a.ts", "b.ts", "c.ts"],
			fileCount: 3,
			editRounds: 3,
		});
		const finding = decision.review ? decision.finding : undefined;
		expect(findingHolds(finding!, foldWatchFacts(facts, edit("d.ts")))).toBe(true);
		expect(findingHolds(finding!, foldWatchFacts(facts, run("npm test", "ok")))).toBe(false);
	});
});

describe("long-run", () => {
	it("fires after longRunRounds rounds with edits since the last second opinion, and every longRunRounds after", () => {
		const events = [...edit("a.ts"), ...Array.from({ length: 9 }, () => run("ls", "x")).flat()];
		const facts = watchFactsOf(events);
		expect(decide(facts).review && (decide(facts) as { finding: unknown }).finding).toMatchObject({
			signal: "long-run",
			rounds: 10,
			editRounds: 1,
			sinceStart: true,
		});
		expect(decide(watchFactsOf(Array.from({ length: 10 }, () => run("ls", "x")).flat()))).toEqual({
			review: false,
			reason: "quiet",
		});
	});
});

describe("the guards, in order", () => {
	const three = () => watchFactsOf([user("u", "go"), ...failing(), ...failing(), ...failing()]);
	it("disabled", () => {
		expect(decide(three(), { enabled: false })).toEqual({ review: false, reason: "disabled" });
	});
	it("no new round: the turn ran no tools, or waits for a result", () => {
		const answered = foldWatchFacts(three(), [assistant("final", { text: "done" })]);
		expect(decide(answered)).toEqual({ review: false, reason: "no-new-round" });
		const waiting = foldWatchFacts(three(), [assistant("w", { calls: [call("w1", "read", { path: "a" })] })]);
		expect(decide(waiting)).toEqual({ review: false, reason: "no-new-round" });
	});
	it("own note: the turn right after a note never wakes the watch", () => {
		const note = custom("note", CUSTOM_TYPES.watch, "Advisor note", true, {
			advice: "Severity: concern\nx",
			severity: "concern",
			signal: "long-run",
			watchKey: "k",
			atEntryId: "r0",
			reason: "x",
			triggerTurn: false,
		});
		const facts = watchFactsOf([user("u", "go"), ...failing(), ...failing(), note, ...failing()]);
		expect(decide(facts)).toEqual({ review: false, reason: "own-note" });
	});
	it("each finding once: a recorded key is not found again", () => {
		const facts = three();
		const first = decide(facts);
		expect(first.review).toBe(true);
		const key = first.review ? first.finding.key : "";
		const again = foldWatchFacts(facts, [watchRecord("w", key)]);
		expect(watchFindings(again, ON).some((f) => f.key === key)).toBe(false);
	});
	it("cooldown: rounds since the newest watch review", () => {
		const facts = foldWatchFacts(watchFactsOf([...failing()]), [watchRecord("w", "other")]);
		const after = foldWatchFacts(facts, [...failing(), ...failing()]);
		expect(decide(after)).toMatchObject({ review: false, reason: "cooldown", finding: { signal: "failure-streak" } });
		expect(decide(after, { cooldownRounds: 2 }).review).toBe(true);
	});
	it("prompt cap: notes steered in since the user's last message", () => {
		expect(decide(three(), { maxNotesPerPrompt: 0 })).toMatchObject({ review: false, reason: "prompt-cap" });
	});
	it("over-share: the watch's spend with this review past maxShare of the executor's", () => {
		expect(decide(three(), {}, { executor: 1, expected: 0.2 })).toMatchObject({
			review: false,
			reason: "over-share",
		});
		expect(decide(three(), {}, { executor: 1, expected: 0.09 }).review).toBe(true);
		expect(decide(three(), { maxShare: 0 }, { executor: 0, expected: 5 }).review).toBe(true);
		expect(decide(three(), {}, { executor: 0, expected: 0 }).review).toBe(true);
	});
});
