/**
 * runConsultation: the call path as a loop over requests, with the hooks later issues fill
 * (investigation tools, approve gate, retry, timeout). It never throws.
 */

import type { Api, AssistantMessage, Context, Model, SimpleStreamOptions, Usage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import {
	addUsage,
	type ConsultationInput,
	type FailedAttempt,
	type NextRequest,
} from "../../../../src/adapter/extension/consult/consultation-input.ts";
import { runConsultation } from "../../../../src/adapter/extension/consult/request-loop.ts";
import type { CompleteSimple } from "../../../../src/adapter/extension/pi/compat.ts";
import { requestRecord } from "../../../../src/policy/index.ts";
import { ledgerOf } from "../../../../src/reducers/index.ts";
import {
	buildContext,
	DEFAULT_LEDGER_CONFIG,
	FAILURE,
	renderRequest,
	TOOL_BUDGET_SPENT,
	TOOL_CALL_REFUSED,
	zeroUsage,
} from "../../../../src/render/index.ts";
import { assistant, call, resetParents, user } from "../../../support/events.ts";

const model = {
	id: "gpt-5",
	name: "GPT-5",
	api: "openai-responses",
	provider: "openai",
	baseUrl: "http://localhost:0",
	reasoning: true,
	input: ["text"],
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	contextWindow: 200_000,
	maxTokens: 8000,
} as Model<Api>;

function request() {
	resetParents();
	const state = ledgerOf([
		user("u1", "Fix the bug."),
		assistant("a1", { text: "Is my plan right?", calls: [call("adv1", "advisor")] }),
	]);
	return renderRequest(state, {
		config: DEFAULT_LEDGER_CONFIG,
		catalogue: [{ name: "read", description: "Read a file." }],
		tools: [],
		toolsMode: "none",
		mode: "consult",
	});
}

function usage(input: number, output: number, cost = 0): Usage {
	return {
		input,
		output,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: input + output,
		cost: { input: cost, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
	};
}

function reply(content: AssistantMessage["content"] | string, extra: Partial<AssistantMessage> = {}): AssistantMessage {
	return {
		role: "assistant",
		content: typeof content === "string" ? [{ type: "text", text: content }] : content,
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: usage(100, 10, 0.01),
		stopReason: "stop",
		timestamp: 0,
		...extra,
	};
}

type Step =
	| AssistantMessage
	| ((context: Context, options: SimpleStreamOptions | undefined) => AssistantMessage | Promise<AssistantMessage>);

/** A scripted completeSimple that records what it was sent. */
function scripted(steps: Step[]) {
	const calls: { context: Context; options: SimpleStreamOptions | undefined }[] = [];
	const complete = (async (_model: Model<Api>, context: Context, options?: SimpleStreamOptions) => {
		calls.push({ context: structuredClone({ ...context, tools: [] }), options });
		const step = steps.shift();
		if (step === undefined) throw new Error("no step left");
		return typeof step === "function" ? step(context, options) : step;
	}) as unknown as CompleteSimple;
	return { complete, calls };
}

function input(complete: CompleteSimple, extra: Partial<ConsultationInput> = {}): ConsultationInput {
	return {
		complete,
		model,
		auth: { apiKey: "sk-test", headers: { "x-extra": "1" } },
		effort: "high",
		sessionId: "advisor:s1",
		request: request(),
		signal: undefined,
		now: () => 1234,
		...extra,
	};
}

describe("one request when the advisor has no tools", () => {
	it("sends the rendered context with sessionId, effort, key, headers and signal, and returns the envelope", async () => {
		const { complete, calls } = scripted([reply("Severity: concern\nRun the tests first.")]);
		const controller = new AbortController();
		const progress: string[] = [];
		const req = request();
		const out = await runConsultation(
			input(complete, { signal: controller.signal, onProgress: (l) => progress.push(l), request: req }),
		);
		expect(calls).toHaveLength(1);
		expect(calls[0]!.context.messages).toEqual(buildContext(req).messages);
		expect(calls[0]!.options).toMatchObject({
			reasoning: "high",
			sessionId: "advisor:s1",
			apiKey: "sk-test",
			headers: { "x-extra": "1" },
		});
		expect(calls[0]!.options?.signal).toBe(controller.signal);
		// Every API gets the payload hook (the first request's payload hash); only
		// Anthropic-style payloads are edited by it, this one is left as pi-ai built it.
		const hook = calls[0]!.options?.onPayload;
		expect(typeof hook).toBe("function");
		expect(await hook!({ model: "gpt-5", input: [] }, model)).toBeUndefined();
		expect(progress).toEqual(["Consulting advisor: GPT-5 (openai/gpt-5), high…"]);
		expect(out).toEqual({
			content: [{ type: "text", text: "Severity: concern\nRun the tests first." }],
			usage: usage(100, 10, 0.01),
			details: {
				advisorModel: "openai:gpt-5",
				effort: "high",
				// The RequestRecord: docs/request-format.md's fields plus what the next estimate needs,
				// including the prompt the provider billed for this request.
				request: requestRecord(req, { routingKey: "advisor:s1", timestampMs: 1234, promptTokens: 100 }),
				usage: usage(100, 10, 0.01),
				attempts: [{ usage: usage(100, 10, 0.01), stopReason: "stop" }],
				stopReason: "stop",
				severity: "concern",
				redactions: 0,
			},
		});
	});

	it("sends no reasoning when no effort was snapshotted, and says so in the stream", async () => {
		const { complete, calls } = scripted([reply("Severity: none\nFine.")]);
		const progress: string[] = [];
		const out = await runConsultation(input(complete, { effort: undefined, onProgress: (l) => progress.push(l) }));
		expect(calls[0]!.options).not.toHaveProperty("reasoning");
		expect(out.details.effort).toBeUndefined();
		expect(progress).toEqual(["Consulting advisor: GPT-5 (openai/gpt-5)…"]);
	});

	it("an Anthropic-style model gets the stable-part breakpoint hook", async () => {
		const { complete, calls } = scripted([reply("Severity: none\nok")]);
		await runConsultation(input(complete, { model: { ...model, api: "anthropic-messages" } as Model<Api> }));
		expect(typeof calls[0]!.options?.onPayload).toBe("function");
	});

	it("a reply without a severity line is still advice, without details.severity", async () => {
		const { complete } = scripted([reply("Looks fine to me.")]);
		const out = await runConsultation(input(complete));
		expect(out.content[0]!.text).toBe("Looks fine to me.");
		expect(out.details.severity).toBeUndefined();
		expect(out.details.errorMessage).toBeUndefined();
	});
});

describe("each way it can end is one row of the failure table", () => {
	it("provider error → `Advisor call failed: <err>`", async () => {
		const { complete } = scripted([reply([], { stopReason: "error", errorMessage: "529 overloaded" })]);
		const out = await runConsultation(input(complete));
		expect(out.content[0]!.text).toBe("Advisor call failed: 529 overloaded");
		expect(out.details).toMatchObject({ stopReason: "error", errorMessage: "529 overloaded" });
		expect(out.details.attempts).toEqual([
			{ usage: usage(100, 10, 0.01), stopReason: "error", errorMessage: "529 overloaded" },
		]);
	});

	it("provider error without a message", async () => {
		const { complete } = scripted([reply([], { stopReason: "error" })]);
		const out = await runConsultation(input(complete));
		expect(out.content[0]!.text).toBe(FAILURE.failed(FAILURE.unknownError));
	});

	it("aborted by the executor → cancelled, with the provider's message", async () => {
		const controller = new AbortController();
		const { complete } = scripted([
			() => {
				controller.abort();
				return reply([], { stopReason: "aborted", errorMessage: "Request was aborted" });
			},
		]);
		const out = await runConsultation(input(complete, { signal: controller.signal }));
		expect(out.content[0]!.text).toBe(FAILURE.cancelled);
		expect(out.details.errorMessage).toBe("Request was aborted");
	});

	it("already aborted → cancelled without sending anything", async () => {
		const controller = new AbortController();
		controller.abort();
		const { complete, calls } = scripted([]);
		const out = await runConsultation(input(complete, { signal: controller.signal }));
		expect(calls).toHaveLength(0);
		expect(out.content[0]!.text).toBe(FAILURE.cancelled);
		expect(out.details.errorMessage).toBe("aborted");
	});

	it("no text → `Advisor returned no text content.`", async () => {
		const { complete } = scripted([reply([{ type: "thinking", thinking: "hmm" }])]);
		const out = await runConsultation(input(complete));
		expect(out.content[0]!.text).toBe(FAILURE.empty);
		expect(out.details).toMatchObject({ errorMessage: "empty response", stopReason: "stop" });
	});

	it("completeSimple throws → `Advisor call threw: <msg>`", async () => {
		const complete = (async () => {
			throw new Error("socket exploded");
		}) as unknown as CompleteSimple;
		const out = await runConsultation(input(complete));
		expect(out.content[0]!.text).toBe("Advisor call threw: socket exploded");
		expect(out.details.errorMessage).toBe("socket exploded");
		expect(out.details.attempts).toBeUndefined();
	});

	it("the deadline fires → `Advisor timed out after <n>s`", async () => {
		const { complete } = scripted([
			(_context, options) =>
				new Promise<AssistantMessage>((resolve) => {
					options?.signal?.addEventListener("abort", () =>
						resolve(reply([], { stopReason: "aborted", errorMessage: "Request was aborted" })),
					);
				}),
		]);
		const out = await runConsultation(input(complete, { timeoutMs: 30 }));
		expect(out.content[0]!.text).toBe(FAILURE.timeout(0.03));
		expect(out.content[0]!.text.startsWith("Advisor timed out after 0.03s")).toBe(true);
		expect(out.details).toMatchObject({ errorMessage: "timeout", stopReason: "aborted" });
	});

	it("the approve gate refuses → `Advisor skipped: <reason>` with skipped: true", async () => {
		const { complete, calls } = scripted([]);
		const out = await runConsultation(
			input(complete, { approve: async () => ({ send: false, reason: "over the per-call budget" }) }),
		);
		expect(calls).toHaveLength(0);
		expect(out.content[0]!.text).toBe(FAILURE.skipped("over the per-call budget"));
		expect(out.details).toMatchObject({ skipped: true, errorMessage: "over the per-call budget" });
	});

	it("a hook that throws ends as `Advisor call threw`", async () => {
		const { complete } = scripted([]);
		const out = await runConsultation(
			input(complete, {
				approve: async () => {
					throw new Error("gate broke");
				},
			}),
		);
		expect(out.content[0]!.text).toBe("Advisor call threw: gate broke");
	});
});

describe("retries and the gate", () => {
	it("retry sends again; usage sums over every attempt, and each attempt is kept", async () => {
		const { complete, calls } = scripted([
			reply([], { stopReason: "error", errorMessage: "503", usage: usage(5, 0) }),
			reply("Severity: none\nok", { usage: usage(100, 10) }),
		]);
		const failures: FailedAttempt[] = [];
		const gate: NextRequest[] = [];
		const out = await runConsultation(
			input(complete, {
				retry: (failure) => {
					failures.push(failure);
					return failure.attempt === 0;
				},
				approve: async (next) => {
					gate.push(next);
					return { send: true };
				},
			}),
		);
		expect(calls).toHaveLength(2);
		expect(calls[1]!.options?.sessionId).toBe("advisor:s1");
		expect(failures).toHaveLength(1);
		expect(failures[0]).toMatchObject({ round: 0, attempt: 0, timedOut: false, thrown: undefined });
		expect(gate.map((g) => [g.round, g.attempt, g.billedUsage.input])).toEqual([
			[0, 0, 0],
			[0, 1, 5],
		]);
		expect(out.details.attempts).toHaveLength(2);
		expect(out.usage).toEqual(addUsage(usage(5, 0), usage(100, 10)));
		expect(out.details.usage).toEqual(out.usage);
		expect(out.details.severity).toBe("none");
	});

	it("a thrown attempt can be retried too", async () => {
		let first = true;
		const complete = (async () => {
			if (first) {
				first = false;
				throw new Error("fetch failed");
			}
			return reply("Severity: nit\nok");
		}) as unknown as CompleteSimple;
		const out = await runConsultation(input(complete, { retry: (f) => f.thrown === "fetch failed" }));
		expect(out.details.severity).toBe("nit");
		expect(out.details.attempts).toHaveLength(1);
	});
});

describe("investigation rounds (hook shape for the advisor's tools)", () => {
	const toolCall = (id: string, name: string) => ({
		type: "toolCall" as const,
		id,
		name,
		arguments: { path: "a.ts" },
	});

	it("runs the calls, sends the results back with the same declarations, streams one line per tool", async () => {
		const { complete, calls } = scripted([
			reply([{ type: "text", text: "Let me look." }, toolCall("t1", "read")], { stopReason: "toolUse" }),
			reply("Severity: none\nThe file is fine."),
		]);
		const progress: string[] = [];
		const executed: string[] = [];
		const out = await runConsultation(
			input(complete, {
				onProgress: (l) => progress.push(l),
				tools: {
					declarations: [],
					maxCalls: 3,
					execute: async (c) => {
						executed.push(c.id);
						return {
							content: [{ type: "text", text: "export const a = 1;" }],
							isError: false,
							summary: "read a.ts",
						};
					},
				},
			}),
		);
		expect(executed).toEqual(["t1"]);
		expect(progress).toEqual(["Consulting advisor: GPT-5 (openai/gpt-5), high…", "advisor: read a.ts"]);
		const second = calls[1]!.context.messages;
		expect(second.slice(-2).map((m) => m.role)).toEqual(["assistant", "toolResult"]);
		expect(second.slice(0, -2)).toEqual(calls[0]!.context.messages);
		expect(out.details.attempts).toHaveLength(2);
		expect(out.usage!.input).toBe(200);
		expect(out.content[0]!.text).toBe("Severity: none\nThe file is fine.");
	});

	it("calls past the allowance are refused in-band, the advisor is told to answer, and a model that keeps calling is cut off", async () => {
		const { complete, calls } = scripted([
			reply([toolCall("t1", "read"), toolCall("t2", "read")], { stopReason: "toolUse" }),
			reply([{ type: "text", text: "Severity: nit\nPartial answer." }, toolCall("t3", "read")], {
				stopReason: "toolUse",
			}),
		]);
		const out = await runConsultation(
			input(complete, {
				tools: {
					declarations: [],
					maxCalls: 1,
					execute: async () => ({ content: [{ type: "text", text: "x" }], isError: false, summary: "read a.ts" }),
				},
			}),
		);
		const results = calls[1]!.context.messages.filter((m) => m.role === "toolResult");
		expect(results).toHaveLength(2);
		expect(results[1]!.content).toEqual([{ type: "text", text: TOOL_CALL_REFUSED }]);
		// The notice is a user message after the results (consultation-investigation-loop.test.ts has the details).
		expect(calls[1]!.context.messages.at(-1)).toMatchObject({
			role: "user",
			content: [{ type: "text", text: TOOL_BUDGET_SPENT }],
		});
		expect(calls).toHaveLength(2);
		expect(out.content[0]!.text).toBe("Severity: nit\nPartial answer.");
	});
});

describe("details.redactions: the credential marks this consultation sent", () => {
	it("counts the first request once (retries too) and what each round adds of ours, never the advisor's own reply", async () => {
		resetParents();
		const state = ledgerOf([
			user("u1", "Use [redacted: github-token] and [redacted: stripe-key]."),
			assistant("a1", { text: "Is [redacted: jwt] safe?", calls: [call("adv1", "advisor")] }),
		]);
		const req = renderRequest(state, {
			config: DEFAULT_LEDGER_CONFIG,
			catalogue: [],
			tools: [],
			toolsMode: "none",
			mode: "consult",
		});
		const { complete } = scripted([
			reply("", { stopReason: "error", errorMessage: "overloaded" }),
			reply(
				[
					{ type: "text", text: "About [redacted: github-token]:" },
					{ type: "toolCall", id: "t1", name: "read", arguments: {} },
				],
				{
					stopReason: "toolUse",
				},
			),
			reply("Severity: none\nThe [redacted: stripe-key] is fine."),
		]);
		const out = await runConsultation(
			input(complete, {
				request: req,
				retry: () => true,
				tools: {
					declarations: [],
					maxCalls: 3,
					execute: async () => ({
						content: [{ type: "text", text: "KEY=[redacted: secret-assignment]" }],
						isError: false,
						summary: "read .env",
					}),
				},
			}),
		);
		// The question shows twice in the request (in the log and as the question): both count.
		const inRequest = JSON.stringify(buildContext(req)).split("[redacted: ").length - 1;
		expect(inRequest).toBeGreaterThanOrEqual(3);
		expect(out.details.redactions).toBe(inRequest + 1);
	});

	it("is absent when nothing was sent", async () => {
		const { complete } = scripted([]);
		const out = await runConsultation(
			input(complete, { approve: async () => ({ send: false, reason: "over budget" }) }),
		);
		expect(out.details).not.toHaveProperty("redactions");
	});
});

describe("usage arithmetic", () => {
	it("adds every field, tolerating missing ones", () => {
		const partial = { input: 1 } as unknown as Usage;
		expect(addUsage(zeroUsage(), partial)).toEqual({ ...zeroUsage(), input: 1 });
		expect(addUsage(usage(1, 2, 0.5), usage(3, 4, 0.25)).cost.total).toBe(0.75);
	});
});
