/** The watch's failure-streak signal: which streak names a finding when several reach the threshold at once. */
import { beforeEach, describe, expect, it } from "vitest";
import type { LedgerEvent } from "../../../src/events/index.ts";
import { watchFindings } from "../../../src/policy/index.ts";
import { watchFactsOf } from "../../../src/reducers/index.ts";
import { assistant, call, resetParents, result, user } from "../../support/events.ts";

beforeEach(() => resetParents());

const SETTINGS = { failureStreak: 3, untestedFiles: 0, longRunRounds: 0 };

/** `n` failing runs of `command`, one a turn, each ending on `error`. */
function failing(n: number, command: string, error: string, from = 1): LedgerEvent[] {
	return Array.from({ length: n }, (_, i) => [
		assistant(`a${from + i}`, { calls: [call(`c${from + i}`, "bash", { command })] }),
		result(`r${from + i}`, `c${from + i}`, "bash", `${error}\n\nCommand exited with code 1`, { isError: true }),
	]).flat();
}

describe("failure streaks", () => {
	it("a run and its error line reaching the threshold together: the run's names the finding", () => {
		const facts = watchFactsOf([
			user("u1", "fix it"),
			...failing(3, "npx vitest run src/a.test.ts", "AssertionError: boom"),
		]);
		const findings = watchFindings(facts, SETTINGS);
		expect(findings.map((f) => f.signal === "failure-streak" && f.label)).toEqual([
			"test src/a.test.ts",
			"AssertionError: boom",
		]);
		expect(findings[0]).toMatchObject({ count: 3, error: "AssertionError: boom", firstId: "r1" });
	});

	it("the longer streak first, whichever it is: one error line across two runs", () => {
		const facts = watchFactsOf([
			user("u1", "fix it"),
			...failing(2, "node scripts/a.js", "TypeError: x is undefined"),
			...failing(1, "node scripts/b.js", "TypeError: x is undefined", 3),
		]);
		const findings = watchFindings(facts, SETTINGS);
		expect(findings.map((f) => f.signal === "failure-streak" && f.label)).toEqual(["TypeError: x is undefined"]);
	});
});
