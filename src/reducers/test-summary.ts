/**
 * Test runs (cards: docs/request-format.md#blocks): which commands run tests, and the one line of their
 * output that says how the run went — `Tests  3 failed | 41 passed (44)` (vitest), `Tests: 1 failed,
 * 41 passed, 42 total` (jest), `3 failing` (mocha), `ℹ fail 3` (node --test), `=== 3 failed, 41
 * passed in 1.2s ===` (pytest), `FAIL pkg 0.1s` (go test), `test result: FAILED. 41 passed; 3
 * failed` (cargo), and `N passed` / `N failed` in general.
 */

/** Runners and the package-script spellings that start them (the command after any leading `cd`). */
const TEST_COMMAND =
	/(?:^|[\s;&|(/])(?:vitest|jest|mocha|ava|tap|pytest|py\.test|nox|tox|phpunit|rspec|playwright\s+test|cypress\s+run|node\s+--test|(?:bun|deno)\s+test|go\s+test|cargo\s+(?:test|nextest)|dotnet\s+test|mvn\s+(?:\S+\s+){0,6}test|gradlew?\s+(?:\S+\s+){0,6}test|ctest|make\s+(?:test|check)\b|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test(?:[:._-][\w:.-]*)?)(?=$|[\s;&|)])/;

export function isTestCommand(command: string): boolean {
	return TEST_COMMAND.test(command);
}

/**
 * Summary shapes, most specific first: a line matching an earlier shape wins over any line matching
 * a later one; among lines of one shape the last wins (the final summary of a run comes last).
 */
const SUMMARY_SHAPES: readonly RegExp[] = [
	// vitest: `Tests  3 failed | 41 passed (44)` (before its `Test Files` line)
	/^\s*Tests\s+\d+\s+(?:failed|passed|skipped|todo)\b/,
	// jest: `Tests:       1 failed, 41 passed, 42 total`
	/^\s*Tests:\s+.*\b\d+\s+total\b/,
	// cargo: `test result: FAILED. 41 passed; 3 failed; …`
	/^\s*test result: (?:ok|FAILED)\.\s/,
	// pytest: `===== 3 failed, 41 passed in 1.23s =====`
	/^\s*=+\s.*\b\d+\s+(?:passed|failed|errors?)\b.*\bin\s+[\d.]+s\b.*=+\s*$/,
	// mocha: `  3 failing` (the failing count says more than the passing one)
	/^\s*\d+\s+failing\b/,
	/^\s*\d+\s+passing\b/,
	// node --test: `ℹ fail 3` / `# fail 3`, then the pass count
	/^\s*(?:ℹ|#)\s+fail\s+[1-9]\d*\s*$/,
	/^\s*(?:ℹ|#)\s+pass\s+\d+\s*$/,
	// go test: `FAIL\tpkg\t0.1s`, `ok  \tpkg\t0.12s`
	/^(?:FAIL|ok)\s+\S+\s+(?:[\d.]+s|\(cached\))/,
	// vitest's file line, when the tests line is missing
	/^\s*Test Files\s+\d+\s+(?:failed|passed)\b/,
	// the general form: `41 passed`, `3 failed`, `2 passed, 1 failed (3.1s)`
	/\b\d+\s+(?:passed|failed)\b/,
];

/** How much of a summary line counts as the fact (and a card shows). */
export const SUMMARY_MAX = 100;

/** The summary line of a test run's output (trimmed), or undefined when it has none. */
export function testSummaryLine(output: string): string | undefined {
	const lines = output.split("\n");
	let best: { shape: number; line: string } | undefined;
	for (const raw of lines) {
		if (raw.length > 400) continue;
		const limit = best === undefined ? SUMMARY_SHAPES.length : best.shape + 1;
		for (let shape = 0; shape < limit; shape++) {
			if (SUMMARY_SHAPES[shape]!.test(raw)) {
				best = { shape, line: raw.trim() };
				break;
			}
		}
	}
	return best?.line;
}
