/**
 * The extension's live state (the loaded advisor.json, the last activation decision, the folded
 * ledger) and `reconcile`, which every lifecycle hook runs: decide whether advisor() belongs in
 * the active tool set (docs/architecture.md) and make it so. Off costs nothing: a stripped tool takes its
 * prompt snippet and guidelines out of the executor's system prompt with it.
 */

import type { Api, Model } from "@mariozechner/pi-ai";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { ADVISOR_TOOL_NAME } from "../../events/index.ts";
import { type Activation, decideActivation, lookupAdvisorModel } from "../config/activation.ts";
import type { ConfigLocation } from "../config/file.ts";
import { type AdvisorConfig, type LoadedConfig, loadConfig } from "../config/load.ts";
import { saveSelection } from "../config/save.ts";
import { createSessionLedger, type SessionLedger } from "../consult/session-ledger.ts";
import { formatModelKey, type ModelRef, modelDisplayName, modelKeyOf } from "../pi/model-key.ts";
import { advisorRestored } from "../pi/notices.ts";
import { say } from "../pi/say.ts";

export interface AdvisorRuntime {
	readonly location: ConfigLocation;
	loaded: LoadedConfig;
	/** The decision of the last reconcile; undefined before the first. */
	activation: Activation<Model<Api>> | undefined;
	readonly ledger: SessionLedger;
	/** The executor the "disabled for" notice was last shown for, so it is said once per change. */
	disabledNoticeFor: string | undefined;
	/**
	 * The model registry of the last reconcile, so the result card can spell a recorded
	 * `provider:modelId` the way the rest of the extension does (name and key).
	 */
	findModel: ((provider: string, modelId: string) => ModelRef | undefined) | undefined;
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
		findModel: undefined,
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

export interface ReconcileOptions {
	/** session_start: say `Advisor restored: …` if this process has not said it yet. */
	announceRestore?: boolean;
}

export function reconcile(
	pi: ReconcilePi,
	ctx: ReconcileCtx,
	runtime: AdvisorRuntime,
	options: ReconcileOptions = {},
): Activation<Model<Api>> {
	const config = runtime.loaded.config;
	const registry = ctx.modelRegistry;
	runtime.findModel = (provider, id) => registry.find(provider, id);
	const advisorModel = lookupAdvisorModel(config.modelKey, (provider, id) => registry.find(provider, id));
	const activation = decideActivation({
		modelKey: config.modelKey,
		advisorModel,
		executorModel: ctx.model,
		executorThinking: pi.getThinkingLevel(),
		disabledForModels: config.disabledForModels,
	});

	if (!activation.active && activation.clearStale) {
		// The model is gone either way; a failed save only means the file still names it. When
		// models.json failed to load, custom models are missing for that reason alone: keep the file.
		if (ctx.modelRegistry.getError() === undefined) saveSelection(runtime.location, {});
		const next = { ...config };
		delete next.modelKey;
		delete next.effort;
		runtime.loaded = { ...runtime.loaded, config: next };
	}
	setToolActive(pi, activation.active);

	if (!activation.active && activation.reason === "disabled-for-model" && ctx.model) {
		const executor = formatModelKey(modelKeyOf(ctx.model));
		if (runtime.disabledNoticeFor !== executor && activation.message) say(ctx, activation.message, "info");
		runtime.disabledNoticeFor = executor;
	} else {
		runtime.disabledNoticeFor = undefined;
	}
	if (!activation.active && activation.clearStale && activation.message) say(ctx, activation.message, "warning");

	const resolved = activation.active || activation.reason !== "stale-model";
	if (options.announceRestore && advisorModel !== undefined && resolved) {
		if (!restoredAnnounced()) {
			globalFlags()[RESTORED_ANNOUNCED] = true;
			say(ctx, advisorRestored(modelDisplayName(advisorModel)), "info");
		}
	}
	runtime.activation = activation;
	return activation;
}
