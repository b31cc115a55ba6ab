/**
 * /advisor (docs/configuration.md): pick the advisor model among those Pi has credentials for (`No advisor`
 * first), then, for a reasoning model, the effort. The selection is saved before anything in
 * memory changes, so a failed save leaves everything as it was. `/advisor watch [on|off]` turns the
 * watch on or off (docs/configuration.md#the-watch) the same way: saved first, then applied; the
 * picker's title says whether it is on.
 */

import type { Api, Model, ModelThinkingLevel } from "@mariozechner/pi-ai";
import type { ExtensionAPI, ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import type { AutocompleteItem } from "@mariozechner/pi-tui";
import { lookupAdvisorModel, type UnusableSelection } from "../config/activation.ts";
import { saveSelection, saveWatchEnabled } from "../config/save.ts";
import { escapeControlChars } from "../pi/control-chars.ts";
import { canonicalModelKey, formatModelKey, modelDisplayName, modelKeyOf } from "../pi/model-key.ts";
import {
	ADVISOR_OFF,
	advisorSameModel,
	advisorSelected,
	advisorSelectionUnusable,
	advisorUsage,
	EFFORT_OFF,
	EXECUTOR_OWN_MODEL,
	effortPickerTitle,
	modelPickerTitle,
	NO_ADVISOR,
	NO_ADVISOR_DESCRIPTION,
	RECOMMENDED_EFFORT,
	REQUIRES_INTERACTIVE,
	recommendedEffort,
	SAVE_FAILED,
	STATS_COMPLETION,
	savedSelectionInactive,
	watchCompletion,
	watchSaveFailed,
	watchSetCompletion,
	watchTurned,
} from "../pi/notices.ts";
import { type LineWriter, say } from "../pi/say.ts";
import { type AdvisorRuntime, currentConfig, reconcile, reloadConfig, unusableSelection } from "./activation-state.ts";
import { type PickerItem, type PickerSpec, pick } from "./picker.ts";
import { showStats } from "./stats-view.ts";

export const ADVISOR_COMMAND = "advisor";
export const ADVISOR_COMMAND_DESCRIPTION =
	"Choose the advisor model and effort (or turn the advisor off); /advisor stats: what it has cost; /advisor watch: review unasked";

/** The `No advisor` row; model keys are never empty, so it cannot collide with one. */
const NO_ADVISOR_VALUE = "";
/** The row of a saved modelKey that cannot be used; model keys always hold a `/`, so it cannot collide. */
const SAVED_VALUE = "saved";

/** A saved modelKey that cannot be used, as the picker shows it (docs/configuration.md). */
export interface SavedRow {
	/** The model's name and key when the registry has it, else the key as written. */
	label: string;
	selection: UnusableSelection;
}

const LEVELS: readonly ModelThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/** The levels a model accepts (pi-ai's getSupportedThinkingLevels, which older hosts lack). */
export function supportedEfforts(model: Pick<Model<Api>, "reasoning" | "thinkingLevelMap">): ModelThinkingLevel[] {
	if (!model.reasoning) return ["off"];
	return LEVELS.filter((level) => {
		const mapped = model.thinkingLevelMap?.[level];
		if (mapped === null) return false;
		return level !== "xhigh" || mapped !== undefined;
	});
}

/**
 * The model picker: `No advisor`, then every model. The executor's own model (the same id, any
 * provider: the rule the tool applies) is marked before it is chosen, since as the advisor it would
 * stay inactive. A saved modelKey that cannot be used gets a row of its own, saying why, and the
 * picker opens on it: the file still holds that choice.
 */
export function modelPickerSpec(
	models: readonly Model<Api>[],
	current: Model<Api> | undefined,
	executor?: Pick<Model<Api>, "id">,
	saved?: SavedRow,
	watch = false,
): PickerSpec {
	const items: PickerItem[] = [{ value: NO_ADVISOR_VALUE, label: NO_ADVISOR, description: NO_ADVISOR_DESCRIPTION }];
	if (saved !== undefined) {
		const description = savedSelectionInactive(saved.selection);
		const search = [saved.label, saved.selection.modelKey];
		items.push({ value: SAVED_VALUE, label: saved.label, description, search });
	}
	for (const model of models) {
		const key = formatModelKey(modelKeyOf(model));
		// One spelling (name and key) on the row; the filter also sees the parts on their own.
		const search = [key, model.id, ...(model.name?.trim() ? [model.name.trim()] : [])];
		const item: PickerItem = { value: key, label: modelDisplayName(model), search };
		if (executor !== undefined && model.id === executor.id) item.description = EXECUTOR_OWN_MODEL;
		items.push(item);
	}
	return {
		title: modelPickerTitle(watch),
		items,
		initialValue:
			saved !== undefined ? SAVED_VALUE : current ? formatModelKey(modelKeyOf(current)) : NO_ADVISOR_VALUE,
	};
}

export function effortPickerSpec(model: Model<Api>, current: ModelThinkingLevel | undefined): PickerSpec {
	const levels = supportedEfforts(model);
	const items = levels.map(
		(level): PickerItem => ({
			value: level,
			label: level === "off" ? EFFORT_OFF : level === RECOMMENDED_EFFORT ? recommendedEffort(level) : level,
		}),
	);
	const fallback = levels.includes(RECOMMENDED_EFFORT) ? RECOMMENDED_EFFORT : undefined;
	const initialValue = current !== undefined && levels.includes(current) ? current : fallback;
	const spec: PickerSpec = { title: effortPickerTitle(modelDisplayName(model)), items };
	if (initialValue !== undefined) spec.initialValue = initialValue;
	return spec;
}

function savedRow(selection: UnusableSelection, model: Model<Api> | undefined): SavedRow {
	const label =
		selection.reason === "no-credentials" && model !== undefined
			? modelDisplayName(model)
			: escapeControlChars(canonicalModelKey(selection.modelKey) ?? selection.modelKey);
	return { label, selection };
}

function isLevel(value: string): value is ModelThinkingLevel {
	return (LEVELS as readonly string[]).includes(value);
}

export interface AdvisorCommandDeps {
	pi: Pick<ExtensionAPI, "getActiveTools" | "setActiveTools" | "getThinkingLevel" | "getAllTools">;
	runtime: AdvisorRuntime;
	/** Called (awaited) before the pickers open: choosing the advisor ends cache warming (`stats` does not). */
	onInvoke?: () => void | Promise<void>;
	/** Where a headless /advisor says it needs a UI, or names an unknown argument; default the process's stderr. */
	stderr?: LineWriter;
	/** Where a headless `/advisor stats` (and `/advisor watch`) prints; default the process's stderr (Pi keeps stdout for the answer). */
	print?: (text: string) => void;
	/** Re-registers advisor() when its guidance changed (lifecycle.ts `syncToolGuidance`): the watch changes it. */
	refreshTool?: () => void;
}

/** The arguments `/advisor` completes: `watch` says what it would do now; after `watch `, `on` and `off`. */
function argumentCompletions(prefix: string, watching: boolean): AutocompleteItem[] {
	const typed = prefix.trimStart();
	if (/^watch\s/.test(typed)) {
		const wanted = typed.replace(/^watch\s+/, "");
		return (["on", "off"] as const)
			.filter((state) => state.startsWith(wanted))
			.map((state) => ({
				value: `watch ${state}`,
				label: `watch ${state}`,
				description: watchSetCompletion(state === "on"),
			}));
	}
	const items: AutocompleteItem[] = [
		{ value: "stats", label: "stats", description: STATS_COMPLETION },
		{ value: "watch", label: "watch", description: watchCompletion(watching) },
	];
	return items.filter((item) => item.value.startsWith(typed.trim()));
}

/** `watch`, `watch on`, `watch off`: what to set (undefined: the other state); null when it is no watch argument. */
function watchArgument(argument: string): { to: boolean | undefined } | null {
	const match = /^watch(?:\s+(on|off))?$/.exec(argument);
	if (match === null) return null;
	return { to: match[1] === undefined ? undefined : match[1] === "on" };
}

/**
 * `/advisor` dispatches on its argument first: none opens the pickers, `stats` shows what the advisor
 * has cost (host/stats-view.ts), `watch [on|off]` turns the watch on or off, anything else is
 * answered with the usage.
 */
export function createAdvisorCommand(deps: AdvisorCommandDeps) {
	return {
		description: ADVISOR_COMMAND_DESCRIPTION,
		getArgumentCompletions: (prefix: string): AutocompleteItem[] | null => {
			const matching = argumentCompletions(prefix, currentConfig(deps.runtime).watch.enabled);
			return matching.length > 0 ? matching : null;
		},
		handler: async (args: string, ctx: ExtensionCommandContext): Promise<void> => {
			const argument = args.trim();
			if (argument === "stats") {
				await showStats({ pi: deps.pi, ...(deps.print !== undefined ? { print: deps.print } : {}) }, ctx);
				return;
			}
			const watch = watchArgument(argument);
			if (watch !== null) {
				setWatch(deps, ctx, watch.to ?? !currentConfig(deps.runtime).watch.enabled);
				return;
			}
			if (argument !== "") {
				say(ctx, advisorUsage(argument), "warning", deps.stderr);
				return;
			}
			await chooseAdvisor(deps, ctx);
		},
	};
}

/** Bare `/advisor`: the model picker, then the effort picker; the choice saved before anything changes. */
async function chooseAdvisor(deps: AdvisorCommandDeps, ctx: ExtensionCommandContext): Promise<void> {
	const { pi, runtime } = deps;
	try {
		await deps.onInvoke?.();
	} catch {
		// Stopping background work never stands in the way of the picker.
	}
	if (!ctx.hasUI) {
		// Print and JSON mode have no UI to pick in, and Pi's notify is silent there: stderr.
		say(ctx, REQUIRES_INTERACTIVE, "warning", deps.stderr);
		return;
	}
	const config = currentConfig(runtime);
	const find = (provider: string, id: string) => ctx.modelRegistry.find(provider, id);
	const current = lookupAdvisorModel(config.modelKey, find);
	const models = ctx.modelRegistry.getAvailable();
	const unusable = unusableSelection(runtime, ctx.modelRegistry);
	const savedChoice = unusable === undefined ? undefined : savedRow(unusable, current);

	const chosen = await pick(ctx.ui, modelPickerSpec(models, current, ctx.model, savedChoice, config.watch.enabled));
	if (chosen === undefined) return;
	if (chosen === SAVED_VALUE && unusable !== undefined) {
		// Nothing to save: the file already holds it. Say again why it is off.
		ctx.ui.notify(advisorSelectionUnusable(unusable, runtime.loaded.path), "warning");
		return;
	}
	const model = chosen === NO_ADVISOR_VALUE ? undefined : models.find((m) => formatModelKey(modelKeyOf(m)) === chosen);
	if (chosen !== NO_ADVISOR_VALUE && model === undefined) return;

	let effort: ModelThinkingLevel | undefined;
	if (model?.reasoning) {
		const sameModel = current !== undefined && current.provider === model.provider && current.id === model.id;
		const previous = sameModel ? (config.effort ?? "off") : undefined;
		const level = await pick(ctx.ui, effortPickerSpec(model, previous));
		if (level === undefined || !isLevel(level)) return;
		effort = level;
	}

	const saved = saveSelection(
		runtime.location,
		model === undefined ? {} : { modelKey: chosen, ...(effort !== undefined ? { effort } : {}) },
	);
	if (!saved.ok) {
		ctx.ui.notify(SAVE_FAILED, "error");
		return;
	}
	// A re-read like any other: its warnings (other keys of the same file) are shown once.
	for (const warning of reloadConfig(runtime)) ctx.ui.notify(warning, "warning");
	// A new choice replaces the unusable one: its warning is not "recovered" into `Advisor restored`.
	runtime.unusableNotice = undefined;
	const activation = reconcile(pi, ctx, runtime);
	if (model === undefined) {
		ctx.ui.notify(ADVISOR_OFF, "info");
		return;
	}
	ctx.ui.notify(advisorSelected(modelDisplayName(model), effort), "info");
	if (!activation.active && activation.reason === "same-model") {
		ctx.ui.notify(advisorSameModel(modelDisplayName(model)), "warning");
	}
}

/**
 * `/advisor watch [on|off]`: `watch.enabled` saved first (a failed save changes nothing), then the
 * file re-read like any other save (its warnings shown) and advisor() re-registered when its
 * guidance changes with the watch (config/guidance.ts `resolveGuidance`). What it did is said with a
 * UI as a notice, without one on stderr (the user asked: it is the command's answer).
 */
function setWatch(deps: AdvisorCommandDeps, ctx: ExtensionCommandContext, enabled: boolean): void {
	const { runtime } = deps;
	const saved = saveWatchEnabled(runtime.location, enabled);
	if (!saved.ok) {
		say(ctx, watchSaveFailed(saved.message), "error", deps.stderr);
		return;
	}
	for (const warning of reloadConfig(runtime)) say(ctx, warning, "warning", deps.stderr);
	deps.refreshTool?.();
	const notice = watchTurned(currentConfig(runtime).watch.enabled, runtime.activation?.active === true, saved.path);
	if (ctx.hasUI) ctx.ui.notify(notice, "info");
	else (deps.print ?? ((text) => process.stderr.write(text)))(`${notice}\n`);
}
