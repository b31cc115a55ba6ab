/**
 * The one field-by-field adder. The tallies the layers keep — a request's cache split, billed
 * usage, a summary's counts — are records of numbers summed key by key; each names its keys once
 * (the order is the order its JSON is written in) and sums with these.
 */

/** `a + b` key by key over `keys`, in that order; keys beyond them are left out. */
export function sumFields<K extends string>(
	keys: readonly K[],
	a: Readonly<Record<K, number>>,
	b: Readonly<Record<K, number>>,
): Record<K, number> {
	const sum = {} as Record<K, number>;
	for (const key of keys) sum[key] = a[key] + b[key];
	return sum;
}

/** Every key 0, in the order of `keys`: what a sum starts from. */
export function zeroFields<K extends string>(keys: readonly K[]): Record<K, number> {
	const zero = {} as Record<K, number>;
	for (const key of keys) zero[key] = 0;
	return zero;
}
