/**
 * What an eval's requests were billed (docs/eval.md): the provider's usage, read once through the
 * core's `parseUsage`, summed with how many requests it covers — what an arm, the judge or the whole
 * eval cost. What an eval may still spend: spend-cap.ts.
 */

import type { Usage } from "@mariozechner/pi-ai";
import { sumFields, zeroFields } from "../../../events/index.ts";
import { parseUsage, type TokenUsage } from "../../../reducers/index.ts";

/** Billed usage summed over requests, with how many. */
export interface BilledRequests extends TokenUsage {
	requests: number;
}

/** Its keys, in the order the eval's records and report write them. */
const BILLED_REQUESTS_FIELDS = ["requests", "input", "output", "cacheRead", "cacheWrite", "usd"] as const;

export function emptyBilled(): BilledRequests {
	return zeroFields(BILLED_REQUESTS_FIELDS);
}

export function addBilled(a: BilledRequests, b: BilledRequests): BilledRequests {
	return sumFields(BILLED_REQUESTS_FIELDS, a, b);
}

/** A provider's usage (one request or a consultation's sum) as billed usage of `requests` requests. */
export function billedRequestsOf(usage: Usage | undefined, requests: number): BilledRequests {
	const billed = parseUsage(usage);
	return {
		requests,
		input: billed?.input ?? 0,
		output: billed?.output ?? 0,
		cacheRead: billed?.cacheRead ?? 0,
		cacheWrite: billed?.cacheWrite ?? 0,
		usd: billed?.usd ?? 0,
	};
}
