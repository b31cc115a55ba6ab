/**
 * Many needles looked for in one text at once (docs/decisions.md, "A replay's work follows the
 * change"). The fact audit and the replay's user check look for thousands of texts in the units new
 * at a point: after a cut of the log, every user's words in the part that stands in for what it left
 * out; after a compaction, every fact Pi's context lost, in every new message. One search per needle
 * reads the text once per needle; the index reads it once for all of them.
 *
 * A needle is filed once, however many items look for it (every path of a folder looks for its
 * folder's list, `src/{`): one entry per distinct needle, holding its items. It is filed under one of
 * its windows — WIDE characters, or NARROW for a needle shorter than WIDE — hashed to an integer:
 * the window whose bucket is smallest when it is filed, so that needles sharing a start (`[user #`,
 * `src/`) or made of the same words spread out. A text is read one character at a time, the hash of
 * the last WIDE and NARROW characters rolled along, and a count table says which hashes may be filed
 * before the map is asked; every needle filed there is compared in place. Needles shorter than HEAD
 * (= NARROW) are not filed: the caller looks for them directly (`shortItems`).
 */

/** Needles shorter than this are not filed (`shortItems`). */
export const HEAD = 4;
const NARROW = HEAD;
/** Long windows: in a session's texts, four characters are too few to tell needles apart. */
const WIDE = 8;
/** Windows of a needle considered for filing: the first ones. */
const WINDOWS = 48;
const MIN_BITS = 10;
const BASE = 0x01000193;
/** BASE to the power WIDE (mod 2³²): what the character leaving a wide window weighs once the next is in. */
const OUT_WEIGHT = (() => {
	let w = 1;
	for (let k = 0; k < WIDE; k++) w = Math.imul(w, BASE);
	return w;
})();

/** One distinct needle and the items that look for it. */
interface Needle<T> {
	readonly needle: string;
	readonly items: Set<T>;
	/** Where the window it is filed under starts in the needle. */
	readonly offset: number;
	readonly table: Table<T>;
	readonly hash: number;
	/** Its place in its table (`Table.needles`). */
	readonly id: number;
}

/**
 * Needles filed under windows of one width: a hash table of chains in typed arrays, so that the
 * window at each character of a text costs a few array reads (a `Map` look-up there cost more than
 * the rest of the reading). Most windows of a text land on an empty slot.
 */
interface Table<T> {
	readonly width: number;
	/** Slots by a window's hash hashed again: 1 + the id of the first needle of its chain, 0 for none. */
	heads: Int32Array;
	bits: number;
	/** By needle id: 1 + the id of the next needle of its chain, 0 for none. */
	next: number[];
	/**
	 * By needle id, read before the needle itself: the hash of its window, and two of its characters
	 * (the last and the middle one) with their places. A text made of the same few words as its
	 * needles (a generated session's) matches a window at most characters, and comparing whole
	 * needles there cost more than all the rest of a reading.
	 */
	hashes: number[];
	lastAt: number[];
	lastChar: number[];
	midAt: number[];
	midChar: number[];
	/** By id (ids from 1): the needle, undefined for a free id. */
	readonly needles: (Needle<T> | undefined)[];
	/** Ids free to use again. */
	readonly free: number[];
	/** While a text is read: the needles it needs no more, out of their chains until the reading ends. */
	readonly unlinked: number[];
	entries: number;
}

export interface AnchorIndex<T> {
	readonly narrow: Table<T>;
	readonly wide: Table<T>;
	/** The filed needles, by their text. */
	readonly needles: Map<string, Needle<T>>;
	/** Each item's needles, to drop it. */
	readonly entriesOf: Map<T, Needle<T>[]>;
	/** Items with a needle shorter than HEAD: the caller asks of each whether a text holds it. */
	readonly short: Set<T>;
	/** While a text is read: needles left without items, taken out when the reading ends. */
	emptied: Needle<T>[] | undefined;
}

function table<T>(width: number): Table<T> {
	return {
		width,
		heads: new Int32Array(1 << MIN_BITS),
		bits: MIN_BITS,
		next: [0],
		hashes: [0],
		lastAt: [0],
		lastChar: [0],
		midAt: [0],
		midChar: [0],
		needles: [undefined],
		free: [],
		unlinked: [],
		entries: 0,
	};
}

export function createAnchorIndex<T>(): AnchorIndex<T> {
	return {
		narrow: table(NARROW),
		wide: table(WIDE),
		needles: new Map(),
		entriesOf: new Map(),
		short: new Set(),
		emptied: undefined,
	};
}

/** How many items the index holds. */
export function indexedCount<T>(index: AnchorIndex<T>): number {
	return index.entriesOf.size + index.short.size;
}

