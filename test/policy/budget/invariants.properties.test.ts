/**
 * The budget properties, over realistic generated sessions (test/support/session-gen.ts):
 * trimming never loses a user message; with a fixed anchor the prefix invariant holds across
 * growing branches; the estimate never decreases when only the tail grows (the budget folds are
 * incremental like the ledger's: test/reducers/branch.test.ts). Runs per property: 200, or FC_RUNS.
 */

import type { AssistantMessage, Message, ToolResultMessage } from "@mariozechner/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CUSTOM_TYPES, type LedgerEvent } from "../../../src/events/index.ts";
import {
	type CachingModel,
	estimateRequest,
	fingerprintOf,
	type ModelPricing,
} from "../../../src/policy/budget/request-estimate.ts";
import { chooseTrim, TAIL_CAPS, trimCandidates } from "../../../src/policy/budget/trim.ts";
import { activeTrim, ledgerOf, type RenderTrim, trimAnchorRecord } from "../../../src/reducers/index.ts";
import { trimAnchorOf } from "../../../src/reducers/trim-anchor.ts";
import { userBody } from "../../../src/render/blocks.ts";
import {
	buildContext,
	extendRequest,
	type LedgerConfig,
	type LedgerRequest,
	ordinalId,
	renderRequest,
	zeroUsage,
} from "../../../src/render/index.ts";
import { displayId } from "../../../src/render/ordinal.ts";
import {
	eventsOf,
	expectStablePrefix,
	fractionArb,
	leftOut,
	pickIndex,
	prefixCutArb,
} from "../../support/properties.ts";
import { RUNS, sessionArb } from "../../support/session-gen.ts";
import { options } from "./helpers.ts";

const configArb: fc.Arbitrary<LedgerConfig> = fc.record({
	tailToolCalls: fc.integer({ min: 0, max: 4 }),
	tailMaxChars: fc.constantFrom(200, 1000, 8000),
	tailResultMaxChars: fc.constantFrom(50, 2000, 8000),
	userMessageMaxChars: fc.constantFrom(100, 20000),
	customPreviewChars: fc.constantFrom(50, 500),
	proseMaxChars: fc.constantFrom(0, 40, 300, 8000),
	instructionsMaxChars: fc.constantFrom(0, 100, 4000),
	// 0 keeps every entry; a small target makes generated branches cut their log (render/log-cut.ts).
	logTargetTokens: fc.constantFrom(0, 150, 600, 10000),
});
const capsArb = fc.option(fc.constantFrom(...TAIL_CAPS, 50), { nil: undefined });
const fraction = fractionArb;

function messageText(req: LedgerRequest): string {
	return buildContext(req)
		.messages.flatMap((m) =>
			typeof m.content === "string" ? [m.content] : m.content.map((p) => (p.type === "text" ? p.text : "")),
		)
		.join("");
}

/**
 * Every user message of the branch exactly once, verbatim; and every abandoned-branch user message
 * a summary re-states as often as the untrimmed request has it (a compaction may have dropped the
 * summary itself, which is the ledger's business, not the trim's).
 */
function expectEveryUserMessageOnce(
	events: readonly LedgerEvent[],
	req: LedgerRequest,
	untrimmed: LedgerRequest,
	config: LedgerConfig,
) {
	const text = messageText(req);
	const full = messageText(untrimmed);
	const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;
	for (const [i, e] of events.entries()) {
		if (e.kind === "user") {
			// Shown by its path position; an abandoned branch's words (below) by entry id.
			const header = `[user #${ordinalId(i + 1)}]\n`;
			// As a line of its own: a forged copy inside executor text is escaped (`\[user #…`).
			expect(count(`\n${text}`, `\n${header}`)).toBe(1);
			expect(text).toContain(`${header}${userBody(e.parts, config)}\n`);
		}
		if (e.kind === "branchSummary") {
			for (const w of e.hiddenUserWords) {
				const said = `[user #${displayId(w.id)}]\n${userBody(w.parts, config)}\n`;
				expect(count(text, said)).toBe(count(full, said));
			}
		}
	}
}

