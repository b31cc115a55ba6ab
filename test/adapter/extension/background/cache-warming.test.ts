/**
 * The cache-warming controller (src/adapter/extension/background/cache-warming.ts) at unit level: driven by vitest's fake
 * timers through its default (global) timer functions, with a scripted provider that calls
 * onPayload the way pi-ai does (a throw ends the request before anything is sent); then against
 * pi-ai's REAL serialisers for openai-responses, openai-completions and anthropic-messages on a
 * 127.0.0.1 mock: the refresh's payload hashes equal to the consultation's first request.
 */

import {
	type Api,
	type AssistantMessage,
	type Context,
	completeSimple,
	getModel,
	type Model,
	type SimpleStreamOptions,
	type Usage,
} from "@mariozechner/pi-ai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
	createCacheWarming,
	REFRESH_REFUSED,
	type WarmingTrace,
} from "../../../../src/adapter/extension/background/cache-warming.ts";
import { parseConfig } from "../../../../src/adapter/extension/config/load.ts";
import type { AdvisorDispatch, AdvisorRun } from "../../../../src/adapter/extension/consult/advisor-tool.ts";
import { failureEnvelope } from "../../../../src/adapter/extension/consult/envelope.ts";
import { warmingForm } from "../../../../src/adapter/extension/consult/payload-cache-marks.ts";
import { runConsultation } from "../../../../src/adapter/extension/consult/request-loop.ts";
import type { CompleteSimple } from "../../../../src/adapter/extension/pi/compat.ts";
import { CUSTOM_TYPES } from "../../../../src/events/index.ts";
import {
	canonicalPayload,
	payloadHash,
	payloadOutputCap,
	refreshRequest,
	WARMING_CANCEL_REASONS,
} from "../../../../src/policy/index.ts";
import { emptySpend, ledgerOf } from "../../../../src/reducers/index.ts";
import {
	buildContext,
	DEFAULT_LEDGER_CONFIG,
	type LedgerRequest,
	renderRequest,
} from "../../../../src/render/index.ts";
import { assistant, call, resetParents, result, user } from "../../../support/events.ts";
import { type MockApi, startMockLlm } from "../../../support/mock-llm.ts";
import { PRICES } from "./cache-warming-support.ts";

const PROMPT = 150_000;
const T0 = 1_800_000_000_000;

function ledgerRequest(): LedgerRequest {
	resetParents();
	return renderRequest(
		ledgerOf([
			user("u1", "Make the parser accept trailing commas."),
			assistant("a1", { text: "Reading.", calls: [call("c1", "read", { path: "src/parse.ts" })] }),
			result("r1", "c1", "read", "export const parse = (s: string) => JSON.parse(s);\n".repeat(20)),
			assistant("a2", { text: "Own tokenizer?", calls: [call("adv", "advisor")] }),
		]),
		{
			config: DEFAULT_LEDGER_CONFIG,
			catalogue: [{ name: "read", description: "Read." }],
			tools: [],
			toolsMode: "none",
			mode: "consult",
		},
	);
}

const MODEL = {
	id: "m1",
	name: "M1",
	api: "openai-completions",
	provider: "mock",
	baseUrl: "http://127.0.0.1:1/v1",
	reasoning: false,
	input: ["text"],
	cost: PRICES,
	contextWindow: 400_000,
	maxTokens: 8192,
} as Model<Api>;

function usage(prompt: number, cached: number, output = 16): Usage {
	const input = prompt - cached;
	const cost = {
		input: (input * PRICES.input) / 1e6,
		output: (output * PRICES.output) / 1e6,
		cacheRead: (cached * PRICES.cacheRead) / 1e6,
		cacheWrite: 0,
		total: 0,
	};
	cost.total = cost.input + cost.output + cost.cacheRead;
	return { input, output, cacheRead: cached, cacheWrite: 0, totalTokens: prompt + output, cost };
}

function reply(text: string, u: Usage, extra: Partial<AssistantMessage> = {}): AssistantMessage {
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		api: MODEL.api,
		provider: MODEL.provider,
		model: MODEL.id,
		usage: u,
		stopReason: "stop",
		timestamp: 0,
		...extra,
	};
}

interface Sent {
	context: Context;
	options: SimpleStreamOptions | undefined;
	payload: Record<string, unknown>;
}

