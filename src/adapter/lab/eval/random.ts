/**
 * The eval's only source of chance (docs/eval.md): which points are drawn and in which order the
 * judge sees the answers. Everything comes from `--seed` and a salt naming what is drawn, so the
 * same seed on the same inputs draws the same points and the same labels, and `--resume` can
 * rebuild the run it continues.
 */

/** A stream of numbers in [0, 1). */
export type Random = () => number;

/** FNV-1a over the UTF-16 code units: a 32-bit seed from any text. */
function hash32(text: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return h >>> 0;
}

/** mulberry32: small, fast and well spread for a few thousand draws. */
export function seededRandom(seed: string, salt: string): Random {
	let state = hash32(`${seed}\u0000${salt}`);
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** A shuffled copy (Fisher–Yates). */
export function shuffled<T>(items: readonly T[], random: Random): T[] {
	const out = [...items];
	for (let i = out.length - 1; i > 0; i--) {
		const j = Math.floor(random() * (i + 1));
		[out[i], out[j]] = [out[j]!, out[i]!];
	}
	return out;
}

const GOLDEN = (Math.sqrt(5) - 1) / 2;

/**
 * The indices 0…count−1 in an order whose every prefix is spread over the whole range: a
 * golden-ratio sequence from a random start (a low-discrepancy sequence), so the first few points
 * drawn from a session are early, middle and late, not bunched.
 */
export function spreadOrder(count: number, random: Random): number[] {
	const order: number[] = [];
	const taken = new Set<number>();
	const start = random();
	for (let i = 0; taken.size < count && i < count * 4; i++) {
		const index = Math.floor(((start + i * GOLDEN) % 1) * count);
		if (taken.has(index)) continue;
		taken.add(index);
		order.push(index);
	}
	for (let index = 0; index < count; index++) if (!taken.has(index)) order.push(index);
	return order;
}
