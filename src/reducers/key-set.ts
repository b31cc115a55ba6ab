/**
 * An immutable set of strings shared between states: what the facts fold has kept (facts.ts),
 * thousands of keys on a long branch, asked on every fact. A copy per fold would make a replay
 * quadratic, as a copied array would for the lists (chunked.ts). Here the keys sit in sets whose
 * sizes follow a binary counter — blocks of BLOCK·2^k keys, largest first — and a small set of the
 * newest: adding copies that one, and when it fills it becomes a block and merges with the blocks
 * of its size (the counter's carry). Each key is copied O(log n) times in all, a lookup asks
 * O(log n) sets, and the blocks are shared by every later set made from them.
 *
 * A class instance, so immer stores it as a value and a fold replaces it (chunked.ts says why).
 * Nothing is changed once a set holding it has been made; how a set is laid out depends on its keys
 * and their order alone, so sets of the same keys added in the same order are deep-equal.
 */

const BLOCK = 16;

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
	/** The keys added after them: fewer than BLOCK; never changed once made. */
	readonly newest: ReadonlySet<string>;
	readonly size: number;

	constructor(blocks: readonly ReadonlySet<string>[], newest: ReadonlySet<string>, size: number) {
		this.blocks = Object.freeze(blocks);
		this.newest = newest;
		this.size = size;
		Object.freeze(this);
	}

	has(key: string): boolean {
		if (this.newest.has(key)) return true;
		for (const block of this.blocks) if (block.has(key)) return true;
		return false;
	}

	with(key: string): KeySet {
		if (this.has(key)) return this;
		// A fold asks far more often than it adds: the copy is paid per key added, the lookups per key asked.
		const newest = new Set(this.newest).add(key);
		if (newest.size < BLOCK) return new Keys(this.blocks, newest, this.size + 1);
		const blocks = this.blocks.slice();
		let carry: ReadonlySet<string> = newest;
		while (blocks.length > 0 && blocks.at(-1)!.size === carry.size) {
			const merged = new Set(blocks.pop());
			for (const k of carry) merged.add(k);
			carry = merged;
		}
		blocks.push(carry);
		return new Keys(blocks, NONE, this.size + 1);
	}
}

const NONE: ReadonlySet<string> = new Set();
const EMPTY = new Keys([], NONE, 0);

export function emptyKeySet(): KeySet {
	return EMPTY;
}
