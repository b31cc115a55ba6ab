/**
 * The consultation deadline with fake timers: `timeoutSec` covers every request and
 * investigation round, stops while the budget dialog is open, and a user abort stays `cancelled`.
 * Plus the retry policy, as a function of the failure and the clock.
 */

import type { Api, AssistantMessage, Context, Model, SimpleStreamOptions, Usage } from "@mariozechner/pi-ai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ConsultationInput, FailedAttempt } from "../../../../src/adapter/extension/consult/consultation-input.ts";
import { createRetryPolicy } from "../../../../src/adapter/extension/consult/cost-control.ts";
import { createDeadline } from "../../../../src/adapter/extension/consult/deadline.ts";
import { runConsultation } from "../../../../src/adapter/extension/consult/request-loop.ts";
import type { CompleteSimple } from "../../../../src/adapter/extension/pi/compat.ts";
import { ledgerOf } from "../../../../src/reducers/index.ts";
import { DEFAULT_LEDGER_CONFIG, FAILURE, renderRequest } from "../../../../src/render/index.ts";
import { assistant, call, resetParents, user } from "../../../support/events.ts";

const model = {
	id: "gpt-5",
	name: "GPT-5",
	api: "openai-responses",
	provider: "openai",
	baseUrl: "http://localhost:0",
	reasoning: true,
	input: ["text"],
	cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
	contextWindow: 200_000,
	maxTokens: 8000,
} as Model<Api>;

function request() {
	resetParents();
	const state = ledgerOf([
		user("u1", "Fix it."),
		assistant("a1", { text: "Right?", calls: [call("adv1", "advisor")] }),
	]);
	return renderRequest(state, {
		config: DEFAULT_LEDGER_CONFIG,
		catalogue: [],
		tools: [],
		toolsMode: "none",
		mode: "consult",
	});
}

const USAGE: Usage = {
	input: 100,
	output: 10,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 110,
	cost: { input: 0.0001, output: 0.00001, cacheRead: 0, cacheWrite: 0, total: 0.00011 },
};

function reply(content: AssistantMessage["content"] | string, extra: Partial<AssistantMessage> = {}): AssistantMessage {
	return {
		role: "assistant",
		content: typeof content === "string" ? [{ type: "text", text: content }] : content,
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: USAGE,
		stopReason: "stop",
		timestamp: 0,
		...extra,
	};
}

/** A provider that answers after `ms` of (fake) time, or with `aborted` when the signal fires first. */
function answerAfter(ms: number, message: AssistantMessage) {
	return (_context: Context, options: SimpleStreamOptions | undefined) =>
		new Promise<AssistantMessage>((resolve) => {
			const timer = setTimeout(() => resolve(message), ms);
			options?.signal?.addEventListener("abort", () => {
				clearTimeout(timer);
				resolve(reply([], { stopReason: "aborted", errorMessage: "Request was aborted" }));
			});
		});
}

function scripted(steps: ((c: Context, o: SimpleStreamOptions | undefined) => Promise<AssistantMessage>)[]) {
	let sent = 0;
	const complete = (async (_m: Model<Api>, context: Context, options?: SimpleStreamOptions) => {
		const step = steps[sent++];
		if (step === undefined) throw new Error("no step left");
		return step(context, options);
	}) as unknown as CompleteSimple;
	return { complete, sent: () => sent };
}

function input(complete: CompleteSimple, extra: Partial<ConsultationInput> = {}): ConsultationInput {
	return {
		complete,
		model,
		auth: {},
		effort: undefined,
		sessionId: "advisor:s1",
		request: request(),
		signal: undefined,
		...extra,
	};
}

beforeEach(() => {
	vi.useFakeTimers();
});
afterEach(() => {
	vi.useRealTimers();
});

