/**
 * The warming refresh guard on REAL payloads: pi-ai's own serialisers build the request
 * body for openai-responses, openai-completions and anthropic-messages; `onPayload` captures it and
 * throws, so the request ends before any network I/O (the base URLs point at 127.0.0.1:1 too).
 */
import { type Api, completeSimple, getModel, type Model, type ThinkingLevel } from "@mariozechner/pi-ai";
import { beforeEach, describe, expect, it } from "vitest";
import { withCacheMarks } from "../../../src/adapter/extension/consult/payload-cache-marks.ts";
import type { LedgerEvent } from "../../../src/events/index.ts";
import {
	canonicalPayload,
	payloadHash,
	payloadOutputCap,
	refreshGuard,
	WARMING_OUTPUT_TOKENS,
} from "../../../src/policy/warming/payload-hash.ts";
import { ledgerOf } from "../../../src/reducers/index.ts";
import { buildContext, DEFAULT_LEDGER_CONFIG, type LedgerRequest, renderRequest } from "../../../src/render/index.ts";
import { assistant, call, resetParents, result, user } from "../../support/events.ts";

beforeEach(() => resetParents());

const OFFLINE = "http://127.0.0.1:1";

const MODELS: Record<string, Model<Api>> = {
	"anthropic-messages (budget thinking)": { ...getModel("anthropic", "claude-sonnet-4-5"), baseUrl: OFFLINE },
	"anthropic-messages (adaptive thinking)": { ...getModel("anthropic", "claude-opus-4-6"), baseUrl: OFFLINE },
	"openai-responses": { ...getModel("openai", "gpt-5"), baseUrl: OFFLINE },
	// OpenAI's own host (pi-ai sends prompt_cache_key only there): the URL contains it but goes nowhere.
	"openai-completions (max_completion_tokens)": {
		...getModel("openai", "gpt-4.1"),
		api: "openai-completions",
		baseUrl: `${OFFLINE}/api.openai.com/v1`,
	},
	"openai-completions (max_tokens)": {
		...getModel("openai", "gpt-4.1"),
		api: "openai-completions",
		baseUrl: OFFLINE,
		compat: { maxTokensField: "max_tokens" },
	},
};

function ledgerRequest(extraUserText = ""): LedgerRequest {
	const events: LedgerEvent[] = [
		user("u1", `make the parser accept trailing commas${extraUserText}`),
		assistant("a1", { text: "Reading.", calls: [call("c1", "read", { path: "src/parse.ts" })] }),
		result("r1", "c1", "read", "export function parse(s: string) {\n  return JSON.parse(s);\n}\n".repeat(40)),
		assistant("a2", { text: "Should I write my own tokenizer?", calls: [call("adv", "advisor")] }),
	];
	return renderRequest(ledgerOf(events), {
		config: DEFAULT_LEDGER_CONFIG,
		catalogue: [
			{ name: "read", description: "Read a file." },
			{ name: "advisor", description: "Ask the advisor." },
		],
		tools: [
			{
				name: "advisor_expand",
				description: "Expand ids.",
				parameters: { type: "object", properties: { ids: { type: "array", items: { type: "string" } } } } as never,
			},
		],
		toolsMode: "repo",
		mode: "consult",
	});
}

interface Capture {
	maxTokens?: number;
	reasoning?: ThinkingLevel;
	sessionId?: string;
	request?: LedgerRequest;
}

/** The payload pi-ai would send, as the adapter's onPayload would leave it (Anthropic: with the stable breakpoint). */
async function capture(model: Model<Api>, opts: Capture = {}): Promise<unknown> {
	const request = opts.request ?? ledgerRequest();
	let payload: unknown;
	const message = await completeSimple(model, buildContext(request), {
		apiKey: "test-key",
		sessionId: opts.sessionId ?? "advisor:s1",
		...(opts.maxTokens === undefined ? {} : { maxTokens: opts.maxTokens }),
		...(opts.reasoning === undefined ? {} : { reasoning: opts.reasoning }),
		onPayload: (p) => {
			const marked =
				model.api === "anthropic-messages"
					? withCacheMarks(p, buildContext(request), [request.stable], model.api)
					: undefined;
			payload = structuredClone(marked ?? p);
			throw new Error("captured before sending");
		},
	});
	expect(message.stopReason).toBe("error");
	expect(message.errorMessage).toBe("captured before sending");
	return payload;
}

