/** What the watch knows of a branch: one describe per thing the fold keeps. */
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { CUSTOM_TYPES, type LedgerEvent } from "../../src/events/index.ts";
import { foldWatchFacts, watchFactsOf } from "../../src/reducers/watch-facts.ts";
import { advice, assistant, call, custom, resetParents, result, user } from "../support/events.ts";
import { eventsOf } from "../support/properties.ts";
import { RUNS, sessionArb } from "../support/session-gen.ts";

beforeEach(() => resetParents());

let n = 0;
/** One executor turn running `command` with `output`; failed when `failed`. */
function run(command: string, output: string, failed = false): LedgerEvent[] {
	n++;
	return [
		assistant(`a${n}`, { calls: [call(`c${n}`, "bash", { command })] }),
		result(`r${n}`, `c${n}`, "bash", output, { isError: failed }),
	];
}
function edit(path: string): LedgerEvent[] {
	n++;
	return [
		assistant(`a${n}`, { calls: [call(`c${n}`, "edit", { path, oldText: "a", newText: "b" })] }),
		result(`r${n}`, `c${n}`, "edit", "Successfully replaced text"),
	];
}
const entry = (id: string, customType: string, data: unknown): LedgerEvent => ({
	id,
	parentId: null,
	kind: "custom",
	customType,
	data,
});

describe("failure streaks: by subject and by error line, ended by a pass of their run", () => {
	it("three failures of one test run with changing commands make one streak of three", () => {
		const facts = watchFactsOf([
			user("u", "fix it"),
			...run("npm test", "FAIL src/a.test.ts > adds", true),
			...run("npm test -- -t adds", "FAIL src/a.test.ts > adds", true),
			...run("npx vitest run", "FAIL src/a.test.ts > adds", true),
		]);
		const subject = facts.streaks.get("subject\u0000test\u0000");
		expect(subject).toMatchObject({ count: 3, label: "test", error: "FAIL src/a.test.ts > adds" });
		expect(subject!.rounds.map((r) => r.pos)).toEqual([3, 5, 7]);
		expect(subject!.first).toEqual({ id: "r1", pos: 3 });
		expect(facts.streaks.get("error\u0000FAIL src/a.test.ts > adds")?.count).toBe(3);
	});
	it("the same error line from two commands is one streak; a pass of either ends it", () => {
		const line = "src/a.ts(28,2): error TS2739: Type is missing";
		const facts = watchFactsOf([
			...run("npm run check", line, true),
			...run("npx tsc --noEmit src/a.ts", line, true),
		]);
		expect(facts.streaks.get(`error\u0000${line}`)?.count).toBe(2);
		const after = foldWatchFacts(facts, run("npx tsc --noEmit src/a.ts", "ok"));
		expect([...after.streaks.keys()]).toEqual(["subject\u0000check\u0000"]);
	});
	it("a whole suite that passes ends the streaks of its kind, a named file's too", () => {
		const facts = watchFactsOf([
			...run("npx vitest run src/a.test.ts", "FAIL a", true),
			...run("npx vitest run src/a.test.ts", "FAIL a", true),
			...run("npm test", "Tests 3 passed"),
		]);
		expect(facts.streaks.size).toBe(0);
	});
	it("benign failures do not count; another run's pass does not end a streak", () => {
		const facts = watchFactsOf([
			...run("python3 scrape.py", "Traceback: KeyError 'x'", true),
			...run("grep -n foo src/a.ts", "Command exited with code 1", true),
			...run("ls", "a b"),
			...run("python3 scrape.py --retry", "Traceback: KeyError 'x'", true),
		]);
		expect(facts.streaks.get("subject\u0000run\u0000python3 scrape.py")?.count).toBe(2);
		expect([...facts.streaks.keys()].some((k) => k.includes("grep"))).toBe(false);
	});
	it("a streak keeps its newest six failures and counts them all", () => {
		const events = Array.from({ length: 9 }, () => run("make", "make: *** [all] Error 2", true)).flat();
		const streak = watchFactsOf(events).streaks.get("subject\u0000build\u0000")!;
		expect(streak.count).toBe(9);
		expect(streak.rounds).toHaveLength(6);
		expect(streak.first.pos).toBe(2);
	});
});

