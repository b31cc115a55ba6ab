/**
 * What a caught value says, in the one helper the extension and the lab share: a config that fails,
 * a request that throws, a tool that fails all report it the same way.
 */

import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { errorText } from "../../../../src/adapter/extension/pi/error-text.ts";

describe("errorText", () => {
	test("an Error (of any class) says its message; anything else is written as a string", () => {
		expect(errorText(new Error("boom"))).toBe("boom");
		expect(errorText(new TypeError("not a function"))).toBe("not a function");
		expect(errorText(new Error(""))).toBe("");
		expect(errorText("plain words")).toBe("plain words");
		expect(errorText(42)).toBe("42");
		expect(errorText(undefined)).toBe("undefined");
		expect(errorText(null)).toBe("null");
		// Only a real Error is read for its message: a look-alike object is not.
		expect(errorText({ message: "look-alike" })).toBe("[object Object]");
	});

	test("a message or a thrown string comes back as it was", () => {
		fc.assert(
			fc.property(fc.string(), (text) => {
				expect(errorText(new Error(text))).toBe(text);
				expect(errorText(text)).toBe(text);
			}),
		);
	});
});
