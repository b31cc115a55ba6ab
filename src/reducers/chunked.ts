/**
 * An immutable list shared between states (docs/decisions.md, "A replay's memory follows the
 * branch"). A fold that appends to a plain array copies the whole array: one copy of the branch per
 * consultation point, which a long replay turns into gigabytes of garbage. Here the items sit in
 * full chunks of CHUNK and a tail of fewer: appending copies the tail, and the list of chunks only
 * when the tail fills a chunk; the chunks themselves every later list shares.
 *
 * Callers see a `ChunkedList`: a length, items by index, and new lists made from it — never its
 * chunks. A list is an instance of this module's class, so immer stores it as a value (it drafts
 * only plain objects, arrays, maps and sets): a fold reads a list on its draft as it is and
 * replaces it with a new one, and what it reads from a list is never a draft.
 *
 * Nothing is changed once a list holding it has been made. The chunks are full and the tail is what
 * is left, so how a list is laid out depends on its items alone: lists of the same items are
 * deep-equal however they were made.
 */

export const CHUNK = 256;

export interface ChunkedList<T> extends Iterable<T> {
	readonly length: number;
	/** The item at `index`, counted from the end when negative (as `Array.prototype.at`); undefined outside the list. */
	at(index: number): T | undefined;
	/** The last item; undefined for an empty list. */
	readonly last: T | undefined;
	/** This list with `items` after its own. */
	appended(items: readonly T[]): ChunkedList<T>;
	/** The first `count` items: the full chunks below `count` shared, the chunk `count` cuts copied. */
	prefix(count: number): ChunkedList<T>;
	/** This list with the item at `index` replaced (as `Array.prototype.with`): the chunk it falls in is copied, the others shared. */
	with(index: number, item: T): ChunkedList<T>;
	/** How many leading items this list and `other` share (the same items, by identity). */
	sharedPrefix(other: ChunkedList<T>): number;
	/** The items as one array: a copy, for a reader that needs them all at once (not per point). */
	toArray(): T[];
}

// A class only for its prototype: that is what keeps immer from drafting a list (see above).
class Chunked<T> implements ChunkedList<T> {
	/** Full chunks of CHUNK items. */
	readonly chunks: readonly (readonly T[])[];
	/** The items after them: fewer than CHUNK. */
	readonly tail: readonly T[];
	readonly length: number;

	// Frozen (the list and its directory, not the chunks: V8 copies a frozen array slowly).
	constructor(chunks: readonly (readonly T[])[], tail: readonly T[]) {
		this.chunks = Object.freeze(chunks);
		this.tail = tail;
		this.length = chunks.length * CHUNK + tail.length;
		Object.freeze(this);
	}

	at(index: number): T | undefined {
		const i = index < 0 ? index + this.length : index;
		if (i < 0 || i >= this.length) return undefined;
		const c = Math.floor(i / CHUNK);
		return c < this.chunks.length ? this.chunks[c]![i % CHUNK] : this.tail[i - this.chunks.length * CHUNK];
	}

	get last(): T | undefined {
		return this.at(this.length - 1);
	}

	appended(items: readonly T[]): ChunkedList<T> {
		return appendedAt(this, this.length, items);
	}

	prefix(count: number): ChunkedList<T> {
		return count >= this.length ? this : appendedAt(this, Math.max(0, count), []);
	}

	with(index: number, item: T): ChunkedList<T> {
		const i = index < 0 ? index + this.length : index;
		if (i < 0 || i >= this.length) throw new RangeError(`with: index ${index} of ${this.length}`);
		const c = Math.floor(i / CHUNK);
		if (c >= this.chunks.length) {
			const tail = this.tail.slice();
			tail[i - c * CHUNK] = item;
			return new Chunked(this.chunks, tail);
		}
		const chunk = this.chunks[c]!.slice();
		chunk[i % CHUNK] = item;
		const chunks = this.chunks.slice();
		chunks[c] = chunk;
		return new Chunked(chunks, this.tail);
	}

