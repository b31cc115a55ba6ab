/**
 * What the CLI prints comes from files anyone could have written (session logs, file names, the
 * reader's messages quoting a bad line): control characters are shown as `\uXXXX` escapes so
 * none of it can move the cursor, recolour or retitle the terminal.
 */

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** Also line and paragraph breaks and tabs: a one-line message stays one line. */
const CONTROL_AND_BREAKS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

function codePoint(c: string): string {
	return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/** Multi-line text (a rendered request): tabs and newlines kept, every other control character escaped. */
export function visible(text: string): string {
	return text.replace(CONTROL, codePoint);
}

/** A one-line message (a diagnostic, an error, a file name): every control character escaped, breaks too. */
export function visibleLine(text: string): string {
	return text.replace(CONTROL_AND_BREAKS, codePoint);
}

/**
 * A copy of a report with every string (keys too) escaped as one line: what the text report and
 * the chart print of it comes from files (names, entry ids, unknown entry types). The report is
 * our own object, a few levels deep, so plain recursion is fine here.
 */
export function visibleStrings<T>(value: T): T {
	if (typeof value === "string") return visibleLine(value) as T;
	if (Array.isArray(value)) return value.map((item) => visibleStrings(item)) as T;
	if (typeof value === "object" && value !== null) {
		return Object.fromEntries(
			Object.entries(value).map(([key, item]) => [visibleLine(key), visibleStrings(item)]),
		) as T;
	}
	return value;
}
