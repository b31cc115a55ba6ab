/**
 * Texts the user reads (notifications, the in-flight status line, config warnings). None of
 * these reach a model, so they live here rather than in render/model-text.ts, where a changed
 * byte would cost every cached prefix.
 */

import type { ModelThinkingLevel } from "@mariozechner/pi-ai";
import { assertNever } from "../../../events/index.ts";
import { formatUsd } from "../../../policy/index.ts";
import { escapeControlChars } from "./control-chars.ts";
import type { UnusableSelection } from "./model-key.ts";

/** Announced once per process when a saved selection is re-applied at session start. */
export const advisorRestored = (label: string) => `Advisor restored: ${label}`;

/** The executor model matches `disabledForModels`. */
export const advisorDisabledFor = (model: string) => `Advisor disabled for ${model}`;

/** Why a saved `modelKey` cannot be used, after the key and the file (advisorSelectionUnusable). */
function unusableWhy(selection: UnusableSelection): string {
	switch (selection.reason) {
		case "not-a-key":
			return "is not a provider/modelId key";
		case "unknown-model":
			return "names no model in Pi's registry (a typo, or a provider that was removed)";
		case "no-credentials":
			return `has no credentials: Pi has no API key or login for provider ${selection.provider}`;
		default:
			return assertNever(selection, "unusable selection");
	}
}

/**
 * Once per session start: the saved `modelKey` cannot be used. The file is never rewritten for it
 * (docs/configuration.md), so the same key works again once fixed or once its provider has a key.
 */
export const advisorSelectionUnusable = (selection: UnusableSelection, path: string) =>
	`advisor.json: modelKey ${JSON.stringify(selection.modelKey)} in ${path} ${unusableWhy(selection)} — advisor off for this session; the file is left as it is`;

/**
 * The first streamed line of a consultation, `label` spelled by modelDisplayName. Effort is left
 * out when no reasoning is sent.
 */
export function consultingLine(label: string, effort?: ModelThinkingLevel): string {
	const suffix = effort && effort !== "off" ? `, ${effort}` : "";
	return `Consulting advisor: ${label}${suffix}…`;
}

/** One streamed line per investigation tool the advisor opens, after the consulting line. */
/** Escaped here too: a tool name the advisor made up reaches this line without passing a tool summary. */
export const advisorToolLine = (summary: string) => `advisor: ${escapeControlChars(summary)}`;

/** The last line of the `/advisor stats` panel. */
export const STATS_HINT = "esc or enter to close";
/** `/advisor` with an argument it does not know. */
export const advisorUsage = (argument: string) =>
	`/advisor: unknown argument ${JSON.stringify(argument)}. Usage: /advisor (choose the advisor model and effort) · /advisor stats (what the advisor has cost) · /advisor watch [on|off] (the advisor reviews unasked)`;
export const STATS_COMPLETION = "what the advisor has cost on this branch and in the session";
/** The `watch` completion, saying what it would do. */
export const watchCompletion = (enabled: boolean) =>
	enabled ? "turn the watch off (it is on)" : "turn the watch on: the advisor reviews unasked when a run goes wrong";
export const watchSetCompletion = (enabled: boolean) => (enabled ? "the advisor reviews unasked" : "only when asked");

// ---------------------------------------------------------------------------------------------
// /advisor watch (docs/configuration.md#the-watch)
// ---------------------------------------------------------------------------------------------

/**
 * What `/advisor watch` did. `active`: whether an advisor is active now (the watch needs one). The
 * file is named so the user knows the setting outlives the session.
 */
export function watchTurned(enabled: boolean, active: boolean, path: string): string {
	if (!enabled) return `Advisor watch off: the advisor reviews only when asked (saved in ${path})`;
	const what =
		"Advisor watch on: after each executor turn the advisor may review unasked — when a run keeps failing, edits go untested or a run goes long";
	return `${what} (saved in ${path})${active ? "" : " — idle until an advisor is active (/advisor)"}`;
}
export const watchSaveFailed = (reason: string) => `Failed to save the watch setting (${reason}) — nothing changed`;

export const SAVE_FAILED = "Failed to save advisor selection — selection not persisted";
export const REQUIRES_INTERACTIVE = "/advisor requires interactive mode";

export const configUnreadable = (path: string, reason: string) =>
	`advisor.json: cannot use ${path} (${reason}) — using defaults`;

/** A bad entry of the privacy section (events/redact/settings.ts says what and what happens instead). */
export const configPrivacyWarning = (path: string, warning: string) => `advisor.json: ${warning} (in ${path})`;

/** Each rejected key with what it allows (config/file-keys.ts `describeSchema`). */
export const configInvalidKeys = (path: string, keys: readonly { key: string; allowed?: string }[]) =>
	`advisor.json: invalid ${keys.length === 1 ? "value" : "values"} for ${keys.map((k) => (k.allowed === undefined ? k.key : `${k.key} (${k.allowed})`)).join(", ")} in ${path} — using the defaults for ${keys.length === 1 ? "that key" : "those keys"}`;

/** A key the file's schema does not name: ignored, and left in the file. */
export const configUnknownKey = (path: string, key: string, suggestion: string | undefined) =>
	`advisor.json: unknown key "${key}"${suggestion === undefined ? "" : ` — did you mean "${suggestion}"?`} (in ${path}, ignored)`;

// ---------------------------------------------------------------------------------------------
// /advisor
// ---------------------------------------------------------------------------------------------

