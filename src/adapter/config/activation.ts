/**
 * Whether the advisor() tool belongs in the executor's active set (docs/architecture.md). Pure, so every
 * lifecycle hook can re-run it and the answer depends only on what it is given.
 */

import type { ModelThinkingLevel, ThinkingLevel } from "@mariozechner/pi-ai";
import { canonicalModelKey, type ModelKey, type ModelRef, modelDisplayName, parseModelKey } from "../pi/model-key.ts";
import { advisorDisabledFor, advisorModelGone } from "../pi/notices.ts";
import { type DisabledForModel, EFFORT_LEVELS } from "./load.ts";

export type InactiveReason = "no-model" | "stale-model" | "same-model" | "disabled-for-model";

export type Activation<M extends ModelRef = ModelRef> =
	| { active: true; model: M; key: ModelKey }
	| {
			active: false;
			reason: InactiveReason;
			/** The saved modelKey no longer names a model: remove it from advisor.json. */
			clearStale?: boolean;
			/** For the user, when the change is worth telling them about. */
			message?: string;
	  };

export interface ActivationInput<M extends ModelRef = ModelRef> {
	/** advisor.json's modelKey as written. */
	modelKey: string | undefined;
	/** The registry's answer for that key (see lookupAdvisorModel); undefined when it has none. */
	advisorModel: M | undefined;
	/** ctx.model; undefined before a model is chosen. */
	executorModel: ModelRef | undefined;
	/** The executor's thinking level; undefined when unknown. */
	executorThinking: ModelThinkingLevel | undefined;
	disabledForModels: readonly (string | DisabledForModel)[];
}

/** Parses the saved key and asks the registry (e.g. `(p, id) => ctx.modelRegistry.find(p, id)`). */
export function lookupAdvisorModel<M extends ModelRef>(
	modelKey: string | undefined,
	find: (provider: string, modelId: string) => M | undefined,
): M | undefined {
	const key = modelKey === undefined ? undefined : parseModelKey(modelKey);
	return key ? find(key.provider, key.modelId) : undefined;
}

export function decideActivation<M extends ModelRef>(input: ActivationInput<M>): Activation<M> {
	const { modelKey, advisorModel, executorModel } = input;
	if (modelKey === undefined || modelKey.trim() === "") return { active: false, reason: "no-model" };
	const key = parseModelKey(modelKey);
	// The registry is the authority: a model it returns under another key would not be the one saved.
	if (!key || !advisorModel || advisorModel.provider !== key.provider || advisorModel.id !== key.modelId) {
		return {
			active: false,
			reason: "stale-model",
			clearStale: true,
			message: advisorModelGone(canonicalModelKey(modelKey) ?? modelKey),
		};
	}
	// Asking a model to review itself adds cost without a second opinion, whoever serves it.
	if (executorModel && executorModel.id === advisorModel.id) return { active: false, reason: "same-model" };
	if (executorModel && isDisabledFor(executorModel, input.executorThinking, input.disabledForModels)) {
		return {
			active: false,
			reason: "disabled-for-model",
			message: advisorDisabledFor(modelDisplayName(executorModel)),
		};
	}
	return { active: true, model: advisorModel, key };
}

/** A string names the executor as `provider/modelId`, `provider:modelId` or a bare modelId. */
export function matchesModel(entry: string, model: ModelRef): boolean {
	const text = entry.trim();
	// Checked first because bare ids contain separators too (`llama3:8b`, `anthropic/claude-sonnet-4`).
	if (text === model.id) return true;
	const key = parseModelKey(text);
	return key !== undefined && key.provider === model.provider && key.modelId === model.id;
}

/** minimal < low < medium < high < xhigh; -1 for off, so it sits below every threshold. */
export function effortRank(level: ModelThinkingLevel): number {
	return level === "off" ? -1 : EFFORT_LEVELS.indexOf(level);
}

function meetsMinEffort(thinking: ModelThinkingLevel | undefined, minEffort: ThinkingLevel): boolean {
	// An executor that sends no reasoning is never "at least" any effort.
	if (thinking === undefined || thinking === "off") return false;
	return effortRank(thinking) >= effortRank(minEffort);
}

export function isDisabledFor(
	executor: ModelRef,
	thinking: ModelThinkingLevel | undefined,
	entries: readonly (string | DisabledForModel)[],
): boolean {
	return entries.some((entry) => {
		const rule: DisabledForModel = typeof entry === "string" ? { model: entry } : entry;
		if (!matchesModel(rule.model, executor)) return false;
		return rule.minEffort === undefined || meetsMinEffort(thinking, rule.minEffort);
	});
}
