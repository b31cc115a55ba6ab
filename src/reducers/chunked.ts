/**
 * An append-only list shared between ledger states (docs/decisions.md, "A replay's memory follows
 * the branch"). A fold that appends to a plain array copies the whole array: one copy of the
 * branch per consultation point, which a long replay turns into gigabytes of garbage. Here the
 * items sit in full chunks of CHUNK and a tail of fewer: appending copies the tail, and the list
 * of chunks only when the tail fills a chunk; the chunks themselves every later list shares.
 *
 * Nothing is changed once a list holding it has been made: a fold builds its new items in private
 * (`ListBuilder`) and hands the finished list over. The chunks are full and the tail is what is
 * left, so how a list is laid out depends on its items alone: lists of the same items are
 * deep-equal however they were appended.
 */

export const CHUNK = 256;

export interface ChunkedList<T> {
	/** Full chunks of CHUNK items. */
	readonly chunks: readonly (readonly T[])[];
	/** The items after them: fewer than CHUNK. */
	readonly tail: readonly T[];
	readonly length: number;
}

// Frozen (the list and its directory, not the chunks): immer passes over a frozen value.
function listFrom<T>(chunks: readonly (readonly T[])[], tail: readonly T[]): ChunkedList<T> {
	return Object.freeze({ chunks: Object.freeze(chunks), tail, length: chunks.length * CHUNK + tail.length });
}

const EMPTY: ChunkedList<never> = listFrom([], []);

export function emptyList<T>(): ChunkedList<T> {
	return EMPTY;
}

export function itemAt<T>(list: ChunkedList<T>, index: number): T | undefined {
	if (index < 0 || index >= list.length) return undefined;
	const c = Math.floor(index / CHUNK);
	return c < list.chunks.length ? list.chunks[c]![index % CHUNK] : list.tail[index - list.chunks.length * CHUNK];
}

export function lastItem<T>(list: ChunkedList<T>): T | undefined {
	return itemAt(list, list.length - 1);
}

/** The items as one array (a copy: for callers that need the whole list once, not per point). */
export function listItems<T>(list: ChunkedList<T>): T[] {
	const out: T[] = [];
	for (const chunk of list.chunks) for (const item of chunk) out.push(item);
	for (const item of list.tail) out.push(item);
	return out;
}

/**
 * How many leading items two lists share. A chunk both hold is the same chunk object (a chunk never
 * changes), so shared chunks are skipped whole; items are compared from the first chunk that differs.
 */
export function sharedItems<T>(a: ChunkedList<T>, b: ChunkedList<T>): number {
	const n = Math.min(a.length, b.length);
	let k = 0;
	for (let c = 0; c < a.chunks.length && c < b.chunks.length && a.chunks[c] === b.chunks[c]; c++) k += CHUNK;
	k = Math.min(k, n);
	while (k < n && itemAt(a, k) === itemAt(b, k)) k++;
	return k;
}

/**
 * A list being appended to by one fold: the first `count` items of a list, then the items pushed,
 * which become part of a list only when it is done (each array made once, at its size).
 */
export interface ListBuilder<T> {
	readonly length: number;
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
			return index < count ? itemAt(from, index) : pending[index - count];
		},
		push(item) {
			pending.push(item);
		},
		done() {
			return appendedAt(from, count, pending);
		},
	};
}

/**
 * The first `count` items of `list`, then `items`: the chunks below `count` shared, the items of the
 * chunk or tail `count` cuts into copied once with the new ones, which fill chunks and a new tail.
 */
export function appendedAt<T>(list: ChunkedList<T>, count: number, items: readonly T[]): ChunkedList<T> {
	if (items.length === 0 && count >= list.length) return list;
	const full = Math.floor(count / CHUNK);
	const cut = count - full * CHUNK;
	const source = full < list.chunks.length ? list.chunks[full]! : list.tail;
	const kept = cut === source.length ? source : source.slice(0, cut);
	const tail = items.length === 0 ? kept : kept.concat(items);
	// The chunks are shared while the tail stays short of one: the usual append.
	const chunks = full === list.chunks.length ? list.chunks : list.chunks.slice(0, full);
	if (tail.length < CHUNK) return listFrom(chunks, tail);
	const more: T[][] = [];
	let at = 0;
	for (; at + CHUNK <= tail.length; at += CHUNK) more.push(tail.slice(at, at + CHUNK));
	return listFrom(chunks.concat(more), tail.slice(at));
}

/** `list` with `items` appended. */
export function appended<T>(list: ChunkedList<T>, items: readonly T[]): ChunkedList<T> {
	return appendedAt(list, list.length, items);
}

/**
 * `list` with the item at `index` replaced (or appended, when `index` is its length): the chunk or
 * tail it falls in is copied, the others shared.
 */
export function withItem<T>(list: ChunkedList<T>, index: number, item: T): ChunkedList<T> {
	if (index === list.length) return appended(list, [item]);
	if (index < 0 || index > list.length) throw new RangeError(`withItem: index ${index} of ${list.length}`);
	const c = Math.floor(index / CHUNK);
	if (c >= list.chunks.length) {
		const tail = list.tail.slice();
		tail[index - c * CHUNK] = item;
		return listFrom(list.chunks, tail);
	}
	const chunk = list.chunks[c]!.slice();
	chunk[index % CHUNK] = item;
	const chunks = list.chunks.slice();
	chunks[c] = chunk;
	return listFrom(chunks, list.tail);
}

/** The first `count` items of `list`: its full chunks below `count` shared, the chunk `count` cuts copied. */
export function listPrefix<T>(list: ChunkedList<T>, count: number): ChunkedList<T> {
	return count >= list.length ? list : appendedAt(list, count, []);
}

/** A list of the items. */
export function listOf<T>(items: readonly T[]): ChunkedList<T> {
	return appended(emptyList<T>(), items);
}
