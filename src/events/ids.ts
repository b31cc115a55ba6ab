/**
 * Deterministic entry ids for migrated v1 files. Pi draws random ids when it migrates,
 * so two replays of one file would disagree on every id; these are a pure function of
 * the file instead, shaped like Pi's (8 lowercase hex).
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Odd, so `seed + index * GOLDEN` never repeats for the first 2^32 indices. */
const GOLDEN = 0x9e3779b9;

export function fnv1a32(text: string): number {
	let hash = FNV_OFFSET;
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i);
		hash = Math.imul(hash, FNV_PRIME);
	}
	return hash >>> 0;
}

/** murmur3's finaliser: every step is invertible, so distinct inputs stay distinct. */
function mix32(value: number): number {
	let h = value >>> 0;
	h ^= h >>> 16;
	h = Math.imul(h, 0x85ebca6b);
	h ^= h >>> 13;
	h = Math.imul(h, 0xc2b2ae35);
	h ^= h >>> 16;
	return h >>> 0;
}

/**
 * The id of the `index`-th entry of a file whose identity is `seed`. Collision-free
 * within one file by construction (an injective map composed with a bijection), and
 * stable when the file grows, because an id depends only on its own position.
 */
export function deterministicId(seed: string, index: number): string {
	const base = fnv1a32(seed);
	return mix32(base + Math.imul(index, GOLDEN))
		.toString(16)
		.padStart(8, "0");
}
