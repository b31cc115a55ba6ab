/** Telling a JSON object cut off mid-write (a file still being written) from garbage. */
import { describe, expect, it } from "vitest";
import { isJsonObjectPrefix } from "../../src/events/json-prefix.ts";

describe("JSON object prefixes are told apart from garbage", () => {
	const whole = JSON.stringify({
		a: [1, -2.5e10, true, false, null, { b: 'x\\"\u00e9\n\t\\u0041' }],
		c: "\u{1F642}",
		d: { e: [] },
	});
	it("every proper prefix of a JSON object is a prefix", () => {
		for (let i = 1; i < whole.length; i++)
			expect(isJsonObjectPrefix(whole.slice(0, i)), whole.slice(0, i)).toBe(true);
	});
	it.each([
		"",
		"   ",
		"x",
		"[1,",
		'"abc',
		"{]",
		'{"a":1}}',
		'{"a":1,}',
		'{"a" 1',
		'{"a":tru,',
		'{"a":nulx',
		'{"a":01,',
		'{"a":"\\x',
		'{"a":"\u0001',
		'{"a":"\\u00g',
		"{,",
		"{1:",
	])("%j is not", (text) => expect(isJsonObjectPrefix(text)).toBe(false));
});
