/**
 * Test runs (cards: docs/request-format.md#blocks): which commands run tests, and the one line of their
 * output that says how the run went — `Tests  3 failed | 41 passed (44)` (vitest), `Tests: 1 failed,
 * 41 passed, 42 total` (jest), `3 failing` (mocha), `ℹ fail 3` / `# fail 3` (node --test, TAP),
 * `=== 3 failed, 41 passed in 1.2s ===` (pytest), `FAILED (failures=3)` (unittest), `FAIL pkg 0.1s`
 * (go test), `test result: FAILED. 41 passed; 3 failed` (cargo), a runner's `FAIL src/x.test.ts` /
 * `--- FAIL: TestX` line, and `N passed` / `N failed` in general.
 *
 * A run is read for its summary when its command is a known runner, or when it is any other program
 * (a project's own `node test/run.js`, `./check.sh`) whose output holds a runner's own summary shape:
 * the loose `N passed` form is trusted only from a known runner, and a program that only shows text
 * (`cat`, `grep`, `git log` …) prints other runs' lines, not a run of its own.
 */

/** Runners and the package-script spellings that start them (the command after any leading `cd`). */
const TEST_COMMAND =
	/(?:^|[\s;&|(/])(?:vitest|jest|mocha|ava|tap|pytest|py\.test|nox|tox|phpunit|rspec|playwright\s+test|cypress\s+run|node\s+(?:--\S+\s+(?:[\w./@-]+\s+)?){0,3}--test|tsx\s+--test|python3?\s+-m\s+(?:unittest|pytest)|(?:bun|deno)\s+test|go\s+test|cargo\s+(?:test|nextest)|dotnet\s+test|mvn\s+(?:\S+\s+){0,6}test|gradlew?\s+(?:\S+\s+){0,6}test|ctest|make\s+(?:test|check)\b|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test(?:[:._-][\w:.-]*)?)(?=$|[\s;&|)])/;

export function isTestCommand(command: string): boolean {
	return TEST_COMMAND.test(command);
}

/** A script under a test folder, run by an interpreter: `node test/run.js queue`, `python tests/run.py`. */
const TEST_SCRIPT = /(?:^|\s)(?:node|python3?|ruby|bash|sh|deno\s+run|bun)\s+(?:\S+\/)?tests?\/\S+/;

/** A known runner, or a script under a test folder: a run whose output is read with every shape. */
export function isTestRun(command: string): boolean {
	return isTestCommand(command) || TEST_SCRIPT.test(command);
}

/** Programs that show text rather than run anything: a summary in their output is another run's. */
const SHOWS_TEXT = new Set(
	"cat head tail less more bat nl grep egrep fgrep rg ag ack sed awk ls find fd tree git diff jq yq wc sort uniq cut tr echo printf xxd od file stat which type man".split(
		" ",
	),
);

