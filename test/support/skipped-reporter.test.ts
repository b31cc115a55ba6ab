// The reporter that names every skipped test and why at the end of a run (skipped-reporter.ts), fed
// the shapes vitest hands it.
import { describe, expect, it } from "vitest";
import type { TestModule, Vitest } from "vitest/node";
import SkippedReporter from "./skipped-reporter.ts";

type Skipped = { name: string; note?: string; mode?: "skip" | "todo" };

function run(tests: Skipped[], testNamePattern?: RegExp): string[] {
	const logged: string[] = [];
	const vitest = { config: { testNamePattern }, logger: { log: (t: string) => logged.push(t) } };
	const module = {
		relativeModuleId: "test/x.test.ts",
		children: {
			*allTests(state: string) {
				expect(state).toBe("skipped");
				for (const t of tests)
					yield {
						fullName: t.name,
						options: { mode: t.mode ?? "skip" },
						result: () => ({ state: "skipped", note: t.note, errors: undefined }),
					};
			},
		},
	};
	const reporter = new SkippedReporter();
	reporter.onInit(vitest as unknown as Vitest);
	reporter.onTestRunEnd([module as unknown as TestModule]);
	return logged;
}

describe("the skipped tests, named with their reasons", () => {
	it("each skipped test on a line of its own, with its note, after a count", () => {
		expect(
			run([{ name: "hosts > SKIPPED: Pi 1.6.0 is not available", note: "run npm run hosts" }, { name: "old > a" }]),
		).toEqual([
			"\nSkipped (2), and why:\n  test/x.test.ts > hosts > SKIPPED: Pi 1.6.0 is not available: run npm run hosts\n  test/x.test.ts > old > a: skipped without a reason",
		]);
	});

	it("under -t only the tests that skipped themselves with a note (the rest the filter left out); todos never; nothing skipped, nothing said", () => {
		expect(run([{ name: "a" }, { name: "b", note: "no ../shared" }], /b/)).toEqual([
			"\nSkipped (1), and why:\n  test/x.test.ts > b: no ../shared",
		]);
		expect(run([{ name: "t", mode: "todo" }])).toEqual([]);
		expect(run([])).toEqual([]);
	});
});