describe("createDeadline", () => {
	it("fires after the timeout; pauses stop the clock and nest; elapsed leaves the pauses out", async () => {
		const d = createDeadline(30_000);
		await vi.advanceTimersByTimeAsync(10_000);
		d.pause();
		d.pause();
		await vi.advanceTimersByTimeAsync(60_000);
		d.resume();
		await vi.advanceTimersByTimeAsync(60_000);
		expect(d.signal.aborted).toBe(false);
		expect(d.elapsed()).toBe(10_000);
		d.resume();
		await vi.advanceTimersByTimeAsync(19_999);
		expect(d.signal.aborted).toBe(false);
		await vi.advanceTimersByTimeAsync(1);
		expect(d.signal.aborted).toBe(true);
		expect(d.expired()).toBe(true);
		d.dispose();
	});

	it("paused(work) resumes even when the work throws; dispose clears the timer", async () => {
		const d = createDeadline(1000);
		await expect(
			d.paused(async () => {
				await vi.advanceTimersByTimeAsync(5000);
				throw new Error("dialog broke");
			}),
		).rejects.toThrow("dialog broke");
		expect(d.signal.aborted).toBe(false);
		d.dispose();
		await vi.advanceTimersByTimeAsync(5000);
		expect(d.signal.aborted).toBe(false);
		expect(vi.getTimerCount()).toBe(0);
	});

	it("without a timeout it never fires but still measures", async () => {
		const d = createDeadline(undefined);
		await vi.advanceTimersByTimeAsync(1e9);
		expect(d.signal.aborted).toBe(false);
		expect(d.elapsed()).toBe(1e9);
	});
});

describe("runConsultation's deadline", () => {
	it("expiry mid-request → `Advisor timed out after <n>s`, errorMessage `timeout`", async () => {
		const { complete } = scripted([answerAfter(60_000, reply("Severity: none\nlate"))]);
		const out = runConsultation(input(complete, { timeoutMs: 30_000 }));
		await vi.advanceTimersByTimeAsync(30_000);
		const envelope = await out;
		expect(envelope.content[0]!.text).toBe(FAILURE.timeout(30));
		expect(envelope.details).toMatchObject({ errorMessage: "timeout", stopReason: "aborted" });
		expect(vi.getTimerCount()).toBe(0);
	});

	it("covers the investigation rounds: 20 s + a 15 s tool → the deadline fires in the tool", async () => {
		const toolCall = { type: "toolCall" as const, id: "t1", name: "read", arguments: {} };
		const { complete, sent } = scripted([
			answerAfter(20_000, reply([toolCall], { stopReason: "toolUse" })),
			answerAfter(1000, reply("Severity: none\nok")),
		]);
		const out = runConsultation(
			input(complete, {
				timeoutMs: 30_000,
				tools: {
					declarations: [],
					maxCalls: 3,
					execute: (_call, signal) =>
						new Promise((resolve) => {
							const timer = setTimeout(
								() => resolve({ content: [{ type: "text", text: "file" }], isError: false }),
								15_000,
							);
							signal?.addEventListener("abort", () => {
								clearTimeout(timer);
								resolve({ content: [{ type: "text", text: "aborted" }], isError: true });
							});
						}),
				},
			}),
		);
		await vi.advanceTimersByTimeAsync(30_000);
		const envelope = await out;
		expect(sent()).toBe(1);
		expect(envelope.content[0]!.text).toBe(FAILURE.timeout(30));
		// The first round's bill is kept.
		expect(envelope.details.attempts).toHaveLength(1);
	});

	it("stops while approve has a dialog open: 60 s of dialog + 25 s of requests fit in 30 s", async () => {
		const { complete, sent } = scripted([answerAfter(25_000, reply("Severity: none\nok"))]);
		const out = runConsultation(
			input(complete, {
				timeoutMs: 30_000,
				approve: async (next) => {
					const yes = await next.paused(
						() => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 60_000)),
					);
					return yes ? { send: true } : { send: false, reason: "declined" };
				},
			}),
		);
		await vi.advanceTimersByTimeAsync(60_000);
		expect(sent()).toBe(1);
		await vi.advanceTimersByTimeAsync(25_000);
		const envelope = await out;
		expect(envelope.content[0]!.text).toBe("Severity: none\nok");
	});

	it("the executor's abort stays `cancelled`, also with a deadline", async () => {
		const controller = new AbortController();
		const { complete } = scripted([answerAfter(60_000, reply("late"))]);
		const out = runConsultation(input(complete, { timeoutMs: 30_000, signal: controller.signal }));
		await vi.advanceTimersByTimeAsync(5000);
		controller.abort();
		const envelope = await out;
		expect(envelope.content[0]!.text).toBe(FAILURE.cancelled);
		expect(envelope.details.errorMessage).toBe("Request was aborted");
	});

	it("a retry sees the time run so far, dialogs excluded, and is not attempted once the deadline fired", async () => {
		const failures: FailedAttempt[] = [];
		const { complete, sent } = scripted([
			answerAfter(10_000, reply([], { stopReason: "error", errorMessage: "503" })),
			answerAfter(40_000, reply("never")),
		]);
		const out = runConsultation(
			input(complete, {
				timeoutMs: 30_000,
				retry: (failure) => {
					failures.push(failure);
					return true;
				},
			}),
		);
		await vi.advanceTimersByTimeAsync(30_000);
		const envelope = await out;
		expect(sent()).toBe(2);
		expect(failures.map((f) => [f.elapsedMs, f.timedOut])).toEqual([[10_000, false]]);
		expect(envelope.content[0]!.text).toBe(FAILURE.timeout(30));
		expect(envelope.details.attempts).toHaveLength(2);
	});
});

