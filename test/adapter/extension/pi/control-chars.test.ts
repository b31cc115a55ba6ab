/**
 * Control characters from the model's arguments or from file names never reach the terminal
 * raw: the progress line (`advisor: <summary>`) and file names in tool output are escaped.
 */

import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { escapeControlChars } from "../../../../src/adapter/extension/pi/control-chars.ts";
import { summarizeCall } from "../../../../src/adapter/extension/tools/summary.ts";

/** What a terminal would act on: C0, DEL, C1, line/paragraph separators, bidi controls. */
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe("escapeControlChars", () => {
	test("pins the escapes", () => {
		expect(escapeControlChars("a\nb\rc\td")).toBe("a\\nb\\rc\\td");
		expect(escapeControlChars("\u001b[2J\u0007\u0000\u007f\u009b")).toBe("\\x1b[2J\\x07\\x00\\x7f\\x9b");
		expect(escapeControlChars("evil\u202etxt.exe\u2066\u2028")).toBe("evil\\u202etxt.exe\\u2066\\u2028");
		expect(escapeControlChars("src/app.ts, ünïcode ✓ 日本")).toBe("src/app.ts, ünïcode ✓ 日本");
	});

	test("property: no raw control character survives; text without one is unchanged", () => {
		fc.assert(
			fc.property(fc.string({ unit: "binary", maxLength: 200 }), (s) => {
				const out = escapeControlChars(s);
				expect(RAW_CONTROL.test(out)).toBe(false);
				if (!RAW_CONTROL.test(s)) expect(out).toBe(s);
			}),
		);
	});

	test("property: escaping is idempotent on its own output", () => {
		fc.assert(
			fc.property(fc.string({ unit: "binary", maxLength: 200 }), (s) => {
				const once = escapeControlChars(s);
				expect(escapeControlChars(once)).toBe(once);
			}),
		);
	});
});

describe("the progress line", () => {
	test("a file name with an escape sequence and a newline is shown escaped, on one line", () => {
		expect(summarizeCall("read", { path: "src/\u001b[31mred\u001b[0m\nrm -rf.ts" })).toBe(
			"read src/\\x1b[31mred\\x1b[0m\\nrm -rf.ts",
		);
		expect(summarizeCall("grep", { pattern: "\u0007", path: "a\u202eb" })).toBe("grep /\\x07/ in a\\u202eb");
		expect(summarizeCall("ls", { path: "x\r\u009b2K" })).toBe("ls x\\r\\x9b2K");
		expect(summarizeCall("\u001b]0;title\u0007", {})).toBe("\\x1b]0;title\\x07");
	});

	test("property: no summary carries a raw control character or a line break", () => {
		const name = fc.constantFrom("read", "grep", "find", "ls", "git_diff", "advisor_expand", "weird\u001b");
		fc.assert(
			fc.property(name, fc.string({ unit: "binary", maxLength: 80 }), fc.string({ unit: "binary" }), (n, p, q) => {
				const line = summarizeCall(n, { path: p, pattern: q, ids: [q] });
				expect(RAW_CONTROL.test(line)).toBe(false);
			}),
		);
	});
});
