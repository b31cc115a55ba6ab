/**
 * advisor_expand: the verbatim text behind ledger cards and gaps. Which ids exist is the
 * ledger core's call (its ExpandSource answers "not-found" for hidden custom messages, `!!`
 * runs and entries off the branch); this module parses ids and shares out the output budget.
 */

import { type Tool, Type } from "@mariozechner/pi-ai";
import { assertNever } from "../../../events/index.ts";
import { EXPAND_MAX_IDS, EXPAND_TOOL_DESCRIPTION, EXPAND_TOOL_NAME, TOOL_TEXT } from "../../../render/index.ts";
import { clipHeadTail, fairShares } from "./clip.ts";
import { fail, type ToolArgs, type ToolOutcome } from "./result.ts";

export type ExpandLookup = { kind: "ok"; text: string } | { kind: "not-found" };

/** Implemented by the ledger core: only ids the ledger could have shown resolve. */
export interface ExpandSource {
	/** `id` comes without its `#`. */
	lookup(id: string): ExpandLookup;
}

export const EXPAND_DECLARATION: Tool = Object.freeze({
	name: EXPAND_TOOL_NAME,
	description: EXPAND_TOOL_DESCRIPTION,
	parameters: Type.Object({ ids: Type.Array(Type.String()) }),
});

/**
 * Ids in the order given, without `#`, deduplicated. Models also send `"#a #b"` or `"#a,#b"`
 * in one string (pi-ai's validator wraps a bare string into an array), so each is split too.
 */
export function parseExpandIds(raw: unknown): string[] {
	const items = Array.isArray(raw) ? raw : [raw];
	const seen = new Set<string>();
	for (const item of items) {
		if (typeof item !== "string") continue;
		for (const token of item.split(/[\s,]+/)) {
			const id = token.replace(/^#+/, "");
			if (id !== "") seen.add(id);
		}
	}
	return [...seen];
}

export function runExpand(args: ToolArgs, source: ExpandSource, maxResultChars: number): ToolOutcome {
	const ids = parseExpandIds(args.ids);
	if (ids.length === 0) return fail(TOOL_TEXT.expandNoIds);
	const taken = ids.slice(0, EXPAND_MAX_IDS);
	const dropped = ids.slice(EXPAND_MAX_IDS);

	const looked = taken.map((id) => ({ id, found: source.lookup(id) }));
	const blocks: { id: string; header: string; text: string | undefined }[] = looked.map(({ id, found }) => {
		switch (found.kind) {
			case "ok":
				return { id, header: `#${id}\n`, text: found.text };
			case "not-found":
				return { id, header: TOOL_TEXT.expandNotFound(id), text: undefined };
			default:
				return assertNever(found, "expand lookup");
		}
	});
	const trailer =
		dropped.length > 0 ? TOOL_TEXT.expandOverCap(EXPAND_MAX_IDS, dropped.map((d) => `#${d}`).join(", ")) : "";

	// Everything that is not verbatim text is paid first; the texts share the rest fairly.
	const separators = 2 * (blocks.length - 1 + (trailer === "" ? 0 : 1));
	const overhead = blocks.reduce((n, b) => n + b.header.length, 0) + trailer.length + separators;
	const texts = blocks.filter((b) => b.text !== undefined).map((b) => b.text!);
	const shares = fairShares(
		texts.map((t) => t.length),
		maxResultChars - overhead,
	);
	let k = 0;
	const parts = blocks.map((b) => (b.text === undefined ? b.header : b.header + clipHeadTail(b.text, shares[k++]!)));
	if (trailer !== "") parts.push(trailer);
	const text = clipHeadTail(parts.join("\n\n"), maxResultChars);
	// All ids unknown is an error the advisor should notice; a partial hit is a normal answer.
	return texts.length === 0 ? fail(text) : { kind: "ok", content: [{ type: "text", text }] };
}
