/**
 * The `warming` section of advisor.json (docs/configuration.md, Cache warming): schema, defaults and
 * type. Every key is applied by the pure warming decision (policy/warming/decision.ts
 * `warmingDecision`, which reads them as `WarmingSettings`); background/cache-warming.ts carries it out.
 */

import { type Static, Type } from "@sinclair/typebox";
import type { WarmingSettings } from "../../../policy/index.ts";
import type { Assert, Same } from "./section.ts";

export const WarmingSchema = Type.Object({
	enabled: Type.Boolean(),
	/** 0 = the model's known cache TTL. */
	ttlSec: Type.Number({ minimum: 0 }),
	minPromptTokens: Type.Integer({ minimum: 0 }),
	continueProbability: Type.Number({ minimum: 0, maximum: 1 }),
	minSavingsUsd: Type.Number({ minimum: 0 }),
	maxDurationSec: Type.Number({ minimum: 0 }),
});

export type WarmingConfig = Static<typeof WarmingSchema>;

/** The policy reads these keys as WarmingSettings: the schema must describe exactly that. */
export type WarmingFitsPolicy = Assert<Same<WarmingConfig, WarmingSettings>>;

export const DEFAULT_WARMING_CONFIG: Readonly<WarmingConfig> = Object.freeze({
	enabled: true,
	ttlSec: 0,
	minPromptTokens: 100000,
	continueProbability: 0.2,
	minSavingsUsd: 0.05,
	maxDurationSec: 3600,
});
