/**
 * The checker behind test/docs.pointers.test.ts: what the docs point at must exist, and the defaults they
 * state must be the code's. Pure over the texts it is given; the test supplies the file system.
 *
 * The forms it recognises (write pointers in one of them, or they are not checked):
 *
 * 1. A path in a code span, from the repository root (`src/…`, `test/…`, `bench/…`, `scripts/…`,
 *    `samples/…`) or from src/ (`events/…`, `reducers/…`, `render/…`, `policy/…`, `adapter/…`): a file,
 *    or a folder when it ends in `/`. It must exist.
 * 2. A path of form 1 followed by names in code spans — `render/blocks.ts` `renderBlock`, `verbatimRound` —
 *    separated only by spaces, a comma or a colon, and "and"/"or". Each name must be declared in that file:
 *    a function, const, let, var, class, interface, type or enum of that name, or a method or property key at
 *    the start of a line (a handler in an object map).
 * 3. A code span holding a `.ts` file that starts at none of those roots (`branch.ts`, `host/x.ts`) is an
 *    error: say where it is.
 * 4. A bare path in prose (outside code and links) from the repository root with an extension
 *    (src/render/hash.ts, test/purity.test.ts) must exist.
 * 5. A relative Markdown link must name an existing file, and its `#anchor`, in a .md file, one of that
 *    file's headings (GitHub's slugs).
 * 6. A stated default must be the value of that key in the defaults the test hands in
 *    (DEFAULT_ADVISOR_CONFIG). Two forms state one: a table row with a `key` and a `default` column, and a
 *    list item that opens "- `key` (type, default X):". A key is the path in its code span; a key without
 *    a dot belongs to the section named by the first code span of the heading above it, when that names
 *    a section. A default reads as: a number (commas allowed), `true`/`false`, `[]`, a string in a
 *    code span, "absent…" or "built-in" (no value in the defaults: the built-in text applies), or "the list
 *    below"/"see below" (the list after the line "The default deny list:", a fenced block or the code spans
 *    of that paragraph). Anything else is reported as unreadable.
 *
 * 7. In src/, a doc named by its path from the repository root (`docs/<file>.md`, written in a comment) must
 *    exist; with `#anchor` after it, the anchor must be one of that doc's headings (GitHub's slugs); with
 *    `, "Heading"` after it, the quoted text must be one of its headings or a heading's opening words
 *    (`"render"` for `` ## `render FILE` ``; it may run on over the comment's next line).
 *
 * Fenced code blocks are examples and are skipped by every form but 6's deny list.
 */

export interface DocContext {
	/** Whether a path relative to the repository root exists (a folder when it ends in `/`). */
	exists(repoPath: string): boolean;
	/** The text of a repository file, or undefined. */
	read(repoPath: string): string | undefined;
	/** The configuration's defaults, as the code holds them. */
	defaults: Record<string, unknown>;
}

export interface Problem {
	doc: string;
	line: number;
	message: string;
}

const ROOT_PREFIXES = ["src/", "test/", "bench/", "scripts/", "samples/"];
const SRC_PREFIXES = ["events/", "reducers/", "render/", "policy/", "adapter/"];
const PATH_LIKE = /^[\w.@-]+(?:\/[\w.@-]+)*\/?$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const NAME_GAP = /^\s*[,:]?\s*(?:(?:and|or)\s+)?$/;
const BARE_PATH = /(?<![\w./@-])(?:src|test|bench|scripts)\/[\w.@/-]*\w\.\w+/g;
const CODE_SPAN = /(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g;
const LINK = /\[[^\]]*\]\(([^)\s]+)\)/g;
const LIST_DEFAULT = /^\s*[-*] `([^`]+)` \(.*?, default (.+?)\):/;

interface Span {
	text: string;
	start: number;
	end: number;
}

/** The text with fenced blocks blanked (lines kept, so offsets still give line numbers). */
export function blankFences(text: string): string {
	let inFence = false;
	return text
		.split("\n")
		.map((line) => {
			const fence = /^\s*(```|~~~)/.test(line);
			if (fence) inFence = !inFence;
			return fence || inFence ? " ".repeat(line.length) : line;
		})
		.join("\n");
}

