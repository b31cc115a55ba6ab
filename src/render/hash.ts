/**
 * A fast, stable, non-cryptographic 64-bit string hash (cyrb53-style, two 32-bit lanes). Used to
 * name requests and their prefixes; collisions only cost a cache-hit prediction, never correctness.
 */
export function hashString(text: string, seed = 0): string {
	let h1 = 0xdeadbeef ^ seed;
	let h2 = 0x41c6ce57 ^ seed;
	for (let i = 0; i < text.length; i++) {
		const ch = text.charCodeAt(i);
		h1 = Math.imul(h1 ^ ch, 2654435761);
		h2 = Math.imul(h2 ^ ch, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return (h2 >>> 0).toString(16).padStart(8, "0") + (h1 >>> 0).toString(16).padStart(8, "0");
}

/** The hash of a sequence, extended by one element: equal chains mean equal sequences up to here. */
export function chainHash(previous: string, elementHash: string): string {
	return hashString(previous + elementHash);
}
