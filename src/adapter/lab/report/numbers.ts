/** How the replay report rounds what it keeps: ratios and shares to 4 decimals, dollars to 6. */

export function round(value: number, digits = 4): number {
	const f = 10 ** digits;
	return Math.round(value * f) / f;
}

export function roundOrNull(value: number | null, digits = 4): number | null {
	return value === null ? null : round(value, digits);
}

/** numerator / denominator, rounded; null when the denominator is not positive. */
export function ratio(numerator: number, denominator: number): number | null {
	return denominator > 0 ? round(numerator / denominator) : null;
}
