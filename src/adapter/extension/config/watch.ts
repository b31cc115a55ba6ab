/**
 * The `watch` section of advisor.json (docs/configuration.md#the-watch): schema, defaults and type.
 * Every key is applied by the pure watch (policy/watch/decision.ts `watchDecision`, which reads them
 * as `WatchSettings`); background/watch.ts carries it out, and `/advisor watch` turns it on and off.
 */

import { type Static, Type } from "@sinclair/typebox";
import type { WatchSettings } from "../../../policy/index.ts";
import type { Assert, Same } from "./section.ts";

export const WatchSchema = Type.Object({
	enabled: Type.Boolean(),
	/** 0 turns each signal off. */
	failureStreak: Type.Integer({ minimum: 0 }),
	untestedFiles: Type.Integer({ minimum: 0 }),
	longRunRounds: Type.Integer({ minimum: 0 }),
	cooldownRounds: Type.Integer({ minimum: 0 }),
	maxNotesPerPrompt: Type.Integer({ minimum: 0 }),
	/** 0 = no cap. */
	maxShare: Type.Number({ minimum: 0 }),
});

export type WatchConfig = Static<typeof WatchSchema>;

/** The policy reads these keys as WatchSettings: the schema must describe exactly that. */
export type WatchFitsPolicy = Assert<Same<WatchConfig, WatchSettings>>;

/**
 * Chosen by measurement (`replay --watch` over the bundled and shared sessions): docs/decisions.md,
 * "The watch's defaults, measured".
 */
export const DEFAULT_WATCH_CONFIG: Readonly<WatchConfig> = Object.freeze({
	enabled: false,
	failureStreak: 3,
	untestedFiles: 8,
	longRunRounds: 50,
	cooldownRounds: 0,
	maxNotesPerPrompt: 2,
	maxShare: 0.1,
});
