/** The line of a failed tool result a card shows: the first with an error word, else the last. */
import { describe, expect, it } from "vitest";
import { errorExcerpt } from "../../src/reducers/error-line.ts";

describe("errorExcerpt", () => {
	it("the first line with an error word, past banners", () => {
		expect(
			errorExcerpt("> pkg@1.0.0 check\n> tsc\n\nsrc/a.ts(3,1): error TS1005: ';' expected.\nFound 1 error."),
		).toBe("src/a.ts(3,1): error TS1005: ';' expected.");
		expect(
			errorExcerpt(
				"[youtube] Extracting URL: https://youtu.be/x\n[youtube] x: Downloading webpage\nERROR: [youtube] x: Requested format is not available",
			),
		).toBe("ERROR: [youtube] x: Requested format is not available");
		expect(errorExcerpt('Traceback (most recent call last):\n  File "a.py", line 1\nValueError: bad')).toBe(
			"ValueError: bad",
		);
		expect(errorExcerpt("npm ERR! code ELIFECYCLE\nnpm ERR! errno 1")).toBe("npm ERR! code ELIFECYCLE");
		expect(errorExcerpt("compiling\nbash: foo: command not found")).toBe("bash: foo: command not found");
		expect(errorExcerpt("open x\nEACCES: permission denied, open 'x'")).toBe("EACCES: permission denied, open 'x'");
		expect(errorExcerpt("step\nsrc/b.ts:1:1 TS2304 Cannot find name")).toBe("src/b.ts:1:1 TS2304 Cannot find name");
	});
	it("past Node's echo of where an uncaught exception was rethrown", () => {
		const uncaught = [
			"node:internal/modules/run_main:123",
			"    triggerUncaughtException(",
			"    ^",
			"",
			"AssertionError [ERR_ASSERTION]: sum(1, 1) should be 3",
			"    at file:///p/test/sum.test.mjs:2:8 {",
			"  code: 'ERR_ASSERTION',",
			"}",
			"",
			"Node.js v20.20.2",
			"",
			"Command exited with code 1",
		].join("\n");
		expect(errorExcerpt(uncaught)).toBe("AssertionError [ERR_ASSERTION]: sum(1, 1) should be 3");
	});
	it("a CLI's complaint about its arguments", () => {
		expect(errorExcerpt("usage: node cli.js <add|mul> <a> <b>\n\n\nCommand exited with code 2")).toBe(
			"usage: node cli.js <add|mul> <a> <b>",
		);
		expect(errorExcerpt("starting\nUnknown option '--fast'\nsee --help")).toBe("Unknown option '--fast'");
	});
	it("counts of nothing are not errors", () => {
		expect(errorExcerpt("Found 0 errors.\nno failures\n 2 failed | 10 passed")).toBe("2 failed | 10 passed");
	});
	it("else the last line that is not a frame; the exit-code line only when nothing else was printed", () => {
		expect(errorExcerpt("cleaned\nbuilding\n\nCommand exited with code 1\n")).toBe("building");
		expect(errorExcerpt("\nCommand exited with code 1\n")).toBe("Command exited with code 1");
		expect(errorExcerpt("cleaned\ndone\n  \n")).toBe("done");
		expect(errorExcerpt("")).toBe("");
		expect(errorExcerpt("\n \n")).toBe("");
	});
});
