/**
 * Cache warming on Anthropic's real rules: pi-ai's anthropic-messages provider against the mock
 * Anthropic server (test/support/mock-anthropic.ts), which keeps alive only the entry a request
 * reads. The refresh must reach the entry the next consultation reads — the first request's stable
 * end, through the next one's bridge — and write nothing: a refresh of the whole first request
 * would read (and keep alive) only the entry ending on its appendix and instruction, which nobody
 * reads again, while the stable end lapses.
 */

import { type Api, completeSimple, getModel, type Model } from "@mariozechner/pi-ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCacheWarming, type WarmingTrace } from "../../../../src/adapter/extension/background/cache-warming.ts";
import { parseConfig } from "../../../../src/adapter/extension/config/load.ts";
import type { AdvisorRun } from "../../../../src/adapter/extension/consult/advisor-tool.ts";
import { markTargets } from "../../../../src/adapter/extension/consult/payload-cache-marks.ts";
import { runConsultation } from "../../../../src/adapter/extension/consult/request-loop.ts";
import type { CompleteSimple } from "../../../../src/adapter/extension/pi/compat.ts";
import type { LedgerEvent } from "../../../../src/events/index.ts";
import { emptySpend, ledgerOf } from "../../../../src/reducers/index.ts";
import {
	APPENDIX_HEADER,
	DEFAULT_LEDGER_CONFIG,
	type LedgerRequest,
	renderRequest,
} from "../../../../src/render/index.ts";
import { advice, assistant, call, resetParents, result, user } from "../../../support/events.ts";
import {
	FIVE_MINUTES_MS,
	MAX_BREAKPOINTS,
	type MockAnthropic,
	type MockAnthropicRequest,
	manualClock,
	replyText,
	startMockAnthropic,
} from "../../../support/mock-anthropic.ts";

const T0 = 1_800_000_000_000;
const KEY = "sk-ant-api03-test";
const ADVICE = "Severity: none\nGo on.";

/** 30 rounds, consultation 1 (answered), 30 more rounds, consultation 2 in flight. */
function consultations(): { first: LedgerRequest; second: LedgerRequest } {
	resetParents();
	const events: LedgerEvent[] = [user("u1", "Tidy the parser module.")];
	const rounds = (from: number) => {
		for (let n = from; n < from + 30; n++) {
			const text = `Step ${n}: reading the next part of the parser to see how the tokens are split before the change.`;
			events.push(assistant(`e${n}`, { text, calls: [call(`c${n}`, "read", { path: `src/p${n}.ts` })] }));
			events.push(result(`r${n}`, `c${n}`, "read", "x".repeat(300)));
		}
	};
	rounds(0);
	events.push(assistant("q1", { text: "Is the split right?", calls: [call("adv1", "advisor")] }));
	const firstAt = events.length;
	events.push(advice("v1", "adv1", ADVICE));
	rounds(30);
	events.push(assistant("q2", { text: "And now?", calls: [call("adv2", "advisor")] }));
	const render = (upTo: number, callId: string) =>
		renderRequest(ledgerOf(events.slice(0, upTo)), {
			config: DEFAULT_LEDGER_CONFIG,
			catalogue: [{ name: "read", description: "Read a file." }],
			tools: [],
			toolsMode: "none",
			mode: "consult",
			inFlightCallId: callId,
		});
	return { first: render(firstAt, "adv1"), second: render(events.length, "adv2") };
}

/** Mock tokens of the prompt up to the block before the appendix (the stable end). */
function stableEnd(request: MockAnthropicRequest): { tokens: number; hash: string } {
	const m = request.body!.messages.length - 1;
	const content = request.body!.messages[m]!.content as { text?: string }[];
	const appendix = content.findIndex((b) => b.text?.startsWith(APPENDIX_HEADER));
	const block = request.blocks.find((b) => b.path === `messages.${m}.content.${appendix - 1}`)!;
	return { tokens: block.end, hash: block.prefixHash };
}

