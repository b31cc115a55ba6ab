/**
 * The request's bytes do not move by accident: at every point the replay would dispatch, on the
 * bundled samples and the generated 10k session, the request equals the committed fingerprint.
 * A change that alters the bytes on purpose regenerates the file (`npm run goldens`) in the same
 * commit and says why.
 */

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GOLDENS_FILE, type Goldens, goldenInputs, goldenPoints } from "../support/goldens.ts";

const committed = JSON.parse(readFileSync(GOLDENS_FILE, "utf8")) as Goldens;

describe("request bytes match the committed goldens (npm run goldens rewrites them)", () => {
	it("covers every bundled sample and the generated session", () => {
		expect(Object.keys(committed).sort()).toEqual(
			goldenInputs()
				.map((i) => i.name)
				.sort(),
		);
	});
	for (const input of goldenInputs()) {
		it(`${input.name}: every point's request`, { timeout: 120_000 }, () => {
			const points = goldenPoints(input.text());
			expect(points.length).toBeGreaterThan(0);
			expect(points).toEqual(committed[input.name]);
		});
	}
});
