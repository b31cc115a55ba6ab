/**
 * `JSON.stringify(value, null, 2)`, written in pieces as it is made: `render --json` of a long
 * session is a request of one content part per block, and `replay --json --all-leaves` of a large
 * tree a report of tens of thousands of points, either of which as one string would be held beside
 * the value itself, or not be held at all past V8's longest string (docs/decisions.md, "A replay's
 * memory follows the branch"). The same text as `JSON.stringify` for plain data (objects, arrays,
 * strings, numbers, booleans, null; `undefined` and functions left out of objects, null in arrays);
 * a value with `toJSON` is asked for it first.
 */

type Write = (text: string) => void;

export interface JsonLayout {
	/**
	 * Arrays under these keys get one item per line, each item as `JSON.stringify(item)` (no
	 * indentation inside): the same value, a row per item (replay's `points[]`, docs/cli.md).
	 */
	rowsUnder?: ReadonlySet<string>;
}

/** Pieces of about this many characters are handed to `write`. */
const PIECE_CHARS = 1 << 16;

export function writeJson(value: unknown, write: Write, layout: JsonLayout = {}): void {
	let pending: string[] = [];
	let size = 0;
	const out = (text: string) => {
		pending.push(text);
		size += text.length;
		if (size < PIECE_CHARS) return;
		write(pending.join(""));
		pending = [];
		size = 0;
	};
	stream(value, "", "", out, layout.rowsUnder ?? new Set());
	if (pending.length > 0) write(pending.join(""));
}

function skipped(value: unknown): boolean {
	return value === undefined || typeof value === "function" || typeof value === "symbol";
}

function withToJson(raw: unknown, key: string): unknown {
	return raw !== null && typeof raw === "object" && typeof (raw as { toJSON?: unknown }).toJSON === "function"
		? (raw as { toJSON(key: string): unknown }).toJSON(key)
		: raw;
}

/** An array as rows: `[`, one compact item per line, `]`, indented like the pretty form around it. */
function streamRows(items: readonly unknown[], indent: string, out: Write): void {
	if (items.length === 0) {
		out("[]");
		return;
	}
	const inner = `${indent}  `;
	out("[\n");
	items.forEach((item, i) => {
		const value = withToJson(item, String(i));
		out(inner);
		out(skipped(value) ? "null" : (JSON.stringify(value) ?? "null"));
		out(i < items.length - 1 ? ",\n" : "\n");
	});
	out(`${indent}]`);
}

function stream(raw: unknown, key: string, indent: string, out: Write, rowsUnder: ReadonlySet<string>): void {
	const value = withToJson(raw, key);
	if (Array.isArray(value) && rowsUnder.has(key)) {
		streamRows(value, indent, out);
		return;
	}
	if (value === null || typeof value !== "object") {
		out(JSON.stringify(value) ?? "null");
		return;
	}
	const inner = `${indent}  `;
	if (Array.isArray(value)) {
		if (value.length === 0) {
			out("[]");
			return;
		}
		out("[\n");
		value.forEach((item, i) => {
			out(inner);
			stream(skipped(item) ? null : item, String(i), inner, out, rowsUnder);
			out(i < value.length - 1 ? ",\n" : "\n");
		});
		out(`${indent}]`);
		return;
	}
	const entries = Object.entries(value).filter(([, v]) => !skipped(v));
	if (entries.length === 0) {
		out("{}");
		return;
	}
	out("{\n");
	entries.forEach(([k, v], i) => {
		out(`${inner}${JSON.stringify(k)}: `);
		stream(v, k, inner, out, rowsUnder);
		out(i < entries.length - 1 ? ",\n" : "\n");
	});
	out(`${indent}}`);
}
