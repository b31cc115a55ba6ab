/**
 * The `review` section of advisor.json (docs/configuration.md, Completion review): schema, defaults
 * and type. Both keys are applied by the pure trigger (policy/review/trigger.ts `reviewDecision`,
 * which reads them as `ReviewSettings`); background/completion-review.ts carries it out.
 */

import { type Static, Type } from "@sinclair/typebox";
import type { ReviewSettings } from "../../../policy/index.ts";
import type { Assert, Same } from "./section.ts";

export const ReviewSchema = Type.Object({
	enabled: Type.Boolean(),
	minToolCalls: Type.Integer({ minimum: 0 }),
});

export type ReviewConfig = Static<typeof ReviewSchema>;

/** The trigger reads these keys, plus what the host can do: the schema must describe exactly that. */
export type ReviewFitsPolicy = Assert<Same<ReviewConfig, Omit<ReviewSettings, "hostRecordsUsage">>>;

export const DEFAULT_REVIEW_CONFIG: Readonly<ReviewConfig> = Object.freeze({ enabled: false, minToolCalls: 1 });
