import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	canonicalModelKey,
	formatColonKey,
	formatModelKey,
	modelDisplayName,
	parseModelKey,
	recordedModelDisplayName,
} from "../../../../src/adapter/extension/pi/model-key.ts";
import { consultingLine } from "../../../../src/adapter/extension/pi/notices.ts";

describe("parseModelKey", () => {
	it.each([
		["anthropic/claude-opus-4-1", "anthropic", "claude-opus-4-1"],
		["anthropic:claude-opus-4-1", "anthropic", "claude-opus-4-1"],
		// The model id keeps every separator after the first one.
		["openrouter/anthropic/claude-sonnet-4", "openrouter", "anthropic/claude-sonnet-4"],
		["openrouter:anthropic/claude-sonnet-4", "openrouter", "anthropic/claude-sonnet-4"],
		["openrouter/deepseek/deepseek-r1:free", "openrouter", "deepseek/deepseek-r1:free"],
		["openrouter:deepseek/deepseek-r1:free", "openrouter", "deepseek/deepseek-r1:free"],
		["ollama:llama3:8b", "ollama", "llama3:8b"],
		["ollama/llama3:8b", "ollama", "llama3:8b"],
		[
			"amazon-bedrock/anthropic.claude-3-5-sonnet-20241022-v2:0",
			"amazon-bedrock",
			"anthropic.claude-3-5-sonnet-20241022-v2:0",
		],
		["  openai/gpt-5  ", "openai", "gpt-5"],
	])("%j → %s + %s", (raw, provider, modelId) => {
		expect(parseModelKey(raw)).toEqual({ provider, modelId });
	});

	it.each(["", "   ", "gpt-5", "/gpt-5", ":gpt-5", "openai/", "openai:", "my provider/gpt-5"])(
		"%j is not a key",
		(raw) => {
			expect(parseModelKey(raw)).toBeUndefined();
		},
	);
});

describe("formatting", () => {
	it("canonical is the slash form; the envelope uses the colon form", () => {
		const key = { provider: "openrouter", modelId: "anthropic/claude-sonnet-4" };
		expect(formatModelKey(key)).toBe("openrouter/anthropic/claude-sonnet-4");
		expect(formatColonKey(key)).toBe("openrouter:anthropic/claude-sonnet-4");
	});

	it("canonicalModelKey turns the legacy form into the slash form", () => {
		expect(canonicalModelKey("ollama:llama3:8b")).toBe("ollama/llama3:8b");
		expect(canonicalModelKey("openai/gpt-5")).toBe("openai/gpt-5");
		expect(canonicalModelKey("gpt-5")).toBeUndefined();
	});

	const provider = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,20}$/);
	const modelId = fc
		.string({ minLength: 1, maxLength: 40, unit: fc.constantFrom(..."abcXYZ019-._/: ") })
		.filter((id) => id.trim() === id && id.length > 0);

	it("property: both forms parse back to the same key", () => {
		fc.assert(
			fc.property(provider, modelId, (p, id) => {
				const key = { provider: p, modelId: id };
				expect(parseModelKey(formatModelKey(key))).toEqual(key);
				expect(parseModelKey(formatColonKey(key))).toEqual(key);
			}),
		);
	});

	it("property: canonicalisation is idempotent", () => {
		fc.assert(
			fc.property(fc.string(), (raw) => {
				const once = canonicalModelKey(raw);
				if (once !== undefined) expect(canonicalModelKey(once)).toBe(once);
			}),
		);
	});
});

describe("one spelling of a model: name and provider/model", () => {
	it("the name, then the slash key; the key alone when the name is missing, blank or the id again", () => {
		expect(modelDisplayName({ provider: "anthropic", id: "claude-opus-4-1", name: "Claude Opus 4.1" })).toBe(
			"Claude Opus 4.1 (anthropic/claude-opus-4-1)",
		);
		expect(modelDisplayName({ provider: "mock", id: "adv-r", name: " Advisor Reasoner " })).toBe(
			"Advisor Reasoner (mock/adv-r)",
		);
		expect(modelDisplayName({ provider: "custom", id: "my-model" })).toBe("custom/my-model");
		expect(modelDisplayName({ provider: "custom", id: "my-model", name: "  " })).toBe("custom/my-model");
		expect(modelDisplayName({ provider: "custom", id: "my-model", name: "my-model" })).toBe("custom/my-model");
	});

	it("a recorded provider:modelId is spelled the same way, named by the registry when it knows the model", () => {
		const registry = [{ provider: "mock", id: "adv-r", name: "Advisor Reasoner" }];
		const find = (provider: string, id: string) => registry.find((m) => m.provider === provider && m.id === id);
		expect(recordedModelDisplayName("mock:adv-r", find)).toBe("Advisor Reasoner (mock/adv-r)");
		expect(recordedModelDisplayName("mock:gone", find)).toBe("mock/gone");
		expect(recordedModelDisplayName("mock:adv-r", undefined)).toBe("mock/adv-r");
		expect(
			recordedModelDisplayName("mock:adv-r", () => {
				throw new Error("registry down");
			}),
		).toBe("mock/adv-r");
		expect(recordedModelDisplayName("nokey", find)).toBeUndefined();
	});

	it("every parseable key round-trips: the displayed key is the canonical one", () => {
		fc.assert(
			fc.property(fc.string({ minLength: 1 }), fc.option(fc.string()), (raw, name) => {
				const key = parseModelKey(raw);
				if (key === undefined) return;
				const shown = recordedModelDisplayName(raw, () =>
					name === null ? undefined : { provider: key.provider, id: key.modelId, name },
				);
				const slash = formatModelKey(key);
				const named = name?.trim();
				expect(shown).toBe(named && named !== key.modelId ? `${named} (${slash})` : slash);
			}),
		);
	});

	it("Consulting advisor: <name (key)>[, <effort>]…", () => {
		expect(consultingLine("Claude Opus 4.1 (anthropic/claude-opus-4-1)", "high")).toBe(
			"Consulting advisor: Claude Opus 4.1 (anthropic/claude-opus-4-1), high…",
		);
		expect(consultingLine("GPT-5 (openai/gpt-5)", "off")).toBe("Consulting advisor: GPT-5 (openai/gpt-5)…");
		expect(consultingLine("openai/gpt-5")).toBe("Consulting advisor: openai/gpt-5…");
	});
});
