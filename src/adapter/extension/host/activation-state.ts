/**
 * The extension's live state (the loaded advisor.json, the last activation decision, the folded
 * ledger) and `reconcile`, which every lifecycle hook runs: decide whether advisor() belongs in
 * the active tool set (docs/architecture.md) and make it so. Off costs nothing: a stripped tool takes its
 * prompt snippet and guidelines out of the executor's system prompt with it.
 */

import type { Api, Model, ModelThinkingLevel } from "@mariozechner/pi-ai";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { ADVISOR_TOOL_NAME } from "../../../events/index.ts";
import {
	type Activation,
	decideActivation,
	isUnusable,
	lookupAdvisorModel,
	type UnusableSelection,
} from "../config/activation.ts";
import type { ConfigLocation } from "../config/file.ts";
import { type AdvisorConfig, type LoadedConfig, loadConfig } from "../config/load.ts";
import { createSessionLedger, type SessionLedger } from "../consult/session-ledger.ts";
import { formatModelKey, type ModelRef, modelDisplayName, modelKeyOf } from "../pi/model-key.ts";
import { advisorRestored, advisorSelectionUnusable } from "../pi/notices.ts";
import { say } from "../pi/say.ts";

export interface AdvisorRuntime {
	readonly location: ConfigLocation;
	loaded: LoadedConfig;
	/** The decision of the last reconcile; undefined before the first. */
	activation: Activation<Model<Api>> | undefined;
	readonly ledger: SessionLedger;
	/** The executor the "disabled for" notice was last shown for, so it is said once per change. */
	disabledNoticeFor: string | undefined;
	/** The warning last said about an unusable saved modelKey; cleared at session start. */
	unusableNotice: string | undefined;
	/**
	 * The model registry of the last reconcile, so the result card can spell a recorded
	 * `provider:modelId` the way the rest of the extension does (name and key).
	 */
	findModel: ((provider: string, modelId: string) => ModelRef | undefined) | undefined;
	/**
	 * The guidance advisor() was last registered with (consult/advisor-tool.ts `guidanceKey`), so a
	 * re-read of advisor.json or `/advisor watch` re-registers it when the wording changed.
	 */
	registeredGuidance: string | undefined;
}

export function createAdvisorRuntime(location: ConfigLocation = {}): AdvisorRuntime {
	const runtime: AdvisorRuntime = {
		location,
		loaded: loadConfig(location),
		activation: undefined,
		// The ledger's events are redacted with the config of the moment: a re-read that changes it refolds.
		ledger: createSessionLedger(() => ({
			privacy: runtime.loaded.config.privacy,
			denyPatterns: runtime.loaded.config.tools.denyPatterns,
		})),
		disabledNoticeFor: undefined,
		unusableNotice: undefined,
		findModel: undefined,
		registeredGuidance: undefined,
	};
	return runtime;
}

/** Re-reads advisor.json; the warnings (at most one) are the caller's to show. */
export function reloadConfig(runtime: AdvisorRuntime): readonly string[] {
	runtime.loaded = loadConfig(runtime.location);
	return runtime.loaded.warnings;
}

export function currentConfig(runtime: AdvisorRuntime): AdvisorConfig {
	return runtime.loaded.config;
}

// The announcement is once per process, and Pi loads a fresh copy of the extension for every
// session (jiti without a module cache), so the flag cannot live in module scope.
const RESTORED_ANNOUNCED = Symbol.for("pi-advisor-ledger.restoredAnnounced");

function globalFlags(): Record<symbol, unknown> {
	return globalThis as unknown as Record<symbol, unknown>;
}

export function restoredAnnounced(): boolean {
	return globalFlags()[RESTORED_ANNOUNCED] === true;
}

/** For tests that start several sessions in one process. */
export function resetRestoredAnnouncement(): void {
	delete globalFlags()[RESTORED_ANNOUNCED];
}

type ReconcilePi = Pick<ExtensionAPI, "getActiveTools" | "setActiveTools" | "getThinkingLevel">;
type ReconcileCtx = Pick<ExtensionContext, "model" | "modelRegistry" | "ui" | "hasUI">;