describe.each(Object.entries(MODELS))("%s", (_, model) => {
	it("the consultation (default cap, or 32000) and its 16-token refresh hash equal; the caps differ", async () => {
		const original = await capture(model);
		const explicit = await capture(model, { maxTokens: 32_000 });
		const refresh = await capture(model, { maxTokens: WARMING_OUTPUT_TOKENS });
		expect(JSON.stringify(refresh)).not.toBe(JSON.stringify(original));
		expect(payloadHash(refresh, model.api)).toBe(payloadHash(original, model.api));
		expect(payloadHash(explicit, model.api)).toBe(payloadHash(original, model.api));
	});

	it("with reasoning on, too", async () => {
		const original = await capture(model, { reasoning: "high" });
		const refresh = await capture(model, { reasoning: "high", maxTokens: WARMING_OUTPUT_TOKENS });
		expect(payloadHash(refresh, model.api)).toBe(payloadHash(original, model.api));
	});

	it("a changed message changes the hash", async () => {
		const original = await capture(model);
		const changed = await capture(model, {
			request: ledgerRequest(" and comments"),
			maxTokens: WARMING_OUTPUT_TOKENS,
		});
		expect(payloadHash(changed, model.api)).not.toBe(payloadHash(original, model.api));
	});

	it("a guard passes the 16-token refresh of the same payload, and refuses a changed one", async () => {
		const originalHash = payloadHash(await capture(model), model.api);
		const refresh = await capture(model, { maxTokens: WARMING_OUTPUT_TOKENS });
		expect(refreshGuard({ originalHash, payload: refresh, api: model.api })).toEqual({
			send: true,
			hash: originalHash,
			outputCap: WARMING_OUTPUT_TOKENS,
		});
		const changed = await capture(model, { request: ledgerRequest("!"), maxTokens: WARMING_OUTPUT_TOKENS });
		expect(refreshGuard({ originalHash, payload: changed, api: model.api })).toMatchObject({
			send: false,
			reason: "payload-changed",
		});
	});
});

describe("what the hash keeps", () => {
	it("reasoning effort is part of it (a thinking change drops Anthropic's cached messages)", async () => {
		for (const model of Object.values(MODELS)) {
			if (!model.reasoning) continue;
			const high = payloadHash(await capture(model, { reasoning: "high" }), model.api);
			const low = payloadHash(await capture(model, { reasoning: "low" }), model.api);
			const off = payloadHash(await capture(model), model.api);
			expect(new Set([high, low, off]).size, model.id).toBe(3);
		}
	});

	it("the prompt cache key is part of it (OpenAI routes the cache by it)", async () => {
		const model = MODELS["openai-responses"]!;
		const a = payloadHash(await capture(model, { sessionId: "advisor:s1" }), model.api);
		const b = payloadHash(await capture(model, { sessionId: "advisor:s2" }), model.api);
		expect(a).not.toBe(b);
	});

	it("the Anthropic stable-prefix breakpoint is part of it", async () => {
		const model = MODELS["anthropic-messages (budget thinking)"]!;
		const marked = await capture(model);
		const request = ledgerRequest();
		let plain: unknown;
		await completeSimple(model, buildContext(request), {
			apiKey: "k",
			onPayload: (p) => {
				plain = structuredClone(p);
				throw new Error("captured");
			},
		});
		expect(JSON.stringify(plain)).not.toBe(JSON.stringify(marked));
		expect(payloadHash(plain, model.api)).not.toBe(payloadHash(marked, model.api));
	});

	it.each([
		["model", (p: Record<string, unknown>) => ({ ...p, model: "other" })],
		["system", (p: Record<string, unknown>) => ({ ...p, system: [{ type: "text", text: "other" }] })],
		["tools", (p: Record<string, unknown>) => ({ ...p, tools: [] })],
		["thinking", (p: Record<string, unknown>) => ({ ...p, thinking: { type: "enabled", budget_tokens: 1024 } })],
		["stream", (p: Record<string, unknown>) => ({ ...p, stream: false })],
		["temperature", (p: Record<string, unknown>) => ({ ...p, temperature: 0.5 })],
		[
			"a cache marker",
			(p: Record<string, unknown>) =>
				JSON.parse(JSON.stringify(p).replace('"ephemeral"}', '"ephemeral","ttl":"1h"}')),
		],
	])("anthropic-messages: changing %s changes it", async (_, change) => {
		const model = MODELS["anthropic-messages (budget thinking)"]!;
		const payload = (await capture(model)) as Record<string, unknown>;
		expect(payloadHash(change(payload), model.api)).not.toBe(payloadHash(payload, model.api));
	});
});

