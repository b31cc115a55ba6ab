/** `writeJson` writes, in pieces, exactly what `JSON.stringify(value, null, 2)` returns. */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateSession } from "../../../bench/generate.ts";
import { writeJson } from "../../../src/adapter/cli/json-stream.ts";
import { renderAt, renderJson } from "../../../src/adapter/cli/render-command.ts";
import { sampleText } from "../../support/cli-build.ts";

function streamed(value: unknown): { text: string; pieces: number } {
	const pieces: string[] = [];
	writeJson(value, (piece) => pieces.push(piece));
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
