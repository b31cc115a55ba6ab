/** Text shaping shared by the renderers. */
import { describe, expect, it } from "vitest";
import { compactSize } from "../../src/render/text-shape.ts";

describe("compactSize", () => {
	it("sizes as a card shows them: digits, then k and M with at most one decimal", () => {
		expect(
			[0, 999, 1000, 1049, 1050, 9949, 9950, 14_600, 999_499, 999_500, 1_250_000, 12_345_678].map(compactSize),
		).toEqual(["0", "999", "1k", "1k", "1.1k", "9.9k", "10k", "15k", "999k", "1M", "1.3M", "12M"]);
	});
});
