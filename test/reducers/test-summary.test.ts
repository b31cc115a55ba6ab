import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	isTestCommand,
	isTestRun,
	SUMMARY_SHAPES,
	testSummary,
	testSummaryLine,
} from "../../src/reducers/test-summary.ts";

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
		"node --import tsx --test test/",
		"python -m unittest discover",
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
			// A failing package says more than a later passing one.
			"go test",
			"--- FAIL: TestX (0.00s)\nFAIL\nFAIL\tgithub.com/a/b\t0.012s\nok  \tgithub.com/a/c\t0.100s",
			"FAIL\tgithub.com/a/b\t0.012s",
		],
		[
			"go test all passing",
			"ok  \tgithub.com/a/b\t0.012s\nok  \tgithub.com/a/c\t(cached)",
			"ok  \tgithub.com/a/c\t(cached)",
		],
		["go test, no time", "--- FAIL: TestX (0.00s)\nFAIL\nFAIL\tpkg", "FAIL\tpkg"],
		[
			"go test, one test",
			"=== RUN   TestX\n--- FAIL: TestX (0.00s)\n    x_test.go:9: want 2",
			"--- FAIL: TestX (0.00s)",
		],
		["jest, no total", "PASS src/a.test.ts\nTests:  3 failed, 12 passed\nTime: 1s", "Tests:  3 failed, 12 passed"],
		["jest, a file line only", " PASS  src/b.test.ts\n FAIL  src/x.test.ts\n  ● x › adds", "FAIL  src/x.test.ts"],
		[
			"vitest, files line only",
			" ❯ test/a.test.ts (5 tests | 1 failed)\n Test Files  1 failed | 4 passed (5)\n   Duration  1s",
			"Test Files  1 failed | 4 passed (5)",
		],
		[
			"vitest, coloured",
			"\u001b[2m      Tests \u001b[22m \u001b[1m\u001b[31m2 failed\u001b[39m | 10 passed",
			"Tests  2 failed | 10 passed",
		],
		["TAP", "ok 1 - a\nnot ok 2 - b\n1..12\n# tests 12\n# pass 10\n# fail 2", "# fail 2"],
		[
			"pytest, short",
			"FAILED tests/test_a.py::test_x - assert 1 == 2\n=== 2 failed, 10 passed in 0.3s ===",
			"=== 2 failed, 10 passed in 0.3s ===",
		],
		[
			"unittest",
			"FAIL: test_x (tests.test_a.TestA.test_x)\n----\nRan 12 tests in 0.004s\n\nFAILED (failures=1)",
			"FAILED (failures=1)",
		],
		[
			"unittest, cut short",
			"FAIL: test_x (tests.test_a.TestA.test_x)\nTraceback",
			"FAIL: test_x (tests.test_a.TestA.test_x)",
		],
		[
			"cargo, ok",
			"test result: ok. 12 passed; 0 failed; 0 ignored",
			"test result: ok. 12 passed; 0 failed; 0 ignored",
		],
		["mocha, all passing", "  12 passing (40ms)\n", "12 passing (40ms)"],
		[
			"a project's own runner",
			"FAIL  retry › counts waits\n17 passing, 1 failing (1 suites)",
			"17 passing, 1 failing (1 suites)",
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
		expect(testSummaryLine("FAIL\nok\n# fail 0\nTests:\n")).toBeUndefined();
	});
	it("a line too long to be a summary is not read", () => {
		expect(testSummaryLine(`Tests  1 failed | 2 passed ${"x".repeat(400)}`)).toBeUndefined();
	});
});

describe("which runs are read for a summary", () => {
	it("a known runner: every shape, the loose count too", () => {
		expect(testSummary("npm test", "done: 3 passed, 1 failed")).toBe("done: 3 passed, 1 failed");
	});
	it("a script under a test folder is a test run", () => {
		expect(isTestRun("node test/run.js queue")).toBe(true);
		expect(testSummary("node test/run.js", "ok\n 3 passed")).toBe("3 passed");
	});
	it("another program: a runner's own shapes, never the loose count", () => {
		expect(testSummary("./check.sh", "Tests:  1 failed, 4 passed")).toBe("Tests:  1 failed, 4 passed");
		expect(testSummary("./check.sh", "build: 3 passed")).toBeUndefined();
	});
	it("a program that shows text prints other runs' lines", () => {
		expect(testSummary("cat ci.log", "Tests:  1 failed, 4 passed")).toBeUndefined();
		expect(testSummary("cd web && git log -p", " Tests  1 failed | 4 passed")).toBeUndefined();
		expect(testSummary("FOO=1 tail -n 20 out.txt", "  3 failing")).toBeUndefined();
	});
});