/**
 * A provider like pi-ai's: it builds a payload (output cap from maxTokens), hands it to onPayload
 * (a throw ends the request as an error, before anything is sent), then answers with `answer(n)`.
 * `vary(n)` can change the payload of the n-th request.
 */
function provider(
	answer: (n: number, signal: AbortSignal | undefined) => Promise<AssistantMessage>,
	vary?: (n: number) => Record<string, unknown>,
) {
	const sent: Sent[] = [];
	let n = 0;
	const complete = (async (_model: Model<Api>, context: Context, options?: SimpleStreamOptions) => {
		const index = n++;
		let payload: Record<string, unknown> = {
			model: MODEL.id,
			messages: context.messages,
			stream: true,
			max_tokens: options?.maxTokens ?? MODEL.maxTokens,
			...vary?.(index),
		};
		try {
			const replaced = await options?.onPayload?.(payload, MODEL);
			if (replaced !== undefined) payload = replaced as Record<string, unknown>;
		} catch (err) {
			return reply("", usage(0, 0, 0), { stopReason: "error", errorMessage: (err as Error).message });
		}
		sent.push({ context, options, payload });
		return answer(index, options?.signal);
	}) as unknown as CompleteSimple;
	return { complete, sent };
}

const hit = async () => reply("ok", usage(PROMPT, PROMPT - 100));
const miss = async () => reply("ok", usage(PROMPT, 0));
const first = async () => reply("Severity: none\nGo.", usage(PROMPT, 0, 40));

function config(warming: Record<string, unknown> = {}) {
	return parseConfig({ warming: { ttlSec: 300, minPromptTokens: 1000, minSavingsUsd: 0.01, ...warming } }).config;
}

/** A consultation through the real runConsultation, and what the warming keeps of it. */
async function consulted(
	complete: CompleteSimple,
	over: { config?: ReturnType<typeof config>; model?: Model<Api> } = {},
): Promise<AdvisorRun> {
	const request = ledgerRequest();
	const model = over.model ?? MODEL;
	const envelope = await runConsultation({
		complete,
		model,
		auth: { apiKey: "sk-test", headers: { "x-h": "1" } },
		effort: undefined,
		sessionId: "advisor:s1",
		request,
		signal: undefined,
		now: Date.now,
	});
	const dispatch: AdvisorDispatch = {
		config: over.config ?? config(),
		model,
		effort: undefined,
		auth: { apiKey: "sk-test", headers: { "x-h": "1" } },
		routingKey: "advisor:s1",
		request,
		marks: [request.stable],
		spend: emptySpend(),
		complete,
	};
	return { envelope, dispatch };
}

function harness(pi: { appendEntry?: (type: string, data: unknown) => void } = {}) {
	const traces: WarmingTrace[] = [];
	const records: unknown[] = [];
	const api =
		"appendEntry" in pi ? pi : { appendEntry: (type: string, data: unknown) => records.push({ type, data }) };
	const warming = createCacheWarming({ pi: api, env: () => undefined, onTrace: (t) => traces.push(t) });
	return { warming, traces, records: records as { type: string; data: any }[] };
}

const of = <T extends WarmingTrace["type"]>(traces: WarmingTrace[], type: T) =>
	traces.filter((t): t is Extract<WarmingTrace, { type: T }> => t.type === type);

