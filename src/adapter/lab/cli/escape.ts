/**
 * What the CLI prints comes from files anyone could have written (session logs, file names, the
 * reader's messages quoting a bad line): control characters are shown as escapes (src/adapter/extension/pi/control-chars.ts)
 * so none of it can move the cursor, recolour or retitle the terminal.
 */

import { escapeControlChars, escapeControlCharsKeepLines } from "../../extension/pi/control-chars.ts";

/** Multi-line text (a rendered request): tabs and newlines kept, every other control character escaped. */
export const visible = escapeControlCharsKeepLines;

/** A one-line message (a diagnostic, an error, a file name): every control character escaped, breaks too. */
export const visibleLine = escapeControlChars;

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