/** Output lines that hold no summary of any shape: no digit, and none of the shapes' words. */
const noiseLine = fc
	.string({ unit: fc.constantFrom(..."abcxyz .:/|()-_=[]›✓\t".split("")), maxLength: 60 })
	.filter((line) => SUMMARY_SHAPES.every((shape) => !shape.re.test(line)));
const noise = fc.array(noiseLine, { maxLength: 12 });

/** One summary line per shape, by the shape's name (each matches its shape and no earlier one). */
const SAMPLE_LINES: Record<string, (n: number) => string> = {
	vitest: (n) => `Tests  ${n} failed | 10 passed (${n + 10})`,
	jest: (n) => `Tests:       ${n} failed, 10 passed, ${n + 10} total`,
	cargo: (n) => `test result: FAILED. 10 passed; ${n} failed; 0 ignored`,
	pytest: (n) => `=== ${n} failed, 10 passed in 0.3s ===`,
	unittest: (n) => `FAILED (failures=${n})`,
	"mocha failing": (n) => `  ${n} failing`,
	"mocha passing": (n) => `  ${n} passing (2s)`,
	"node:test fail": (n) => `# fail ${n + 1}`,
	"node:test pass": (n) => `ℹ pass ${n}`,
	"go fail": (n) => `FAIL\texample.com/p${n}\t0.01s`,
	"go ok": (n) => `ok  \texample.com/p${n}\t0.01s`,
	"vitest files": (n) => ` Test Files  ${n} failed | 4 passed (${n + 4})`,
	"unittest ran": (n) => `Ran ${n} tests in 0.004s`,
	"failed test": (n) => `--- FAIL: Test${n} (0.00s)`,
	count: (n) => `${n} passed`,
};

describe("summary lines in noisy output (properties)", () => {
	it("every shape has a sample line, matched by that shape first", () => {
		expect(Object.keys(SAMPLE_LINES)).toEqual(SUMMARY_SHAPES.map((s) => s.name));
		for (const [i, shape] of SUMMARY_SHAPES.entries()) {
			const line = SAMPLE_LINES[shape.name]!(3);
			expect(SUMMARY_SHAPES.findIndex((s) => s.re.test(line))).toBe(i);
		}
	});
	it("a summary line anywhere in noise is found, as written but trimmed", () => {
		const names = Object.keys(SAMPLE_LINES);
		fc.assert(
			fc.property(noise, noise, fc.constantFrom(...names), fc.nat(999), (before, after, name, n) => {
				const line = SAMPLE_LINES[name]!(n);
				const output = [...before, line, ...after].join("\n");
				expect(testSummaryLine(output)).toBe(line.trim());
			}),
		);
	});
	it("text without a summary yields none", () => {
		fc.assert(
			fc.property(noise, (lines) => {
				expect(testSummaryLine(lines.join("\n"))).toBeUndefined();
			}),
		);
	});
	it("of two lines of one shape, the newest wins", () => {
		const names = Object.keys(SAMPLE_LINES);
		fc.assert(
			fc.property(noise, noise, fc.constantFrom(...names), fc.nat(999), fc.nat(999), (a, b, name, n, m) => {
				fc.pre(n !== m);
				const [older, newer] = [SAMPLE_LINES[name]!(n), SAMPLE_LINES[name]!(m)];
				expect(testSummaryLine([...a, older, ...b, newer].join("\n"))).toBe(newer.trim());
			}),
		);
	});
	it("a more telling shape wins over a less telling one, wherever each stands", () => {
		const names = Object.keys(SAMPLE_LINES);
		fc.assert(
			fc.property(noise, fc.nat(names.length - 1), fc.nat(names.length - 1), fc.boolean(), (a, i, j, flip) => {
				fc.pre(i !== j);
				const [strong, weak] = [SAMPLE_LINES[names[Math.min(i, j)]!]!(7), SAMPLE_LINES[names[Math.max(i, j)]!]!(8)];
				const lines = flip ? [strong, ...a, weak] : [weak, ...a, strong];
				expect(testSummaryLine(lines.join("\n"))).toBe(strong.trim());
			}),
		);
	});
});
