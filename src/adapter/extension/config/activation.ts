/**
 * The selection keys of advisor.json (`modelKey`, `effort`, `disabledForModels`; docs/configuration.md)
 * and the rule that reads them: whether the advisor() tool belongs in the executor's active set
 * (docs/architecture.md). Pure, so every lifecycle hook can re-run it and the answer depends only on
 * what it is given. `effort` is applied where the request is built (consult/advisor-tool.ts: sent only
 * to a reasoning model).
 */

import type { ModelThinkingLevel, ThinkingLevel } from "@mariozechner/pi-ai";
import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import {
	type ModelKey,
	type ModelRef,
	modelDisplayName,
	parseModelKey,
	type UnusableSelection,
} from "../pi/model-key.ts";
import { advisorDisabledFor } from "../pi/notices.ts";
import type { Assert, Same } from "./section.ts";

// ---------------------------------------------------------------------------------------------
// The keys
// ---------------------------------------------------------------------------------------------

/** pi-ai's reasoning levels, lowest first; disabledForModels' minEffort compares in this order. */
export const EFFORT_LEVELS = Object.freeze([
	"minimal",
	"low",
	"medium",
	"high",
	"xhigh",
] as const) satisfies readonly ThinkingLevel[];

/** A level as resolved: pi-ai's ThinkingLevel. */
const ResolvedLevelSchema = Type.Union([
	Type.Literal("minimal"),
	Type.Literal("low"),
	Type.Literal("medium"),
	Type.Literal("high"),
	Type.Literal("xhigh"),
]);

export type EffortLevel = Static<typeof ResolvedLevelSchema>;
export type EffortFitsPiAi = Assert<Same<EffortLevel, ThinkingLevel>>;
export type EffortLevelsComplete = Assert<Same<(typeof EFFORT_LEVELS)[number], EffortLevel>>;

/** A level as written: also the provider-side name of the top level (pi-ai maps xhigh to "max" on models that have it). */
export const LevelSchema = Type.Union([ResolvedLevelSchema, Type.Literal("max")]);

/** `effort` as written: absent = no reasoning sent, `off` the same. */
export const EffortSchema = Type.Union([LevelSchema, Type.Literal("off")]);

/** `modelKey` as written: activation parses it, so an unparseable key is reported with the others it cannot use. */
export const ModelKeySchema = Type.String();

/** One `disabledForModels` entry as written. */
export const DisabledEntrySchema = Type.Union([
	Type.String({ minLength: 1 }),
	Type.Object({ model: Type.String({ minLength: 1 }), minEffort: Type.Optional(LevelSchema) }),
]);

/** One `disabledForModels` entry as resolved. */
export const DisabledForModelSchema = Type.Object({
	/** `provider/modelId`, legacy `provider:modelId`, or a bare modelId (any provider). */
	model: Type.String({ minLength: 1 }),
	/** Only block when the executor thinks at least this hard; absent blocks at every level. */
	minEffort: Type.Optional(ResolvedLevelSchema),
});

export type DisabledForModel = Static<typeof DisabledForModelSchema>;

function toLevel(level: Static<typeof LevelSchema>): ThinkingLevel {
	return level === "max" ? "xhigh" : level;
}

/** `effort` as resolved: `max` reads as `xhigh`, `off` as absent. */
export function toEffort(effort: Static<typeof EffortSchema> | undefined): ThinkingLevel | undefined {
	return effort === undefined || effort === "off" ? undefined : toLevel(effort);
}

/** Entries are independent rules: a typo in one must not re-enable the advisor for the others. */
export function readDisabledForModels(value: unknown, bad: string[]): DisabledForModel[] {
	if (value === undefined || value === null) return [];
	if (!Array.isArray(value)) {
		bad.push("disabledForModels");
		return [];
	}
	const out: DisabledForModel[] = [];
	value.forEach((entry, i) => {
		if (!Value.Check(DisabledEntrySchema, entry)) {
			bad.push(`disabledForModels[${i}]`);
			return;
		}
		if (typeof entry === "string") out.push({ model: entry });
		else
			out.push(
				entry.minEffort ? { model: entry.model, minEffort: toLevel(entry.minEffort) } : { model: entry.model },
			);
	});
	return out;
}

// ---------------------------------------------------------------------------------------------
// The rule
// ---------------------------------------------------------------------------------------------

export type { UnusableSelection };

export type UnusableReason = UnusableSelection["reason"];

export type InactiveReason = "no-model" | UnusableReason | "same-model" | "disabled-for-model";

export type Activation<M extends ModelRef = ModelRef> =
	| { active: true; model: M; key: ModelKey }
	| { active: false; reason: "no-model" | "same-model" }
	/** `message` is for the user: the change is worth telling them about. */
	| { active: false; reason: "disabled-for-model"; message: string }
	| ({ active: false } & UnusableSelection);

export interface ActivationInput<M extends ModelRef = ModelRef> {
	/** advisor.json's modelKey as written. */
	modelKey: string | undefined;
	/** The registry's answer for that key (see lookupAdvisorModel); undefined when it has none. */
	advisorModel: M | undefined;
	/**
	 * Whether Pi has credentials for advisorModel's provider, as the registry knows without a
	 * network call (the test `/advisor`'s list applies); ignored without a model.
	 */
	advisorHasCredentials: boolean;
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

/** The activation of an unusable selection, the variant that carries why. */
export function isUnusable<M extends ModelRef>(
	activation: Activation<M>,
): activation is Extract<Activation<M>, { modelKey: string }> {
	return "modelKey" in activation;
}

export function decideActivation<M extends ModelRef>(input: ActivationInput<M>): Activation<M> {
	const { modelKey, advisorModel, executorModel } = input;
	if (modelKey === undefined || modelKey.trim() === "") return { active: false, reason: "no-model" };
	const key = parseModelKey(modelKey);
	if (!key) return { active: false, reason: "not-a-key", modelKey };
	// The registry is the authority: a model it returns under another key would not be the one saved.
	if (!advisorModel || advisorModel.provider !== key.provider || advisorModel.id !== key.modelId) {
		return { active: false, reason: "unknown-model", modelKey };
	}
	if (!input.advisorHasCredentials)
		return { active: false, reason: "no-credentials", modelKey, provider: key.provider };
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
