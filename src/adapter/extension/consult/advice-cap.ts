/**
 * The advice cap (advisor.json `advice.maxChars`, docs/configuration.md): whatever the advisor
 * answers, the executor gets and the session stores at most that many characters. A longer answer
 * keeps its head (the severity line and the plan come first) and ends with a marker saying how
 * much was cut, the marker included in the cap.
 */

import { ADVICE_CUT_MARKER, safeHead } from "../../../render/index.ts";

export interface CappedAdvice {
	text: string;
	/** UTF-16 units left out; 0 when the answer fit. */
	cutChars: number;
}

export function capAdvice(text: string, maxChars: number): CappedAdvice {
	const max = Math.max(0, Math.floor(maxChars));
	if (text.length <= max) return { text, cutChars: 0 };
	// The marker names the cut, which is at most the whole text: reserve room for that longest form.
	const head = safeHead(text, Math.max(0, max - ADVICE_CUT_MARKER(text.length).length));
	const cutChars = text.length - head.length;
	return { text: `${head}${ADVICE_CUT_MARKER(cutChars)}`, cutChars };
}
