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
	 * The open segment's blocks as last rendered untrimmed, with the open message's log parts (the log
	 * opening, then one part per block): the next request shares the parts of the blocks it still
	 * has (chunked lists, reducers/chunked.ts), so a replay of a long branch stays linear.
	 */
	lastOpen: { key: string; blocks: ChunkedList<Block>; log: ChunkedList<TextContent> } | undefined;
}

/** The config as a memo key: every field a block's rendering reads. */
export function configKey(config: LedgerConfig): string {
	return `${config.tailToolCalls}:${config.tailMaxChars}:${config.tailResultMaxChars}:${config.userMessageMaxChars}:${config.customPreviewChars}:${config.proseMaxChars}`;
}

export function createRenderMemo(): RenderMemo {
	const byConfig = new Map<string, WeakMap<Block, string>>();
	const segments = new Map<string, WeakMap<ClosedSegment, RenderedSegment>>();
	const hashes = new Map<string, string>();
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
