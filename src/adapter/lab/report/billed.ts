/**
 * What requests were billed, as the CLI reports it: the provider's tokens and their dollars. The one
 * shape of billed usage; the eval's arms and judge add how many requests it sums (eval/cost.ts), a
 * replayed consultation its prompt sum and its first request apart (report/replay-report.ts).
 */

/** The provider's token counts. */
export interface BilledTokens {
	/** Prompt tokens neither read from the cache nor written to it. */
	input: number;
	cacheRead: number;
	cacheWrite: number;
	output: number;
}

export interface Billed extends BilledTokens {
	/** These tokens in dollars: the provider's bill, or a price model's (each use says which). */
	usd: number;
}
