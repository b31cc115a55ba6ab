/**
 * A small glob matcher for `tools.denyPatterns`. Why not picomatch or Node's `path.matchesGlob`:
 * docs/decisions.md (Privacy).
 *
 * Syntax: `*` (any run within one path segment), `?` (one character), `[abc]` / `[a-z]` /
 * `[!x]` / `[^x]` (one character from a class), `**` as a whole segment (zero or more
 * segments), `\x` (a literal x). Matching is anchored at both ends of the path.
 *
 * Two deliberate choices for a deny list, where a false refusal is cheap and a false pass leaks:
 * - dotfiles are matched like any name (`*.pem` matches `.pem`; there is no "hidden" rule);
 * - matching ignores case, because on a case-insensitive file system `.ENV` opens `.env`.
 * Both agree with git's `:(glob,icase)` pathspec magic, which git_diff uses for the same list.
 *
 * Matching is the classic greedy wildcard walk with one backtrack point, once over characters
 * and once over segments: linear in practice, never exponential, whatever the pattern.
 */

import { assertNever } from "../never.ts";

/** True when the whole path (posix separators) matches the pattern. */
export type GlobMatcher = (path: string) => boolean;

type ClassItem = { kind: "char"; char: string } | { kind: "range"; from: string; to: string };

type CharToken =
	| { kind: "literal"; char: string }
	| { kind: "one" }
	| { kind: "star" }
	| { kind: "class"; negated: boolean; items: ClassItem[] };

type SegmentToken = { kind: "globstar" } | { kind: "segment"; tokens: CharToken[] };

export function compileGlob(pattern: string): GlobMatcher {
	const segments = splitSegments(normalisePattern(pattern).toLowerCase()).map(parseSegment);
	return (path) => matchSegments(segments, splitSegments(path.toLowerCase()));
}

/** Drops what only anchors or decorates a pattern: `./`, a leading `/`, a trailing `/`. */
export function normalisePattern(pattern: string): string {
	let p = pattern.trim();
	while (p.startsWith("./")) p = p.slice(2);
	while (p.startsWith("/")) p = p.slice(1);
	while (p.endsWith("/") && !p.endsWith("\\/")) p = p.slice(0, -1);
	return p;
}

export function splitSegments(path: string): string[] {
	return path.split("/").filter((s) => s !== "" && s !== ".");
}

function parseSegment(segment: string): SegmentToken {
	if (segment === "**") return { kind: "globstar" };
	const chars = Array.from(segment);
	const tokens: CharToken[] = [];
	for (let i = 0; i < chars.length; i++) {
		const c = chars[i]!;
		if (c === "\\" && i + 1 < chars.length) {
			tokens.push({ kind: "literal", char: chars[++i]! });
		} else if (c === "*") {
			// `a**b` inside a segment is just a star; collapse runs so the walk stays simple.
			if (tokens.at(-1)?.kind !== "star") tokens.push({ kind: "star" });
		} else if (c === "?") {
			tokens.push({ kind: "one" });
		} else if (c === "[") {
			const parsed = parseClass(chars, i);
			if (parsed) {
				tokens.push(parsed.token);
				i = parsed.end;
			} else {
				tokens.push({ kind: "literal", char: c });
			}
		} else {
			tokens.push({ kind: "literal", char: c });
		}
	}
	return { kind: "segment", tokens };
}

/** Parses `[...]` starting at `open`; undefined when it never closes (then `[` is literal). */
function parseClass(chars: string[], open: number): { token: CharToken; end: number } | undefined {
	let i = open + 1;
	let negated = false;
	if (chars[i] === "!" || chars[i] === "^") {
		negated = true;
		i++;
	}
	const items: ClassItem[] = [];
	let first = true;
	for (; i < chars.length; i++) {
		let c = chars[i]!;
		// A `]` right after the opening bracket is a member, as in POSIX.
		if (c === "]" && !first) return { token: { kind: "class", negated, items }, end: i };
		first = false;
		if (c === "\\" && i + 1 < chars.length) c = chars[++i]!;
		if (chars[i + 1] === "-" && i + 2 < chars.length && chars[i + 2] !== "]") {
			let to = chars[i + 2]!;
			i += 2;
			if (to === "\\" && i + 1 < chars.length) to = chars[++i]!;
			items.push({ kind: "range", from: c, to });
		} else {
			items.push({ kind: "char", char: c });
		}
	}
	return undefined;
}

function matchChar(token: CharToken, c: string): boolean {
	switch (token.kind) {
		case "literal":
			return token.char === c;
		case "one":
			return true;
		case "star":
			return true;
		case "class": {
			const hit = token.items.some((item) => {
				switch (item.kind) {
					case "char":
						return item.char === c;
					case "range":
						return item.from <= c && c <= item.to;
					default:
						return assertNever(item, "glob token");
				}
			});
			return hit !== token.negated;
		}
		default:
			return assertNever(token, "glob token");
	}
}

function matchSegment(tokens: CharToken[], segment: string): boolean {
	return wildcardWalk(
		tokens,
		Array.from(segment),
		(t) => t.kind === "star",
		(t, c) => matchChar(t, c),
	);
}

function matchSegments(pattern: SegmentToken[], segments: string[]): boolean {
	return wildcardWalk(
		pattern,
		segments,
		(t) => t.kind === "globstar",
		(t, s) => t.kind === "segment" && matchSegment(t.tokens, s),
	);
}

/**
 * Greedy wildcard matching with a single backtrack point: every non-star token consumes
 * exactly one unit, a star any number. Remembering only the latest star is enough, which
 * keeps the walk O(pattern × input) at worst.
 */
function wildcardWalk<T, U>(
	tokens: readonly T[],
	input: readonly U[],
	isStar: (t: T) => boolean,
	matchOne: (t: T, u: U) => boolean,
): boolean {
	let p = 0;
	let s = 0;
	let starP = -1;
	let starS = 0;
	while (s < input.length) {
		const t = tokens[p];
		if (t !== undefined && !isStar(t) && matchOne(t, input[s]!)) {
			p++;
			s++;
		} else if (t !== undefined && isStar(t)) {
			starP = p++;
			starS = s;
		} else if (starP >= 0) {
			p = starP + 1;
			s = ++starS;
		} else {
			return false;
		}
	}
	while (p < tokens.length && isStar(tokens[p]!)) p++;
	return p === tokens.length;
}
