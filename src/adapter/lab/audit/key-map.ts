/**
 * An immutable map from strings shared between states, as reducers/key-set.ts is a set: the facts
 * fold's open failures (facts.ts), thousands on a branch whose rounds keep failing on new files, set
 * and resolved at every few rounds. A map copied at each change (what a draft of a `Map` does) made
 * the fold quadratic in them. Here the entries sit in maps whose sizes grow like a binary counter —
 * older and larger first — and a small map of the newest: a change copies that one, and when it
 * fills it is merged into the maps not larger than it, newer entries over older ones. Each entry is
 * copied O(log n) times in all, a look-up asks O(log n) maps, and the older maps are shared by every
 * later map made from them. A resolved key is kept as `undefined` until it reaches the oldest map.
 *
 * Entries come out in the order a `Map` would give: a key set anew goes last, a key set again keeps
 * its place (the audit's examples and the facts' order follow it).
 *
 * A class instance, so immer stores it as a value and a fold replaces it (reducers/chunked.ts says
 * why). Nothing is changed once a map holding it has been made; how a map is laid out depends on the
 * changes made to it and their order alone, so maps made by the same changes are deep-equal.
 */

const BLOCK = 16;

export interface KeyMap<V> {
	/** How many keys have a value. */
	readonly size: number;
	get(key: string): V | undefined;
	has(key: string): boolean;
	/** This map with `key` set to `value` (`undefined`: without the key); itself when nothing changes. */
	with(key: string, value: V | undefined): KeyMap<V>;
	/** Every key with a value, and the value, in the order a `Map` given the same changes would give. */
	entries(): [string, V][];
	values(): V[];
}

/** A key's value and when it was set anew (its place in the order); undefined: resolved. */
type Entry<V> = { readonly seq: number; readonly value: V } | undefined;

// A class only for its prototype: that is what keeps immer from drafting a map (see above).
class Keyed<V> implements KeyMap<V> {
	/** Older and larger first; never changed once made. */
	readonly blocks: readonly ReadonlyMap<string, Entry<V>>[];
	/** The newest changes: fewer than BLOCK keys; never changed once made. */
	readonly newest: ReadonlyMap<string, Entry<V>>;
	readonly size: number;
	/** The place of the next key set anew. */
	readonly next: number;

	constructor(
		blocks: readonly ReadonlyMap<string, Entry<V>>[],
		newest: ReadonlyMap<string, Entry<V>>,
		size: number,
		next: number,
	) {
		this.blocks = Object.freeze(blocks);
		this.newest = newest;
		this.size = size;
		this.next = next;
		Object.freeze(this);
	}

	private entry(key: string): Entry<V> {
		if (this.newest.has(key)) return this.newest.get(key);
		for (let i = this.blocks.length - 1; i >= 0; i--) if (this.blocks[i]!.has(key)) return this.blocks[i]!.get(key);
		return undefined;
	}

	get(key: string): V | undefined {
		return this.entry(key)?.value;
	}

	has(key: string): boolean {
		return this.entry(key) !== undefined;
	}

	with(key: string, value: V | undefined): KeyMap<V> {
		const before = this.entry(key);
		if (before?.value === value) return this;
		const size = this.size + (before === undefined ? 1 : 0) - (value === undefined ? 1 : 0);
		const entry: Entry<V> = value === undefined ? undefined : { seq: before?.seq ?? this.next, value };
		const next = before === undefined && value !== undefined ? this.next + 1 : this.next;
		const newest = new Map(this.newest).set(key, entry);
		if (newest.size < BLOCK) return new Keyed(this.blocks, newest, size, next);
		const blocks = this.blocks.slice();
		let carry: ReadonlyMap<string, Entry<V>> = newest;
		while (blocks.length > 0 && blocks.at(-1)!.size <= carry.size) {
			const merged = new Map(blocks.pop());
			for (const [k, e] of carry) merged.set(k, e);
			carry = merged;
		}
		// The oldest map has nothing older to shadow: a resolved key goes.
		if (blocks.length === 0) carry = new Map([...carry].filter(([, e]) => e !== undefined));
		blocks.push(carry);
		return new Keyed(blocks, NONE as ReadonlyMap<string, Entry<V>>, size, next);
	}

	entries(): [string, V][] {
		const seen = new Set<string>();
		const out: [string, { seq: number; value: V }][] = [];
		for (const map of [this.newest, ...[...this.blocks].reverse()])
			for (const [k, e] of map) {
				if (seen.has(k)) continue;
				seen.add(k);
				if (e !== undefined) out.push([k, e]);
			}
		return out.sort((a, b) => a[1].seq - b[1].seq).map(([k, e]) => [k, e.value]);
	}

	values(): V[] {
		return this.entries().map(([, v]) => v);
	}
}

const NONE: ReadonlyMap<string, unknown> = new Map();

export function emptyKeyMap<V>(): KeyMap<V> {
	return new Keyed<V>([], NONE as ReadonlyMap<string, Entry<V>>, 0, 0);
}
