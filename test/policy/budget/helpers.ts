/** Shared builders for the budget tests. */

import { CUSTOM_TYPES, type LedgerEvent } from "../../../src/events/index.ts";
import { ledgerOf, type RequestFingerprint } from "../../../src/reducers/index.ts";
import {
	DEFAULT_LEDGER_CONFIG,
	type LedgerConfig,
	type LedgerRequest,
	type RenderOptions,
	renderRequest,
	requestFromContext,
} from "../../../src/render/index.ts";
import type { RequestUnit } from "../../../src/render/request-units.ts";
import { assistant, call, result, user } from "../../support/events.ts";

export const CATALOGUE = [
	{ name: "read", description: "Read a file." },
	{ name: "bash", description: "Run a command." },
	{ name: "advisor", description: "Ask the advisor." },
];
export const TOOLS = [
	{ name: "advisor_expand", description: "Expand ids.", parameters: { type: "object", properties: {} } as never },
];

/** The budget tests' ledger: two verbatim rounds (the default is one), the layout they were written for. */
export const BUDGET_LEDGER: LedgerConfig = Object.freeze({ ...DEFAULT_LEDGER_CONFIG, tailToolCalls: 2 });

export function options(config: LedgerConfig = BUDGET_LEDGER, extra: Partial<RenderOptions> = {}): RenderOptions {
	return { config, catalogue: CATALOGUE, tools: TOOLS, toolsMode: "repo", mode: "consult", ...extra };
}

export const render = (events: readonly LedgerEvent[], extra: Partial<RenderOptions> = {}) =>
	renderRequest(ledgerOf(events), options(BUDGET_LEDGER, extra));

/** Anthropic Claude Sonnet 4.5-like prices, USD per million tokens. */
export const SONNET = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
/** OpenAI GPT-5-like prices: cache writes are free. */
export const GPT = { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 };

export const USAGE = (input: number, output: number, cacheRead = 0, cacheWrite = 0, total = 0.01) => ({
	input,
	output,
	cacheRead,
	cacheWrite,
	totalTokens: input + output + cacheRead + cacheWrite,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
});

/** A custom (pi.appendEntry) event. */
export const entry = (id: string, customType: string, data: unknown, parentId: string | null = null): LedgerEvent => ({
	id,
	parentId,
	kind: "custom",
	customType,
	data,
});

export const usageRecord = (id: string, data: Record<string, unknown>) => entry(id, CUSTOM_TYPES.usage, data);
export const anchorRecord = (id: string, data: Record<string, unknown>) => entry(id, CUSTOM_TYPES.trimAnchor, data);

/** An advisor result with any details and an optional top-level usage. */
export function advisorResult(
	id: string,
	callId: string,
	text: string,
	details: unknown,
	topUsage?: unknown,
): LedgerEvent {
	const event = result(id, callId, "advisor", text, { details });
	if (event.kind !== "toolResult" || topUsage === undefined) return event;
	return { ...event, usage: topUsage };
}

/** `n` tool rounds of `size` chars each, ids r<k>/a<k>/c<k>, then an advisor call in flight. */
export function roundsSession(n: number, size: number, opts: { users?: number[]; prose?: number } = {}): LedgerEvent[] {
	const events: LedgerEvent[] = [user("u0", "please fix the build")];
	for (let k = 1; k <= n; k++) {
		if (opts.users?.includes(k)) events.push(user(`u${k}`, `user message ${k}: keep going`));
		const text = `step ${k}`.padEnd(opts.prose ?? 0, " and then some");
		events.push(assistant(`a${k}`, { text, calls: [call(`c${k}`, "read", { path: `src/f${k}.ts` })] }));
		events.push(result(`r${k}`, `c${k}`, "read", `${k}:`.padEnd(size, "x")));
	}
	events.push(assistant("q", { text: "Is this right?", calls: [call("adv", "advisor")] }));
	return events;
}

/**
 * A hand-made request: unit i has prefix hash `${tag}${i}` (tag "h" by default) and ends at
 * `chars[i]` characters. Only what the estimator reads is real.
 */
export function syntheticRequest(opts: {
	units: number;
	tokens: number;
	stableUnits: number;
	stableTokens: number;
	/** prefixChars of unit i; default 4000·(i+1). */
	chars?: (i: number) => number;
	tag?: (i: number) => string;
}): LedgerRequest {
	const units: RequestUnit[] = [];
	for (let i = 0; i < opts.units; i++) {
		units.push({ prefixHash: opts.tag?.(i) ?? `h${i}`, prefixChars: opts.chars?.(i) ?? 4000 * (i + 1), text: "" });
	}
	return requestFromContext(
		{ systemPrompt: "", messages: [], tools: [] },
		units,
		{
			messageIndex: 0,
			partCount: 0,
			unitCount: opts.stableUnits,
			hash: units[opts.stableUnits - 1]?.prefixHash ?? "",
			chars: 0,
			tokens: opts.stableTokens,
		},
		{ hash: units[units.length - 1]?.prefixHash ?? "", tokens: opts.tokens },
	);
}

export function fingerprint(over: Partial<RequestFingerprint> = {}): RequestFingerprint {
	return {
		model: "anthropic:claude-sonnet-4-5",
		effort: "high",
		routingKey: "advisor:s1",
		systemHash: "h0",
		toolsHash: "h1",
		stableHash: "h29",
		stableUnits: 30,
		stableTokens: 80_000,
		hash: "x34",
		unitCount: 35,
		estimatedTokens: 84_000,
		promptTokens: 77_700,
		timestampMs: 1_000_000,
		...over,
	};
}
