/**
 * Cache warming on the real host: a faux executor, the advisor on pi-ai's REAL
 * openai-completions serialiser against a 127.0.0.1 mock (so onPayload runs and the payload hash is
 * real), a manual clock and timer injected into the extension. While the executor is still running
 * after a consultation, the clock is moved on inside its next step.
 */

import { type FauxResponseStep, fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import type { WarmingTrace } from "../../../../src/adapter/extension/background/cache-warming.ts";
import { eventsFromBranch } from "../../../../src/events/index.ts";
import { canonicalPayload, payloadHash, payloadOutputCap } from "../../../../src/policy/index.ts";
import { spendOf } from "../../../../src/reducers/index.ts";
import { gate, type MockLlm, type MockLlmReply, startMockLlm } from "../../../support/mock-llm.ts";
import { type Host, startHost, waitFor } from "../../../support/pi-host.ts";
import { testExtension } from "../../../support/review-host.ts";
import {
	type ManualClock,
	manualClock,
	mockEndpoint,
	PRICES,
	warmingConfig,
	warmingRecords,
} from "./cache-warming-support.ts";

const PROMPT = 150_000;
const TTL_MS = 300_000;

interface Run {
	host: Host;
	mock: MockLlm;
	clock: ManualClock;
	traces: WarmingTrace[];
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
	for (const c of cleanup.reverse()) await c();
	cleanup = [];
});

/** The consultation bills PROMPT tokens from nothing cached; refreshes (and later requests) hit by default. */
function defaultRoute(_api: string, _body: unknown, index: number): MockLlmReply {
	if (index === 0) return { text: "Severity: none\nGo ahead.", promptTokens: PROMPT, cachedTokens: 0 };
	return { text: "ok", promptTokens: PROMPT, cachedTokens: PROMPT - 100, outputTokens: 16 };
}

function askAdvisor(id: string): FauxResponseStep {
	return fauxAssistantMessage([fauxText("Is the plan right?"), fauxToolCall("advisor", {}, { id })], {
		stopReason: "toolUse",
	});
}

/**
 * One prompt: the executor consults the advisor, then (still running) its next step runs `during`,
 * then it answers. `steps` replaces the default script.
 */
async function consultThen(opts: {
	config?: Record<string, unknown>;
	route?: (api: string, body: any, index: number) => MockLlmReply;
	during?: (run: Run) => Promise<void>;
	steps?: (run: () => Run) => FauxResponseStep[];
	options?: Partial<Parameters<typeof startHost>[0]>;
	env?: () => string | undefined;
	/** Before the prompt (e.g. to subscribe to the session's events). */
	ready?: (run: Run) => void;
}): Promise<Run> {
	const mock = await startMockLlm(opts.route ?? defaultRoute);
	cleanup.push(() => mock.close());
	const clock = manualClock();
	const traces: WarmingTrace[] = [];
	let run: Run | undefined;
	const current = () => run!;
	const steps = opts.steps?.(current) ?? [
		askAdvisor("a1"),
		async () => {
			await opts.during?.(current());
			return fauxAssistantMessage("Done.");
		},
	];
	const host = await startHost({
		advisorConfig: opts.config ?? warmingConfig(),
		advisorEndpoint: mockEndpoint(`${mock.baseUrl}/v1`),
		executor: steps,
		...opts.options,
		extension: testExtension({
			now: clock.now,
			warming: { timers: clock, env: opts.env ?? (() => undefined), onTrace: (t) => traces.push(t) },
		}),
	});
	cleanup.push(() => host.dispose());
	run = { host, mock, clock, traces };
	opts.ready?.(run);
	await host.runtime.session.prompt("Plan the change.");
	return run;
}

const of = <T extends WarmingTrace["type"]>(traces: WarmingTrace[], type: T) =>
	traces.filter((t): t is Extract<WarmingTrace, { type: T }> => t.type === type);

/** prompt() can return before Pi's queue has run the extension's agent_end handler. */
const endedByAgentEnd = (run: Run) =>
	waitFor(
		() =>
			run.traces.some((t) => t.type === "ended" && t.end.by === "cancel" && t.end.reason === "agent_end") ||
			undefined,
		"agent_end to end the chain",
	);

const settled = (run: Run, count = 1) =>
	waitFor(() => of(run.traces, "refresh-settled").length >= count || undefined, `${count} refresh(es) to settle`);