describe("with fake timers (the controller's default timers are the globals)", () => {
	beforeEach(() => {
		vi.useFakeTimers({ now: T0 });
	});
	afterEach(() => {
		vi.useRealTimers();
	});

	it("arms one unref'd timer at 90% of the TTL; the refresh replays the first request: 16 tokens, no retry, same options", async () => {
		const { complete, sent } = provider((n) => (n === 0 ? first() : hit()));
		const run = await consulted(complete);
		const { warming, traces, records } = harness();
		warming.consulted(run, "call-1");
		expect(vi.getTimerCount()).toBe(1);
		expect(of(traces, "armed")[0]).toMatchObject({ atMs: T0 + 270_000 });
		await vi.advanceTimersByTimeAsync(269_999);
		expect(sent).toHaveLength(1);
		await vi.advanceTimersByTimeAsync(1);
		await warming.idle();
		expect(sent).toHaveLength(2);
		const [original, refresh] = sent;
		// The very context object the consultation sent first, and the same routing and credentials.
		expect(refresh!.context).toBe(buildContext(run.dispatch!.request));
		expect(refresh!.context).toBe(original!.context);
		expect(refresh!.options).toMatchObject({
			maxTokens: 16,
			maxRetries: 0,
			sessionId: "advisor:s1",
			apiKey: "sk-test",
			headers: { "x-h": "1" },
		});
		expect(refresh!.options).not.toHaveProperty("reasoning");
		expect(payloadHash(refresh!.payload, MODEL.api)).toBe(run.envelope.details.request!.payloadHash);
		// Recorded: the refresh's usage, and the first request as its newest touch.
		expect(records).toHaveLength(1);
		expect(records[0]!.type).toBe(CUSTOM_TYPES.usage);
		expect(records[0]!.data).toMatchObject({
			kind: "warming",
			model: "mock:m1",
			usage: { cacheRead: PROMPT - 100 },
			request: {
				hash: run.dispatch!.request.hash,
				timestamp: T0 + 270_000,
				payloadHash: run.envelope.details.request!.payloadHash,
			},
		});
		// A hit re-arms from the refresh's own send time.
		expect(of(traces, "rearmed")[0]).toMatchObject({ atMs: T0 + 540_000 });
		expect(vi.getTimerCount()).toBe(1);
		await vi.advanceTimersByTimeAsync(270_000);
		await warming.idle();
		expect(sent).toHaveLength(3);
		await warming.cancel("agent_end");
		expect(vi.getTimerCount()).toBe(0);
	});

	it("the chain stops at maxDurationSec", async () => {
		const { complete, sent } = provider((n) => (n === 0 ? first() : hit()));
		const { warming, traces } = harness();
		warming.consulted(await consulted(complete, { config: config({ maxDurationSec: 600 }) }), "c");
		for (let i = 0; i < 5; i++) {
			await vi.advanceTimersByTimeAsync(270_000);
			await warming.idle();
		}
		// +270 s and +540 s fit in 600 s; the next would fall at +810 s.
		expect(sent).toHaveLength(3);
		expect(of(traces, "ended").at(-1)).toEqual({ type: "ended", end: { by: "decision", reason: "expired" } });
		expect(vi.getTimerCount()).toBe(0);
	});

	it.each([
		["a miss", miss, "miss"],
		["an error", async () => reply("", usage(0, 0, 0), { stopReason: "error", errorMessage: "503" }), "error"],
	] as const)("%s ends the chain; the refresh's usage is recorded anyway", async (_name, answer, outcome) => {
		const { complete, sent } = provider((n) => (n === 0 ? first() : answer()));
		const { warming, traces, records } = harness();
		warming.consulted(await consulted(complete), "c");
		await vi.advanceTimersByTimeAsync(270_000);
		await warming.idle();
		await vi.advanceTimersByTimeAsync(3_600_000);
		expect(sent).toHaveLength(2);
		expect(records).toHaveLength(1);
		expect(of(traces, "ended")).toEqual([{ type: "ended", end: { by: "outcome", outcome } }]);
	});

	it("a changed payload is not sent (onPayload throws before any I/O); nothing recorded", async () => {
		const { complete, sent } = provider(
			(n) => (n === 0 ? first() : hit()),
			(n) => (n === 0 ? {} : { temperature: 0.5 }),
		);
		const { warming, traces, records } = harness();
		warming.consulted(await consulted(complete), "c");
		await vi.advanceTimersByTimeAsync(270_000);
		await warming.idle();
		expect(sent).toHaveLength(1);
		expect(records).toHaveLength(0);
		expect(of(traces, "refresh-refused")).toEqual([
			{ type: "refresh-refused", refreshId: 1, reason: "payload-changed" },
		]);
		expect(of(traces, "ended")).toEqual([{ type: "ended", end: { by: "outcome", outcome: "error" } }]);
		expect(REFRESH_REFUSED).toMatch(/refused/);
	});

	it("a payload whose cap came out above 16 (budget thinking) is not sent either", async () => {
		const { complete, sent } = provider(
			(n) => (n === 0 ? first() : hit()),
			(n) => (n === 0 ? {} : { max_tokens: 16 + 1024 }),
		);
		const { warming, traces } = harness();
		warming.consulted(await consulted(complete), "c");
		await vi.advanceTimersByTimeAsync(270_000);
		await warming.idle();
		expect(sent).toHaveLength(1);
		expect(of(traces, "refresh-refused")[0]).toMatchObject({ reason: "output-cap" });
	});

	describe.each(WARMING_CANCEL_REASONS)("cancel(%s)", (reason) => {
		it("while armed: the timer is cleared, nothing is sent", async () => {
			const { complete, sent } = provider((n) => (n === 0 ? first() : hit()));
			const { warming, traces } = harness();
			warming.consulted(await consulted(complete), "c");
			await vi.advanceTimersByTimeAsync(100_000);
			await warming.cancel(reason);
			expect(vi.getTimerCount()).toBe(0);
			await vi.advanceTimersByTimeAsync(3_600_000);
			expect(sent).toHaveLength(1);
			expect(of(traces, "ended")).toEqual([{ type: "ended", end: { by: "cancel", reason } }]);
		});

		it("while a refresh is in flight: aborted, and its usage recorded before cancel() resolves", async () => {
			let aborted = false;
			const { complete, sent } = provider((n, signal) =>
				n === 0
					? first()
					: new Promise((resolve) =>
							signal?.addEventListener("abort", () => {
								aborted = true;
								resolve(
									reply("", usage(PROMPT, 0, 0), {
										stopReason: "aborted",
										errorMessage: "Request was aborted",
									}),
								);
							}),
						),
			);
			const { warming, traces, records } = harness();
			warming.consulted(await consulted(complete), "c");
			await vi.advanceTimersByTimeAsync(270_000);
			expect(sent).toHaveLength(2);
			const cancelled = warming.cancel(reason).then(() => records.length);
			expect(await cancelled).toBe(1);
			expect(aborted).toBe(true);
			expect(records[0]!.data).toMatchObject({ kind: "warming", usage: { input: PROMPT } });
			expect(of(traces, "refresh-settled")[0]).toMatchObject({ outcome: "aborted", recorded: true });
			expect(vi.getTimerCount()).toBe(0);
		});
	});
});

