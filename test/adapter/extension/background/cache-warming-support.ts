/**
 * Shared pieces of the cache-warming tests (test/adapter/background/warming*.test.ts): a manual clock and
 * timer to inject into the extension, the mock advisor endpoint (pi-ai's real openai-completions
 * serialiser against test/support/mock-llm.ts) and readers for what the session holds.
 */

import type { WarmingTimers } from "../../../../src/adapter/extension/background/cache-warming.ts";
import { CUSTOM_TYPES } from "../../../../src/events/index.ts";
import type { AdvisorEndpoint, Host } from "../../../support/pi-host.ts";

/** Sonnet-like prices, USD per million tokens. */
export const PRICES = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

export const MOCK_PROVIDER = "mockai";
export const MOCK_MODEL = "mock-sonnet";
export const MOCK_KEY = `${MOCK_PROVIDER}/${MOCK_MODEL}`;

/** The advisor on pi-ai's openai-completions API, served by the mock at `baseUrl` (…/v1). */
export function mockEndpoint(baseUrl: string): AdvisorEndpoint {
	return {
		provider: MOCK_PROVIDER,
		api: "openai-completions",
		baseUrl,
		models: [
			{
				id: MOCK_MODEL,
				name: "Mock Sonnet",
				reasoning: false,
				input: ["text"],
				cost: PRICES,
				contextWindow: 400_000,
				maxTokens: 8192,
				compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
			},
		],
	};
}

/** advisor.json for the warming tests: warming on with a 300 s TTL, cheap thresholds, no investigation. */
export function warmingConfig(warming: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
	return {
		modelKey: MOCK_KEY,
		tools: { enabled: false },
		warming: { enabled: true, ttlSec: 300, minPromptTokens: 1000, minSavingsUsd: 0.01, ...warming },
		...extra,
	};
}

export interface ManualClock extends WarmingTimers {
	/** Moves the clock and fires every timer that came due, in order. */
	advance(ms: number): void;
	/** Timers waiting. */
	pending(): number;
	/** Delays of the timers set so far, in order. */
	delays: number[];
}

export function manualClock(startMs = 1_800_000_000_000): ManualClock {
	let now = startMs;
	let next = 0;
	const timers = new Map<number, { at: number; fn: () => void }>();
	const delays: number[] = [];
	return {
		now: () => now,
		setTimeout(fn, ms) {
			const id = ++next;
			delays.push(ms);
			timers.set(id, { at: now + ms, fn });
			return id;
		},
		clearTimeout(handle) {
			timers.delete(handle as number);
		},
		advance(ms) {
			now += ms;
			for (;;) {
				const due = [...timers.entries()].filter(([, t]) => t.at <= now).sort((a, b) => a[1].at - b[1].at)[0];
				if (due === undefined) break;
				timers.delete(due[0]);
				due[1].fn();
			}
		},
		pending: () => timers.size,
		delays,
	};
}

/** `advisor-usage` records of kind "warming" on the session. */
export function warmingRecords(host: Host): any[] {
	return host
		.entries()
		.filter((e: any) => e.type === "custom" && e.customType === CUSTOM_TYPES.usage && e.data?.kind === "warming")
		.map((e: any) => e.data);
}