export function setToolActive(pi: Pick<ExtensionAPI, "getActiveTools" | "setActiveTools">, active: boolean): void {
	const names = pi.getActiveTools();
	const has = names.includes(ADVISOR_TOOL_NAME);
	if (active && !has) pi.setActiveTools([...names, ADVISOR_TOOL_NAME]);
	else if (!active && has) pi.setActiveTools(names.filter((name) => name !== ADVISOR_TOOL_NAME));
}

type Registry = Pick<ExtensionContext["modelRegistry"], "find" | "hasConfiguredAuth">;

function decide(
	runtime: AdvisorRuntime,
	registry: Registry,
	executorModel: ModelRef | undefined,
	executorThinking: ModelThinkingLevel | undefined,
): { advisorModel: Model<Api> | undefined; activation: Activation<Model<Api>> } {
	const config = runtime.loaded.config;
	const advisorModel = lookupAdvisorModel(config.modelKey, (provider, id) => registry.find(provider, id));
	const activation = decideActivation({
		modelKey: config.modelKey,
		advisorModel,
		// The registry's own answer, without a network call (no token refresh): what /advisor lists.
		advisorHasCredentials: advisorModel !== undefined && registry.hasConfiguredAuth(advisorModel),
		executorModel,
		executorThinking,
		disabledForModels: config.disabledForModels,
	});
	return { advisorModel, activation };
}

/** Why the saved modelKey cannot be used now, if it cannot (whatever the executor): for /advisor. */
export function unusableSelection(runtime: AdvisorRuntime, registry: Registry): UnusableSelection | undefined {
	const { activation } = decide(runtime, registry, undefined, undefined);
	return isUnusable(activation) ? activation : undefined;
}

export interface ReconcileOptions {
	/** session_start: say `Advisor restored: …` if this process has not said it yet. */
	announceRestore?: boolean;
	/**
	 * Where the warning about an unusable saved modelKey goes (session_start shows it with the
	 * config warnings, after Pi has rebuilt its chat); default a warning notice.
	 */
	warn?: (message: string) => void;
}

/**
 * The warning about an unusable saved modelKey, once per session start (lifecycle clears
 * `unusableNotice` there) and once per change: the file is never rewritten for it
 * (docs/configuration.md), so without this the user would not know why the advisor is off.
 */
function noteUnusable(
	runtime: AdvisorRuntime,
	activation: Activation<Model<Api>>,
	warn: (message: string) => void,
): { recovered: boolean } {
	const previous = runtime.unusableNotice;
	if (isUnusable(activation)) {
		const message = advisorSelectionUnusable(activation, runtime.loaded.path);
		if (message !== previous) warn(message);
		runtime.unusableNotice = message;
		return { recovered: false };
	}
	runtime.unusableNotice = undefined;
	// The same saved key became usable in this session (a login, a key set): it applies from now on.
	return { recovered: previous !== undefined && activation.active };
}

function noteDisabled(ctx: ReconcileCtx, runtime: AdvisorRuntime, activation: Activation<Model<Api>>): void {
	if (!activation.active && activation.reason === "disabled-for-model" && ctx.model) {
		const executor = formatModelKey(modelKeyOf(ctx.model));
		if (runtime.disabledNoticeFor !== executor) say(ctx, activation.message, "info");
		runtime.disabledNoticeFor = executor;
	} else {
		runtime.disabledNoticeFor = undefined;
	}
}

/**
 * Decides and applies. advisor.json is never written here: a saved model that is not usable turns
 * the advisor off for the session with one warning, and the file keeps the user's choice.
 */
export function reconcile(
	pi: ReconcilePi,
	ctx: ReconcileCtx,
	runtime: AdvisorRuntime,
	options: ReconcileOptions = {},
): Activation<Model<Api>> {
	const registry = ctx.modelRegistry;
	runtime.findModel = (provider, id) => registry.find(provider, id);
	const { advisorModel, activation } = decide(runtime, registry, ctx.model, pi.getThinkingLevel());
	setToolActive(pi, activation.active);
	noteDisabled(ctx, runtime, activation);
	const { recovered } = noteUnusable(runtime, activation, options.warn ?? ((m) => say(ctx, m, "warning")));

	const announce = recovered || (options.announceRestore === true && !restoredAnnounced());
	if (announce && advisorModel !== undefined && !isUnusable(activation)) {
		globalFlags()[RESTORED_ANNOUNCED] = true;
		say(ctx, advisorRestored(modelDisplayName(advisorModel)), "info");
	}
	runtime.activation = activation;
	return activation;
}
