/**
 * Texts the user reads (notifications, the in-flight status line, config warnings). None of
 * these reach a model, so they live here rather than in render/constants.ts, where a changed
 * byte would cost every cached prefix.
 */

import type { ModelThinkingLevel } from "@mariozechner/pi-ai";

/** Announced once per process when a saved selection is re-applied at session start. */
export const advisorRestored = (label: string) => `Advisor restored: ${label}`;

/** The executor model matches `disabledForModels`. */
export const advisorDisabledFor = (model: string) => `Advisor disabled for ${model}`;

/** The saved `modelKey` is unparseable or gone from Pi's registry; the selection is cleared. */
export const advisorModelGone = (modelKey: string) =>
	`Advisor model ${modelKey} is no longer available — advisor turned off`;

/** The first streamed line of a consultation. Effort is left out when no reasoning is sent. */
export function consultingLine(label: string, effort?: ModelThinkingLevel): string {
	const suffix = effort && effort !== "off" ? `, ${effort}` : "";
	return `Consulting advisor (${label}${suffix})…`;
}

export const SAVE_FAILED = "Failed to save advisor selection — selection not persisted";
export const REQUIRES_INTERACTIVE = "/advisor requires interactive mode";

export const configUnreadable = (path: string, reason: string) =>
	`advisor.json: cannot use ${path} (${reason}) — using defaults`;

export const configInvalidKeys = (path: string, keys: readonly string[]) =>
	`advisor.json: invalid ${keys.length === 1 ? "value" : "values"} for ${keys.join(", ")} in ${path} — using the defaults for ${keys.length === 1 ? "that key" : "those keys"}`;