	/**
	 * A chunk both lists hold is the same chunk object (a chunk never changes), so shared chunks are
	 * skipped whole; items are compared from the first chunk that differs.
	 */
	sharedPrefix(other: ChunkedList<T>): number {
		const b = chunkedOf(other);
		const n = Math.min(this.length, b.length);
		let k = 0;
		for (let c = 0; c < this.chunks.length && c < b.chunks.length && this.chunks[c] === b.chunks[c]; c++) k += CHUNK;
		k = Math.min(k, n);
		while (k < n && this.at(k) === b.at(k)) k++;
		return k;
	}

	toArray(): T[] {
		const out: T[] = [];
		for (const chunk of this.chunks) for (const item of chunk) out.push(item);
		for (const item of this.tail) out.push(item);
		return out;
	}

	*[Symbol.iterator](): Iterator<T> {
		for (const chunk of this.chunks) yield* chunk;
		yield* this.tail;
	}
}

/** Every list is made here, so every list is a `Chunked`; a fold's draft holds the list itself, never a copy. */
function chunkedOf<T>(list: ChunkedList<T>): Chunked<T> {
	if (list instanceof Chunked) return list;
	throw new TypeError("not a list made by reducers/chunked.ts");
}

/**
 * The first `count` items of `list`, then `items`: the chunks below `count` shared, the items of the
 * chunk or tail `count` cuts into copied once with the new ones, which fill chunks and a new tail.
 */
function appendedAt<T>(list: Chunked<T>, count: number, items: readonly T[]): Chunked<T> {
	if (items.length === 0 && count >= list.length) return list;
	const full = Math.floor(count / CHUNK);
	const cut = count - full * CHUNK;
	const source = full < list.chunks.length ? list.chunks[full]! : list.tail;
	const kept = cut === source.length ? source : source.slice(0, cut);
	const tail = items.length === 0 ? kept : kept.concat(items);
	// The chunks are shared while the tail stays short of one: the usual append.
	const chunks = full === list.chunks.length ? list.chunks : list.chunks.slice(0, full);
	if (tail.length < CHUNK) return new Chunked(chunks, tail);
	const more: T[][] = [];
	let at = 0;
	for (; at + CHUNK <= tail.length; at += CHUNK) more.push(tail.slice(at, at + CHUNK));
	return new Chunked(chunks.concat(more), tail.slice(at));
}

const EMPTY: Chunked<never> = new Chunked([], []);

export function emptyList<T>(): ChunkedList<T> {
	return EMPTY;
}

/** A list of the items. */
export function listOf<T>(items: readonly T[]): ChunkedList<T> {
	return appendedAt<T>(EMPTY, 0, items);
}

/** How a list is laid out: what its tests check (full chunks, a short tail, chunks shared). */
export function layoutOf<T>(list: ChunkedList<T>): { chunks: readonly (readonly T[])[]; tail: readonly T[] } {
	const { chunks, tail } = chunkedOf(list);
	return { chunks, tail };
}

/**
 * A list being appended to many times by one caller: the first `count` items of a list, then the
 * items pushed, which become part of a list only when it is done (each array made once, at its size).
 */
export interface ListBuilder<T> {
	readonly length: number;
	/** The item at `index` (0 ≤ index < length); undefined outside. */
	at(index: number): T | undefined;
	push(item: T): void;
	/** The finished list; the builder must not be used after. */
	done(): ChunkedList<T>;
}

export function listBuilder<T>(from: ChunkedList<T>, count: number = from.length): ListBuilder<T> {
	const pending: T[] = [];
	return {
		get length() {
			return count + pending.length;
		},
		at(index) {
			if (index < 0) return undefined;
			return index < count ? from.at(index) : pending[index - count];
		},
		push(item) {
			pending.push(item);
		},
		done() {
			return appendedAt(chunkedOf(from), count, pending);
		},
	};
}