/** The program a command starts with, after a leading `cd …&&`, variable assignments and `sudo`/`time`/`env`. */
function firstProgram(command: string): string {
	const words = command
		.replace(/^\s*cd\s+("[^"]*"|'[^']*'|[^\s;&|]+)\s*(?:&&|;)\s*/, "")
		.trim()
		.split(/\s+/);
	let i = 0;
	while (i < words.length && /^(?:[A-Za-z_][A-Za-z0-9_]*=\S*|sudo|time|env|nice|exec|command)$/.test(words[i]!)) i++;
	return (words[i] ?? "").replace(/^.*\//, "");
}

/**
 * Summary shapes, most telling first: a line matching an earlier shape wins over any line matching a
 * later one; among lines of one shape the last wins (the final summary of a run comes last). `loose`
 * shapes are read only from a known runner's output.
 */
export const SUMMARY_SHAPES: readonly { name: string; re: RegExp; loose?: true }[] = [
	// `Tests  3 failed | 41 passed (44)`, after its `Test Files` line
	{ name: "vitest", re: /^\s*Tests\s+\d+\s+(?:failed|passed|skipped|todo)\b/ },
	// `Tests:       1 failed, 41 passed, 42 total`, `Tests:  3 failed, 12 passed`
	{ name: "jest", re: /^\s*Tests:\s+(?:.*[\s,])?\d+\s+(?:failed|passed|total)\b/ },
	// `test result: FAILED. 41 passed; 3 failed; …`
	{ name: "cargo", re: /^\s*test result: (?:ok|FAILED)\.\s/ },
	// `===== 3 failed, 41 passed in 1.23s =====`
	{ name: "pytest", re: /^\s*=+\s.*\b\d+\s+(?:passed|failed|errors?)\b.*\bin\s+[\d.]+s\b.*=+\s*$/ },
	// `FAILED (failures=1, errors=2)` / `OK (skipped=1)`
	{ name: "unittest", re: /^(?:FAILED|OK) \((?:failures|errors|skipped|expected failures|unexpected successes)=\d+/ },
	// `  3 failing` (the failing count says more than the passing one)
	{ name: "mocha failing", re: /^\s*\d+\s+failing\b/ },
	{ name: "mocha passing", re: /^\s*\d+\s+passing\b/ },
	// `ℹ fail 3` / `# fail 3`, then the pass count
	{ name: "node:test fail", re: /^\s*(?:ℹ|#)\s+fail\s+[1-9]\d*\s*$/ },
	{ name: "node:test pass", re: /^\s*(?:ℹ|#)\s+pass\s+\d+\s*$/ },
	// `FAIL\tpkg\t0.1s`, `FAIL\tpkg [build failed]`, `FAIL\tpkg`, then `ok  \tpkg\t0.12s`
	{ name: "go fail", re: /^FAIL(?:\s+\S+\s+(?:[\d.]+s|\[[^\]]*\])|\t\S+\s*$)/ },
	{ name: "go ok", re: /^ok\s+\S+\s+(?:[\d.]+s|\(cached\))/ },
	// `Test Files  1 failed | 4 passed (5)`, when the tests line is missing
	{ name: "vitest files", re: /^\s*Test Files\s+\d+\s+(?:failed|passed)\b/ },
	// `Ran 12 tests in 0.004s`, when unittest's verdict line is missing
	{ name: "unittest ran", re: /^Ran \d+ tests? in [\d.]+s/ },
	// One test or file that failed: `FAIL src/x.test.ts`, `--- FAIL: TestX (0.00s)`, `FAIL: test_x (a.B)`
	{ name: "failed test", re: /^\s*(?:--- )?FAIL(?::\s*|\s+)\S/ },
	// The loose form: `41 passed`, `3 failed`, `2 passed, 1 failed (3.1s)`
	{ name: "count", re: /\b\d+\s+(?:passed|failed)\b/, loose: true },
];

/** How much of a summary line counts as the fact (and a card shows). */
export const SUMMARY_MAX = 100;

/** A line longer than this is output data, not a summary (and not worth matching). */
const LINE_MAX = 400;

/** Colour and cursor codes a runner writes to a terminal. */
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/**
 * The summary line of a test run's output (trimmed, colour codes removed), or undefined when it has
 * none. `loose`: also the loose `N passed` form (a known runner's output).
 */
export function testSummaryLine(output: string, loose = true): string | undefined {
	let best: { shape: number; line: string } | undefined;
	for (const raw of output.split("\n")) {
		if (raw.length > LINE_MAX) continue;
		// A progress line rewritten in place shows what came after its last carriage return.
		const line = raw.slice(raw.lastIndexOf("\r") + 1).replace(ANSI, "");
		const limit = best === undefined ? SUMMARY_SHAPES.length : best.shape + 1;
		for (let shape = 0; shape < limit; shape++) {
			const { re, loose: isLoose } = SUMMARY_SHAPES[shape]!;
			if (isLoose === true && !loose) continue;
			if (re.test(line)) {
				best = { shape, line: line.trim() };
				break;
			}
		}
	}
	return best?.line;
}

/**
 * The summary line a shell run's output gives, by its command: every shape for a test run, a runner's
 * own shapes for another program, none for a program that only shows text.
 */
export function testSummary(command: string, output: string): string | undefined {
	if (isTestRun(command)) return testSummaryLine(output, true);
	if (SHOWS_TEXT.has(firstProgram(command))) return undefined;
	return testSummaryLine(output, false);
}