const pick = pickIndex;

describe("trimming never loses a user message", () => {
	it("with any anchor and tail cap", () => {
		fc.assert(
			fc.property(sessionArb(), configArb, fraction, capsArb, (session, config, at, caps) => {
				const events = eventsOf(session.jsonl);
				const state = ledgerOf(events);
				const candidates = trimCandidates(state, { config });
				const trim: RenderTrim = {};
				if (candidates.length > 0) trim.anchorEntryId = candidates[pick(at, candidates.length)]!;
				if (caps !== undefined) trim.tailCaps = caps;
				const untrimmed = renderRequest(state, options(config));
				expectEveryUserMessageOnce(events, renderRequest(state, options(config, { trim })), untrimmed, config);
			}),
			{ numRuns: RUNS },
		);
	});

	it("with whatever chooseTrim picks for any budget", () => {
		fc.assert(
			fc.property(
				sessionArb(),
				configArb,
				fc.double({ min: 0.3, max: 1, noNaN: true }),
				(session, config, share) => {
					const events = eventsOf(session.jsonl);
					const state = ledgerOf(events);
					const full = renderRequest(state, options(config));
					const choice = chooseTrim(state, options(config), {
						budgetTokens: Math.max(1, Math.floor(full.tokens * 1.2 * share)),
					});
					expectEveryUserMessageOnce(events, choice.request, full, config);
					if (choice.kind === "fits")
						expect(choice.promptTokens).toBeLessThanOrEqual(Math.ceil(full.tokens * 1.2));
				},
			),
			{ numRuns: RUNS },
		);
	});
});

describe("with a fixed anchor, the prefix invariant holds across growing branches", () => {
	it("the anchor persisted at P and resumed by the fold at B: render(P)'s stable part is a byte prefix of render(B)", () => {
		fc.assert(
			fc.property(
				prefixCutArb(),
				configArb,
				fraction,
				capsArb,
				({ events, cut, prefix: p }, config, anchorAt, caps) => {
					const stateP = ledgerOf(p);
					const candidates = trimCandidates(stateP, { config });
					if (candidates.length === 0) return;
					const trim: RenderTrim = { anchorEntryId: candidates[pick(anchorAt, candidates.length)]! };
					if (caps !== undefined) trim.tailCaps = caps;
					const record: LedgerEvent = {
						id: "trim-anchor-record",
						parentId: null,
						kind: "custom",
						customType: CUSTOM_TYPES.trimAnchor,
						data: JSON.parse(JSON.stringify(trimAnchorRecord(stateP, trim))),
					};
					const b = [...p, record, ...events.slice(cut)];
					const stateB = ledgerOf(b);
					const resumed = activeTrim(trimAnchorOf(b), stateB);
					expect(resumed).toEqual(trim);
					const reqP = renderRequest(stateP, options(config, { trim }));
					const reqB = renderRequest(stateB, options(config, { trim: resumed }));
					// The log's own size may move the cut past the anchor as the branch grows: the one rewrite.
					if (leftOut(stateP, options(config, { trim })) !== leftOut(stateB, options(config, { trim: resumed })))
						return;
					expectStablePrefix(reqP, reqB);
				},
			),
			{ numRuns: RUNS },
		);
	});
});

// ---------------------------------------------------------------------------------------------

const cachingArb: fc.Arbitrary<CachingModel> = fc.constantFrom<CachingModel>(
	{ kind: "none" },
	{ kind: "token-prefix", minTokens: 1024, granularity: 128 },
	{ kind: "token-prefix", minTokens: 0, granularity: 1 },
	{ kind: "breakpoints", minTokens: 1024, lookbackBlocks: 20, stableBreakpoint: true },
	{ kind: "breakpoints", minTokens: 0, lookbackBlocks: 2, stableBreakpoint: false },
);
/** Realistic price lists: a cache read never costs more than an input token or a cache write. */
const pricingArb: fc.Arbitrary<ModelPricing> = fc
	.record({
		input: fc.double({ min: 0.05, max: 20, noNaN: true }),
		output: fc.double({ min: 0, max: 80, noNaN: true }),
		readShare: fc.double({ min: 0, max: 1, noNaN: true }),
		writeFactor: fc.constantFrom(0, 1, 1.25, 2),
	})
	.map(({ input, output, readShare, writeFactor }) => ({
		input,
		output,
		cacheRead: input * readShare,
		cacheWrite: input * writeFactor,
	}));

