/**
 * A fast, stable, non-cryptographic 64-bit string hash (cyrb53-style, two 32-bit lanes). Used to
 * name requests and their prefixes; collisions only cost a cache-hit prediction, never correctness.
 *
 * A request keeps a hash per unit: each is made as one flat 16-character string, and a chain is
 * hashed from its pieces in turn, not from their concatenation (docs/decisions.md, "A replay's
 * memory follows the branch").
 */

const HEX = "0123456789abcdef";

function hexDigit(lane: number, shift: number): number {
	return HEX.charCodeAt((lane >>> shift) & 15);
}

/** The two lanes as 16 hex digits, high lane first. */
function hexOf(high: number, low: number): string {
	return String.fromCharCode(
		hexDigit(high, 28),
		hexDigit(high, 24),
		hexDigit(high, 20),
		hexDigit(high, 16),
		hexDigit(high, 12),
		hexDigit(high, 8),
		hexDigit(high, 4),
		hexDigit(high, 0),
		hexDigit(low, 28),
		hexDigit(low, 24),
		hexDigit(low, 20),
		hexDigit(low, 16),
		hexDigit(low, 12),
		hexDigit(low, 8),
		hexDigit(low, 4),
		hexDigit(low, 0),
	);
}

/** The hash of the texts one after another: the hash of their concatenation. */
function hashTexts(seed: number, first: string, second = "", third = ""): string {
	let h1 = 0xdeadbeef ^ seed;
	let h2 = 0x41c6ce57 ^ seed;
	for (const text of [first, second, third]) {
		for (let i = 0; i < text.length; i++) {
			const ch = text.charCodeAt(i);
			h1 = Math.imul(h1 ^ ch, 2654435761);
			h2 = Math.imul(h2 ^ ch, 1597334677);
		}
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return hexOf(h2 >>> 0, h1 >>> 0);
}

export function hashString(text: string, seed = 0): string {
	return hashTexts(seed, text);
}

/**
 * The hash of a sequence, extended by one element (`element`, then `more` when the element comes
 * in two pieces): equal chains mean equal sequences up to here.
 */
export function chainHash(previous: string, element: string, more = ""): string {
	return hashTexts(0, previous, element, more);
}