describe("what changed since the newest test, build or check run", () => {
	it("counts distinct files, relative to the session's folder, until a verifying run", () => {
		const facts = watchFactsOf(
			[...run("npm test", "ok"), ...edit("/w/src/a.ts"), ...edit("src/a.ts"), ...edit("src/b.ts")],
			"/w",
		);
		expect(facts.verify).toMatchObject({ runs: 1, lastRound: 1, editRoundsSince: 3 });
		expect(facts.verify.editedSince).toEqual(["src/a.ts", "src/b.ts"]);
		const tested = foldWatchFacts(facts, run("npm run build", "built"));
		expect(tested.verify).toMatchObject({ runs: 2, editedSince: [], editRoundsSince: 0 });
	});
});

describe("second opinions: a completed consultation, a delivered review, a watch review that answered", () => {
	it("each resets the rounds and edits counted since", () => {
		const before = [...edit("a.ts"), ...edit("b.ts"), ...run("ls", "x")];
		expect(watchFactsOf(before).opinion).toEqual({ count: 0, lastRound: 0, editRounds: 2 });
		const consulted = watchFactsOf([
			...before,
			assistant("q", { calls: [call("adv", "advisor")] }),
			advice("ar", "adv", "Severity: none"),
		]);
		expect(consulted.opinion).toEqual({ count: 1, lastRound: 3, editRounds: 0 });
		expect(consulted.rounds).toBe(3);
		const reviewed = watchFactsOf([
			...before,
			custom("rv", CUSTOM_TYPES.review, "Advisor review", true, { advice: "Severity: nit\nx", severity: "nit" }),
		]);
		expect(reviewed.opinion.count).toBe(1);
		const watched = (outcome: string) =>
			watchFactsOf([
				...before,
				entry("w", CUSTOM_TYPES.usage, {
					kind: "watch",
					model: "anthropic:opus",
					usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: { total: 0.25 } },
					timestampMs: 1,
					watchKey: "long-run\u00000\u00001",
					outcome,
				}),
			]);
		expect(watched("advice").opinion.count).toBe(1);
		expect(watched("skipped").opinion.count).toBe(0);
		expect(watched("skipped").watch).toMatchObject({ reviews: 1, lastReviewRound: 3, usd: 0.25 });
		expect(watched("skipped").watch.keys.has("long-run\u00000\u00001")).toBe(true);
	});
});

describe("notes and prompts", () => {
	it("a delivered note is counted in its prompt and the turns after it; a user message starts a prompt", () => {
		const note = custom("note", CUSTOM_TYPES.watch, "Advisor note", true, {
			advice: "Severity: concern\nstop",
			severity: "concern",
			signal: "failure-streak",
			watchKey: "k",
			atEntryId: "r1",
			reason: "x",
			triggerTurn: false,
		});
		const facts = watchFactsOf([user("u", "go"), ...run("npm test", "FAIL", true), note]);
		expect(facts.prompt).toEqual({ pos: 1, notes: 1 });
		expect(facts.watch.turnsSinceNote).toBe(0);
		const next = foldWatchFacts(facts, run("npm test", "ok"));
		expect(next.watch.turnsSinceNote).toBe(1);
		expect(foldWatchFacts(next, [user("u2", "more")]).prompt.notes).toBe(0);
	});
});

describe("the executor's own spend and the turn it is in", () => {
	it("sums the usage its messages recorded; the turn counts its calls and their results", () => {
		const turn: LedgerEvent = {
			...assistant("t", { calls: [call("x", "read", { path: "a" }), call("y", "read", { path: "b" })] }),
			usage: { input: 10, output: 5, cacheRead: 100, cacheWrite: 20, cost: { total: 0.5 } },
		} as LedgerEvent;
		const half = watchFactsOf([turn, result("rx", "x", "read", "a")]);
		expect(half.executor).toEqual({ input: 10, output: 5, cacheRead: 100, cacheWrite: 20, usd: 0.5 });
		expect(half.turn).toMatchObject({ id: "t", calls: 2, rounds: 1 });
		expect(foldWatchFacts(half, [result("ry", "y", "read", "b")]).turn).toMatchObject({ rounds: 2 });
	});
});

describe("folding at once or in pieces", () => {
	it("gives the same facts", () => {
		fc.assert(
			fc.property(sessionArb(), fc.double({ min: 0, max: 1, noNaN: true }), (session, where) => {
				const events = eventsOf(session.jsonl);
				const cut = Math.floor(where * (events.length + 1));
				const once = watchFactsOf(events, "/w/proj");
				const pieces = foldWatchFacts(watchFactsOf(events.slice(0, cut), "/w/proj"), events.slice(cut));
				expect(pieces).toEqual(once);
			}),
			{ numRuns: RUNS },
		);
	});
});
