/** `writeJson` writes, in pieces, exactly what `JSON.stringify(value, null, 2)` returns. */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateSession } from "../../../../bench/generate.ts";
import { type JsonLayout, writeJson } from "../../../../src/adapter/lab/report/json-stream.ts";
import { renderAt, renderJson } from "../../../../src/adapter/lab/request/render-at.ts";
import { sampleText } from "../../../support/cli-build.ts";

function streamed(value: unknown, layout?: JsonLayout): { text: string; pieces: number } {
	const pieces: string[] = [];
	writeJson(value, (piece) => pieces.push(piece), layout);
	return { text: pieces.join(""), pieces: pieces.length };
}

describe("writeJson", () => {
	it("is JSON.stringify(value, null, 2), for any JSON value and for objects with undefined and functions", () => {
		const withHoles = fc.oneof(
			fc.jsonValue(),
			fc.constant(undefined),
			fc.constant(() => 1),
		);
		fc.assert(
			fc.property(fc.oneof(fc.jsonValue(), fc.dictionary(fc.string(), withHoles), fc.array(withHoles)), (value) => {
				expect(streamed(value).text).toBe(JSON.stringify(value, null, 2));
			}),
			{ numRuns: 500 },
		);
	});

	it("writes a rendered request as the one string it replaces, in pieces", () => {
		for (const [name, text] of [
			["taskq", sampleText("long/taskq.jsonl")],
			["generated", generateSession(4000, 7, { consultations: false }).jsonl],
		] as const) {
			const json = renderJson(renderAt(name, text, undefined, undefined));
			const whole = JSON.stringify(json, null, 2);
			const out = streamed(json);
			expect(out.text).toBe(whole);
			// Pieces of about 64 KB: never the whole text at once when it is longer.
			expect(out.pieces).toBeGreaterThanOrEqual(Math.floor(whole.length / 65_536));
		}
	});
});

describe("writeJson with rows", () => {
	const rows: JsonLayout = { rowsUnder: new Set(["points"]) };

	it("the same value: parsed back, what JSON.stringify writes, for any JSON value with arrays under `points`", () => {
		const value = fc.dictionary(
			fc.constantFrom("points", "other", "x"),
			fc.oneof(fc.jsonValue(), fc.array(fc.jsonValue())),
		);
		fc.assert(
			fc.property(fc.oneof(value, fc.array(value), fc.dictionary(fc.string(), value)), (v) => {
				expect(JSON.parse(streamed(v, rows).text)).toEqual(JSON.parse(JSON.stringify(v)));
			}),
			{ numRuns: 500 },
		);
	});

	it("an array under a row key gets one compact item per line, indented like the rest; other keys as before", () => {
		const value = { points: [{ a: 1, b: [2, 3] }, null, "s"], nested: { points: [] }, more: [{ points: 4 }] };
		expect(streamed(value, rows).text).toBe(
			[
				"{",
				'  "points": [',
				'    {"a":1,"b":[2,3]},',
				"    null,",
				'    "s"',
				"  ],",
				'  "nested": {',
				'    "points": []',
				"  },",
				'  "more": [',
				"    {",
				'      "points": 4',
				"    }",
				"  ]",
				"}",
			].join("\n"),
		);
		expect(streamed(value).text).toBe(JSON.stringify(value, null, 2));
	});
});
