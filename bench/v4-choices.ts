/**
 * The ledger v4 choices, measured in this run: the log's size target (`ledger.logTargetTokens`) and
 * the verbatim tail (`ledger.tailToolCalls`) over the inputs that show them — the pi-mono session and
 * its compacted variant, the real compacted GJC session, the generated compacted session — with what
 * keeping every entry (target 0) would give. The step a cut takes (render/log-cut.ts KEPT_AFTER_CUT) has
 * no switch: its figures are kept as recorded. Why each value was chosen: docs/decisions.md, "The log
 * sizes itself".
 */

import { replayText } from "../src/adapter/lab/replay/engine.ts";
import type { WarmUp } from "../src/adapter/lab/replay/timing-samples.ts";
import type { SessionReport } from "../src/adapter/lab/report/replay-report.ts";
import { DEFAULT_LEDGER_CONFIG, type LedgerConfig } from "../src/render/index.ts";

export interface ChoiceInput {
	name: string;
	text: string;
}

const TARGETS = [0, 6_000, 10_000, 16_000];

const fmt = (n: number | null | undefined, digits = 3) => (n === null || n === undefined ? "—" : n.toFixed(digits));

function row(label: string, input: string, s: SessionReport): string {
	const lost = s.facts.lost.ledgerShare;
	return `| ${input} | ${label} | ${fmt(s.tokens.ratio, 4)} | ${fmt(s.cache.effectiveRatio, 4)} | ${fmt(s.cache.effectiveRatioBreakpoint, 4)} | ${fmt(s.facts.ledgerShare)} | ${fmt(lost)} | ${s.logCuts} | ${fmt(s.cacheShare.tokenPrefix.p50)} | ${s.largerThanBaseline.length} |`;
}

/**
 * What the cut's step cost when it was chosen (recorded: target 10,000, two rounds verbatim then):
 * the share of the target a cut keeps, and the effective cost against the baseline's with a
 * token-prefix cache and under breakpoints. Smaller steps rewrite the prefix more often.
 */
const STEPS: readonly { keep: string; pmc: string; generated: string }[] = [
	{ keep: "0.20", pmc: "0.239 / 0.054", generated: "0.187 / 0.036" },
	{ keep: "0.10", pmc: "0.233 / 0.053", generated: "0.180 / 0.034" },
	{ keep: "0.05 (chosen)", pmc: "0.230 / 0.052", generated: "0.173 / 0.032" },
];

export function v4ChoicesSection(inputs: readonly ChoiceInput[], every: number, warmUp: WarmUp): string[] {
	const replay = (input: ChoiceInput, config: LedgerConfig) =>
		replayText(input.name, input.text, { every, allLeaves: false, warmUp, config }).sessions[0]!;
	const rows: string[] = [];
	for (const input of inputs) {
		for (const target of TARGETS) {
			const label = target === 0 ? "keep every entry" : `target ${target.toLocaleString("en-US")}`;
			const chosen = target === DEFAULT_LEDGER_CONFIG.logTargetTokens ? " (default)" : "";
			rows.push(
				row(`${label}${chosen}`, input.name, replay(input, { ...DEFAULT_LEDGER_CONFIG, logTargetTokens: target })),
			);
		}
		rows.push(
			row(
				"target 10,000, 2 rounds verbatim",
				input.name,
				replay(input, { ...DEFAULT_LEDGER_CONFIG, tailToolCalls: 2 }),
			),
		);
	}
	return [
		"## Ledger v4 choices",
		"",
		"The log's size target and the verbatim tail, each measured in this run on the inputs that show them (the default is marked; the other settings default). *cost p* and *cost bp*: effective cost against the baseline's with a token-prefix cache and under Anthropic's breakpoints; *lost*: the share of the facts the executor lost at its newest compaction the request carries; *cuts*: points where the left-out span moved (a rewrite of the cached prefix). Why these values: docs/decisions.md, \"The log sizes itself\".",
		"",
		"| input | setting | tokens | cost p | cost bp | facts | lost | cuts | reuse p50 | > base |",
		"| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
		...rows,
		"",
		"The step a cut takes has no switch; recorded when it was chosen (target 10,000, two rounds verbatim; what one cut keeps, as a share of the target; effective cost, token prefix / breakpoints):",
		"",
		"| kept after a cut | pi-mono compacted | generated compacted |",
		"| --- | ---: | ---: |",
		...STEPS.map((s) => `| ${s.keep} | ${s.pmc} | ${s.generated} |`),
	];
}
