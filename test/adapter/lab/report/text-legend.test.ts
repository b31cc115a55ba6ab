/**
 * The replay report's first screen — the summary and the two per-session tables, before the dollar
 * table — uses no word its legend leaves unexplained (docs/cli.md, "The text report"). The words
 * come from the report's own definitions: the default tables' column headers and the summary's
 * terms; the legend's entries are read back from the printed report.
 */

import { describe, expect, it } from "vitest";
import { legendTerms } from "../../../../src/adapter/lab/report/text-legend.ts";
import { FIRST_SCREEN_HEADERS } from "../../../../src/adapter/lab/report/text-sessions.ts";
import { SUMMARY_TERMS } from "../../../../src/adapter/lab/report/text-summary.ts";
import { samplesDir } from "../../../support/cli-build.ts";
import { replay } from "../../../support/replay-fixtures.ts";

/** A sample with a compaction, so the lost facts have figures and the summary names them. */
async function report(): Promise<{ screen: string; legend: string[] }> {
	const r = await replay([`${samplesDir}/compaction.jsonl`]);
	expect(r.code).toBe(0);
	const lines = r.stdout.split("\n");
	const end = lines.findIndex((line) => line.startsWith("Prompt cost of"));
	const legendAt = lines.indexOf("Legend:");
	expect(end).toBeGreaterThan(0);
	expect(legendAt).toBeGreaterThan(end);
	return { screen: lines.slice(0, end).join("\n"), legend: lines.slice(legendAt + 1) };
}

describe("the first screen's words, each in the legend", () => {
	it("every column header of the default tables is on the first screen and has its entry", async () => {
		const { screen, legend } = await report();
		const defined = legendTerms(legend);
		expect(FIRST_SCREEN_HEADERS).toEqual(expect.arrayContaining(["lost L/Pi", "cuts", "facts L/Pi", "m.eff."]));
		for (const header of FIRST_SCREEN_HEADERS) {
			expect(screen, header).toContain(header);
			expect([...defined], header).toContain(header);
		}
	});

	it("every term of the summary (executor-lost among them) is in the summary and has its entry", async () => {
		const { screen, legend } = await report();
		const defined = legendTerms(legend);
		const summary = screen.slice(0, screen.indexOf("\n\n"));
		for (const term of SUMMARY_TERMS) {
			// "token prefix" is written "token-prefix cache" in a sentence.
			expect(summary.replaceAll("-", " "), term).toContain(term.replaceAll("-", " "));
			expect([...defined], term).toContain(term);
		}
	});

	it("the horizon, which the lost facts are counted at, and both breakpoint ratios are explained by name", async () => {
		const { legend } = await report();
		const defined = legendTerms(legend);
		for (const term of ["horizon", "dollar ratio", "token-weighted ratio"])
			expect([...defined], term).toContain(term);
	});

	it("an entry is read back only from its first line (sanity of the reader above)", () => {
		expect([
			...legendTerms([
				"  lost L/Pi   of the facts the executor lost at its horizon",
				"              continued: not a term",
				"  dollar ratio: ledger / baseline in dollars",
				"    Ledger: a continuation line, not a term",
			]),
		]).toEqual(["lost L/Pi", "dollar ratio"]);
	});
});