export const MODEL_PICKER_TITLE = "Advisor model";
/** The model picker's title: the model, and whether the watch is on (`/advisor watch` toggles it). */
export const modelPickerTitle = (watch: boolean) => `${MODEL_PICKER_TITLE} · watch ${watch ? "on" : "off"}`;
export const effortPickerTitle = (label: string) => `Advisor effort for ${label}`;
export const PICKER_HINT = "type to filter • ↑↓ navigate • enter select • esc cancel";
export const PICKER_NO_MATCH = "No matching entries";
/** The first row of the model picker: turns the advisor off. */
export const NO_ADVISOR = "No advisor";
export const NO_ADVISOR_DESCRIPTION = "turn the advisor off";
/** The model picker's mark on the executor's own model, which as the advisor stays inactive. */
export const EXECUTOR_OWN_MODEL = "the executor's own model: inactive while it is the executor";
/** The model picker's row for a saved modelKey that cannot be used: what it is and why it is off. */
export function savedSelectionInactive(selection: UnusableSelection): string {
	switch (selection.reason) {
		case "not-a-key":
			return "saved, inactive: not a provider/modelId key";
		case "unknown-model":
			return "saved, inactive: not in Pi's model registry";
		case "no-credentials":
			return `saved, inactive: no API key or login for ${selection.provider}`;
		default:
			return assertNever(selection, "unusable selection");
	}
}
export const EFFORT_OFF = "off (no reasoning sent)";
export const recommendedEffort = (level: string) => `${level} (recommended)`;
/** The effort the picker marks and preselects for a model it has not been used with. */
export const RECOMMENDED_EFFORT = "high";

export const advisorSelected = (label: string, effort?: ModelThinkingLevel) =>
	`Advisor set to ${label}${effort && effort !== "off" ? `, ${effort}` : ""}`;
export const ADVISOR_OFF = "Advisor turned off";
/** Saved, but the executor is the same model, so the tool stays out of the active set. */
export const advisorSameModel = (label: string) =>
	`Advisor ${label} is the executor's own model — inactive until the executor changes`;

// ---------------------------------------------------------------------------------------------
// The result card
// ---------------------------------------------------------------------------------------------

export const CARD_NO_SEVERITY = "advice";
export const cardMoreLines = (count: number, key: string | undefined) =>
	`… ${count} more line${count === 1 ? "" : "s"}${key ? ` (${key} to expand)` : ""}`;

// ---------------------------------------------------------------------------------------------
// Cost control
// ---------------------------------------------------------------------------------------------

/** ctx.ui.setStatus key of the footer's `Advisor $<branch spend> · cache <pct>%`. */
export const STATUS_KEY = "advisor";

/** The budget dialog: once per consultation, when it would pass budget.perCallSoftUsd. */
export const CONFIRM_COST_TITLE = "Advisor: over the per-call soft limit";

/** How many investigation rounds a consultation may take, as the dialog says it. */
const rounds = (n: number) => `up to ${n} investigation round${n === 1 ? "" : "s"}`;

/**
 * `about $0.021 (first request $0.015, up to 4 investigation rounds; at most $0.050)`: one figure where
 * two read the same.
 */
export function consultationCost(cost: {
	expectedUsd: number;
	firstUsd: number;
	rounds: number;
	atMostUsd: number;
}): string {
	const about = formatUsd(cost.expectedUsd);
	const first = formatUsd(cost.firstUsd);
	const most = formatUsd(cost.atMostUsd);
	const detail = [first !== about ? `first request ${first}` : "", cost.rounds > 0 ? rounds(cost.rounds) : ""]
		.filter((part) => part !== "")
		.join(", ");
	const bound = most !== about ? `at most ${most}` : "";
	const inside = [detail, bound].filter((part) => part !== "").join("; ");
	return `about ${about}${inside === "" ? "" : ` (${inside})`}`;
}

export function confirmCostMessage(cost: {
	/** The consultation as expected: the first request and the follow-ups expected. */
	expectedUsd: number;
	/** The first request alone. */
	firstUsd: number;
	/** The investigation rounds it may take. */
	rounds: number;
	/** What a yes grants: the most it can bill. */
	atMostUsd: number;
	softUsd: number;
}): string {
	return (
		`This advisor consultation is expected to cost ${consultationCost(cost)}. ` +
		`That is over the per-call soft limit of ${formatUsd(cost.softUsd)} (advisor.json budget.perCallSoftUsd). ` +
		`Yes allows up to ${formatUsd(cost.atMostUsd)}; the advisor is told to answer with what it has before a request would pass that. Send it?`
	);
}

/** A share of the billed prompt tokens read from the cache (`cacheReadShare`), as the user reads it: `61%`. */
export function formatCacheReadShare(share: number): string {
	return `${Math.round(100 * share)}%`;
}

/**
 * `$0.050 · 3 requests · 61% from cache`: what a consultation really cost (the advice card, the stats).
 * `belowCacheMinimum`, the model's minimum cacheable prompt, when every request was shorter: no share
 * of 0 that reads like a miss, but why nothing was cached (docs/configuration.md, "Minimum cacheable lengths").
 */
export function costLine(usd: number, requests: number, cacheShare: number | null, belowCacheMinimum?: number): string {
	const parts = [formatUsd(usd), `${requests} request${requests === 1 ? "" : "s"}`];
	if (belowCacheMinimum !== undefined)
		parts.push(`under the ${belowCacheMinimum.toLocaleString("en-US")}-token cache minimum`);
	else if (cacheShare !== null) parts.push(`${formatCacheReadShare(cacheShare)} from cache`);
	return parts.join(" · ");
}