/** Every item the index holds. */
export function* indexedItems<T>(index: AnchorIndex<T>): Iterable<T> {
	yield* index.entriesOf.keys();
	yield* index.short;
}

/** Items with a needle shorter than HEAD characters: not filed, to be asked directly. */
export function shortItems<T>(index: AnchorIndex<T>): ReadonlySet<T> {
	return index.short;
}

/** Is `item` held as a short item (a needle shorter than HEAD)? */
export function isShortItem<T>(index: AnchorIndex<T>, item: T): boolean {
	return index.short.has(item);
}

/**
 * A hash as a key: its low 30 bits, which V8 keeps as a small integer. A 32-bit one would be boxed
 * as a heap number at every character read: an allocation, and a slower map look-up.
 */
const KEY = 0x3fffffff;

/** A narrow window's hash: the low bytes of its characters, packed. */
function narrowAt(text: string, at: number): number {
	let h = 0;
	for (let i = at; i < at + NARROW; i++) h = (h << 8) | (text.charCodeAt(i) & 0xff);
	return h & KEY;
}

/** A wide window's hash: its characters as the digits of a number in BASE (mod 2³²). */
function wideAt(text: string, at: number): number {
	let h = 0;
	for (let i = at; i < at + WIDE; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
	return h & KEY;
}

function slot(hash: number, bits: number): number {
	return Math.imul(hash, 0x9e3779b1) >>> (32 - bits);
}

/** How many needles of `t` are filed under `hash`. */
function bucketSize(t: Table<unknown>, hash: number): number {
	let size = 0;
	for (let id = t.heads[slot(hash, t.bits)]!; id !== 0; id = t.next[id]!) if (t.hashes[id] === hash) size++;
	return size;
}

/** Puts needle `id` at the head of its slot's chain. */
function link(t: Table<unknown>, id: number): void {
	const s = slot(t.hashes[id]!, t.bits);
	t.next[id] = t.heads[s]!;
	t.heads[s] = id;
}

/** Keeps the table at most half full: a bigger one, every needle linked again, when the entries outgrow it. */
function grow(t: Table<unknown>): void {
	if (t.entries * 2 <= 1 << t.bits) return;
	while (t.entries * 2 > 1 << t.bits) t.bits++;
	t.heads = new Int32Array(1 << t.bits);
	for (let id = 1; id < t.needles.length; id++) if (t.needles[id] !== undefined) link(t, id);
}

/** Files a needle no item has filed yet, under its window with the smallest bucket. */
function fileNeedle<T>(index: AnchorIndex<T>, needle: string): Needle<T> {
	if (index.emptied !== undefined) throw new Error("anchor index: a needle filed while a text is read");
	const t = needle.length >= WIDE ? index.wide : index.narrow;
	const hashAt = t === index.wide ? wideAt : narrowAt;
	let best = 0;
	let bestHash = hashAt(needle, 0);
	let bestSize = bucketSize(t, bestHash);
	for (let offset = 1; offset <= Math.min(needle.length - t.width, WINDOWS - 1) && bestSize > 0; offset++) {
		const hash = hashAt(needle, offset);
		const size = bucketSize(t, hash);
		if (size < bestSize) {
			best = offset;
			bestHash = hash;
			bestSize = size;
		}
	}
	const id = t.free.pop() ?? t.needles.length;
	const entry: Needle<T> = { needle, items: new Set(), offset: best, table: t, hash: bestHash, id };
	t.needles[id] = entry;
	t.next[id] = 0;
	// Places from the start of the window the needle is filed under.
	t.hashes[id] = bestHash;
	t.lastAt[id] = needle.length - 1 - best;
	t.lastChar[id] = needle.charCodeAt(needle.length - 1);
	t.midAt[id] = (needle.length >> 1) - best;
	t.midChar[id] = needle.charCodeAt(needle.length >> 1);
	t.entries++;
	link(t, id);
	grow(t);
	index.needles.set(needle, entry);
	return entry;
}

/** Takes a needle no item looks for any more out of its bucket. */
function unfileNeedle<T>(index: AnchorIndex<T>, entry: Needle<T>): void {
	// Filed again since it was emptied (an item filed while a text was read): it stays.
	if (entry.items.size > 0 || index.needles.get(entry.needle) !== entry) return;
	index.needles.delete(entry.needle);
	const t = entry.table;
	const s = slot(entry.hash, t.bits);
	if (t.heads[s] === entry.id) t.heads[s] = t.next[entry.id]!;
	else {
		let id = t.heads[s]!;
		while (t.next[id] !== entry.id) id = t.next[id]!;
		t.next[id] = t.next[entry.id]!;
	}
	t.needles[entry.id] = undefined;
	t.free.push(entry.id);
	t.entries--;
}

/** Files `item` under its needles; one needle shorter than HEAD makes it a short item. Drop it first to file it again. */
export function fileAnchors<T>(index: AnchorIndex<T>, item: T, needles: readonly string[]): void {
	if (needles.some((n) => n.length < HEAD)) {
		index.short.add(item);
		return;
	}
	const entries: Needle<T>[] = [];
	for (const needle of needles) {
		const entry = index.needles.get(needle) ?? fileNeedle(index, needle);
		if (entry.items.has(item)) continue;
		entry.items.add(item);
		entries.push(entry);
	}
	if (entries.length > 0) index.entriesOf.set(item, entries);
}

/** Takes `item` out of the index. */
export function dropAnchors<T>(index: AnchorIndex<T>, item: T): void {
	index.short.delete(item);
	const entries = index.entriesOf.get(item);
	if (entries === undefined) return;
	index.entriesOf.delete(item);
	for (const entry of entries) {
		entry.items.delete(item);
		if (entry.items.size > 0) continue;
		// While a text is read its buckets stay as they are: the needle goes when the reading ends.
		if (index.emptied !== undefined) index.emptied.push(entry);
		else unfileNeedle(index, entry);
	}
}

/**
 * What `eachNeedle` calls at a place where a needle starts, with the items that look for it: true
 * when the rest of the text need not be read for that needle (its items are found, say).
 */
export type NeedleVisit<T> = (items: ReadonlySet<T>, needle: string, at: number) => boolean | undefined;

/**
 * The needles of `t` filed under `hash`, compared where the window ending before `end` stands. A
 * needle the visitor needs no more leaves its chain for the rest of the reading: in a text made of
 * the same few words as the needles (a generated session's), those found once are met again at most
 * characters, and passing over them there cost more than all the rest of a reading.
 */
function visitBucket<T>(t: Table<T>, hash: number, text: string, end: number, visit: NeedleVisit<T>): void {
	const start = end - t.width;
	const s = slot(hash, t.bits);
	let prev = 0;
	for (let id = t.heads[s]!; id !== 0; ) {
		const next = t.next[id]!;
		if (
			t.hashes[id] === hash &&
			text.charCodeAt(start + t.lastAt[id]!) === t.lastChar[id] &&
			text.charCodeAt(start + t.midAt[id]!) === t.midChar[id]
		) {
			const entry = t.needles[id]!;
			const at = start - entry.offset;
			if (
				entry.items.size > 0 &&
				at >= 0 &&
				text.startsWith(entry.needle, at) &&
				visit(entry.items, entry.needle, at) === true
			) {
				if (prev === 0) t.heads[s] = next;
				else t.next[prev] = next;
				t.unlinked.push(id);
				id = next;
				continue;
			}
		}
		prev = id;
		id = next;
	}
}

/**
 * Calls `visit` at every place in `text` where a filed needle starts, with the items that look for
 * it (never for a short item), until it says the needle is no longer needed in this text. `visit`
 * may drop items, any of those it is given included.
 */
export function eachNeedle<T>(index: AnchorIndex<T>, text: string, visit: NeedleVisit<T>): void {
	const { narrow, wide } = index;
	if (narrow.entries === 0 && wide.entries === 0) return;
	if (index.emptied !== undefined) throw new Error("anchor index: a text read while another is");
	index.emptied = [];
	try {
		let n = 0;
		let w = 0;
		for (let i = 0; i < text.length; i++) {
			const c = text.charCodeAt(i);
			n = (n << 8) | (c & 0xff);
			w = (Math.imul(w, BASE) + c) | 0;
			if (i >= WIDE) w = (w - Math.imul(text.charCodeAt(i - WIDE), OUT_WEIGHT)) | 0;
			if (i >= NARROW - 1 && narrow.entries > 0) visitBucket(narrow, n & KEY, text, i + 1, visit);
			if (i >= WIDE - 1 && wide.entries > 0) visitBucket(wide, w & KEY, text, i + 1, visit);
		}
	} finally {
		for (const t of [narrow, wide]) {
			for (const id of t.unlinked) link(t, id);
			t.unlinked.length = 0;
		}
		const emptied = index.emptied;
		index.emptied = undefined;
		for (const entry of emptied) unfileNeedle(index, entry);
	}
}

/**
 * Calls `visit` at every place in `text` where a filed needle starts, once for each item that looks
 * for it (never for a short item). `visit` may drop items, the one visited included.
 */
export function eachOccurrence<T>(
	index: AnchorIndex<T>,
	text: string,
	visit: (item: T, needle: string, at: number) => void,
): void {
	eachNeedle(index, text, (items, needle, at) => {
		for (const item of items) visit(item, needle, at);
		return undefined;
	});
}
