/**
 * The names a text holds in backticks: what the executor reasoned about by name. A left-out span's
 * stand-in lists them (stand-in.ts), and the fact audit counts them as identifiers.
 */

const BACKTICKED = /`([^`\s]{2,80})`/g;

function isName(span: string): boolean {
	return /[A-Za-z_]/.test(span) && !/^[-=*#>]+$/.test(span);
}

/** The names a text holds in backticks: what the audit counts as identifiers, and a left-out span's stand-in lists. */
export function backtickedNames(text: string): string[] {
	const out: string[] = [];
	for (const match of text.matchAll(BACKTICKED)) if (isName(match[1]!)) out.push(match[1]!);
	return out;
}
