/**
 * The one binary search: the first index in `[0, length)` where `before` turns false, for a
 * `before` that holds on a prefix and fails after it (a sorted list's lower bound, the end of a
 * shared prefix). Every layer searches with it.
 */
export function partitionPoint(length: number, before: (index: number) => boolean): number {
	let low = 0;
	let high = length;
	while (low < high) {
		const mid = (low + high) >> 1;
		if (before(mid)) low = mid + 1;
		else high = mid;
	}
	return low;
}

/**
 * How many leading items two lists share, compared with `===` (the same objects, or equal strings
 * and numbers). A scan from the start, not a search: a list may match again after it differs.
 */
export function sharedPrefixLength<T>(a: readonly T[], b: readonly T[]): number {
	const limit = Math.min(a.length, b.length);
	let k = 0;
	while (k < limit && a[k] === b[k]) k++;
	return k;
}
