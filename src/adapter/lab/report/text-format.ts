/**
 * How the text reports lay out what they print: styles, numbers, dollars, and tables and prose that
 * fit a terminal of WIDTH columns (docs/cli.md, "The text report").
 */

import { sep } from "node:path";
import type { Style } from "../cli/style.ts";

export { plain, type Style, styleFor } from "../cli/style.ts";

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

export function formatTokens(n: number): string {
	return integer.format(n);
}

export function fixed(n: number | null, digits = 3): string {
	return n === null ? "—" : n.toFixed(digits);
}

/**
 * A name in at most `width` characters, cut in the middle: its start says where a session is (Pi
 * names its folders after the project and its files after the date), its end which one it is.
 * The start keeps two thirds of the room.
 */
export function cutMiddle(text: string, width: number): string {
	if (text.length <= width) return text;
	if (width <= 1) return "…".slice(0, width);
	const head = Math.ceil(((width - 1) * 2) / 3);
	const tail = width - 1 - head;
	return `${text.slice(0, head)}…${tail > 0 ? text.slice(text.length - tail) : ""}`;
}

export function row(cells: readonly string[], widths: readonly number[]): string {
	return cells
		.map((c, i) => (i === 0 ? cutMiddle(c, widths[0]!).padEnd(widths[0]!) : c.padStart(widths[i]!)))
		.join("  ");
}

/**
 * The folder every name lies in (up to and including its last separator, the platform's), or ""
 * when they share none: the default tables name it once, above them, and show what is left of each
 * name. Only the platform's separator counts: on POSIX a `\` is part of a name (an escaped one).
 */
export function commonFolder(names: readonly string[], separator: string = sep): string {
	if (names.length === 0) return "";
	let prefix = names[0]!;
	for (const name of names.slice(1)) {
		let i = 0;
		while (i < prefix.length && i < name.length && prefix[i] === name[i]) i++;
		prefix = prefix.slice(0, i);
	}
	const folder = prefix.slice(0, prefix.lastIndexOf(separator) + 1);
	// The root alone says nothing.
	return folder === separator ? "" : folder;
}

/** A ratio against the baseline (ledger / baseline, masked / baseline): red where the baseline is the smaller. */
export function formatBaselineRatio(r: number | null, style: Style): string {
	if (r === null) return "—";
	const text = r.toFixed(3);
	return r > 1 ? style.red(text) : text;
}

/**
 * Dollars with a fixed number of decimals, so the amounts of one table line up and a cheap line is
 * never rounded to nothing next to an expensive one. (What the extension shows the user follows
 * another rule, policy's `formatUsd`: tenths of a cent under $1, cents above.)
 */
export function formatUsdFixed(n: number, digits = 2): string {
	return `$${n.toFixed(digits)}`;
}

/** Decimals that keep the smallest non-zero amount of a table at three significant digits (2 to 6). */
export function usdDigits(amounts: readonly number[]): number {
	const smallest = Math.min(...amounts.filter((n) => n > 0));
	if (!Number.isFinite(smallest)) return 2;
	return Math.min(6, Math.max(2, 2 - Math.floor(Math.log10(smallest))));
}

/** A price per million tokens as the registry lists it: cents, more decimals only when the price has them. */
export function formatPerMillion(n: number): string {
	const text = n.toFixed(4).replace(/0+$/, "");
	const decimals = text.length - text.indexOf(".") - 1;
	return decimals < 2 ? `$${n.toFixed(2)}` : `$${text}`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
	return `${formatTokens(n)} ${n === 1 ? one : many}`;
}

/** What the default text report fits in: every line at most this many columns (`--wide` lifts it for the tables). */
export const WIDTH = 100;

/** The narrowest a table's first column (a session's file, cut at its start) is made to fit WIDTH. */
const MIN_FIRST = 16;

/**
 * Rows as a table: every column as wide as its widest cell, two spaces apart, the first left-aligned
 * and the others right-aligned; with `width`, the first column gives up what the table would take
 * beyond it (its cells are cut in the middle, `cutMiddle`).
 */
export function fitTable(rows: readonly (readonly string[])[], width: number | undefined = WIDTH): string[] {
	const columns = rows[0]?.length ?? 0;
	const widths = Array.from({ length: columns }, (_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
	if (width !== undefined && columns > 1) {
		const rest = widths.slice(1).reduce((a, b) => a + b, 0) + 2 * (columns - 1);
		widths[0] = Math.min(widths[0]!, Math.max(MIN_FIRST, width - rest));
	}
	return rows.map((r) => row(r, widths));
}

/**
 * Prose in lines of at most `width` columns, broken at spaces; the first line keeps the text's own
 * indentation, the others start with `indent`. A word longer than a line (a long path) is cut into
 * pieces rather than let through.
 */
export function wrap(text: string, width = WIDTH, indent = "  "): string[] {
	const lead = /^ */.exec(text)![0];
	const out: string[] = [];
	let line = lead;
	let fresh = true;
	for (const word of text.slice(lead.length).split(" ")) {
		if (word === "") continue;
		const sep = fresh ? "" : " ";
		if (line.length + sep.length + word.length <= width) {
			line += sep + word;
			fresh = false;
			continue;
		}
		if (!fresh) {
			out.push(line);
			line = indent;
		}
		let rest = word;
		while (line.length + rest.length > width) {
			const room = Math.max(1, width - line.length);
			out.push(line + rest.slice(0, room));
			rest = rest.slice(room);
			line = indent;
		}
		line += rest;
		fresh = false;
	}
	out.push(line);
	return out;
}