describe("a warming refresh on the mock Anthropic server", () => {
	const clock = manualClock(T0);
	const { first, second } = consultations();
	let mock: MockAnthropic;
	let model: Model<Api>;
	const traces: WarmingTrace[] = [];
	const records: any[] = [];
	let fire: (() => void) | undefined;

	const consult = (request: LedgerRequest, previous: LedgerRequest | undefined) =>
		runConsultation({
			complete: completeSimple as CompleteSimple,
			model,
			auth: { apiKey: KEY },
			effort: undefined,
			sessionId: "advisor:s1",
			request,
			signal: undefined,
			now: clock.now,
			marks: markTargets(
				request,
				previous && { stableUnits: previous.stable.unitCount, stableHash: previous.stable.hash },
			),
		});

	beforeAll(async () => {
		mock = await startMockAnthropic((_, n) => replyText(n === 1 ? "ok" : ADVICE), { now: clock.now, apiKey: KEY });
		model = { ...getModel("anthropic", "claude-sonnet-4-5"), baseUrl: mock.baseUrl } as Model<Api>;
		const envelope = await consult(first, undefined);
		expect(envelope.details.errorMessage).toBeUndefined();
		const run: AdvisorRun = {
			envelope,
			dispatch: {
				config: parseConfig({
					warming: { minPromptTokens: 1, minSavingsUsd: 0, continueProbability: 1 },
				}).config,
				model,
				effort: undefined,
				auth: { apiKey: KEY },
				routingKey: "advisor:s1",
				request: first,
				marks: markTargets(first, undefined),
				spend: emptySpend(),
				complete: completeSimple as CompleteSimple,
			},
		};
		const warming = createCacheWarming({
			pi: { appendEntry: (customType, data) => records.push({ customType, data }) },
			env: () => undefined,
			timers: {
				now: clock.now,
				setTimeout: (fn) => {
					fire = fn;
					return 1;
				},
				clearTimeout: () => undefined,
			},
			onTrace: (t) => traces.push(t),
		});
		warming.consulted(run, "adv1");
		clock.advance(270_000);
		fire!();
		await warming.idle();
		// Past the first request's own five minutes, within the refreshed ones.
		clock.advance(270_000);
		await consult(second, first);
	}, 60_000);

	afterAll(async () => {
		await mock?.close();
	});

	it("the refresh was armed at 90% of the TTL, hit, and was recorded as the stable portion it sent", () => {
		expect(traces.find((t) => t.type === "armed")).toMatchObject({ atMs: T0 + 270_000 });
		expect(traces.find((t) => t.type === "refresh-settled")).toMatchObject({ outcome: "hit", recorded: true });
		expect(mock.requests.map((r) => r.status)).toEqual([200, 200, 200]);
		expect(records).toHaveLength(1);
		expect(records[0].data.request).toMatchObject({
			unitCount: first.stable.unitCount,
			stableUnits: first.stable.unitCount,
			hash: first.stable.hash,
			estimatedTokens: first.stable.tokens,
		});
	});

	it("the refresh reads exactly the first request's stable end and writes nothing", () => {
		const [original, refresh] = mock.requests;
		const end = stableEnd(original!);
		expect(refresh!.breakpoints.length).toBeLessThanOrEqual(MAX_BREAKPOINTS);
		expect(refresh!.blocks.at(-1)!.prefixHash).toBe(end.hash);
		expect(refresh!.usage).toMatchObject({
			cache_read_input_tokens: end.tokens,
			cache_creation_input_tokens: 0,
			input_tokens: 0,
		});
	});

	it("the next consultation, nine minutes after the first, reads that entry through its bridge", () => {
		const [original, , next] = mock.requests;
		const end = stableEnd(original!);
		expect(next!.at - original!.at).toBe(540_000);
		expect(next!.at - original!.at).toBeGreaterThan(FIVE_MINUTES_MS);
		expect(next!.usage!.cache_read_input_tokens).toBe(end.tokens);
		expect(next!.blocks[next!.cache!.read!.block]!.prefixHash).toBe(end.hash);
	});
});
