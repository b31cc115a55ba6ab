/**
 * The `guidance` section of advisor.json (docs/configuration.md): the executor's wording for the
 * advisor() tool. As written, either key may be a string or a list; as resolved, absent means the
 * built-in wording, which `resolveGuidance` (the rule) picks by `review.enabled`.
 */

import { type Static, Type } from "@sinclair/typebox";
import {
	DEFAULT_PROMPT_GUIDELINES,
	DEFAULT_PROMPT_SNIPPET,
	REVIEW_PROMPT_GUIDELINES,
	REVIEW_PROMPT_SNIPPET,
	WATCH_PROMPT_GUIDELINE,
} from "../../../render/index.ts";
import type { ReviewConfig } from "./review.ts";
import type { Section } from "./section.ts";
import type { WatchConfig } from "./watch.ts";

// Pi takes one snippet line and a list of guidelines; either may be written as a string or a list.
const StringOrList = Type.Union([Type.String(), Type.Array(Type.String())]);

/** The section as written in the file. */
export const GuidanceFileSchema = Type.Object({ promptSnippet: StringOrList, promptGuidelines: StringOrList });

/** The section as resolved: absent = built-in. */
export const GuidanceSchema = Type.Object({
	promptSnippet: Type.Optional(Type.String()),
	promptGuidelines: Type.Optional(Type.Array(Type.String())),
});

export type GuidanceConfig = Static<typeof GuidanceSchema>;

/** The keys as written → as resolved. No defaults here: an absent key means "built-in". */
export function resolveGuidanceSection(
	section: Partial<Section<typeof GuidanceFileSchema.properties>>,
): GuidanceConfig {
	const out: GuidanceConfig = {};
	const snippet = section.promptSnippet;
	// Pi shows the snippet as one line of the system prompt's tool list.
	if (snippet !== undefined) out.promptSnippet = typeof snippet === "string" ? snippet : snippet.join(" ");
	const guidelines = section.promptGuidelines;
	if (guidelines !== undefined) out.promptGuidelines = typeof guidelines === "string" ? [guidelines] : guidelines;
	return out;
}

/**
 * Pi's built-in executor wording unless the user configured their own. With completion review on
 * the built-in wording drops "consult before declaring done" and explains the
 * `advisor-review` message instead (snippet and guidelines each, so a configured one still wins);
 * with the watch on, the built-in guidelines end with what an `advisor-watch` note is
 * (docs/configuration.md#the-watch).
 */
export function resolveGuidance(config: {
	guidance: GuidanceConfig;
	review: ReviewConfig;
	watch: Pick<WatchConfig, "enabled">;
}): {
	promptSnippet: string;
	promptGuidelines: readonly string[];
} {
	const builtIn = config.review.enabled ? REVIEW_PROMPT_GUIDELINES : DEFAULT_PROMPT_GUIDELINES;
	return {
		promptSnippet:
			config.guidance.promptSnippet ?? (config.review.enabled ? REVIEW_PROMPT_SNIPPET : DEFAULT_PROMPT_SNIPPET),
		promptGuidelines:
			config.guidance.promptGuidelines ?? (config.watch.enabled ? [...builtIn, WATCH_PROMPT_GUIDELINE] : builtIn),
	};
}
