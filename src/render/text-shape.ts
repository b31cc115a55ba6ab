/** Text shaping shared by the renderers. Every function is total and never splits a surrogate pair. */

import { BLOCK_GAP, GAP } from "./model-text.ts";
import { neutralise } from "./neutralise.ts";

function isHighSurrogate(code: number): boolean {
	return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
	return code >= 0xdc00 && code <= 0xdfff;
}

/** The first `n` UTF-16 units, one fewer when the cut would leave half a surrogate pair. */
export function safeHead(text: string, n: number): string {
	if (n <= 0) return "";
	if (n >= text.length) return text;
	const end = isHighSurrogate(text.charCodeAt(n - 1)) ? n - 1 : n;
	return text.slice(0, end);
}

/** The last `n` UTF-16 units, one fewer when the cut would start inside a surrogate pair. */
export function safeTail(text: string, n: number): string {
	if (n <= 0) return "";
	if (n >= text.length) return text;
	const start = text.length - n;
	return text.slice(isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start);
}

/** Clip to at most `max` units, ending in `…` when something was cut. */
export function clip(text: string, max: number): string {
	if (text.length <= max) return text;
	return `${safeHead(text, Math.max(0, max - 1))}…`;
}

/**
 * A value as JSON, "" when it cannot be: a model's tool call arguments are parsed JSON, but nothing
 * bounds their depth, and a value too deep to serialise must not throw out of a renderer.
 */
export function jsonText(value: unknown): string {
	try {
		return JSON.stringify(value) ?? "";
	} catch {
		return "";
	}
}

/** Collapse every run of whitespace (newlines included) to one space, so the text fits on one line. */
export function oneLine(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}

/**
 * Keep head and tail around a marked gap. The gap names the entry advisor_expand fills it from,
 * unless `id` is undefined: inside a block whose header already names it, the id would be said twice.
 * The gap sits on a line of its own so nothing on either side can pair up across it.
 */
export function capWithGap(text: string, max: number, id: string | undefined): string {
	if (text.length <= max) return text;
	const { head, omitted, tail } = splitAtGap(text, max);
	return `${head}\n${id === undefined ? BLOCK_GAP(omitted.length) : GAP(omitted.length, id)}\n${tail}`;
}

/**
 * The head (60%) and tail kept when `text` is capped at `max`, and what lies between. The cut makes
 * the tail's first characters a line start: what was harmless mid-line (inside a JSON string, say)
 * could now read as a header, so the tail is defused like any other text.
 */
export function splitAtGap(text: string, max: number): { head: string; omitted: string; tail: string } {
	const headLen = Math.ceil(max * 0.6);
	const head = safeHead(text, headLen);
	const rawTail = safeTail(text, max - headLen);
	return { head, omitted: text.slice(head.length, text.length - rawTail.length), tail: neutralise(rawTail) };
}

/**
 * Compact size of a text in chars: "812", "3.2k", "14k", "1.2M". Precision beyond two or three
 * digits tells the advisor nothing and costs tokens on every card.
 */
export function compactSize(chars: number): string {
	if (chars < 1000) return String(chars);
	const k = chars / 1000;
	if (k < 9.95) return `${trimZero(k.toFixed(1))}k`;
	if (Math.round(k) < 1000) return `${Math.round(k)}k`;
	const m = chars / 1_000_000;
	return m < 9.95 ? `${trimZero(m.toFixed(1))}M` : `${Math.round(m)}M`;
}

function trimZero(fixed: string): string {
	return fixed.endsWith(".0") ? fixed.slice(0, -2) : fixed;
}

/** First non-empty line, trimmed; CR, LF and CRLF all end a line. */
export function firstLine(text: string): string {
	for (const line of text.split(/\r\n|\r|\n/)) {
		const trimmed = line.trim();
		if (trimmed.length > 0) return trimmed;
	}
	return "";
}

/** First sentence of a tool description: up to the first sentence end or line break. */
export function firstSentence(text: string): string {
	const line = firstLine(text);
	const match = /^(.*?[.!?])(\s|$)/.exec(line);
	return (match?.[1] ?? line).trim();
}