const growthArb = fc.array(
	fc.record({ calls: fc.integer({ min: 1, max: 3 }), size: fc.integer({ min: 0, max: 20_000 }), image: fc.boolean() }),
	{ minLength: 1, maxLength: 6 },
);

function round(k: number, calls: number, size: number, image: boolean): Message[] {
	const ids = Array.from({ length: calls }, (_, i) => `t${k}-${i}`);
	const reply: AssistantMessage = {
		role: "assistant",
		content: ids.map((id) => ({ type: "toolCall" as const, id, name: "read", arguments: { path: `${id}.ts` } })),
		api: "anthropic-messages",
		provider: "anthropic",
		model: "m",
		usage: zeroUsage(),
		stopReason: "toolUse",
		timestamp: 0,
	};
	const results: ToolResultMessage[] = ids.map((id) => ({
		role: "toolResult",
		toolCallId: id,
		toolName: "read",
		content: [
			{ type: "text", text: "r".repeat(size) },
			...(image ? [{ type: "image" as const, data: "", mimeType: "image/png" }] : []),
		],
		isError: false,
		timestamp: 0,
	}));
	return [reply, ...results];
}

describe("the estimate never decreases when only the tail grows", () => {
	it("re-estimating each request of a growing tool loop: prompt tokens, cost and cold cost never go down", () => {
		fc.assert(
			fc.property(
				sessionArb({ minSteps: 3 }),
				fc.record({
					prevAt: fc.option(fraction, { nil: undefined }),
					billedRatio: fc.double({ min: 0.5, max: 1.5, noNaN: true }),
					ageSec: fc.integer({ min: -10, max: 4000 }),
					sameEffort: fc.boolean(),
					caching: cachingArb,
					pricing: pricingArb,
					samples: fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 7 }),
				}),
				growthArb,
				(session, s, growth) => {
					const events = eventsOf(session.jsonl);
					const meta = { model: "p:m", effort: "high", routingKey: "advisor:s" };
					const first = renderRequest(ledgerOf(events), options());
					let previous: ReturnType<typeof fingerprintOf> | undefined;
					if (s.prevAt !== undefined) {
						const earlier = renderRequest(
							ledgerOf(events.slice(0, Math.floor(s.prevAt * events.length))),
							options(),
						);
						previous = fingerprintOf(earlier, {
							...meta,
							effort: s.sameEffort ? "high" : "low",
							timestampMs: 1_000_000,
							promptTokens: Math.max(1, Math.round(earlier.tokens * s.billedRatio)),
						});
					}
					const estimate = (request: LedgerRequest) =>
						estimateRequest({
							request,
							...meta,
							pricing: s.pricing,
							caching: s.caching,
							previous,
							outputSamples: s.samples,
							nowMs: 1_000_000 + s.ageSec * 1000,
							warmWindowSec: 1800,
						});
					let messages = [...buildContext(first).messages];
					let last = estimate(first);
					growth.forEach((g, k) => {
						messages = [...messages, ...round(k, g.calls, g.size, g.image)];
						const next = estimate(extendRequest(first, { messages }));
						expect(next.promptTokens).toBeGreaterThanOrEqual(last.promptTokens);
						expect(next.costUsd).toBeGreaterThanOrEqual(last.costUsd - 1e-12);
						expect(next.coldCostUsd).toBeGreaterThanOrEqual(last.coldCostUsd - 1e-12);
						expect(next.cacheReadTokens).toBeLessThanOrEqual(next.promptTokens);
						last = next;
					});
				},
			),
			{ numRuns: RUNS },
		);
	});
});
