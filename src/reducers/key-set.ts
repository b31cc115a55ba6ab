/**
 * An immutable set of strings shared between states: what the facts fold has kept (facts.ts),
 * thousands of keys on a long branch, asked on every fact. A copy per fold would make a replay
 * quadratic, as a copied array would for the lists (chunked.ts). Here the keys sit in sets whose
 * sizes follow a binary counter — blocks of BLOCK·2^k keys, largest first — and a short tail:
 * adding copies the tail, and when the tail fills it becomes a block and merges with the blocks of
 * its size (the counter's carry). Each key is copied O(log n) times in all, a lookup asks O(log n)
 * sets, and the blocks are shared by every later set made from them.
 *
 * A class instance, so immer stores it as a value and a fold replaces it (chunked.ts says why).
 * Nothing is changed once a set holding it has been made; how a set is laid out depends on its keys
 * and their order alone, so sets of the same keys added in the same order are deep-equal.
 */

const BLOCK = 32;

export interface KeySet {
	readonly size: number;
	has(key: string): boolean;
	/** This set with `key`: itself when it has the key already. */
	with(key: string): KeySet;
}

// A class only for its prototype: that is what keeps immer from drafting a set (see above).
class Keys implements KeySet {
	/** Sets of BLOCK·2^k keys, strictly largest first; never changed once made. */
	readonly blocks: readonly ReadonlySet<string>[];
	/** The keys added after them: fewer than BLOCK. */
	readonly tail: readonly string[];
	readonly size: number;

	constructor(blocks: readonly ReadonlySet<string>[], tail: readonly string[], size: number) {
		this.blocks = Object.freeze(blocks);
		this.tail = Object.freeze(tail);
		this.size = size;
		Object.freeze(this);
	}

	has(key: string): boolean {
		if (this.tail.includes(key)) return true;
		for (const block of this.blocks) if (block.has(key)) return true;
		return false;
	}

	with(key: string): KeySet {
		if (this.has(key)) return this;
		const tail = this.tail.concat(key);
		if (tail.length < BLOCK) return new Keys(this.blocks, tail, this.size + 1);
		const blocks = this.blocks.slice();
		let carry: ReadonlySet<string> = new Set(tail);
		while (blocks.length > 0 && blocks.at(-1)!.size === carry.size) {
			const merged = new Set(blocks.pop());
			for (const k of carry) merged.add(k);
			carry = merged;
		}
		blocks.push(carry);
		return new Keys(blocks, [], this.size + 1);
	}
}

const EMPTY = new Keys([], [], 0);

export function emptyKeySet(): KeySet {
	return EMPTY;
}
