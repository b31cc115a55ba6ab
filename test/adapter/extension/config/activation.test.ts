import type { ModelThinkingLevel } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import type { DisabledForModel } from "../../../../src/adapter/extension/config/activation.ts";
import {
	type ActivationInput,
	decideActivation,
	effortRank,
	isDisabledFor,
	isUnusable,
	lookupAdvisorModel,
	matchesModel,
} from "../../../../src/adapter/extension/config/activation.ts";
import type { ModelRef } from "../../../../src/adapter/extension/pi/model-key.ts";
import {
	advisorDisabledFor,
	advisorRestored,
	advisorSelectionUnusable,
	savedSelectionInactive,
} from "../../../../src/adapter/extension/pi/notices.ts";

const opus: ModelRef = { provider: "anthropic", id: "claude-opus-4-1", name: "Claude Opus 4.1" };
const opusViaBedrock: ModelRef = { provider: "amazon-bedrock", id: "claude-opus-4-1" };
const gpt5: ModelRef = { provider: "openai", id: "gpt-5", name: "GPT-5" };
const llama: ModelRef = { provider: "ollama", id: "llama3:8b" };

const REGISTRY = [opus, opusViaBedrock, gpt5, llama];
const find = (provider: string, modelId: string) => REGISTRY.find((m) => m.provider === provider && m.id === modelId);

function input(overrides: Partial<ActivationInput> = {}): ActivationInput {
	const modelKey = "modelKey" in overrides ? overrides.modelKey : "anthropic/claude-opus-4-1";
	return {
		modelKey,
		advisorModel: lookupAdvisorModel(modelKey, find),
		advisorHasCredentials: true,
		executorModel: gpt5,
		executorThinking: "medium",
		disabledForModels: [],
		...overrides,
	};
}

describe("active", () => {
	it("a saved model that is in the registry and differs from the executor", () => {
		expect(decideActivation(input())).toEqual({
			active: true,
			model: opus,
			key: { provider: "anthropic", modelId: "claude-opus-4-1" },
		});
	});

	it("the legacy colon key works the same", () => {
		expect(decideActivation(input({ modelKey: "anthropic:claude-opus-4-1" }))).toMatchObject({ active: true });
	});

	it("before the executor has a model", () => {
		expect(decideActivation(input({ executorModel: undefined }))).toMatchObject({ active: true });
	});
});

describe("no model selected", () => {
	it.each([undefined, "", "   "])("modelKey %j", (modelKey) => {
		expect(decideActivation(input({ modelKey }))).toEqual({ active: false, reason: "no-model" });
	});
});

describe("a saved key that cannot be used: inactive, with why (the file is the adapter's never to write)", () => {
	it("an unparseable key", () => {
		expect(decideActivation(input({ modelKey: "claude" }))).toEqual({
			active: false,
			reason: "not-a-key",
			modelKey: "claude",
		});
	});

	it("a key the registry does not have (a typo, a removed provider), named as written", () => {
		expect(decideActivation(input({ modelKey: "anthropic:claude-2" }))).toEqual({
			active: false,
			reason: "unknown-model",
			modelKey: "anthropic:claude-2",
		});
	});

	it("a lookup result that is not the saved model", () => {
		expect(decideActivation(input({ advisorModel: gpt5 }))).toMatchObject({ reason: "unknown-model" });
	});

	it("a model Pi has no credentials for, with its provider", () => {
		expect(decideActivation(input({ advisorHasCredentials: false }))).toEqual({
			active: false,
			reason: "no-credentials",
			modelKey: "anthropic/claude-opus-4-1",
			provider: "anthropic",
		});
	});

	it("isUnusable tells these three from the other reasons", () => {
		expect(isUnusable(decideActivation(input({ modelKey: "x" })))).toBe(true);
		expect(isUnusable(decideActivation(input({ advisorHasCredentials: false })))).toBe(true);
		expect(isUnusable(decideActivation(input({ modelKey: undefined })))).toBe(false);
		expect(isUnusable(decideActivation(input({ executorModel: opus })))).toBe(false);
		expect(isUnusable(decideActivation(input()))).toBe(false);
	});
});

describe("same model as the executor", () => {
	it("same provider and id", () => {
		expect(decideActivation(input({ executorModel: opus }))).toEqual({ active: false, reason: "same-model" });
	});

	it("same id from another provider", () => {
		expect(decideActivation(input({ executorModel: opusViaBedrock }))).toMatchObject({ reason: "same-model" });
	});

	it.each<ModelThinkingLevel | undefined>(["off", "minimal", "xhigh", undefined])(
		"at any executor effort (%s)",
		(executorThinking) => {
			expect(decideActivation(input({ executorModel: opus, executorThinking }))).toMatchObject({
				reason: "same-model",
			});
		},
	);
});

