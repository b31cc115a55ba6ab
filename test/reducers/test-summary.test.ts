import { describe, expect, it } from "vitest";
import { isTestCommand, testSummaryLine } from "../../src/reducers/test-summary.ts";

describe("test commands are recognised by their runner", () => {
	it.each([
		"npm test",
		"npm run test:unit",
		"pnpm test -- --run",
		"yarn test",
		"npx vitest run src",
		"vitest",
		"jest --ci",
		"node --test test/",
		"pytest -q tests/",
		"python -m pytest",
		"go test ./...",
		"cargo test --all",
		"bun test",
		"make test",
		"npm test 2>&1 | tail -20",
		"./node_modules/.bin/mocha",
	])("%s", (command) => expect(isTestCommand(command)).toBe(true));
	it.each(["npm run build", "git status", "cat test/a.test.ts", "ls tests", "echo attest", "npm run testbed-x"])(
		"not %s",
		(command) => expect(isTestCommand(command)).toBe(false),
	);
});

describe("the summary line of a test run", () => {
	it.each([
		[
			"vitest",
			" ❯ test/a.test.ts (3 tests | 1 failed)\n Test Files  1 failed | 5 passed (6)\n      Tests  1 failed | 41 passed (42)\n   Start at  10:00:00\n   Duration  1.2s",
			"Tests  1 failed | 41 passed (42)",
		],
		[
			"jest",
			"Test Suites: 1 failed, 5 passed, 6 total\nTests:       1 failed, 41 passed, 42 total\nSnapshots:   0 total",
			"Tests:       1 failed, 41 passed, 42 total",
		],
		["mocha", "  41 passing (2s)\n  3 failing\n\n  1) x", "3 failing"],
		["node --test", "ℹ tests 44\nℹ suites 2\nℹ pass 41\nℹ fail 3\nℹ cancelled 0", "ℹ fail 3"],
		["node --test all passing", "ℹ tests 44\nℹ pass 44\nℹ fail 0", "ℹ pass 44"],
		[
			"pytest",
			"tests/a.py ..F\n=========== 1 failed, 41 passed in 1.23s ===========",
			"=========== 1 failed, 41 passed in 1.23s ===========",
		],
		[
			"go test",
			"--- FAIL: TestX (0.00s)\nFAIL\nFAIL\tgithub.com/a/b\t0.012s\nok  \tgithub.com/a/c\t0.100s",
			"ok  \tgithub.com/a/c\t0.100s",
		],
		[
			"cargo",
			"running 44 tests\ntest result: FAILED. 41 passed; 3 failed; 0 ignored; 0 measured; 0 filtered out",
			"test result: FAILED. 41 passed; 3 failed; 0 ignored; 0 measured; 0 filtered out",
		],
		["generic", "Running 3 suites\n  2 passed, 1 failed (3.1s)", "2 passed, 1 failed (3.1s)"],
	])("%s", (_runner, output, line) => {
		expect(testSummaryLine(output)).toBe(line);
	});
	it("none when the output has no summary", () => {
		expect(testSummaryLine("Error: Cannot find module 'vitest'")).toBeUndefined();
	});
});