function codeSpans(prose: string): Span[] {
	return [...prose.matchAll(CODE_SPAN)].map((m) => ({
		text: m[2]!.trim(),
		start: m.index,
		end: m.index + m[0].length,
	}));
}

/** The repository path a code span points at, or undefined when it is not a pointer. */
export function pointerPath(span: string): string | undefined {
	if (!PATH_LIKE.test(span)) return undefined;
	if (ROOT_PREFIXES.some((p) => span.startsWith(p))) return span;
	if (SRC_PREFIXES.some((p) => span.startsWith(p))) return `src/${span}`;
	return undefined;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whether `name` is declared in a TypeScript source (form 2). */
export function declares(source: string, name: string): boolean {
	const n = escapeRegex(name);
	const declaration = new RegExp(`\\b(?:function\\*?|const|let|var|class|interface|type|enum)\\s+${n}\\b`);
	const member = new RegExp(
		`^\\s*(?:(?:export|public|private|protected|static|readonly|async|get|set)\\s+)*${n}\\s*(?:[(:<=]|\\?:)`,
		"m",
	);
	return declaration.test(source) || member.test(source);
}

/** GitHub's anchor for a heading: lowercased, punctuation dropped, spaces to dashes. */
export function slug(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\s_-]/gu, "")
		.replace(/\s/g, "-");
}

/** Every anchor a Markdown text offers (duplicates numbered as GitHub numbers them). */
export function anchors(text: string): Set<string> {
	const seen = new Map<string, number>();
	const out = new Set<string>();
	for (const line of blankFences(text).split("\n")) {
		const m = /^#{1,6}\s+(.*)$/.exec(line);
		if (!m) continue;
		const base = slug(m[1]!);
		const n = seen.get(base) ?? 0;
		seen.set(base, n + 1);
		out.add(n === 0 ? base : `${base}-${n}`);
	}
	return out;
}

const lineAt = (text: string, offset: number) => text.slice(0, offset).split("\n").length;

/** Forms 1 to 5 over one doc; `docPath` is its path from the repository root. */
export function checkPointers(docPath: string, text: string, ctx: DocContext): Problem[] {
	const prose = blankFences(text);
	const problems: Problem[] = [];
	const report = (offset: number, message: string) =>
		problems.push({ doc: docPath, line: lineAt(text, offset), message });
	const spans = codeSpans(prose);

	for (let i = 0; i < spans.length; i++) {
		const span = spans[i]!;
		const target = pointerPath(span.text);
		if (target === undefined) {
			if (PATH_LIKE.test(span.text) && span.text.endsWith(".ts")) {
				report(span.start, `\`${span.text}\`: a .ts file must be named from the repository root or from src/`);
			}
			continue;
		}
		if (!ctx.exists(target)) {
			report(span.start, `\`${span.text}\`: no such ${target.endsWith("/") ? "folder" : "file"} (${target})`);
			continue;
		}
		for (let j = i + 1; j < spans.length; j++) {
			const next = spans[j]!;
			if (!NAME_GAP.test(prose.slice(spans[j - 1]!.end, next.start)) || !IDENTIFIER.test(next.text)) break;
			const source = target.endsWith(".ts") ? ctx.read(target) : undefined;
			if (source === undefined) report(next.start, `\`${next.text}\`: ${target} is not a TypeScript file`);
			else if (!declares(source, next.text)) report(next.start, `\`${next.text}\` is not declared in ${target}`);
		}
	}

	const plain = prose.replace(CODE_SPAN, (m) => " ".repeat(m.length)).replace(LINK, (m) => " ".repeat(m.length));
	for (const m of plain.matchAll(BARE_PATH)) {
		if (!ctx.exists(m[0])) report(m.index, `${m[0]}: no such file`);
	}

	const dir = docPath.includes("/") ? docPath.slice(0, docPath.lastIndexOf("/") + 1) : "";
	for (const m of prose.matchAll(LINK)) {
		const href = m[1]!;
		if (/^[a-z]+:/i.test(href)) continue;
		const [file = "", anchor] = href.split("#");
		const target = file === "" ? docPath : normalise(dir + file);
		if (target === undefined || !ctx.exists(target)) {
			report(m.index, `link ${href}: no such file`);
			continue;
		}
		if (anchor === undefined || !target.endsWith(".md")) continue;
		const linked = file === "" ? text : ctx.read(target);
		if (linked === undefined || !anchors(linked).has(anchor)) report(m.index, `link ${href}: no such heading`);
	}
	return problems;
}