describe("what arms nothing (besides the decision's own reasons, covered end to end)", () => {
	it.each([
		["a failed consultation", "no-advice"],
		["a provider that never shows its payload (faux)", "no-payload-hash"],
		["a host without pi.appendEntry", "host-cannot-record-usage"],
		["a model without a cache-read price", "no-cache-pricing"],
		["continueProbability 0: no savings at all", "no-savings"],
	] as const)("%s → %s", async (name, reason) => {
		const { complete } = provider((n) => (n === 0 ? first() : hit()));
		let run = await consulted(complete);
		let h = harness();
		switch (name) {
			case "a failed consultation":
				run = { ...run, envelope: failureEnvelope({ kind: "failed", message: "503" }, run.envelope.details) };
				break;
			case "a provider that never shows its payload (faux)": {
				const { payloadHash: _, ...request } = run.envelope.details.request!;
				run = { ...run, envelope: { ...run.envelope, details: { ...run.envelope.details, request } } };
				break;
			}
			case "a host without pi.appendEntry":
				h = harness({ appendEntry: undefined });
				break;
			case "a model without a cache-read price":
				run = await consulted(complete, { model: { ...MODEL, cost: { ...PRICES, cacheRead: 0 } } as Model<Api> });
				break;
			case "continueProbability 0: no savings at all":
				run = await consulted(complete, { config: config({ continueProbability: 0 }) });
				break;
		}
		h.warming.consulted(run, "c");
		expect(of(h.traces, "not-armed")[0]).toMatchObject({ reason });
		expect(h.warming.state().phase).toBe("idle");
	});
});

