/**
 * Tokens as a provider bills them, and their dollars: the one shape of usage inside the extension
 * and the lab (docs/architecture.md, "Where each rule is decided"). What a consultation was billed (the
 * spend fold's records, the replay's and the eval's bills) is a TokenUsage or extends it.
 *
 * pi-ai's own `Usage` (input, output, cacheRead, cacheWrite, totalTokens, cost{…}) is what the
 * providers report: it is read here, once, by `parseUsage`, and nowhere else.
 */

import { isRecord } from "../events/index.ts";

export interface TokenUsage {
	/** Prompt tokens neither read from the cache nor written to it. */
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	/** These tokens in dollars: the provider's bill (pi-ai's usage.cost.total), or a price model's (each use says which). */
	usd: number;
}

/** The token counts of a usage, without its dollars. */
export type TokenCounts = Omit<TokenUsage, "usd">;

/** What a provider billed for one request or a record's requests: the usage, and the answer's part of its dollars. */
export interface BilledUsage extends TokenUsage {
	/** usage.cost.output: what of `usd` the answer cost (the rest is the prompt's). */
	outputUsd: number;
}

export const NO_USAGE: Readonly<BilledUsage> = Object.freeze({
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	usd: 0,
	outputUsd: 0,
});

function count(value: unknown): number {
	return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

function finite(value: unknown): number | undefined {
	return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/**
 * A pi-ai Usage → what it billed; undefined when it is not a usage object at all. Recorded data is
 * untrusted: a malformed field reads as 0. The dollars are usage.cost.total (pi-ai prices it from the
 * model's registry entry at the time of the call), else the sum of its parts.
 */
export function parseUsage(value: unknown): BilledUsage | undefined {
	if (!isRecord(value)) return undefined;
	const fields = ["input", "output", "cacheRead", "cacheWrite"] as const;
	if (!fields.some((f) => typeof value[f] === "number") && !isRecord(value.cost)) return undefined;
	let usd = 0;
	let outputUsd = 0;
	if (isRecord(value.cost)) {
		outputUsd = count(value.cost.output);
		const total = finite(value.cost.total);
		usd =
			total !== undefined
				? Math.max(0, total)
				: count(value.cost.input) +
					count(value.cost.output) +
					count(value.cost.cacheRead) +
					count(value.cost.cacheWrite);
	}
	return {
		input: count(value.input),
		output: count(value.output),
		cacheRead: count(value.cacheRead),
		cacheWrite: count(value.cacheWrite),
		usd,
		outputUsd,
	};
}

/** Prompt tokens of a usage: what the provider read, from cache or not. */
export function promptTokensOf(usage: Pick<TokenCounts, "input" | "cacheRead" | "cacheWrite">): number {
	return usage.input + usage.cacheRead + usage.cacheWrite;
}

/** The share of a usage's prompt tokens read from the cache, or null without prompt tokens. */
export function cacheReadShare(usage: Pick<TokenCounts, "input" | "cacheRead" | "cacheWrite">): number | null {
	const prompt = promptTokensOf(usage);
	return prompt > 0 ? usage.cacheRead / prompt : null;
}
