/**
 * A session read line by line as the file is read (readRegularLines + the events layer's line
 * parser) parses exactly as the whole text does, whatever the chunk size: byte-order mark, CRLF,
 * blank lines, a last line without its newline or cut mid-object, multi-byte characters split
 * between chunks, invalid UTF-8.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { readRegularFile, readRegularLines } from "../../../../src/adapter/extension/pi/regular-file.ts";
import { parseSessionText, sessionLineParser } from "../../../../src/events/index.ts";
import { repoRoot } from "../../../support/goldens.ts";

const tmp = mkdtempSync(path.join(repoRoot, ".tmp", "regular-lines-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const entry = (id: string, text: string) =>
	JSON.stringify({
		type: "message",
		id,
		parentId: null,
		timestamp: "2026-01-01T00:00:00.000Z",
		message: { role: "user", content: text, timestamp: 1 },
	});

const pieces = fc.constantFrom(
	'{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}',
	entry("a", "plain words"),
	entry("b", "😀 émoji — and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢"),
	entry("c", "line\r\nbreaks"),
	"",
	"   ",
	"not json",
	'{"type":"message","id":"d"',
	"\uFEFF",
	"\r",
);

let n = 0;
function fileOf(bytes: Buffer): string {
	const file = path.join(tmp, `s${n++}.jsonl`);
	writeFileSync(file, bytes);
	return file;
}

function readLines(file: string, chunkBytes: number) {
	const parser = sessionLineParser();
	const read = readRegularLines(file, 1 << 20, parser.line, chunkBytes);
	if (read.kind !== "ok") throw new Error(read.kind);
	return parser.end(read.endsWithNewline);
}

describe("readRegularLines", () => {
	it("parses as the whole text parses, at any chunk size", () => {
		fc.assert(
			fc.property(
				fc.array(pieces, { maxLength: 8 }),
				fc.constantFrom("\n", "\r\n"),
				fc.boolean(),
				fc.boolean(),
				fc.integer({ min: 1, max: 64 }),
				(lines, newline, bom, trailing, chunkBytes) => {
					const text = `${bom ? "\uFEFF" : ""}${lines.join(newline)}${trailing ? newline : ""}`;
					const file = fileOf(Buffer.from(text, "utf8"));
					const whole = readRegularFile(file, 1 << 20);
					if (whole.kind !== "ok") throw new Error(whole.kind);
					expect(readLines(file, chunkBytes)).toEqual(parseSessionText(whole.text));
				},
			),
			{ numRuns: 300 },
		);
	});

	it("decodes invalid UTF-8 as the whole buffer decodes it", () => {
		const bytes = Buffer.concat([
			Buffer.from(`${entry("a", "x")}\n${entry("b", "y")}`.slice(0, -3), "utf8"),
			Buffer.from([0xe2, 0x82]),
			Buffer.from('"}}\n', "utf8"),
			Buffer.from([0xf0, 0x9f]),
		]);
		const file = fileOf(bytes);
		for (const chunkBytes of [1, 2, 3, 5, 1024]) {
			expect(readLines(file, chunkBytes)).toEqual(parseSessionText(bytes.toString("utf8")));
		}
	});

	it("refuses a file over the cap and reads nothing of a folder", () => {
		const file = fileOf(Buffer.from(`${entry("a", "x".repeat(100))}\n`, "utf8"));
		const seen: string[] = [];
		expect(readRegularLines(file, 50, (l) => seen.push(l)).kind).toBe("refused");
		expect(readRegularLines(tmp, 50, (l) => seen.push(l)).kind).toBe("refused");
		expect(seen).toEqual([]);
	});
});
