/**
 * The line of a failed result that says what went wrong (cards: docs/request-format.md#blocks). A
 * failure's first line is often a banner (`> pkg@1.0.0 check`) and its last lines an epilogue
 * (`npm ERR! code ELIFECYCLE`, `Command exited with code 1`), while the error sits between. So the
 * line is the first one carrying an error word that is not a run's frame — an exit-code line, an
 * npm/yarn/pnpm/make epilogue, a command echo — else the last line that is not such a frame, and
 * only when nothing better exists, the frame itself.
 */

/**
 * Words and shapes that mark a line as the error: compiler codes (`error TS2305`, `TS1005`),
 * exception names (`TypeError:`, `ValueError`), npm's `ERR!`, a CLI's `usage:` complaint, and a
 * non-zero exit code. Only failed results are searched, so words like "unknown" are safe here.
 */
const ERROR_WORD =
	/error|\bfail(?:s|ed|ure|ing)?\b|exception|\bcannot\b|\bcan't\b|\bcould not\b|\bunable to\b|\bnot found\b|\bno such\b|\bdenied\b|\bfatal\b|\bpanic|\baborted\b|\btimed out\b|\bsegmentation fault\b|\b(?:invalid|unexpected|unsupported|unrecognized|unknown)\b|^usage:|\bTS\d{4}\b|ERR!|\bexit(?:ed)?(?: with)?(?: code| status)?[ :=]*[1-9]\d*\b/i;

/** Counts of nothing (`0 errors`, `no failures`) are not errors; they are removed before the test. */
const NOTHING_WRONG = /\b(?:0|no|zero|without) (?:errors?|failures?|failed|exceptions?)\b/gi;

export function isErrorLine(line: string): boolean {
	return ERROR_WORD.test(line.replace(NOTHING_WRONG, ""));
}

/**
 * Lines that frame a failed run rather than say what failed: how it exited, the package manager's
 * epilogue, the echo of the command. Each names only the run, which the card already shows.
 */
const FRAME: readonly RegExp[] = [
	// exit-code lines: `Command exited with code 1`, `Exit code: 2`, `exit status 1`, `Process exited with code 1`
	/^(?:command\s+|process\s+)?(?:exit(?:ed)?(?:\s+with)?\s+(?:code|status)|exit\s*code)\s*[:=]?\s*-?\d+\.?$/i,
	/^(?:command|process)\s+(?:failed|exited)\b.*\b(?:code|status)\s*[:=]?\s*-?\d+\.?$/i,
	// npm's epilogue (npm ≤ 9 `npm ERR!`, npm ≥ 10 `npm error`)
	/^npm (?:ERR!|error)\s+(?:code|errno|syscall|path|workspace|location|command|signal|cwd)\b/i,
	/^npm (?:ERR!|error)\s+(?:A complete log|Failed at the|This is probably|Exit status|Tell the author|Lifecycle script|\S+@\S+ \S+: )/i,
	/^npm (?:ERR!|error)\s*$/i,
	// yarn and pnpm
	/^error Command failed with exit code \d+\.?$/i,
	/^info Visit https?:\/\/yarnpkg\.com\//i,
	/^(?:\S+\s+)?ELIFECYCLE\b/,
	/^\s*ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL\b/,
	// make: `make: *** [Makefile:3: test] Error 1`
	/^make(?:\[\d+\])?: \*\*\* .*\bError \d+$/,
	// command echoes: `> pkg@1.0.0 test`, `> vitest run`, `$ npm test`
	/^> \S/,
	/^\$ \S/,
	// Node's echo of where an uncaught exception was rethrown (`node:internal/modules/run_main:123`,
	// then this source line and a caret) before the exception itself
	/^triggerUncaughtException\($/,
];

export function isFrameLine(line: string): boolean {
	return FRAME.some((re) => re.test(line));
}

/** The error-bearing line of a result text, trimmed; "" when the text has no non-empty line. */
export function errorExcerpt(text: string): string {
	let lastPlain = "";
	let firstFrameError = "";
	let last = "";
	for (const line of text.split("\n")) {
		const trimmed = line.trim();
		if (trimmed.length === 0) continue;
		last = trimmed;
		const frame = isFrameLine(trimmed);
		const error = isErrorLine(trimmed);
		if (error && !frame) return trimmed;
		if (frame) {
			if (error && firstFrameError === "") firstFrameError = trimmed;
		} else lastPlain = trimmed;
	}
	return lastPlain || firstFrameError || last;
}

/**
 * What a card shows after ✗: the error-bearing line without a bare `Error:` label, which the ✗
 * already says (`Error: ENOENT …` → `ENOENT …`). Named errors (`TypeError:`, `error TS2305`) keep
 * their names.
 */
export function failureLine(text: string): string {
	const line = errorExcerpt(text);
	const rest = line.replace(/^error:\s*/i, "");
	return rest.length > 0 ? rest : line;
}
