/**
 * The `advice` section of advisor.json (docs/configuration.md): schema, defaults and type. `maxChars`
 * is applied by consult/advice-cap.ts `capAdvice`, for consultations and completion reviews alike.
 */

import { type Static, Type } from "@sinclair/typebox";

export const AdviceSchema = Type.Object({
	/**
	 * The advice the executor gets and the session stores is cut to this many characters, marker
	 * included. The cut marker needs room of its own: a cap shorter than 200 would leave no advice.
	 */
	maxChars: Type.Integer({ minimum: 200 }),
});

export type AdviceConfig = Static<typeof AdviceSchema>;

// About 4k tokens: far more than a plan or a correction needs, far less than a runaway answer.
export const DEFAULT_ADVICE_CONFIG: Readonly<AdviceConfig> = Object.freeze({ maxChars: 16000 });