/** One doc a source names (form 7): the doc, and the heading it points at by anchor or by text, if any. */
export interface SourceDocLink {
	line: number;
	doc: string;
	anchor?: string;
	heading?: string;
}

/** A comment line's opening (` * ` or `// `), so that a quoted heading reads on across lines. */
const COMMENT_LINE_START = /\n[ \t]*(?:\*(?!\/)|\/\/)[ \t]?/g;
const SOURCE_DOC_LINK = /(?<![\w./-])docs\/([\w.-]+\.md)(?:#([\w-]+))?(?:,\s*"([^"]{1,200})")?/g;

/** Every doc a source names in form 7, in order. */
export function sourceDocLinks(source: string): SourceDocLink[] {
	const text = source.replace(COMMENT_LINE_START, "\n");
	return [...text.matchAll(SOURCE_DOC_LINK)].map((m) => ({
		line: lineAt(text, m.index),
		doc: `docs/${m[1]!}`,
		...(m[2] === undefined ? {} : { anchor: m[2] }),
		...(m[3] === undefined ? {} : { heading: m[3].replace(/\s+/g, " ").trim() }),
	}));
}

/** Form 7 over one source file; `sourcePath` is its path from the repository root. */
export function checkSourceDocLinks(sourcePath: string, source: string, ctx: DocContext): Problem[] {
	const problems: Problem[] = [];
	for (const link of sourceDocLinks(source)) {
		const report = (message: string) => problems.push({ doc: sourcePath, line: link.line, message });
		const text = ctx.read(link.doc);
		if (text === undefined) {
			report(`${link.doc}: no such file`);
			continue;
		}
		const offered = anchors(text);
		if (link.anchor !== undefined && !offered.has(link.anchor)) report(`${link.doc}#${link.anchor}: no such heading`);
		const opening = link.heading === undefined ? undefined : slug(link.heading);
		if (opening !== undefined && ![...offered].some((a) => a === opening || a.startsWith(`${opening}-`)))
			report(`${link.doc}, "${link.heading}": no such heading`);
	}
	return problems;
}

/** `a/b/../c` → `a/c`; undefined when it leaves the repository. */
function normalise(p: string): string | undefined {
	const out: string[] = [];
	for (const part of p.split("/")) {
		if (part === "..") {
			if (out.length === 0) return undefined;
			out.pop();
		} else if (part !== "." && part !== "") out.push(part);
	}
	return out.join("/") + (p.endsWith("/") ? "/" : "");
}

const ABSENT = Symbol("absent");
const DENY_LIST = Symbol("the deny list");
type Expected = unknown | typeof ABSENT | typeof DENY_LIST;

/** What a default cell says (form 6), or an Error when it cannot be read. */
export function readDefault(cell: string): Expected | Error {
	const text = cell.trim();
	const code = /^`([^`]*)`$/.exec(text)?.[1];
	const bare = code ?? text;
	if (/^absent\b/.test(text) || text === "built-in") return ABSENT;
	if (/^(?:the list below|see below)$/.test(text)) return DENY_LIST;
	if (/^-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$/.test(bare)) return Number(bare.replace(/,/g, ""));
	if (bare === "true" || bare === "false") return bare === "true";
	if (bare === "[]") return [];
	if (code !== undefined) return code;
	return new Error(`default "${text}" cannot be read`);
}

/** The deny list a doc states after "The default deny list:" (form 6). */
export function statedDenyList(text: string): string[] | undefined {
	const lines = text.split("\n");
	const at = lines.findIndex((l) => /default deny list:/i.test(l));
	if (at < 0) return undefined;
	const next = lines.slice(at + 1).findIndex((l) => l.trim() !== "") + at + 1;
	if (/^\s*```/.test(lines[next] ?? "")) {
		const end = lines.findIndex((l, i) => i > next && /^\s*```/.test(l));
		return lines
			.slice(next + 1, end)
			.join(" ")
			.split(/\s+/)
			.filter(Boolean);
	}
	const paragraph: string[] = [lines[at]!.slice(lines[at]!.search(/default deny list:/i))];
	for (let i = at + 1; i < lines.length && lines[i]!.trim() !== ""; i++) paragraph.push(lines[i]!);
	return codeSpans(paragraph.join("\n")).map((s) => s.text);
}

const cells = (row: string) =>
	row
		.trim()
		.replace(/^\||\|$/g, "")
		.split(/(?<!\\)\|/)
		.map((c) => c.trim());

function lookup(defaults: Record<string, unknown>, key: string): unknown {
	let value: unknown = defaults;
	for (const part of key.split(".")) {
		if (value === null || typeof value !== "object" || !(part in value)) return ABSENT;
		value = (value as Record<string, unknown>)[part];
	}
	return value === undefined ? ABSENT : value;
}

const show = (v: unknown) => (v === ABSENT ? "absent" : v === DENY_LIST ? "the deny list" : JSON.stringify(v));

/** Form 6 over one doc: every key/default table. Returns the problems and the keys it read. */
export function checkDefaults(docPath: string, text: string, ctx: DocContext): { problems: Problem[]; keys: string[] } {
	const lines = text.split("\n");
	const problems: Problem[] = [];
	const keys: string[] = [];
	let section: string | undefined;
	let header: string[] | undefined;
	const sections = Object.keys(ctx.defaults).filter((k) => typeof ctx.defaults[k] === "object");
	const denyList = statedDenyList(text);
	const check = (name: string, cell: string, i: number) => {
		const key = name.includes(".") || section === undefined ? name : `${section}.${name}`;
		keys.push(key);
		const problem = (message: string) => problems.push({ doc: docPath, line: i + 1, message: `${key}: ${message}` });
		const stated = readDefault(cell);
		if (stated instanceof Error) return problem(stated.message);
		const actual = lookup(ctx.defaults, key);
		const expected = stated === DENY_LIST ? (denyList ?? DENY_LIST) : stated;
		if (JSON.stringify(expected) !== JSON.stringify(actual) || (expected === ABSENT) !== (actual === ABSENT)) {
			problem(`the doc says ${show(expected)}, the code ${show(actual)}`);
		}
	};
	let inFence = false;
	lines.forEach((line, i) => {
		if (/^\s*```/.test(line)) inFence = !inFence;
		if (inFence) return;
		const heading = /^#{1,6}\s+(.*)$/.exec(line);
		if (heading) {
			const first = /`([^`]+)`/.exec(heading[1]!)?.[1];
			section = first !== undefined && sections.includes(first) ? first : undefined;
			return;
		}
		const item = LIST_DEFAULT.exec(line);
		if (item) {
			check(item[1]!, item[2]!, i);
			return;
		}
		if (!line.trim().startsWith("|")) {
			header = undefined;
			return;
		}
		const row = cells(line);
		if (header === undefined) {
			header = row.map((c) => c.toLowerCase());
			return;
		}
		if (row.every((c) => /^:?-+:?$/.test(c))) return;
		const k = header.indexOf("key");
		const d = header.indexOf("default");
		if (k < 0 || d < 0) return;
		const name = /^`([^`]+)`$/.exec(row[k] ?? "")?.[1];
		if (name !== undefined) check(name, row[d] ?? "", i);
	});
	return { problems, keys };
}
