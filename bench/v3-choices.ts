/**
 * The effect of each ledger v3 choice, as the bench measured it on the pi-mono session when the choice
 * was made (cumulative, in order). A choice cannot be switched off in today's code, so these figures are
 * kept as recorded; today's totals are the Ratios and Facts tables above them. The reasoning behind
 * each is in docs/decisions.md ("Facts per token").
 */

interface Choice {
	choice: string;
	tokens: number;
	/** ledger / baseline tokens. */
	ratio: string;
	/** All facts carried, where it was measured for the whole set. */
	facts: string;
	note: string;
}

const CHOICES: readonly Choice[] = [
	{ choice: "ledger v2 (start)", tokens: 367_187, ratio: "0.1252", facts: "0.66", note: "commands 0.31, names 0.68" },
	{
		choice:
			"commands whole (120 chars, `dir$`, `〃`), shell tools by arguments, reported exits, error lines, test summaries",
		tokens: 373_874,
		ratio: "0.1275",
		facts: "0.87",
		note: "commands 1.00",
	},
	{
		choice: "capped prose lists the names it cuts, in addition to the cap",
		tokens: 386_027,
		ratio: "0.1316",
		facts: "—",
		note: "names 1.00; over the +5% allowance: not kept",
	},
	{
		choice: "… with their room taken from head and tail (≥ 120 chars kept)",
		tokens: 375_696,
		ratio: "0.1281",
		facts: "1.00",
		note: "names 1.00; kept",
	},
];

export function v3ChoicesSection(): string[] {
	return [
		"## Ledger v3 choices",
		"",
		'What each choice cost and carried on samples/long/pi-mono-large-session.jsonl when it was made (cumulative, in order; recorded, not re-measured: the choices have no switch). Compactions and trims carrying reads, open failures and test summaries change nothing on pi-mono, which has none; on samples/compaction.jsonl they take the test fact from 0 of 1 to 1 of 1 for 22 tokens. Why each was made: docs/decisions.md, "Facts per token".',
		"",
		"| choice | ledger tokens | ledger / baseline | facts carried | note |",
		"| --- | ---: | ---: | ---: | --- |",
		...CHOICES.map(
			(c) => `| ${c.choice} | ${c.tokens.toLocaleString("en-US")} | ${c.ratio} | ${c.facts} | ${c.note} |`,
		),
	];
}