describe("a refresh at 90% of the TTL while the executor runs", () => {
	it("replays the consultation's first request with a 16-token cap and an equal payload hash; usage recorded; re-armed on a hit", async () => {
		let consultationMs = 0;
		const run = await consultThen({
			during: async (r) => {
				const [result] = r.host.advisorResults();
				consultationMs = result!.details.request.timestamp;
				const [armed] = of(r.traces, "armed");
				expect(armed).toMatchObject({ consultationId: "a1", atMs: consultationMs + 0.9 * TTL_MS });
				expect(r.clock.delays).toEqual([0.9 * TTL_MS]);
				r.clock.advance(0.9 * TTL_MS - 1);
				expect(r.mock.requests).toHaveLength(1);
				r.clock.advance(1);
				await settled(r);
			},
		});
		const { host, mock, traces } = run;
		await endedByAgentEnd(run);
		// The consultation and its refresh, nothing else.
		expect(mock.requests).toHaveLength(2);
		const [original, refresh] = mock.requests.map((r) => r.body);
		expect(payloadOutputCap(original, "openai-completions")).toBe(8192);
		expect(payloadOutputCap(refresh, "openai-completions")).toBe(16);
		expect(canonicalPayload(refresh, "openai-completions")).toBe(canonicalPayload(original, "openai-completions"));
		const [result] = host.advisorResults();
		expect(result!.details.request.payloadHash).toBe(payloadHash(original, "openai-completions"));
		expect(payloadHash(refresh, "openai-completions")).toBe(result!.details.request.payloadHash);

		const [record] = warmingRecords(host);
		expect(record).toMatchObject({
			kind: "warming",
			model: `mockai:mock-sonnet`,
			usage: { cacheRead: PROMPT - 100, input: 100, output: 16 },
			request: { payloadHash: result!.details.request.payloadHash, timestamp: consultationMs + 0.9 * TTL_MS },
		});
		expect(record.usage.cost.total).toBeGreaterThan(0);
		// It counts in the branch spend next to the consultation.
		const sm = host.runtime.session.sessionManager;
		const spend = spendOf(eventsFromBranch(sm.getBranch(), sm.getEntries()).events);
		expect(spend.records.map((r) => r.source)).toEqual(["consultation", "warming"]);

		expect(of(traces, "refresh-settled")[0]).toMatchObject({ outcome: "hit", recorded: true });
		expect(of(traces, "rearmed")[0]).toMatchObject({ atMs: consultationMs + 2 * 0.9 * TTL_MS });
		// Then the run ended: agent_end ended the chain.
		expect(of(traces, "ended").at(-1)).toEqual({ type: "ended", end: { by: "cancel", reason: "agent_end" } });
		run.clock.advance(10 * TTL_MS);
		expect(mock.requests).toHaveLength(2);
	});

	it("a miss ends the chain", async () => {
		const run = await consultThen({
			route: (api, body, index) =>
				index === 0 ? defaultRoute(api, body, index) : { text: "ok", promptTokens: PROMPT, cachedTokens: 0 },
			during: async (r) => {
				r.clock.advance(0.9 * TTL_MS);
				await settled(r);
				r.clock.advance(10 * TTL_MS);
			},
		});
		expect(run.mock.requests).toHaveLength(2);
		expect(of(run.traces, "refresh-settled")[0]).toMatchObject({ outcome: "miss", recorded: true });
		expect(of(run.traces, "ended")[0]).toEqual({ type: "ended", end: { by: "outcome", outcome: "miss" } });
		expect(warmingRecords(run.host)).toHaveLength(1);
	});

	it("a provider error ends the chain, no retry; its (empty) usage is still recorded", async () => {
		const run = await consultThen({
			route: (api, body, index) => (index === 0 ? defaultRoute(api, body, index) : { text: "", status: 500 }),
			during: async (r) => {
				r.clock.advance(0.9 * TTL_MS);
				await settled(r);
				r.clock.advance(10 * TTL_MS);
			},
		});
		expect(run.mock.requests).toHaveLength(2);
		expect(of(run.traces, "refresh-settled")[0]).toMatchObject({ outcome: "error", recorded: true });
		expect(of(run.traces, "ended")[0]).toEqual({ type: "ended", end: { by: "outcome", outcome: "error" } });
		expect(warmingRecords(run.host)[0].usage).toMatchObject({ input: 0, output: 0 });
	});

	it("a payload that no longer hashes equal is not sent (here pi-ai now adds a long retention)", async () => {
		const saved = process.env.PI_CACHE_RETENTION;
		cleanup.push(async () => {
			if (saved === undefined) delete process.env.PI_CACHE_RETENTION;
			else process.env.PI_CACHE_RETENTION = saved;
		});
		const run = await consultThen({
			during: async (r) => {
				process.env.PI_CACHE_RETENTION = "long";
				r.clock.advance(0.9 * TTL_MS);
				await waitFor(() => of(r.traces, "refresh-refused").length > 0 || undefined, "the refusal");
			},
		});
		expect(run.mock.requests).toHaveLength(1);
		expect(of(run.traces, "refresh-refused")[0]).toMatchObject({ reason: "payload-changed" });
		expect(of(run.traces, "refresh-sent")).toHaveLength(0);
		expect(of(run.traces, "ended")[0]).toEqual({ type: "ended", end: { by: "outcome", outcome: "error" } });
		expect(warmingRecords(run.host)).toHaveLength(0);
	});
});

