/**
 * The advisor's verdict line. The system prompt asks for exactly `Severity: <level>` as the
 * first line; models decorate it anyway (bold, headings, backticks, a dash for the colon), so
 * the decoration is forgiven but the position is not: only the first non-empty line counts,
 * because a "severity" mentioned further down is advice text, not the verdict.
 */

import { SEVERITIES, type Severity } from "../../events/index.ts";

// Emphasis and code marks anywhere in the line, then block markers (heading, quote, bullet) in front.
const INLINE_DECORATION = /[*_`~]/g;
const LEADING_MARKERS = /^(?:[#>\-+•\s]|\d+[.)]\s)+/u;
const VERDICT = new RegExp(
	`^severity\\s*(?:[:：=\\-–—]+\\s*|\\s+)["'“‘\\[(]?(${SEVERITIES.join("|")})["'”’\\])]?(?![\\p{L}\\p{N}]|-[\\p{L}\\p{N}])`,
	"iu",
);

function isSeverity(value: string): value is Severity {
	return (SEVERITIES as readonly string[]).includes(value);
}

function undecorated(line: string): string {
	return line.replace(INLINE_DECORATION, "").replace(LEADING_MARKERS, "").trim();
}

/**
 * The severity named on the first non-empty line, or undefined when that line names none. A line
 * of pure decoration (a code fence, a rule) is empty: it carries no words to be the verdict.
 */
export function parseSeverity(advice: string): Severity | undefined {
	const first = advice
		.split(/\r\n|\r|\n/)
		.map(undecorated)
		.find((line) => line !== "");
	if (first === undefined) return undefined;
	const level = VERDICT.exec(first)?.[1]?.toLowerCase();
	return level !== undefined && isSeverity(level) ? level : undefined;
}

/** Completion reviews treat a missing verdict as `nit`: shown, but never worth a new turn. */
export function reviewSeverity(advice: string): Severity {
	return parseSeverity(advice) ?? "nit";
}
