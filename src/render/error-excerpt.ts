/**
 * The line of a failed tool result that says what went wrong. A failure's first line is often a
 * banner (`> pkg@1.0.0 check`, `[youtube] Extracting URL: …`) while the error sits further down,
 * so the excerpt is the first line carrying an error word, else the last non-empty line (where
 * shells and Pi's bash tool put the exit code).
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

/** The error-bearing line of a result text, trimmed; "" when the text has no non-empty line. */
export function errorExcerpt(text: string): string {
	let last = "";
	for (const line of text.split("\n")) {
		const trimmed = line.trim();
		if (trimmed.length === 0) continue;
		if (isErrorLine(trimmed)) return trimmed;
		last = trimmed;
	}
	return last;
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