describe("disabledForModels", () => {
	it.each(["openai/gpt-5", "openai:gpt-5", "gpt-5", " gpt-5 "])("the string %j matches the executor", (entry) => {
		const decision = decideActivation(input({ disabledForModels: [entry] }));
		expect(decision).toEqual({
			active: false,
			reason: "disabled-for-model",
			message: "Advisor disabled for GPT-5 (openai/gpt-5)",
		});
	});

	it.each(["openai/gpt-5-mini", "azure/gpt-5", "gpt-4", "GPT-5"])("the string %j does not", (entry) => {
		expect(decideActivation(input({ disabledForModels: [entry] }))).toMatchObject({ active: true });
	});

	it("a bare id that contains a colon matches as an id", () => {
		expect(matchesModel("llama3:8b", llama)).toBe(true);
		expect(matchesModel("ollama:llama3:8b", llama)).toBe(true);
		expect(matchesModel("ollama/llama3:8b", llama)).toBe(true);
		expect(matchesModel("llama3", llama)).toBe(false);
	});

	it("an entry without minEffort blocks at every level, off and unset included", () => {
		for (const thinking of [undefined, "off", "minimal", "xhigh"] as const) {
			expect(isDisabledFor(gpt5, thinking, [{ model: "gpt-5" }])).toBe(true);
		}
	});

	const levels = ["minimal", "low", "medium", "high", "xhigh"] as const;

	it("minEffort blocks at that level and above (ties block) and lets lower levels through", () => {
		for (const [minIndex, minEffort] of levels.entries()) {
			for (const [levelIndex, level] of levels.entries()) {
				const rule: DisabledForModel = { model: "openai/gpt-5", minEffort };
				expect(isDisabledFor(gpt5, level, [rule]), `${level} vs min ${minEffort}`).toBe(levelIndex >= minIndex);
			}
		}
	});

	it("a tie blocks", () => {
		const decision = decideActivation(
			input({ executorThinking: "high", disabledForModels: [{ model: "gpt-5", minEffort: "high" }] }),
		);
		expect(decision).toMatchObject({ reason: "disabled-for-model" });
	});

	it.each<ModelThinkingLevel | undefined>(["off", undefined])(
		"an executor with thinking %s never matches a minEffort entry",
		(executorThinking) => {
			const decision = decideActivation(
				input({ executorThinking, disabledForModels: [{ model: "gpt-5", minEffort: "minimal" }] }),
			);
			expect(decision).toMatchObject({ active: true });
		},
	);

	it("minEffort only applies to the model it names", () => {
		expect(isDisabledFor(gpt5, "xhigh", [{ model: "anthropic/claude-opus-4-1", minEffort: "minimal" }])).toBe(false);
	});

	it("any matching entry is enough", () => {
		const entries = ["x/y", { model: "gpt-5", minEffort: "xhigh" as const }, "openai:gpt-5"];
		expect(isDisabledFor(gpt5, "low", entries)).toBe(true);
	});

	it("effort order minimal < low < medium < high < xhigh, off below all", () => {
		const ranks = (["off", ...levels] as const).map(effortRank);
		expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
		expect(new Set(ranks).size).toBe(ranks.length);
	});
});

describe("rule order", () => {
	it("an unknown key is reported before anything about the executor", () => {
		expect(
			decideActivation(input({ modelKey: "gone/model", executorModel: opus, disabledForModels: ["gpt-5"] })),
		).toMatchObject({ reason: "unknown-model" });
	});

	it("missing credentials are reported before the executor's own model", () => {
		expect(decideActivation(input({ advisorHasCredentials: false, executorModel: opus }))).toMatchObject({
			reason: "no-credentials",
		});
	});

	it("same-model wins over disabledForModels", () => {
		expect(decideActivation(input({ executorModel: opus, disabledForModels: ["claude-opus-4-1"] }))).toMatchObject({
			reason: "same-model",
		});
	});
});

describe("lookupAdvisorModel", () => {
	it("parses either form and asks the registry", () => {
		expect(lookupAdvisorModel("ollama:llama3:8b", find)).toBe(llama);
		expect(lookupAdvisorModel("ollama/llama3:8b", find)).toBe(llama);
		expect(lookupAdvisorModel("nope", find)).toBeUndefined();
		expect(lookupAdvisorModel(undefined, find)).toBeUndefined();
	});
});

describe("notification texts", () => {
	it("are the documented ones", () => {
		expect(advisorRestored("Claude Opus 4.1")).toBe("Advisor restored: Claude Opus 4.1");
		expect(advisorDisabledFor("openai/gpt-5")).toBe("Advisor disabled for openai/gpt-5");
		const path = "/home/u/.config/pi-advisor-ledger/advisor.json";
		expect(advisorSelectionUnusable({ reason: "unknown-model", modelKey: "mock/adv-2" }, path)).toBe(
			`advisor.json: modelKey "mock/adv-2" in ${path} names no model in Pi's registry (a typo, or a provider that was removed) — advisor off for this session; the file is left as it is`,
		);
		expect(
			advisorSelectionUnusable({ reason: "no-credentials", modelKey: "openai/gpt-5", provider: "openai" }, path),
		).toBe(
			`advisor.json: modelKey "openai/gpt-5" in ${path} has no credentials: Pi has no API key or login for provider openai — advisor off for this session; the file is left as it is`,
		);
		expect(advisorSelectionUnusable({ reason: "not-a-key", modelKey: "gpt-5" }, path)).toBe(
			`advisor.json: modelKey "gpt-5" in ${path} is not a provider/modelId key — advisor off for this session; the file is left as it is`,
		);
		// The key is quoted as JSON: a control character in a hand-written key stays one visible escape.
		expect(advisorSelectionUnusable({ reason: "not-a-key", modelKey: "a\u001bb" }, path)).toContain(
			'modelKey "a\\u001bb"',
		);
		expect(savedSelectionInactive({ reason: "unknown-model", modelKey: "mock/adv-2" })).toBe(
			"saved, inactive: not in Pi's model registry",
		);
		expect(savedSelectionInactive({ reason: "no-credentials", modelKey: "openai/gpt-5", provider: "openai" })).toBe(
			"saved, inactive: no API key or login for openai",
		);
		expect(savedSelectionInactive({ reason: "not-a-key", modelKey: "gpt-5" })).toBe(
			"saved, inactive: not a provider/modelId key",
		);
	});
});
