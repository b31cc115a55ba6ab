/**
 * The `advice` section of advisor.json (docs/configuration.md): schema, defaults and type. `maxChars`
 * is applied by consult/advice-cap.ts `capAdvice`, `maxOutputTokens` by consult/cost-control.ts
 * `outputCap` (the cap sent with every request, and the estimate's "at most"), for consultations and
 * completion reviews alike.
 */

import { type Static, Type } from "@sinclair/typebox";

export const AdviceSchema = Type.Object({
	/**
	 * The advice the executor gets and the session stores is cut to this many characters, marker
	 * included. The cut marker needs room of its own: a cap shorter than 200 would leave no advice.
	 */
	maxChars: Type.Integer({ minimum: 200 }),
	/**
	 * The output cap of every advisor request (reasoning included where the provider counts it as
	 * output), never above the model's own; 0 = pi-ai's default (the model's, at most 32,000). What makes
	 * a consultation's "at most" a bound.
	 */
	maxOutputTokens: Type.Integer({ minimum: 0 }),
});

export type AdviceConfig = Static<typeof AdviceSchema>;

// About 4k tokens: far more than a plan or a correction needs, far less than a runaway answer.
// 16,384 output tokens: room for high-effort reasoning and a long answer (maxChars is about 4k tokens).
export const DEFAULT_ADVICE_CONFIG: Readonly<AdviceConfig> = Object.freeze({ maxChars: 16000, maxOutputTokens: 16384 });