describe("the payload guard on pi-ai's real serialisers (127.0.0.1 mock)", () => {
	const mockModel = (api: MockApi, baseUrl: string): Model<Api> => {
		switch (api) {
			case "anthropic-messages":
				return { ...getModel("anthropic", "claude-sonnet-4-5"), baseUrl } as Model<Api>;
			case "openai-responses":
				return { ...getModel("openai", "gpt-5"), baseUrl: `${baseUrl}/v1` } as Model<Api>;
			case "openai-completions":
				return {
					...getModel("openai", "gpt-4.1"),
					api: "openai-completions",
					baseUrl: `${baseUrl}/v1`,
				} as Model<Api>;
		}
	};

	it.each<MockApi>(["openai-responses", "openai-completions", "anthropic-messages"])(
		"%s: the refresh goes out with the cap at 16 and every other byte of the first request",
		async (api) => {
			const mock = await startMockLlm((_api, _body, n) =>
				n === 0
					? { text: "Severity: none\nGo.", promptTokens: PROMPT }
					: { text: "ok", promptTokens: PROMPT, cachedTokens: PROMPT - 50 },
			);
			try {
				const model = mockModel(api, mock.baseUrl);
				const run = await consulted(completeSimple as CompleteSimple, {
					model,
					config: config({ continueProbability: 1 }),
				});
				expect(run.envelope.details.errorMessage).toBeUndefined();
				const traces: WarmingTrace[] = [];
				const records: { type: string; data: any }[] = [];
				let fire: (() => void) | undefined;
				let later = 0;
				// Real time (the consultation's clock); the one timer is fired by hand.
				const timed = createCacheWarming({
					pi: { appendEntry: (type, data) => records.push({ type, data }) },
					env: () => undefined,
					timers: {
						now: () => Date.now() + later,
						setTimeout: (fn) => {
							fire = fn;
							return 1;
						},
						clearTimeout: () => undefined,
					},
					onTrace: (t) => traces.push(t),
				});
				timed.consulted(run, "c");
				expect(of(traces, "armed")).toHaveLength(1);
				later = 270_000;
				fire!();
				await timed.idle();
				expect(mock.requests.map((r) => r.api)).toEqual([api, api]);
				const [original, refresh] = mock.requests.map((r) => r.body);
				expect(payloadOutputCap(refresh, api)).toBe(16);
				expect(payloadOutputCap(original, api)).toBeGreaterThan(16);
				// With Anthropic marks the refresh is the first request cut after its stable portion.
				const { request } = run.dispatch!;
				const cut = refreshRequest(request, model);
				const form = (p: unknown, r: LedgerRequest) => warmingForm(p, model, buildContext(r), r.stable);
				expect(canonicalPayload(form(refresh, cut), api)).toBe(canonicalPayload(form(original, request), api));
				expect(payloadHash(form(original, request), api)).toBe(run.envelope.details.request!.payloadHash);
				if (api === "anthropic-messages") {
					expect(refresh.messages).toHaveLength(request.stable.messageIndex + 1);
					expect(refresh.messages.at(-1).content).toHaveLength(request.stable.partCount);
				} else expect(canonicalPayload(refresh, api)).toBe(canonicalPayload(original, api));
				expect(of(traces, "refresh-settled")[0]).toMatchObject({ outcome: "hit", recorded: true });
				expect(records[0]!.data.usage.cacheRead).toBe(PROMPT - 50);
			} finally {
				await mock.close();
			}
		},
	);

	it("anthropic-messages with budget-based thinking: pi-ai lifts the cap by the thinking budget, so it is not sent", async () => {
		const mock = await startMockLlm(() => ({ text: "Severity: none\nGo.", promptTokens: PROMPT }));
		try {
			const model = mockModel("anthropic-messages", mock.baseUrl);
			const request = ledgerRequest();
			const envelope = await runConsultation({
				complete: completeSimple as CompleteSimple,
				model,
				auth: { apiKey: "sk-test" },
				effort: "high",
				sessionId: "advisor:s1",
				request,
				signal: undefined,
			});
			const traces: WarmingTrace[] = [];
			let fire: (() => void) | undefined;
			let later = 0;
			const warming = createCacheWarming({
				pi: { appendEntry: () => undefined },
				env: () => undefined,
				timers: {
					now: () => Date.now() + later,
					setTimeout: (fn) => {
						fire = fn;
						return 1;
					},
					clearTimeout: () => undefined,
				},
				onTrace: (t) => traces.push(t),
			});
			warming.consulted(
				{
					envelope,
					dispatch: {
						config: config({ continueProbability: 1 }),
						model,
						effort: "high",
						auth: { apiKey: "sk-test" },
						routingKey: "advisor:s1",
						request,
						marks: [request.stable],
						spend: emptySpend(),
						complete: completeSimple as CompleteSimple,
					},
				},
				"c",
			);
			later = 270_000;
			fire!();
			await warming.idle();
			expect(mock.requests).toHaveLength(1);
			expect(of(traces, "refresh-refused")[0]).toMatchObject({ reason: "output-cap" });
		} finally {
			await mock.close();
		}
	});
});
