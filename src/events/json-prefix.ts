/**
 * Is this unparseable text the beginning of a JSON object that was cut off?
 *
 * Pi appends one line per entry; a reader racing the writer sees the last line half
 * written. Telling that apart from a corrupt line needs more than "starts with {":
 * the text must be a prefix of some valid JSON object, which this scanner checks
 * without building anything.
 */

import { assertNever } from "./never.ts";

type Expect = "value" | "key" | "colon" | "commaOrClose" | "keyOrClose" | "valueOrClose" | "done";

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const HEX = /^[0-9a-fA-F]$/;
const NUMBER_CHAR = /^[-+.eE0-9]$/;
const FULL_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const LITERALS = ["true", "false", "null"] as const;

/** How a scan step ended: consumed up to `next`, ran out of input (still a valid prefix), or hit an error. */
type Step = { next: number } | "eof" | "invalid";

function scanString(text: string, start: number): Step {
	let i = start + 1;
	while (i < text.length) {
		const c = text[i]!;
		if (c === '"') return { next: i + 1 };
		if (c.charCodeAt(0) < 0x20) return "invalid";
		if (c === "\\") {
			const e = text[i + 1];
			if (e === undefined) return "eof";
			if (e === "u") {
				for (let k = 2; k < 6; k++) {
					const h = text[i + k];
					if (h === undefined) return "eof";
					if (!HEX.test(h)) return "invalid";
				}
				i += 6;
				continue;
			}
			if (!ESCAPES.has(e)) return "invalid";
			i += 2;
			continue;
		}
		i++;
	}
	return "eof";
}

function scanNumber(text: string, start: number): Step {
	let i = start;
	while (i < text.length && NUMBER_CHAR.test(text[i]!)) i++;
	// At end of input a cut-off number like "1e" is still a prefix; elsewhere it must be whole.
	if (i === text.length) return "eof";
	return FULL_NUMBER.test(text.slice(start, i)) ? { next: i } : "invalid";
}

function scanLiteral(text: string, start: number): Step {
	for (const literal of LITERALS) {
		const available = text.slice(start, start + literal.length);
		if (literal.startsWith(available) && available.length > 0) {
			return available.length < literal.length ? "eof" : { next: start + literal.length };
		}
	}
	return "invalid";
}

function scanValue(text: string, i: number): Step | "open" {
	const c = text[i]!;
	if (c === "{" || c === "[") return "open";
	if (c === '"') return scanString(text, i);
	if (c === "-" || (c >= "0" && c <= "9")) return scanNumber(text, i);
	return scanLiteral(text, i);
}

export function isJsonObjectPrefix(text: string): boolean {
	const stack: ("{" | "[")[] = [];
	let expect: Expect = "value";
	let i = 0;
	while (i < text.length && WHITESPACE.has(text[i]!)) i++;
	if (text[i] !== "{") return false;
	for (;;) {
		while (i < text.length && WHITESPACE.has(text[i]!)) i++;
		if (i >= text.length) return expect !== "done";
		const c = text[i]!;
		switch (expect) {
			case "done":
				return false;
			case "colon":
				if (c !== ":") return false;
				i++;
				expect = "value";
				continue;
			case "commaOrClose": {
				const top = stack.at(-1);
				if (c === ",") {
					i++;
					expect = top === "{" ? "key" : "value";
					continue;
				}
				if ((c === "}" && top === "{") || (c === "]" && top === "[")) {
					stack.pop();
					i++;
					expect = stack.length === 0 ? "done" : "commaOrClose";
					continue;
				}
				return false;
			}
			case "key":
			case "keyOrClose": {
				if (c === "}" && expect === "keyOrClose") {
					stack.pop();
					i++;
					expect = stack.length === 0 ? "done" : "commaOrClose";
					continue;
				}
				if (c !== '"') return false;
				const step = scanString(text, i);
				if (step === "eof") return true;
				if (step === "invalid") return false;
				i = step.next;
				expect = "colon";
				continue;
			}
			case "value":
			case "valueOrClose": {
				if (c === "]" && expect === "valueOrClose") {
					stack.pop();
					i++;
					expect = stack.length === 0 ? "done" : "commaOrClose";
					continue;
				}
				const step = scanValue(text, i);
				if (step === "open") {
					stack.push(c === "{" ? "{" : "[");
					i++;
					expect = c === "{" ? "keyOrClose" : "valueOrClose";
					continue;
				}
				if (step === "eof") return true;
				if (step === "invalid") return false;
				i = step.next;
				expect = "commaOrClose";
				continue;
			}
			default:
				return assertNever(expect, "parser state");
		}
	}
}
