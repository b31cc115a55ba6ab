/**
 * The render memo: what rendering one request leaves for the next. The reducers never change a block
 * once made, so after an incremental fold only the new blocks are rendered, a closed segment is
 * rendered once, and a request that repeats the previous one part for part shares its units and its
 * open log (docs/decisions.md, "A replay's memory follows the branch").
 */

import type { AssistantMessage, TextContent, UserMessage } from "@mariozechner/pi-ai";
import type { Block, ChunkedList, ClosedSegment } from "../reducers/index.ts";
import { renderBlock } from "./blocks.ts";
import { type CatalogueEntry, renderCatalogue } from "./catalogue.ts";
import { hashString } from "./hash.ts";
import type { LedgerConfig } from "./ledger-section.ts";
import type { UnitMemo } from "./request-units.ts";

/** A closed segment as two messages, with the part texts each was made from. */
export interface RenderedSegment {
	log: UserMessage;
	logParts: string[];
	advice: AssistantMessage;
	adviceParts: string[];
}

/**
 * Memo of rendered blocks, by block identity, and of what the last request was made of. One memo
 * per ledger config.
 */
export interface RenderMemo extends UnitMemo {
	block(block: Block, config: LedgerConfig): string;
	catalogue(entries: readonly CatalogueEntry[]): string;
	/**
	 * A closed segment rendered whole: its log message and its advice turn. A closed segment never
	 * changes, so later requests reuse the very same message objects and part strings.
	 */
	segment(segment: ClosedSegment, config: LedgerConfig, build: () => RenderedSegment): RenderedSegment;
	/**
	 * The open segment's blocks as last rendered, with the open message's log parts (the log opening,
	 * the stand-in when the cut is in the open segment, then one part per block kept): the next request
	 * with the same cut shares the parts of the blocks it still has (chunked lists, reducers/chunked.ts),
	 * so a replay of a long branch stays linear.
	 */
	lastOpen: { key: string; blocks: ChunkedList<Block>; log: ChunkedList<TextContent> } | undefined;
	/**
	 * A value that belongs to one object of the ledger (a block, a closed segment), under a key: the
	 * log's size as scanned up to that item (log-cut.ts), the stand-in of a cut after it
	 * (stand-in.ts). Made once; it goes when the object does. `undefined` from `build` is not kept.
	 */
	held<T>(owner: object, key: string, build: () => T): T;
	/** What `held` keeps for `owner` under `key`, or undefined: never makes it. */
	findHeld<T>(owner: object, key: string): T | undefined;
}

/**
 * Each field of the ledger config, and whether the memo's keys hold it (`configKey`). A field that
 * anything the memo keeps reads — a block, a closed segment, the open log, a stand-in, the log's
 * scan — must be `true`, or a request after a change of that field is made of stale parts; `false`
 * is for a field read only by parts made anew for every request. Typed over every field, so a new
 * field of LedgerConfig does not compile until it is placed here (test/render/render-memo.test.ts
 * holds the same at run time, and that the memo is never stale).
 */
export const CONFIG_KEY_FIELDS = {
	tailToolCalls: true,
	tailMaxChars: true,
	// Read by the appendix alone (request-assembly.ts), made for every request.
	tailResultMaxChars: false,
	userMessageMaxChars: true,
	customPreviewChars: true,
	proseMaxChars: true,
	// Read by the standing instructions' part alone (instructions-part.ts), made for every request.
	instructionsMaxChars: false,
	logTargetTokens: true,
} as const satisfies Record<keyof LedgerConfig, boolean>;

const KEYED_FIELDS = (Object.keys(CONFIG_KEY_FIELDS) as (keyof LedgerConfig)[]).filter((f) => CONFIG_KEY_FIELDS[f]);

/** The config as a memo key: its fields that CONFIG_KEY_FIELDS marks, in that order. */
export function configKey(config: LedgerConfig): string {
	let key = `${config[KEYED_FIELDS[0]!]}`;
	for (let i = 1; i < KEYED_FIELDS.length; i++) key += `:${config[KEYED_FIELDS[i]!]}`;
	return key;
}

export function createRenderMemo(): RenderMemo {
	const byConfig = new Map<string, WeakMap<Block, string>>();
	const segments = new Map<string, WeakMap<ClosedSegment, RenderedSegment>>();
	const hashes = new Map<string, string>();
	const holdings = new WeakMap<object, Map<string, unknown>>();
	let lastCatalogue: { entries: readonly CatalogueEntry[]; key: string; text: string } | undefined;
	return {
		lastUnits: undefined,
		lastOpen: undefined,
		segment(segment, config, build) {
			const key = configKey(config);
			let memo = segments.get(key);
			if (memo === undefined) {
				memo = new WeakMap();
				segments.set(key, memo);
			}
			let rendered = memo.get(segment);
			if (rendered === undefined) {
				rendered = build();
				memo.set(segment, rendered);
			}
			return rendered;
		},
		block(block, config) {
			const key = configKey(config);
			let memo = byConfig.get(key);
			if (memo === undefined) {
				memo = new WeakMap();
				byConfig.set(key, memo);
			}
			let text = memo.get(block);
			if (text === undefined) {
				text = renderBlock(block, config);
				memo.set(block, text);
			}
			return text;
		},
		held<T>(owner: object, key: string, build: () => T): T {
			let byKey = holdings.get(owner);
			if (byKey?.has(key) === true) return byKey.get(key) as T;
			const value = build();
			if (value === undefined) return value;
			if (byKey === undefined) {
				byKey = new Map();
				holdings.set(owner, byKey);
			}
			byKey.set(key, value);
			return value;
		},
		findHeld<T>(owner: object, key: string): T | undefined {
			return holdings.get(owner)?.get(key) as T | undefined;
		},
		partHash(text) {
			let hash = hashes.get(text);
			if (hash === undefined) {
				hash = hashString(text);
				// Bounded: the working set is one branch's parts; past that, start over rather than grow.
				if (hashes.size > 200_000) hashes.clear();
				hashes.set(text, hash);
			}
			return hash;
		},
		catalogue(entries) {
			if (lastCatalogue?.entries === entries) return lastCatalogue.text;
			const key = JSON.stringify(entries.map((e) => [e.name, e.description]));
			if (lastCatalogue?.key !== key) lastCatalogue = { entries, key, text: renderCatalogue(entries) };
			else lastCatalogue = { ...lastCatalogue, entries };
			return lastCatalogue.text;
		},
	};
}

/** The memo of every render that brings none of its own: one per process. */
export const sharedMemo: RenderMemo = createRenderMemo();