describe("every skip reason through the adapter (nothing armed, nothing sent)", () => {
	const notArmed = async (config: Record<string, unknown>) => {
		const run = await consultThen({
			config,
			during: async (r) => {
				r.clock.advance(10 * TTL_MS);
			},
		});
		expect(of(run.traces, "armed")).toHaveLength(0);
		expect(run.clock.delays).toHaveLength(0);
		expect(run.mock.requests).toHaveLength(1);
		expect(warmingRecords(run.host)).toHaveLength(0);
		return of(run.traces, "not-armed")[0]!;
	};

	it("warming.enabled false", async () => {
		expect(await notArmed(warmingConfig({ enabled: false }))).toMatchObject({ reason: "disabled" });
	});

	it("unknown TTL: ttlSec 0 and an OpenAI-compatible host that is not api.openai.com", async () => {
		expect(await notArmed(warmingConfig({ ttlSec: 0 }))).toMatchObject({ reason: "unknown-ttl" });
	});

	it("below minPromptTokens", async () => {
		expect(await notArmed(warmingConfig({ minPromptTokens: PROMPT + 1 }))).toMatchObject({
			reason: "below-min-prompt",
		});
	});

	it("below minSavingsUsd — the worked example", async () => {
		/*
		 * Sonnet-like prices ($3 input, $0.30 cache read, $15 output per million), token-prefix caching
		 * (openai-completions: 128-token steps), the consultation billed 150,000 prompt tokens,
		 * continueProbability 0.2:
		 *   gross   = 0.2 × 150,000 × (3 − 0.3) / 1e6                        = $0.081
		 *   refresh = 149,888 × 0.3 / 1e6 + 112 × 3 / 1e6 + 16 × 15 / 1e6      = $0.0455424
		 *   net     = 0.081 − 0.0455424                                       = $0.0354576
		 * positive, but under the default minSavingsUsd $0.05 → not warmed (with $0.01 it is: above).
		 */
		const skipped = await notArmed(warmingConfig({ minSavingsUsd: 0.05 }));
		expect(skipped).toMatchObject({ reason: "below-min-savings" });
		const gross = (0.2 * PROMPT * (PRICES.input - PRICES.cacheRead)) / 1e6;
		const refresh = (149_888 * PRICES.cacheRead + 112 * PRICES.input + 16 * PRICES.output) / 1e6;
		expect(gross).toBeCloseTo(0.081, 12);
		expect(refresh).toBeCloseTo(0.0455424, 12);
		expect(skipped.decision).toMatchObject({ warm: false });
		const d = skipped.decision as { refreshCostUsd: number; expectedSavingsUsd: number };
		expect(d.refreshCostUsd).toBeCloseTo(refresh, 12);
		expect(d.expectedSavingsUsd).toBeCloseTo(gross - refresh, 12);
		expect(d.expectedSavingsUsd).toBeCloseTo(0.0354576, 12);
	});

	it("over budget: the refresh's cold cost does not fit what is left of the branch budget", async () => {
		// The consultation was billed 150,000 × $3/M ≈ $0.45; a cold refresh costs about as much again.
		expect(await notArmed({ ...warmingConfig(), budget: { sessionUsd: 0.8 } })).toMatchObject({
			reason: "over-budget",
		});
	});

	it("expired: the refresh would fall after maxDurationSec", async () => {
		expect(await notArmed(warmingConfig({ maxDurationSec: 200 }))).toMatchObject({ reason: "expired" });
	});

	it("a failed consultation arms nothing", async () => {
		const run = await consultThen({ route: () => ({ text: "", status: 400 }) });
		expect(of(run.traces, "not-armed")[0]).toMatchObject({ reason: "no-advice" });
		expect(run.clock.delays).toHaveLength(0);
	});
});

