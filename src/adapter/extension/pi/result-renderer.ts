/**
 * The advisor() card in Pi's TUI. Collapsed, it shows the verdict and the first lines of the
 * advice, so the user sees what the executor was told without expanding anything; expanded,
 * the whole advice. A failed or skipped consultation is one line.
 */

import type { TextContent } from "@mariozechner/pi-ai";
import type { Theme, ToolRenderResultOptions } from "@mariozechner/pi-coding-agent";
import { type Component, getKeybindings, Text } from "@mariozechner/pi-tui";
import type { AdvisorDetails, Severity } from "../../../events/index.ts";
import { minCachedTokens, parseSeverity } from "../../../policy/index.ts";
import { type BilledUsage, cacheReadShare, NO_USAGE, parseUsage, promptTokensOf } from "../../../reducers/index.ts";
import { type ModelRef, parseModelKey, recordedModelDisplayName } from "./model-key.ts";
import { CARD_NO_SEVERITY, cardMoreLines, costLine } from "./notices.ts";

/** Lines of advice shown under the verdict in the collapsed card. */
export const COLLAPSED_LINES = 4;

export type CardStyle = Pick<Theme, "fg" | "bold">;

type ThemeColor = Parameters<Theme["fg"]>[0];

const SEVERITY_COLOR: Record<Severity, ThemeColor> = {
	none: "success",
	nit: "accent",
	concern: "warning",
	blocker: "error",
};

export interface CardResult {
	content: readonly (TextContent | { type: string })[];
	details?: AdvisorDetails | undefined;
}

function textOf(result: CardResult): string {
	const texts: string[] = [];
	for (const part of result.content) if (part.type === "text") texts.push((part as TextContent).text);
	return texts.join("\n");
}

/**
 * The first non-blank line, trimmed, whatever the line breaks: a provider's error text may break
 * lines with a lone `\r`, which render's `firstLine` (model-facing, `\n` only) leaves in the line.
 */
function headline(text: string): string {
	return (
		text
			.split(/\r\n|\r|\n/)
			.find((line) => line.trim().length > 0)
			?.trim() ?? ""
	);
}

/** The advice without its verdict line, trimmed of blank lines at either end. */
export function adviceBody(text: string): string[] {
	const lines = text.split(/\r\n|\r|\n/);
	const first = lines.findIndex((line) => line.trim().length > 0);
	if (first !== -1 && parseSeverity(lines[first]!) !== undefined) lines.splice(0, first + 1);
	while (lines.length > 0 && lines[0]!.trim() === "") lines.shift();
	while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
	return lines;
}

function expandKey(): string | undefined {
	try {
		const keys = getKeybindings().getKeys(
			"app.tools.expand" as Parameters<ReturnType<typeof getKeybindings>["getKeys"]>[0],
		);
		return keys.length > 0 ? keys.join("/") : undefined;
	} catch {
		return undefined;
	}
}

/** A recorded pi-ai usage as the spend fold reads it: a malformed one reads as nothing billed. */
const billedUsage = (usage: unknown): BilledUsage => parseUsage(usage) ?? NO_USAGE;

/**
 * The model's minimum cacheable prompt when every request of the consultation was billed and shorter
 * (nothing read or written from the cache): the reason its share is 0. Each request apart, from the
 * recorded attempts; the sum alone when none were recorded.
 */
function belowMinimum(details: Pick<AdvisorDetails, "usage" | "attempts" | "advisorModel">): number | undefined {
	const usage = billedUsage(details.usage);
	const key = details.advisorModel === undefined ? undefined : parseModelKey(details.advisorModel);
	if (key === undefined || usage.cacheRead + usage.cacheWrite > 0) return undefined;
	const minTokens = minCachedTokens({ id: key.modelId });
	const attempts = details.attempts ?? [{ usage: details.usage }];
	const prompts = attempts.map((a) => promptTokensOf(billedUsage(a.usage)));
	return prompts.some((p) => p > 0) && prompts.every((p) => p < minTokens) ? minTokens : undefined;
}

/**
 * What the consultation really cost, every request counted: `$0.050 · 3 requests · 61% from cache`.
 * Undefined when the result records no usage.
 */
export function billedLine(details: Pick<AdvisorDetails, "usage" | "attempts" | "advisorModel">): string | undefined {
	if (details.usage === undefined) return undefined;
	const usage = billedUsage(details.usage);
	const requests = details.attempts?.length ?? 1;
	return costLine(usage.usd, requests, cacheReadShare(usage), belowMinimum(details));
}

/** Looks a recorded model up in Pi's registry, for its name. */
export type FindModel = (provider: string, modelId: string) => ModelRef | undefined;

/**
 * The card as styled text (pure given the style and the lookup; the TUI wraps it). The model that
 * answered is spelled as everywhere else (name and `provider/modelId`), from details.advisorModel.
 */
export function advisorCardText(
	result: CardResult,
	options: ToolRenderResultOptions & { isError?: boolean },
	style: CardStyle,
	findModel?: FindModel,
): string {
	const text = textOf(result);
	const details = result.details ?? {};
	if (options.isPartial) return style.fg("muted", text);
	if (options.isError) return style.fg("error", `⚠ ${headline(text)}`);
	if (details.skipped === true) return style.fg("muted", `↷ ${headline(text)}`);
	if (details.errorMessage !== undefined) return style.fg("warning", `⚠ ${headline(text)}`);

	const severity = details.severity ?? parseSeverity(text);
	const verdict =
		severity === undefined
			? style.fg("muted", CARD_NO_SEVERITY)
			: style.bold(style.fg(SEVERITY_COLOR[severity], `Severity: ${severity}`));
	const model =
		details.advisorModel === undefined
			? undefined
			: (recordedModelDisplayName(details.advisorModel, findModel) ?? details.advisorModel);
	const modelLabel = model ? style.fg("dim", ` · ${model}${details.effort ? `, ${details.effort}` : ""}`) : "";
	const cost = billedLine(details);
	const body = adviceBody(text);
	const shown = options.expanded ? body : body.slice(0, COLLAPSED_LINES);
	const out = [
		verdict + modelLabel + (cost === undefined ? "" : style.fg("dim", ` · ${cost}`)),
		...shown.map((line) => style.fg("toolOutput", line)),
	];
	const hidden = body.length - shown.length;
	if (hidden > 0) out.push(style.fg("dim", cardMoreLines(hidden, expandKey())));
	return out.join("\n");
}

export function renderAdvisorResult(
	result: CardResult,
	options: ToolRenderResultOptions,
	theme: CardStyle,
	context?: { isError?: boolean; lastComponent?: Component | undefined; findModel?: FindModel | undefined },
): Component {
	const text = advisorCardText(result, { ...options, isError: context?.isError === true }, theme, context?.findModel);
	const previous = context?.lastComponent;
	if (previous instanceof Text) {
		previous.setText(text);
		return previous;
	}
	return new Text(text, 0, 0);
}
