/**
 * `JSON.stringify(value, null, 2)`, written in pieces as it is made: `render --json` of a long
 * session is a request of one content part per block, which as one string would be held beside
 * the request itself (docs/decisions.md, "A replay's memory follows the branch"). The same text as
 * `JSON.stringify` for plain data (objects, arrays, strings, numbers, booleans, null; `undefined`
 * and functions left out of objects, null in arrays); a value with `toJSON` is asked for it first.
 */

type Write = (text: string) => void;

/** Pieces of about this many characters are handed to `write`. */
const PIECE_CHARS = 1 << 16;

export function writeJson(value: unknown, write: Write): void {
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
	stream(value, "", "", out);
	if (pending.length > 0) write(pending.join(""));
}

function skipped(value: unknown): boolean {
	return value === undefined || typeof value === "function" || typeof value === "symbol";
}

function stream(raw: unknown, key: string, indent: string, out: Write): void {
	const value =
		raw !== null && typeof raw === "object" && typeof (raw as { toJSON?: unknown }).toJSON === "function"
			? (raw as { toJSON(key: string): unknown }).toJSON(key)
			: raw;
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
			stream(skipped(item) ? null : item, String(i), inner, out);
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
		stream(v, k, inner, out);
		out(i < entries.length - 1 ? ",\n" : "\n");
	});
	out(`${indent}}`);
}
