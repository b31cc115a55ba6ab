/**
 * The reader's diagnostics as the CLI reports them: counted by kind, the first few kept as one
 * escaped line each (a diagnostic quotes the bad line, which could hold terminal escapes); and
 * counts added up, per branch, per file and for the whole replay report.
 */

import type { Diagnostic, DiagnosticReason, ParsedSession } from "../../../events/index.ts";
import { visibleLine } from "../cli/escape.ts";
import type { Diagnostics } from "./replay-report.ts";

export function emptyDiagnostics(): Diagnostics {
	return { badLines: 0, unknownEntries: 0, brokenParents: 0, byReason: {}, unknownEntryTypes: {}, messages: [] };
}

/** How many diagnostic messages a report keeps (counts are always complete). */
export const MAX_DIAGNOSTIC_MESSAGES = 50;

export function addDiagnostics(into: Diagnostics, from: Diagnostics): void {
	into.badLines += from.badLines;
	into.unknownEntries += from.unknownEntries;
	into.brokenParents += from.brokenParents;
	for (const [reason, n] of Object.entries(from.byReason) as [DiagnosticReason, number][]) {
		into.byReason[reason] = (into.byReason[reason] ?? 0) + n;
	}
	for (const [type, n] of Object.entries(from.unknownEntryTypes)) {
		into.unknownEntryTypes[type] = (into.unknownEntryTypes[type] ?? 0) + n;
	}
	for (const m of from.messages) if (into.messages.length < MAX_DIAGNOSTIC_MESSAGES) into.messages.push(m);
}

const BRANCH_REASONS = new Set<Diagnostic["reason"]>(["missing-parent", "cycle", "unknown-leaf"]);

/** `file:line: reason: message`, escaped, on one line. */
export function diagnosticLine(file: string, diagnostic: Diagnostic): string {
	const where = diagnostic.line !== undefined ? `${file}:${diagnostic.line}` : file;
	return visibleLine(`${where}: ${diagnostic.reason}: ${diagnostic.message}`);
}

/** @param parsed the file's reader output, for the line and entry counts (absent for branch diagnostics). */
export function countDiagnostics(
	file: string,
	list: readonly Diagnostic[],
	parsed?: Pick<ParsedSession, "stats">,
): Diagnostics {
	const d = emptyDiagnostics();
	for (const diagnostic of list) {
		d.byReason[diagnostic.reason] = (d.byReason[diagnostic.reason] ?? 0) + 1;
		if (BRANCH_REASONS.has(diagnostic.reason)) d.brokenParents++;
		if (d.messages.length < MAX_DIAGNOSTIC_MESSAGES) d.messages.push(diagnosticLine(file, diagnostic));
	}
	if (parsed !== undefined) {
		d.badLines = Object.values(parsed.stats.skipped).reduce((a, b) => a + (b ?? 0), 0);
		d.unknownEntries = Object.values(parsed.stats.opaque).reduce((a, b) => a + (b ?? 0), 0);
		d.unknownEntryTypes = { ...parsed.stats.unknownEntryTypes };
	}
	return d;
}

export function mergeDiagnostics(a: Diagnostics, b: Diagnostics): Diagnostics {
	const out = emptyDiagnostics();
	addDiagnostics(out, a);
	addDiagnostics(out, b);
	return out;
}

/** How many diagnostics `render` prints on stderr after its count. */
export const SHOWN_DIAGNOSTICS = 5;

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * `render`'s stderr note: what the reader could not use, which the printed request therefore
 * lacks. Empty when there is nothing to say.
 */
export function diagnosticsNote(
	command: string,
	file: string,
	list: readonly Diagnostic[],
	parsed: Pick<ParsedSession, "stats">,
) {
	if (list.length === 0) return "";
	const d = countDiagnostics(file, list, parsed);
	const shown = visibleLine(file);
	const lines = [
		`advisor-ledger ${command}: ${shown}: ${plural(list.length, "reader diagnostic", "reader diagnostics")} (${plural(d.badLines, "bad line", "bad lines")}, ${plural(d.unknownEntries, "unknown entry", "unknown entries")}, ${plural(d.brokenParents, "broken parent link", "broken parent links")}); the request lacks what they describe:`,
		...list.slice(0, SHOWN_DIAGNOSTICS).map((diagnostic) => `  ${diagnosticLine(file, diagnostic)}`),
	];
	if (list.length > SHOWN_DIAGNOSTICS) lines.push(`  … and ${list.length - SHOWN_DIAGNOSTICS} more`);
	return `${lines.join("\n")}\n`;
}

/**
 * Why a file gave no session entries, in the reader's words: `empty file`, or `not a Pi session file`
 * with the first line the reader could not use (a binary file, JSON of another shape).
 */
export function noEntriesReason(parsed: Pick<ParsedSession, "diagnostics" | "stats">): string {
	const first = parsed.diagnostics[0];
	if (parsed.stats.lines === parsed.stats.blankLines && first === undefined) return "empty file";
	if (first === undefined) return "no session entries (only a session header)";
	const where = first.line !== undefined ? `line ${first.line}: ` : "";
	return visibleLine(`not a Pi session file (${where}${first.reason}: ${first.message})`);
}