describe("canonical form", () => {
	it("key order never matters; array order does; undefined members are dropped", () => {
		const a = { b: 1, a: { y: [1, 2], x: "s" }, u: undefined };
		const b = { a: { x: "s", y: [1, 2] }, b: 1 };
		expect(payloadHash(a, "anthropic-messages")).toBe(payloadHash(b, "anthropic-messages"));
		expect(payloadHash({ ...b, a: { x: "s", y: [2, 1] } }, "anthropic-messages")).not.toBe(
			payloadHash(b, "anthropic-messages"),
		);
		expect(canonicalPayload(a, "x")).toBe('{"a":{"x":"s","y":[1,2]},"b":1}');
	});

	it("the API is part of the hash", () => {
		expect(payloadHash({ a: 1 }, "openai-responses")).not.toBe(payloadHash({ a: 1 }, "openai-completions"));
	});

	type Payload = Record<string, unknown> & {
		config: Record<string, unknown>;
		inferenceConfig: Record<string, unknown>;
	};
	const base = (): Payload => ({
		model: "m",
		messages: [{ role: "user", content: "hi" }],
		config: { temperature: 1 },
		inferenceConfig: { temperature: 1 },
	});
	it.each<[string, (p: Payload, n: number) => void]>([
		["anthropic-messages", (p, n) => (p.max_tokens = n)],
		["openai-completions", (p, n) => (p.max_completion_tokens = n)],
		["openai-completions", (p, n) => (p.max_tokens = n)],
		["openai-responses", (p, n) => (p.max_output_tokens = n)],
		["azure-openai-responses", (p, n) => (p.max_output_tokens = n)],
		["bedrock-converse-stream", (p, n) => (p.inferenceConfig.maxTokens = n)],
		["google-generative-ai", (p, n) => (p.config.maxOutputTokens = n)],
		["google-vertex", (p, n) => (p.config.maxOutputTokens = n)],
		["mistral-conversations", (p, n) => (p.maxTokens = n)],
		["some-new-api", (p, n) => (p.max_tokens = n)],
		["some-new-api", (p, n) => (p.maxTokens = n)],
	])("%s: the cap is excluded from the hash and read back (%s)", (api, setCap) => {
		const small = base();
		setCap(small, 16);
		const large = base();
		setCap(large, 32_000);
		expect(payloadHash(small, api)).toBe(payloadHash(large, api));
		expect(payloadHash(small, api)).toBe(payloadHash(base(), api));
		expect(payloadOutputCap(small, api)).toBe(16);
		expect(payloadOutputCap(base(), api)).toBeUndefined();
	});

	it("a cap-like field at another path is kept (it is not the cap of that API)", () => {
		const a = { ...base(), max_tokens: 16 };
		const b = { ...base(), max_tokens: 32_000 };
		expect(payloadHash(a, "openai-responses")).not.toBe(payloadHash(b, "openai-responses"));
	});

	it("a nested path excludes only that member", () => {
		const a = { inferenceConfig: { maxTokens: 16, temperature: 1 } };
		const b = { inferenceConfig: { maxTokens: 32000, temperature: 0 } };
		expect(payloadHash(a, "bedrock-converse-stream")).not.toBe(payloadHash(b, "bedrock-converse-stream"));
	});
});

describe("the output-cap guard", () => {
	it("Anthropic budget-based thinking lifts the cap by the thinking budget: the refresh is refused", async () => {
		const model = MODELS["anthropic-messages (budget thinking)"]!;
		const original = await capture(model, { reasoning: "high" });
		const refresh = await capture(model, { reasoning: "high", maxTokens: WARMING_OUTPUT_TOKENS });
		const guard = refreshGuard({ originalHash: payloadHash(original, model.api), payload: refresh, api: model.api });
		expect(guard).toMatchObject({ send: false, reason: "output-cap", outputCap: 16 + 16_384 });
	});

	it("adaptive thinking keeps the 16-token cap", async () => {
		const model = MODELS["anthropic-messages (adaptive thinking)"]!;
		const original = await capture(model, { reasoning: "high" });
		const refresh = await capture(model, { reasoning: "high", maxTokens: WARMING_OUTPUT_TOKENS });
		expect(
			refreshGuard({ originalHash: payloadHash(original, model.api), payload: refresh, api: model.api }),
		).toMatchObject({
			send: true,
			outputCap: 16,
		});
	});

	it("a payload with no cap (openai-codex-responses) is refused", () => {
		const payload = { model: "gpt-5-codex", input: [] };
		const originalHash = payloadHash(payload, "openai-codex-responses");
		expect(refreshGuard({ originalHash, payload, api: "openai-codex-responses" })).toMatchObject({
			send: false,
			reason: "output-cap",
			outputCap: undefined,
		});
	});
});
