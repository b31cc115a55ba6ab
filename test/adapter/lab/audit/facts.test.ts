import { beforeEach, describe, expect, it } from "vitest";
import { branchFacts, emptyFacts, type Fact, foldFacts } from "../../../../src/adapter/lab/audit/facts.ts";
import { advice, assistant, bash, call, compaction, resetParents, result, user } from "../../../support/events.ts";

beforeEach(resetParents);

const cwd = "/w/proj";
const of = (facts: readonly Fact[], category: Fact["category"]) =>
	facts.filter((f) => f.category === category).map((f) => f.text);

describe("the facts a branch holds", () => {
	const events = [
		user("u1", "Fix the `parse` bug, please."),
		assistant("a1", {
			text: "I'll read `src/parse.ts` and run the tests.",
			calls: [
				call("c1", "read", { path: "/w/proj/src/parse.ts" }),
				call("c2", "bash", { command: "cd /w/proj && npm test" }),
			],
		}),
		result("r1", "c1", "read", "export function parse() {}"),
		result(
			"r2",
			"c2",
			"bash",
			" FAIL  test/parse.test.ts > parses\n      Tests  1 failed | 3 passed (4)\nCommand exited with code 1",
			{
				isError: true,
			},
		),
		assistant("a2", {
			calls: [call("c3", "edit", { path: "src/parse.ts", edits: [{ oldText: "a", newText: "b" }] })],
		}),
		result("r3", "c3", "edit", "Successfully replaced text"),
		assistant("a3", { calls: [call("c4", "exec", { cmd: "make lint" })] }),
		result("r4", "c4", "exec", "lint: 2 problems\nExit code: 2"),
		bash("b1", "git status", "clean"),
		assistant("a4", { text: "Asking.", calls: [call("adv", "advisor")] }),
		advice("r5", "adv", "Severity: nit\nLooks fine."),
		assistant("a5", { text: "Now `run()` is done." }),
	];
	const facts = branchFacts(foldFacts(emptyFacts(cwd), events));

	it("user words, paths read and edited, relative to the cwd", () => {
		expect(of(facts, "user")).toEqual(["Fix the `parse` bug, please."]);
		expect(of(facts, "read")).toEqual(["src/parse.ts"]);
		expect(of(facts, "edited")).toEqual(["src/parse.ts"]);
	});
	it("commands of any shell tool and of the user's ! runs, after a leading cd", () => {
		expect(of(facts, "command")).toEqual(["npm test", "make lint", "git status"]);
	});
	it("open failures by their error line, a shell tool's reported exit included", () => {
		expect(of(facts, "failure")).toEqual(["FAIL  test/parse.test.ts > parses", "lint: 2 problems"]);
	});
	it("the newest summary line of each test command", () => {
		expect(of(facts, "test")).toEqual(["Tests  1 failed | 3 passed (4)"]);
	});
	it("backticked names, the newest prose, past advice", () => {
		// the executor's own prose only: the user's `parse` is a user fact
		expect(of(facts, "identifier")).toEqual(["src/parse.ts", "run()"]);
		expect(of(facts, "prose")).toEqual(["Now `run()` is done."]);
		expect(of(facts, "advice")).toEqual(["Severity: nit\nLooks fine."]);
	});

	it("a later success of the same run resolves a failure; a compaction hides nothing", () => {
		const more = [
			compaction("k1", "summary", "a5"),
			assistant("a6", { calls: [call("c5", "bash", { command: "npm test" })] }),
			result("r6", "c5", "bash", "Tests  4 passed (4)"),
		];
		const after = branchFacts(foldFacts(foldFacts(emptyFacts(cwd), events), more));
		expect(of(after, "failure")).toEqual(["lint: 2 problems"]);
		expect(of(after, "test")).toEqual(["Tests  4 passed (4)"]);
		expect(of(after, "user")).toEqual(["Fix the `parse` bug, please."]);
	});

	it("folding in pieces equals folding at once, and leaves its input alone", () => {
		for (let cut = 0; cut <= events.length; cut++) {
			const first = foldFacts(emptyFacts(cwd), events.slice(0, cut));
			const snapshot = branchFacts(first).map((f) => `${f.category}:${f.text}`);
			const pieces = foldFacts(first, events.slice(cut));
			expect(branchFacts(pieces)).toEqual(facts);
			expect(branchFacts(first).map((f) => `${f.category}:${f.text}`)).toEqual(snapshot);
		}
	});
});
