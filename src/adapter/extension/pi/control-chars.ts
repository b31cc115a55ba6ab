/**
 * Control characters in text bound for a terminal or a model: file names in tool output, the
 * `advisor: …` progress line, warnings on stderr, everything the CLI prints. All of it can come
 * from files anyone could have written (session logs, file names, a provider's error text). A raw
 * ESC can recolour, retitle or rewrite the screen, a raw newline makes one name look like two, a
 * bidi override reorders what the user reads. Each becomes a visible escape (`\n`, `\x1b`,
 * `\u202e`); everything else passes unchanged. One escaper for every surface, so the same byte
 * always reads the same way.
 */

/**
 * C0 and C1 controls, DEL, the line and paragraph separators, and the bidirectional marks,
 * embeddings, overrides and isolates.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The same, but newlines and tabs pass: multi-line text (a rendered request, a stack) keeps its lines. */
const CONTROL_BUT_LINES =
	/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeOne(c: string): string {
	const short = SHORT[c];
	if (short !== undefined) return short;
	const code = c.charCodeAt(0);
	return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** One line: every control character escaped, line breaks and tabs too. */
export function escapeControlChars(text: string): string {
	return text.replace(CONTROL, escapeOne);
}

/** Multi-line text: newlines and tabs kept, every other control character escaped. */
export function escapeControlCharsKeepLines(text: string): string {
	return text.replace(CONTROL_BUT_LINES, escapeOne);
}
