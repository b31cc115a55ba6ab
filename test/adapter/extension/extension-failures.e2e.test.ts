/**
 * Every failure path that can be provoked on the real host ends as a normal tool result with the
 * exact text of docs/request-format.md, lands in the session log, and leaves nothing in the ledger.
 *
 * The no-model, no-key, same-model and disabled-for paths are "direct calls": Pi fixes a run's tool set
 * when the run starts, so a change made during the run (the advisor model vanishing from the
 * registry, the executor switching model) leaves advisor() callable although reconcile has
 * already stripped it from the active set for the next run.
 */

import { type FauxResponseStep, fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { FAILURE, SKIP_REASONS } from "../../../src/render/index.ts";
import {
	ADVISOR_MODEL,
	ADVISOR_NAME,
	ADVISOR_PROVIDER,
	EXECUTOR_MODEL,
	EXECUTOR_PROVIDER,
	type Host,
	type HostOptions,
	startHost,
} from "../../support/pi-host.ts";

const ADVISOR_KEY = `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`;
let host: Host | undefined;

afterEach(async () => {
	await host?.dispose();
	host = undefined;
});

/**
 * The executor asks once (running `beforeCall` first, inside the run) and then wraps up;
 * `beforeStart` runs after the session started, before the prompt.
 */
async function consultOnce(
	options: Omit<HostOptions, "executor"> & {
		beforeStart?: (host: Host) => void;
		beforeCall?: (host: Host) => void | Promise<void>;
	},
): Promise<Host> {
	const ref: { host?: Host } = {};
	const executor: FauxResponseStep[] = [
		async () => {
			await options.beforeCall?.(ref.host!);
			return fauxAssistantMessage([fauxText("Checking my plan."), fauxToolCall("advisor", {}, { id: "a1" })], {
				stopReason: "toolUse",
			});
		},
		fauxAssistantMessage("Carrying on."),
	];
	host = await startHost({ ...options, executor });
	ref.host = host;
	options.beforeStart?.(host);
	await host.runtime.session.prompt("Do the task.");
	return host;
}

function onlyResult(h: Host) {
	const results = h.advisorResults();
	expect(results).toHaveLength(1);
	const result = results[0]!;
	expect(result.isError).toBe(false);
	return { text: result.content[0]!.text ?? "", details: result.details };
}

describe("no advisor model", () => {
	it("the model is gone from the registry by the time the call runs", async () => {
		const h = await consultOnce({
			advisorConfig: { modelKey: ADVISOR_KEY },
			beforeCall: (h) => h.modelRegistry.unregisterProvider(ADVISOR_PROVIDER),
		});
		const { text, details } = onlyResult(h);
		expect(text).toBe(FAILURE.noModel);
		expect(details).toEqual({ errorMessage: "no advisor model selected" });
		expect(h.advisorCalls).toHaveLength(0);
	});
});

describe("same model as the executor", () => {
	it("skips before any credential lookup, whatever the provider", async () => {
		const h = await consultOnce({
			executorModels: [
				{ id: EXECUTOR_MODEL, reasoning: true },
				{ id: "executor-2", reasoning: true },
			],
			// Same model id from another provider, whose key cannot even be resolved.
			advisorProvider: {
				provider: ADVISOR_PROVIDER,
				models: [{ id: "executor-2", name: "Twin", reasoning: true }],
				apiKey: "!exit 3",
			},
			advisorConfig: { modelKey: `${ADVISOR_PROVIDER}/executor-2`, effort: "low" },
			beforeCall: async (h) => {
				await h.runtime.session.setModel(h.modelRegistry.find(EXECUTOR_PROVIDER, "executor-2")!);
			},
		});
		const { text, details } = onlyResult(h);
		const reason = SKIP_REASONS.sameModel("Twin (advisor-faux/executor-2)");
		expect(text).toBe(FAILURE.skipped(reason));
		expect(text.startsWith(`Advisor skipped: ${reason}`)).toBe(true);
		expect(details).toEqual({
			advisorModel: `${ADVISOR_PROVIDER}:executor-2`,
			effort: "low",
			skipped: true,
			errorMessage: reason,
		});
		expect(h.advisorCalls).toHaveLength(0);
	});
});

describe("disabled for the executor model", () => {
	it("skips, and the switch that disabled it was announced", async () => {
		const h = await consultOnce({
			executorModels: [
				{ id: EXECUTOR_MODEL, reasoning: true },
				{ id: "executor-2", reasoning: true },
			],
			advisorConfig: { modelKey: ADVISOR_KEY, disabledForModels: [`${EXECUTOR_PROVIDER}:executor-2`] },
			beforeCall: async (h) => {
				await h.runtime.session.setModel(h.modelRegistry.find(EXECUTOR_PROVIDER, "executor-2")!);
			},
		});
		const { text, details } = onlyResult(h);
		const reason = SKIP_REASONS.disabledForModel(`${EXECUTOR_PROVIDER}/executor-2`);
		expect(text).toBe(FAILURE.skipped(reason));
		expect(details).toMatchObject({ skipped: true, errorMessage: reason });
		expect(h.notifications).toContainEqual({
			message: `Advisor disabled for ${EXECUTOR_PROVIDER}/executor-2`,
			type: "info",
		});
		expect(h.advisorCalls).toHaveLength(0);
	});
});

describe("credentials", () => {
	it("no API key available (the credentials went during the run: without any, the tool is never active)", async () => {
		const h = await consultOnce({
			advisorProvider: {
				provider: "advisor-nokey",
				models: [{ id: ADVISOR_MODEL, name: ADVISOR_NAME, reasoning: true }],
				oauthWithoutLogin: true,
			},
			advisorConfig: { modelKey: `advisor-nokey/${ADVISOR_MODEL}` },
			beforeStart: (h) => h.modelRegistry.authStorage.set("advisor-nokey", { type: "api_key", key: "sk-gone" }),
			beforeCall: (h) => h.modelRegistry.authStorage.remove("advisor-nokey"),
		});
		const { text, details } = onlyResult(h);
		expect(text).toBe(`Advisor (${ADVISOR_NAME} (advisor-nokey/${ADVISOR_MODEL})) has no API key available.`);
		expect(details).toEqual({
			advisorModel: `advisor-nokey:${ADVISOR_MODEL}`,
			errorMessage: "no API key for advisor-nokey",
		});
		expect(h.advisorCalls).toHaveLength(0);
	});

	it("the registry cannot resolve the configured key", async () => {
		const h = await consultOnce({
			advisorProvider: {
				provider: ADVISOR_PROVIDER,
				models: [{ id: ADVISOR_MODEL, name: ADVISOR_NAME, reasoning: true }],
				apiKey: "!exit 3",
			},
			advisorConfig: { modelKey: ADVISOR_KEY },
		});
		const { text, details } = onlyResult(h);
		expect(details.errorMessage).toMatch(/Failed to resolve API key/);
		expect(text).toBe(`Advisor (${ADVISOR_NAME} (${ADVISOR_KEY})) is misconfigured: ${details.errorMessage}`);
		expect(h.advisorCalls).toHaveLength(0);
	});
});

describe("the provider", () => {
	it("returns an error: the failure is reported, and the next consultation carries no trace of it", async () => {
		// A deterministic error: a transient one is retried once (consult/cost-control-retry.e2e.test.ts).
		const executor: FauxResponseStep[] = [
			fauxAssistantMessage([fauxText("First question."), fauxToolCall("advisor", {}, { id: "a1" })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage([fauxText("Second question."), fauxToolCall("advisor", {}, { id: "a2" })], {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage("Carrying on."),
		];
		host = await startHost({
			advisorConfig: { modelKey: ADVISOR_KEY },
			executor,
			advisor: [
				fauxAssistantMessage([], { stopReason: "error", errorMessage: "400 invalid request: unknown parameter" }),
				fauxAssistantMessage("Severity: none\nFine."),
			],
		});
		await host.runtime.session.prompt("Do the task.");
		const [failed, ok] = host.advisorResults();
		expect(failed!.content[0]!.text).toBe("Advisor call failed: 400 invalid request: unknown parameter");
		expect(failed!.details).toMatchObject({
			advisorModel: `${ADVISOR_PROVIDER}:${ADVISOR_MODEL}`,
			stopReason: "error",
			errorMessage: "400 invalid request: unknown parameter",
			attempts: [{ stopReason: "error", errorMessage: "400 invalid request: unknown parameter" }],
		});
		expect(failed!.details.usage).toBeDefined();
		expect(ok!.details.severity).toBe("none");
		// Failed consultations leave nothing: the second request replays no advice and no error,
		// only the executor's own prose from beside the failed call.
		const second = host.advisorCalls[1]!.context.messages;
		expect(second.some((m) => m.role === "assistant")).toBe(false);
		expect(JSON.stringify(second)).not.toContain("400 invalid request: unknown parameter");
		expect(JSON.stringify(second)).toContain("First question.");
		expect(JSON.stringify(second)).not.toContain("<question>\\nFirst question.");
		expect(JSON.stringify(second)).toContain("Do the task.");
	});

	it("answers with no text", async () => {
		const h = await consultOnce({
			advisorConfig: { modelKey: ADVISOR_KEY },
			// An empty answer is asked again once; empty twice is reported.
			advisor: [fauxAssistantMessage(""), fauxAssistantMessage("")],
		});
		const { text, details } = onlyResult(h);
		expect(text).toBe(FAILURE.empty);
		expect(details).toMatchObject({ stopReason: "stop", errorMessage: "empty response" });
		expect(details.attempts).toHaveLength(2);
		expect(h.advisorCalls).toHaveLength(2);
	});
});

describe("cancellation", () => {
	it("the executor's run is aborted while the advisor is answering", async () => {
		const ref: { host?: Host } = {};
		const h = await consultOnce({
			advisorConfig: { modelKey: ADVISOR_KEY },
			advisor: [
				() => {
					void ref.host!.runtime.session.abort();
					return fauxAssistantMessage("Severity: none\nToo late.");
				},
			],
			beforeCall: (h) => {
				ref.host = h;
			},
		});
		const { text, details } = onlyResult(h);
		expect(text).toBe(FAILURE.cancelled);
		expect(details).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted" });
		expect(h.advisorCalls).toHaveLength(1);
	});
});
