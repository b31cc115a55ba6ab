/** The `ledger` keys of advisor.json (docs/configuration.md): how much of the branch reaches the advisor verbatim. */
export interface LedgerConfig {
	/** Newest tool rounds of the open segment rendered verbatim; every other round is a one-line card. */
	tailToolCalls: number;
	/** Cap per verbatim part (call arguments, reasoning, prose, the question, advice). */
	tailMaxChars: number;
	/**
	 * Cap on each verbatim tool result in the appendix. The appendix is never cached, so its results
	 * are capped tighter than the other verbatim parts; the text past the cap stays expandable.
	 */
	tailResultMaxChars: number;
	/** A longer user message keeps head and tail around an expandable gap. */
	userMessageMaxChars: number;
	/** Visible extension messages are previewed up to this many characters. */
	customPreviewChars: number;
	/** Older executor prose in the log keeps head and tail around an expandable gap; the newest is whole in the appendix. */
	proseMaxChars: number;
}

export const DEFAULT_LEDGER_CONFIG: Readonly<LedgerConfig> = Object.freeze({
	tailToolCalls: 2,
	tailMaxChars: 8000,
	tailResultMaxChars: 1000,
	userMessageMaxChars: 20000,
	customPreviewChars: 500,
	proseMaxChars: 300,
});
