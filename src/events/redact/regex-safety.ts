/**
 * A conservative check that a user's pattern (`privacy.patterns`, `privacy.allow`) cannot backtrack
 * without bound. Redaction runs over every text of a session, so one pattern like `(a+)+` would
 * freeze a replay on a long run of `a`s. The check refuses the two shapes that make a backtracking
 * engine exponential, and it errs on the side of refusing:
 *
 * - **nested repetition**: a repeated part (more than once: `*`, `+`, `{2,}`, `{3}`) that contains a
 *   part of variable length (`+`, `*`, `?`, `{1,5}`): `(a+)+`, `(?:ab?)*`, `(\w{1,9}){4}`;
 * - **overlapping alternation**: a repeated part that contains an alternation whose branches do not
 *   all start with distinct literal characters: `(a|ab)*`, `(?:\d|x)+`, `(?:a|)+`.
 *
 * A repetition of fixed-length parts (`(?:[a-z]{2}\.)+`, `(?:foo|bar)+`) passes. Polynomial
 * backtracking (`\w*\w*x`) is not judged; docs/privacy.md says so. The pattern has already compiled
 * (without flags), so the parser below can be lenient about syntax.
 */

export type RegexRisk = "nested repetition" | "overlapping alternation";

type Atom =
	| { kind: "char"; char: string }
	| { kind: "other" }
	| { kind: "group"; alternatives: Term[][] }
	| { kind: "assertion" };

interface Term {
	atom: Atom;
	min: number;
	max: number;
}

/** The first risk found, or undefined when the pattern is judged safe. */
export function backtrackingRisk(source: string): RegexRisk | undefined {
	const parser = { source, pos: 0 };
	const alternatives = parseAlternatives(parser);
	return riskIn(alternatives, false);
}

function riskIn(alternatives: readonly Term[][], repeated: boolean): RegexRisk | undefined {
	if (repeated && alternatives.length > 1 && !distinctLiteralStarts(alternatives)) return "overlapping alternation";
	for (const sequence of alternatives) {
		for (const term of sequence) {
			const variable = term.max > term.min;
			if (repeated && variable) return "nested repetition";
			if (term.atom.kind === "group") {
				const risk = riskIn(term.atom.alternatives, repeated || term.max > 1);
				if (risk !== undefined) return risk;
			}
		}
	}
	return undefined;
}

/** True when every branch starts with a literal character that no other branch starts with. */
function distinctLiteralStarts(alternatives: readonly Term[][]): boolean {
	const seen = new Set<string>();
	for (const sequence of alternatives) {
		const first = sequence[0];
		if (first === undefined || first.min < 1 || first.atom.kind !== "char") return false;
		if (seen.has(first.atom.char)) return false;
		seen.add(first.atom.char);
	}
	return true;
}

interface Parser {
	source: string;
	pos: number;
}

function parseAlternatives(p: Parser): Term[][] {
	const alternatives: Term[][] = [[]];
	while (p.pos < p.source.length) {
		const c = p.source[p.pos]!;
		if (c === ")") break;
		if (c === "|") {
			alternatives.push([]);
			p.pos++;
			continue;
		}
		const atom = parseAtom(p);
		const [min, max] = parseQuantifier(p);
		alternatives.at(-1)!.push({ atom, min, max });
	}
	return alternatives;
}

function parseAtom(p: Parser): Atom {
	const c = p.source[p.pos]!;
	p.pos++;
	switch (c) {
		case "\\":
			return parseEscape(p);
		case "[":
			skipClass(p);
			return { kind: "other" };
		case "(":
			return parseGroup(p);
		case ".":
			return { kind: "other" };
		case "^":
		case "$":
			return { kind: "assertion" };
		default:
			return { kind: "char", char: c };
	}
}

function parseEscape(p: Parser): Atom {
	const c = p.source[p.pos];
	if (c === undefined) return { kind: "char", char: "\\" };
	p.pos++;
	if (c === "b" || c === "B") return { kind: "assertion" };
	if ("dDwWsS".includes(c) || /[0-9]/.test(c)) return { kind: "other" };
	if ((c === "p" || c === "P" || c === "k") && (p.source[p.pos] === "{" || p.source[p.pos] === "<")) {
		const close = p.source.indexOf(p.source[p.pos] === "{" ? "}" : ">", p.pos);
		p.pos = close < 0 ? p.source.length : close + 1;
		return { kind: "other" };
	}
	// \n, \t, \x41, \u0041, \cJ and escaped punctuation all stand for one character; treating the
	// hex forms as "other" only makes the alternation check stricter.
	if ("xuc".includes(c)) return { kind: "other" };
	return { kind: "char", char: c };
}

function skipClass(p: Parser): void {
	while (p.pos < p.source.length) {
		const c = p.source[p.pos]!;
		p.pos++;
		if (c === "\\") p.pos++;
		else if (c === "]") return;
	}
}

/** Any group, lookarounds included: a lookaround still backtracks inside, so it is judged alike. */
function parseGroup(p: Parser): Atom {
	if (p.source[p.pos] === "?") {
		const rest = p.source.slice(p.pos, p.pos + 3);
		if (rest.startsWith("?:") || rest.startsWith("?=") || rest.startsWith("?!")) p.pos += 2;
		else if (rest === "?<=" || rest === "?<!") p.pos += 3;
		else if (rest.startsWith("?<")) {
			const close = p.source.indexOf(">", p.pos);
			p.pos = close < 0 ? p.source.length : close + 1;
		}
	}
	const alternatives = parseAlternatives(p);
	if (p.source[p.pos] === ")") p.pos++;
	return { kind: "group", alternatives };
}

const BRACES = /\{(\d+)(,(\d*))?\}/y;

function parseQuantifier(p: Parser): [number, number] {
	const c = p.source[p.pos];
	let bounds: [number, number] | undefined;
	if (c === "*") bounds = [0, Number.POSITIVE_INFINITY];
	else if (c === "+") bounds = [1, Number.POSITIVE_INFINITY];
	else if (c === "?") bounds = [0, 1];
	if (bounds !== undefined) p.pos++;
	else if (c === "{") {
		BRACES.lastIndex = p.pos;
		const m = BRACES.exec(p.source);
		// Without the `u` flag a `{` that is not a quantifier is a literal; parseAtom reads it next.
		if (m === null) return [1, 1];
		const min = Number(m[1]);
		const max = m[2] === undefined ? min : m[3] === "" ? Number.POSITIVE_INFINITY : Number(m[3]);
		bounds = [min, max];
		p.pos = BRACES.lastIndex;
	} else return [1, 1];
	// A lazy quantifier explores the same paths in another order.
	if (p.source[p.pos] === "?") p.pos++;
	return bounds;
}
