/**
 * The text report's closing legend (docs/cli.md, "The text report"): every column of the
 * per-session tables and every term of the summary, one entry each, so the first screen can be read
 * without the docs. A column's entry begins with its header as the table prints it; a longer term's
 * entry with the term and a colon. test/adapter/lab/report/text-legend.test.ts checks the first
 * screen against it.
 */

import { PRIOR } from "../../../policy/index.ts";
import { formatTokens, WIDTH, wrap } from "./text-format.ts";

const TERM = 10;
const HANGING = " ".repeat(TERM + 4);

/**
 * One entry: a short term in a column of its own with its text hanging beside it, or `term: text`
 * with its further lines indented deeper; so an entry's first line is the only one two spaces in.
 */
function entry(term: string, text: string): string[] {
	if (term.length > TERM) return wrap(`  ${term}: ${text}`, WIDTH, "    ");
	return wrap(text, WIDTH - HANGING.length, "").map(
		(line, i) => (i === 0 ? `  ${term.padEnd(TERM)}  ` : HANGING) + line,
	);
}

/** What the columns and terms mean: short, and after the numbers so the report starts with the answer. */
export const LEGEND: readonly string[] = [
	"Legend:",
	...entry("session", "the session file, under the folder named above the table (file@leaf with --all-leaves)"),
	...entry(
		"points",
		"the consultation points replayed: adv, real advisor() calls; sim, simulated ones (the line under the first table says how often)",
	),
	...entry(
		"baseline",
		"what rpiv-advisor 2.11 sends at the same point: Pi's context + every tool's JSON schema (no system prompt counted: a lower bound); tokens are chars/4 on both sides",
	),
	...entry(
		"Pi's context",
		"what Pi sends the executor's model for the branch: after a compaction, Pi's summary in place of what came before it",
	),
	...entry("ledger", "the request this extension sends"),
	...entry("ratio", "ledger / baseline tokens"),
	...entry("effect.", "the same ratio with a prompt cache on both sides: uncached + 0.1 × cached tokens"),
	...entry(
		"masked",
		"the baseline with observation masking (Lindenbauer et al. 2025): tool results older than the newest 10 assistant turns replaced by one line; the research baseline",
	),
	...entry("m.eff.", "masked / baseline, cached the same way"),
	...entry(">base", "consultations whose ledger request is larger than the baseline's"),
	...entry("users", "user messages the requests had to carry"),
	...entry("missing", "of those, absent from a request (must be 0)"),
	...entry(
		"reuse",
		"median share of the previous consultation's ledger request repeated as a prefix (token prefix / breakpoints)",
	),
	...entry(
		"facts L/Pi",
		"share of the branch's facts (user words, paths, commands, failures, test summaries, prose, names, advice) each request carries as text, ledger / Pi's context",
	),
	...entry(
		"lost L/Pi",
		"of the facts the executor lost at its horizon, the share each request carries, ledger / Pi's context; —: no compaction on the branch",
	),
	...entry(
		"cuts",
		"points where the log's left-out span moved since the previous point: each one rewrites the cached prefix of the ledger's request",
	),
	...entry("horizon", "the executor's newest compaction: what came before it Pi's context holds only as Pi's summary"),
	...entry(
		"executor-lost",
		"in the summary, the share of the facts lost at the horizon the ledger's requests carry (lost L/Pi's first figure, over all sessions)",
	),
	...entry(
		"first requests",
		"the tables and ratios above the whole consultations count the request each consultation starts with, on every side; what follows it is counted under whole consultations.",
	),
	...entry(
		"whole consultations",
		`the first request and the follow-ups after it (an investigation round, the request after the tool allowance is spent, a retry). Each follow-up re-sends the previous request with the advisor's reply and tool results appended: larger than the first request, but it starts with the previous one byte for byte, so where the provider caches it is mostly a cache read (0.1 × the input price). estimated: the extension's own estimate at that point; follow-ups as this session's earlier consultations of the model show (history), else the prior: ${PRIOR.rounds} of ${formatTokens(PRIOR.growthTokens)} tokens each, ${PRIOR.roundOutputTokens} output tokens. billed: what the results recorded (details.attempts), priced the same way; ratio = billed / estimated.`,
	),
	...entry("token prefix", "the longest repeated prefix is read from the cache (OpenAI, Google)"),
	...entry(
		"breakpoints",
		"Anthropic's rule. A prefix is read only if it ends where the previous request set a breakpoint, at most 20 content blocks before one of this request's (at most 4 per request); the rest is written at the cache-write price. Ledger: pi-ai's marks (system, last tool, last block), the stable end, and a bridge at the previous stable end when it lies further back; baselines: pi-ai's marks on Pi's context. no bridges: the ledger without the bridge.",
	),
	...entry(
		"dollar ratio",
		"ledger / baseline in dollars at the --price model: the summary's Cost, cached and the dollar table's ratio column. A cache write costs more than input (1.25× on Anthropic), a read 0.1×.",
	),
	...entry(
		"token-weighted ratio",
		"the same in tokens, every written token weighed as 1 (breakpoints: uncached + written + 0.1 × read; --wide, and JSON cache.effectiveRatioBreakpoint): it differs from the dollar ratio by the cache-write premium.",
	),
	...entry(
		"warm cache",
		"a session's first consultation reads nothing; the cache is taken as warm between consultations.",
	),
	...entry(
		"dollars",
		"the first requests' are their prompts' only (the answer is the same on every side); the whole consultations' include the answers. Timings and every point's figures: --json.",
	),
];

/** The legend's last word without `--wide`: what it would add. */
export const WIDE_LEGEND: readonly string[] = entry(
	"--wide",
	"adds tokens per request (p50, p90, max), every side's reuse, the ledger without bridges, the billed prompt tokens three ways and the reader's messages on the bundled samples.",
);

/** The terms a legend defines, read back from its lines: each entry's first line names one. */
export function legendTerms(lines: readonly string[]): Set<string> {
	const terms = new Set<string>();
	for (const line of lines) {
		const entryLine = /^ {2}(\S(?:\S| (?! ))*?)(?: {2,}|: )/.exec(line);
		if (entryLine !== null) terms.add(entryLine[1]!);
	}
	return terms;
}