describe("createRetryPolicy", () => {
	const failure = (over: Partial<FailedAttempt>): FailedAttempt => ({
		round: 0,
		attempt: 0,
		message: reply([], { stopReason: "error", errorMessage: "529 overloaded_error" }),
		thrown: undefined,
		timedOut: false,
		empty: false,
		elapsedMs: 1000,
		...over,
	});

	it("a transient failure: once per consultation, only under half of the timeout", () => {
		const policy = createRetryPolicy({ timeoutMs: 420_000 });
		expect(policy(failure({}))).toBe(true);
		expect(policy(failure({ round: 1 }))).toBe(false);
		expect(createRetryPolicy({ timeoutMs: 420_000 })(failure({ elapsedMs: 209_999 }))).toBe(true);
		expect(createRetryPolicy({ timeoutMs: 420_000 })(failure({ elapsedMs: 210_000 }))).toBe(false);
	});

	it("the transient list (Pi's AgentSession pattern), thrown errors by their message", () => {
		const transient = [
			"503 Service Unavailable",
			"rate limit exceeded",
			"Connection error.",
			"fetch failed",
			"Request timed out.",
			"stream ended without a final message",
			"500 internal server error",
		];
		for (const errorMessage of transient) {
			const viaMessage = failure({ message: reply([], { stopReason: "error", errorMessage }) });
			expect(createRetryPolicy({ timeoutMs: 420_000 })(viaMessage), errorMessage).toBe(true);
			expect(
				createRetryPolicy({ timeoutMs: 420_000 })(failure({ message: undefined, thrown: errorMessage })),
				errorMessage,
			).toBe(true);
		}
	});

	it("deterministic failures, aborts and the consultation's own timeout are never retried", () => {
		const no = [
			failure({ message: reply([], { stopReason: "error", errorMessage: "401 invalid x-api-key" }) }),
			failure({ message: reply([], { stopReason: "error", errorMessage: "403 permission denied" }) }),
			failure({
				message: reply([], {
					stopReason: "error",
					errorMessage: "prompt is too long: 213462 tokens > 200000 maximum",
				}),
			}),
			failure({ message: reply([], { stopReason: "error", errorMessage: "400 invalid request" }) }),
			failure({ message: reply([], { stopReason: "aborted", errorMessage: "Request was aborted" }) }),
			failure({ message: reply([], { stopReason: "length" }) }),
			failure({ timedOut: true }),
			failure({ message: undefined, thrown: "Cannot read properties of undefined" }),
		];
		for (const f of no) expect(createRetryPolicy({ timeoutMs: 420_000 })(f)).toBe(false);
	});

	it("an empty answer: once, whatever the clock says; apart from the transient retry", () => {
		const policy = createRetryPolicy({ timeoutMs: 1000 });
		const empty = failure({ message: reply(""), empty: true, elapsedMs: 999 });
		expect(policy(empty)).toBe(true);
		expect(policy(empty)).toBe(false);
		expect(policy(failure({ elapsedMs: 10 }))).toBe(true);
	});
});

describe("the dialog and the executor's abort", () => {
	it("Esc while the dialog is open is `cancelled`, not a skip", async () => {
		const controller = new AbortController();
		const { complete, sent } = scripted([]);
		const out = runConsultation(
			input(complete, {
				timeoutMs: 30_000,
				signal: controller.signal,
				approve: async (next) => {
					const yes = await next.paused(
						() =>
							new Promise<boolean>((resolve) => {
								controller.signal.addEventListener("abort", () => resolve(false));
							}),
					);
					return yes ? { send: true } : { send: false, reason: "declined" };
				},
			}),
		);
		await vi.advanceTimersByTimeAsync(1000);
		controller.abort();
		const envelope = await out;
		expect(sent()).toBe(0);
		expect(envelope.content[0]!.text).toBe(FAILURE.cancelled);
		expect(envelope.details.skipped).toBeUndefined();
	});
});