describe("cancellation by each event", () => {
	/** Armed after the consultation; `cancel` runs while armed; the timer never sends anything. */
	const armedThen = async (
		cancel: (run: Run) => Promise<void>,
		options: Partial<Parameters<typeof startHost>[0]> = {},
		steps?: (run: () => Run) => FauxResponseStep[],
	) => {
		const run = await consultThen({
			options,
			...(steps !== undefined ? { steps } : {}),
			during: async (r) => {
				expect(of(r.traces, "armed")).toHaveLength(1);
				await cancel(r);
				r.clock.advance(10 * TTL_MS);
			},
		});
		return run;
	};
	const endedBy = (run: Run) => of(run.traces, "ended").map((t) => t.end);

	it("agent_end, with a refresh in flight: aborted, its usage recorded before the hook returns", async () => {
		const held = gate();
		cleanup.push(async () => held.release());
		let recordsWhenAgentEndHandled = -1;
		const run = await consultThen({
			route: (api, body, index) =>
				index === 0 ? defaultRoute(api, body, index) : { text: "ok", hold: held.promise },
			during: async (r) => {
				r.clock.advance(0.9 * TTL_MS);
				await waitFor(() => r.mock.requests.length === 2 || undefined, "the refresh to reach the server");
				// The executor answers now; the run ends with the refresh still in flight.
			},
			// Pi emits agent_end to its listeners only after the extensions' handlers have returned.
			ready: (r) =>
				r.host.runtime.session.subscribe((e) => {
					if (e.type === "agent_end") recordsWhenAgentEndHandled = warmingRecords(r.host).length;
				}),
		});
		await waitFor(() => recordsWhenAgentEndHandled >= 0 || undefined, "agent_end");
		expect(recordsWhenAgentEndHandled).toBe(1);
		expect(endedBy(run)).toEqual([{ by: "cancel", reason: "agent_end" }]);
		expect(of(run.traces, "refresh-settled")[0]).toMatchObject({ outcome: "aborted", recorded: true });
		await waitFor(() => run.mock.requests[1]!.aborted || undefined, "the server to see the abort");
		const entries = run.host.entries();
		const record = entries.findIndex((e: any) => e.type === "custom" && e.data?.kind === "warming");
		expect(record).toBeGreaterThan(0);
		expect(warmingRecords(run.host)[0].usage).toMatchObject({ output: 0 });
	});

	it("thinking_level_select", async () => {
		const run = await armedThen(async (r) => {
			// Pi does not await this event's handlers.
			r.host.runtime.session.setThinkingLevel("high");
			await waitFor(() => of(r.traces, "ended").length > 0 || undefined, "the cancel");
		});
		expect(endedBy(run)[0]).toEqual({ by: "cancel", reason: "thinking_level_select" });
		expect(run.mock.requests).toHaveLength(1);
	});

	it("model_select", async () => {
		const run = await armedThen(
			async ({ host }) => {
				await host.runtime.session.setModel(host.modelRegistry.find("exec-faux", "executor-2")!);
			},
			{
				executorModels: [
					{ id: "executor-1", name: "Executor One", reasoning: true },
					{ id: "executor-2", name: "Executor Two" },
				],
			},
		);
		expect(endedBy(run)[0]).toEqual({ by: "cancel", reason: "model_select" });
		expect(run.mock.requests).toHaveLength(1);
	});

	it("a new consultation (which then arms its own chain)", async () => {
		const run = await consultThen({
			steps: (current) => [
				askAdvisor("a1"),
				askAdvisor("a2"),
				async () => {
					current().clock.advance(10 * TTL_MS);
					await settled(current());
					return fauxAssistantMessage("Done.");
				},
			],
		});
		expect(of(run.traces, "armed").map((t) => t.consultationId)).toEqual(["a1", "a2"]);
		expect(endedBy(run)[0]).toEqual({ by: "cancel", reason: "consultation" });
		// Only the second consultation's first request was replayed.
		const [, second, refresh] = run.mock.requests.map((r) => r.body);
		expect(canonicalPayload(refresh, "openai-completions")).toBe(canonicalPayload(second, "openai-completions"));
	});

	it("/advisor", async () => {
		const run = await armedThen(
			async ({ host }) => {
				await host.runtime.session.prompt("/advisor");
			},
			{ ui: false },
		);
		expect(endedBy(run)[0]).toEqual({ by: "cancel", reason: "advisor_command" });
		expect(run.mock.requests).toHaveLength(1);
	});

	it.each([
		"session_before_compact",
		"session_before_tree",
		"session_before_switch",
		"session_before_fork",
		"session_shutdown",
	] as const)(
		"%s, with a refresh in flight (e.g. an overflow compaction mid-run): aborted and recorded before the hook returns",
		async (event) => {
			const held = gate();
			cleanup.push(async () => held.release());
			let recordedWhenHookReturned = -1;
			const run = await consultThen({
				route: (api, body, index) =>
					index === 0 ? defaultRoute(api, body, index) : { text: "ok", hold: held.promise },
				during: async (r) => {
					r.clock.advance(0.9 * TTL_MS);
					await waitFor(() => r.mock.requests.length === 2 || undefined, "the refresh to reach the server");
					// Pi's own runner emits the event to the extension, as AgentSession / AgentSessionRuntime do.
					await (r.host.runtime.session as any).extensionRunner.emit({ type: event, reason: "quit" });
					recordedWhenHookReturned = warmingRecords(r.host).length;
				},
			});
			expect(recordedWhenHookReturned).toBe(1);
			expect(endedBy(run)[0]).toEqual({ by: "cancel", reason: event });
			expect(of(run.traces, "refresh-settled")[0]).toMatchObject({ outcome: "aborted", recorded: true });
		},
	);
});
