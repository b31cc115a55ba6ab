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
const MIN_FILTER_BITS = 10;
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
	/** The reading of a text that needs it no more (`eachNeedle`'s visitor said so): passed over there. */
	done: number;
}

/** Needles filed under windows of one width. */
interface Table<T> {
	readonly width: number;
	/** Needles by the hash of the window they are filed under. */
	readonly buckets: Map<number, Needle<T>[]>;
	/** How many needles each slot has (a slot is a window's hash, hashed again): most windows of a text are in none. */
	filter: Uint16Array;
	filterBits: number;
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
	/** Needles left without items while a text was being read: taken out when the reading ends. */
	emptied: Needle<T>[] | undefined;
	/** Texts read so far: the number of the current reading (`Needle.done`). */
	readings: number;
}

function table<T>(width: number): Table<T> {
	return {
		width,
		buckets: new Map(),
		filter: new Uint16Array(1 << MIN_FILTER_BITS),
		filterBits: MIN_FILTER_BITS,
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
		readings: 0,
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

/** A narrow window's hash: the low bytes of its characters, packed. */
function narrowAt(text: string, at: number): number {
	let h = 0;
	for (let i = at; i < at + NARROW; i++) h = (h << 8) | (text.charCodeAt(i) & 0xff);
	return h;
}

/** A wide window's hash: its characters as the digits of a number in BASE (mod 2³²). */
function wideAt(text: string, at: number): number {
	let h = 0;
	for (let i = at; i < at + WIDE; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
	return h;
}

function slot(hash: number, bits: number): number {
	return Math.imul(hash, 0x9e3779b1) >>> (32 - bits);
}

function count(t: Table<unknown>, hash: number, step: 1 | -1): void {
	const s = slot(hash, t.filterBits);
	// A full slot stays full: it only costs a map look-up.
	if (t.filter[s]! < 0xffff) t.filter[s]! += step;
}

/** Keeps the filter at most a quarter full: a bigger one, counted again, when the entries outgrow it. */
function growFilter(t: Table<unknown>): void {
	if (t.entries * 4 <= 1 << t.filterBits) return;
	let bits = t.filterBits;
	while (t.entries * 4 > 1 << bits) bits++;
	t.filterBits = bits;
	t.filter = new Uint16Array(1 << bits);
	for (const [hash, there] of t.buckets) for (let k = 0; k < there.length; k++) count(t, hash, 1);
}

/** Files a needle no item has filed yet, under its window with the smallest bucket. */
function fileNeedle<T>(index: AnchorIndex<T>, needle: string): Needle<T> {
	const t = needle.length >= WIDE ? index.wide : index.narrow;
	const hashAt = t === index.wide ? wideAt : narrowAt;
	let best = 0;
	let bestHash = hashAt(needle, 0);
	let bestSize = t.buckets.get(bestHash)?.length ?? 0;
	for (let offset = 1; offset <= Math.min(needle.length - t.width, WINDOWS - 1) && bestSize > 0; offset++) {
		const hash = hashAt(needle, offset);
		const size = t.buckets.get(hash)?.length ?? 0;
		if (size < bestSize) {
			best = offset;
			bestHash = hash;
			bestSize = size;
		}
	}
	const entry: Needle<T> = { needle, items: new Set(), offset: best, table: t, hash: bestHash, done: 0 };
	const there = t.buckets.get(bestHash);
	if (there === undefined) t.buckets.set(bestHash, [entry]);
	else there.push(entry);
	t.entries++;
	count(t, bestHash, 1);
	growFilter(t);
	index.needles.set(needle, entry);
	return entry;
}

/** Takes a needle no item looks for any more out of its bucket. */
function unfileNeedle<T>(index: AnchorIndex<T>, entry: Needle<T>): void {
	// Filed again since it was emptied (an item filed while a text was read): it stays.
	if (entry.items.size > 0 || index.needles.get(entry.needle) !== entry) return;
	index.needles.delete(entry.needle);
	const t = entry.table;
	const there = t.buckets.get(entry.hash)!;
	const at = there.indexOf(entry);
	there[at] = there[there.length - 1]!;
	there.pop();
	if (there.length === 0) t.buckets.delete(entry.hash);
	t.entries--;
	count(t, entry.hash, -1);
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

/** The needles of `t` filed under `hash`, compared where the window ending before `end` stands. */
function visitBucket<T>(
	t: Table<T>,
	hash: number,
	text: string,
	end: number,
	reading: number,
	visit: NeedleVisit<T>,
): void {
	if (t.filter[slot(hash, t.filterBits)] === 0) return;
	const there = t.buckets.get(hash);
	if (there === undefined) return;
	const start = end - t.width;
	for (let k = 0; k < there.length; k++) {
		const entry = there[k]!;
		const at = start - entry.offset;
		if (entry.done === reading || entry.items.size === 0 || at < 0 || !text.startsWith(entry.needle, at)) continue;
		if (visit(entry.items, entry.needle, at) === true) entry.done = reading;
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
	const reading = ++index.readings;
	const outer = index.emptied;
	index.emptied ??= [];
	try {
		let n = 0;
		let w = 0;
		for (let i = 0; i < text.length; i++) {
			const c = text.charCodeAt(i);
			n = (n << 8) | (c & 0xff);
			w = (Math.imul(w, BASE) + c) | 0;
			if (i >= WIDE) w = (w - Math.imul(text.charCodeAt(i - WIDE), OUT_WEIGHT)) | 0;
			if (i >= NARROW - 1 && narrow.entries > 0) visitBucket(narrow, n, text, i + 1, reading, visit);
			if (i >= WIDE - 1 && wide.entries > 0) visitBucket(wide, w, text, i + 1, reading, visit);
		}
	} finally {
		if (outer === undefined) {
			const emptied = index.emptied;
			index.emptied = undefined;
			for (const entry of emptied) unfileNeedle(index, entry);
		}
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
