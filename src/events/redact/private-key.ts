/**
 * Private-key blocks (PEM, PKCS#8, OpenSSH, PGP armour), each replaced whole by one mark.
 *
 * The header follows secretlint-rule-privatekey (see rules.ts for the attribution); the body is
 * judged here rather than by one regular expression, because the executor sees keys in shapes a
 * file scanner does not: JSON strings with `\n` escapes, `cat -n` or `grep -n` output with a prefix
 * on every line, and `read` output cut before the END line. So:
 *
 * - BEGIN … END found: the whole block is a key when its body holds a run of at least 40 base64
 *   characters (a key line is 64). A documentation stand-in (`...`, `<your key>`) has none and stays.
 * - no END (cut output), or another BEGIN before it: the block runs over the lines that look like
 *   key material (base64, optionally after a line-number prefix; `Proc-Type:`-style headers; blank
 *   lines) and is a key when one of them holds such a run.
 */

import type { Found } from "./found.ts";

const HEADER = /-----BEGIN[ ]?(?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
const FOOTER = /-----END[ ]?(?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/y;
const KEY_RUN = /[A-Za-z0-9+/=]{40,}/;
const KEY_MATERIAL = /[A-Za-z0-9+/]{16,}/;
/** How far an END line is looked for; a 16384-bit RSA key is about 12 000 characters. */
const MAX_BLOCK = 65536;
/** A line of a cut block: base64 after an optional `12:`/`id_rsa:3:`/`  12\t` prefix, a header, or blank. */
const KEY_LINE =
	/^[ \t]*(?:[\w./-]*[:-]?\d*[:\t-][ \t]*)?[A-Za-z0-9+/]{16,}={0,2}[ \t]*$|^[A-Za-z][A-Za-z0-9-]*: .*$|^[ \t]*$/;
const MAX_KEY_LINE = 200;
/** Line ends: real ones, and the `\n` escapes of a key inside a JSON string. */
const LINE_END = /\r?\n|\\+[nr]/g;

export function findPrivateKeys(text: string): Found[] {
	const found: Found[] = [];
	const nextEnd = nextOf(text, "-----END");
	const nextBegin = nextOf(text, "-----BEGIN");
	HEADER.lastIndex = 0;
	for (let m = HEADER.exec(text); m !== null; m = HEADER.exec(text)) {
		const start = m.index;
		const bodyStart = HEADER.lastIndex;
		const end =
			completeBlockEnd(text, bodyStart, nextEnd(bodyStart), nextBegin(bodyStart)) ?? cutBlockEnd(text, bodyStart);
		if (end !== undefined) {
			found.push({ start, end, kind: "private-key" });
			HEADER.lastIndex = end;
		}
	}
	return found;
}

/**
 * `text.indexOf(marker, from)` for growing `from`, each occurrence searched for once: a text with
 * thousands of BEGIN lines and no END stays linear.
 */
function nextOf(text: string, marker: string): (from: number) => number {
	let at = -2;
	return (from) => {
		if (at === -1 || at >= from) return at;
		at = text.indexOf(marker, from);
		return at;
	};
}

function completeBlockEnd(text: string, bodyStart: number, endAt: number, nextBegin: number): number | undefined {
	if (endAt < 0 || endAt >= bodyStart + MAX_BLOCK) return undefined;
	if (nextBegin >= 0 && nextBegin < endAt) return undefined;
	FOOTER.lastIndex = endAt;
	if (!FOOTER.test(text)) return undefined;
	return KEY_RUN.test(text.slice(bodyStart, endAt)) ? FOOTER.lastIndex : undefined;
}

function cutBlockEnd(text: string, bodyStart: number): number | undefined {
	const limit = Math.min(text.length, bodyStart + MAX_BLOCK);
	let lineStart = bodyStart;
	let lastKeyLineEnd: number | undefined;
	let sawKeyRun = false;
	LINE_END.lastIndex = bodyStart;
	for (;;) {
		const sep = LINE_END.exec(text);
		const lineEnd = sep === null || sep.index > limit ? limit : sep.index;
		// A `\t` escape (JSON text) stands for the tab of a `cat -n` prefix; a text cut inside an
		// escape ends on its backslashes.
		let line = text.slice(lineStart, lineEnd).replaceAll("\\t", "\t");
		if (lineEnd === text.length) line = line.replace(/\\+$/, "");
		// A key line is 64 to 76 characters and a prefix; a long line is something else (and would
		// make KEY_LINE's prefix search slow).
		if (line.length > MAX_KEY_LINE || !KEY_LINE.test(line)) break;
		if (KEY_MATERIAL.test(line)) lastKeyLineEnd = lineEnd;
		if (KEY_RUN.test(line)) sawKeyRun = true;
		if (lineEnd === limit) break;
		lineStart = LINE_END.lastIndex;
	}
	return sawKeyRun ? lastKeyLineEnd : undefined;
}
