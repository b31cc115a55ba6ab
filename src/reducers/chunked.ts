/**
 * An append-only list shared between ledger states (docs/decisions.md, "A replay's memory follows
 * the branch"). A fold that appends to a plain array copies the whole array: one copy of the
 * branch per consultation point, which a long replay turns into gigabytes of garbage. Here the
 * items sit in chunks of CHUNK; appending copies the last chunk (when it is not full) and the list
 * of chunks, never the items of the others, which every later list shares.
 *
 * A chunk is never changed once a list holding it has been made; a fold builds its new chunks in
 * private (`ListBuilder`) and hands the finished list over. Every chunk but the last is full, so
 * the chunks of a list depend on its items alone: lists of the same items are deep-equal however
 * they were appended.
 */

export const CHUNK = 1024;

export interface ChunkedList<T> {
	readonly chunks: readonly (readonly T[])[];
	readonly length: number;
}

const EMPTY: ChunkedList<never> = Object.freeze({ chunks: Object.freeze([]), length: 0 });

export function emptyList<T>(): ChunkedList<T> {
	return EMPTY;
}

export function itemAt<T>(list: ChunkedList<T>, index: number): T | undefined {
	if (index < 0 || index >= list.length) return undefined;
	return list.chunks[Math.floor(index / CHUNK)]![index % CHUNK];
}

export function lastItem<T>(list: ChunkedList<T>): T | undefined {
	return itemAt(list, list.length - 1);
}

/** The items as one array (a copy: for callers that need the whole list once, not per point). */
export function listItems<T>(list: ChunkedList<T>): T[] {
	const out: T[] = [];
	for (const chunk of list.chunks) for (const item of chunk) out.push(item);
	return out;
}

/**
 * How many leading items two lists share. A chunk both hold is the same chunk object (a chunk never
 * changes), so shared chunks are skipped whole; items are compared from the first chunk that differs.
 */
export function sharedItems<T>(a: ChunkedList<T>, b: ChunkedList<T>): number {
	const n = Math.min(a.length, b.length);
	let k = 0;
	for (let c = 0; c < a.chunks.length && c < b.chunks.length && a.chunks[c] === b.chunks[c]; c++)
		k += a.chunks[c]!.length;
	k = Math.min(k, n);
	while (k < n && itemAt(a, k) === itemAt(b, k)) k++;
	return k;
}

/**
 * A list being appended to by one fold: the first `count` items of a list, then the items pushed,
 * which become chunks only when it is done (each made once, at its size).
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
 * The first `count` items of `list`, then `items`: the full chunks below `count` shared, the chunk
 * `count` cuts into made once with the items that fill it, the rest in new chunks.
 */
export function appendedAt<T>(list: ChunkedList<T>, count: number, items: readonly T[]): ChunkedList<T> {
	if (items.length === 0 && count === list.length) return list;
	const full = Math.floor(count / CHUNK);
	const chunks: (readonly T[])[] = list.chunks.slice(0, full);
	const cut = count % CHUNK;
	let taken = 0;
	if (cut > 0) {
		taken = Math.min(items.length, CHUNK - cut);
		const head = list.chunks[full]!;
		const kept = head.length === cut ? head : head.slice(0, cut);
		chunks.push(taken === 0 ? kept : kept.concat(items.slice(0, taken)));
	}
	for (let i = taken; i < items.length; i += CHUNK) chunks.push(items.slice(i, i + CHUNK));
	// Frozen (the list and its directory, not the chunks): immer passes over a frozen value.
	return Object.freeze({ chunks: Object.freeze(chunks), length: count + items.length });
}

/** `list` with `items` appended. */
export function appended<T>(list: ChunkedList<T>, items: readonly T[]): ChunkedList<T> {
	return appendedAt(list, list.length, items);
}

/**
 * `list` with the item at `index` replaced (or appended, when `index` is its length): the chunk it
 * falls in is copied, the others shared.
 */
export function withItem<T>(list: ChunkedList<T>, index: number, item: T): ChunkedList<T> {
	if (index === list.length) return appended(list, [item]);
	if (index < 0 || index > list.length) throw new RangeError(`withItem: index ${index} of ${list.length}`);
	const c = Math.floor(index / CHUNK);
	const chunk = list.chunks[c]!.slice();
	chunk[index % CHUNK] = item;
	const chunks = list.chunks.slice();
	chunks[c] = chunk;
	return Object.freeze({ chunks: Object.freeze(chunks), length: list.length });
}

/** The first `count` items of `list`: its full chunks below `count` shared, the chunk `count` cuts copied. */
export function listPrefix<T>(list: ChunkedList<T>, count: number): ChunkedList<T> {
	return count >= list.length ? list : appendedAt(list, count, []);
}

/** A list of the items. */
export function listOf<T>(items: readonly T[]): ChunkedList<T> {
	return appended(emptyList<T>(), items);
}
