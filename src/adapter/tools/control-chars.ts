/**
 * Control characters in text bound for the terminal: file names in tool output and in the
 * `advisor: …` progress line. A raw ESC can recolour or rewrite the screen, a raw newline
 * makes one name look like two, a bidi override reorders what the user reads. Each becomes a
 * visible escape (`\n`, `\x1b`, `\u202e`); everything else passes unchanged.
 */

/**
 * C0 and C1 controls, DEL, the line and paragraph separators, and the bidirectional marks,
 * embeddings, overrides and isolates.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

export function escapeControlChars(text: string): string {
	return text.replace(CONTROL, (c) => {
		const short = SHORT[c];
		if (short !== undefined) return short;
		const code = c.charCodeAt(0);
		return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
	});
}
