/**
 * BENCHMARKS.md is only ever rewritten with at least the rows it had: a run that would drop one (an
 * input gone missing, a row renamed) says which and leaves the file alone, unless told to drop them
 * (`BENCH_DROP_ROWS=1`), and then the file itself says what was dropped.
 */

/**
 * The real sessions measured, by their path in the repository (samples/README.md says where each comes
 * from): in the repository, so a fresh clone measures every row.
 */
export const REAL_SESSIONS: readonly string[] = [
	"samples/long/pi-mono-large-session.jsonl",
	"samples/long/pi-mono-compacted.jsonl",
	"samples/long/gjc-inline-agent-design.jsonl",
	"samples/long/gjc-raddit-dashboard-pr.jsonl",
];

/** The first cell of every data row of every table in a BENCHMARKS.md: the row names. */
export function tableRowNames(markdown: string): string[] {
	const names: string[] = [];
	for (const line of markdown.split("\n")) {
		if (!line.startsWith("| ")) continue;
		const name = line.slice(2, line.indexOf(" |", 2)).trim();
		// Header rows, separators and the target rows are not measurements.
		if (name === "" || /^-+$/.test(name) || name.startsWith("**") || name === "session" || name === "input") continue;
		if (!names.includes(name)) names.push(name);
	}
	return names;
}

/** Rows the previous file had that the new one lacks, in the previous file's order. */
export function droppedRows(previous: string | undefined, next: string): string[] {
	if (previous === undefined) return [];
	const kept = new Set(tableRowNames(next));
	return tableRowNames(previous).filter((name) => !kept.has(name));
}

/** The note a file written without some earlier rows carries (empty when none were dropped). */
export function droppedNote(dropped: readonly string[]): string[] {
	if (dropped.length === 0) return [];
	return ["", `Rows of the previous run not measured this time (BENCH_DROP_ROWS=1): ${dropped.join("; ")}.`];
}
