import { describe, expect, it } from "vitest";
import { errorExcerpt, failureLine, isFrameLine } from "../../src/reducers/error-line.ts";

describe("the error line is what failed, not how the run ended", () => {
	it.each([
		[
			"an exit-code line after the output",
			"src/a.ts:3:1 something is off\nCommand exited with code 1",
			"src/a.ts:3:1 something is off",
		],
		[
			"npm's epilogue after a compiler error",
			"> app@1.0.0 build\n> tsc\n\nsrc/a.ts(16,58): error TS2305: Module has no exported member 'x'.\nnpm ERR! code ELIFECYCLE\nnpm ERR! errno 2",
			"src/a.ts(16,58): error TS2305: Module has no exported member 'x'.",
		],
		[
			"npm 10's epilogue after plain output",
			"> app@1.0.0 test\n> node test/run.js\n\nexpected 3, got 4\nnpm error Lifecycle script `test` failed with error:\nnpm error code 1\nnpm error path /w",
			"expected 3, got 4",
		],
		[
			"yarn",
			"$ jest\nsnapshot mismatch in a.test.js\nerror Command failed with exit code 1.\ninfo Visit https://yarnpkg.com/en/docs/cli/run for documentation about this command.",
			"snapshot mismatch in a.test.js",
		],
		["pnpm", "x.test.ts fails here\n ELIFECYCLE  Command failed with exit code 1.", "x.test.ts fails here"],
		[
			"make",
			"cc -o x x.c\nx.c:3: undefined reference to `foo'\nmake: *** [Makefile:3: all] Error 1",
			"x.c:3: undefined reference to `foo'",
		],
		["only the frame", "Command exited with code 1", "Command exited with code 1"],
		[
			"a real npm error is kept",
			'npm ERR! Missing script: "tets"\nnpm ERR! A complete log of this run can be found in: /x',
			'npm ERR! Missing script: "tets"',
		],
		[
			"a banner before the error",
			"> project@1.0.0 check\nTypeError: x is not a function\n    at y (a.js:1)",
			"TypeError: x is not a function",
		],
	])("%s", (_what, text, line) => {
		expect(errorExcerpt(text)).toBe(line);
	});

	it("frames are recognised", () => {
		for (const line of [
			"Exit code: 2",
			"exit status 1",
			"Process exited with code 1",
			"npm error code 1",
			"> vitest run",
			"$ npm test",
		])
			expect(isFrameLine(line)).toBe(true);
		for (const line of ["TypeError: x", "FAIL test/a.test.ts > adds", "error TS2305: y"])
			expect(isFrameLine(line)).toBe(false);
	});

	it("a bare Error: label is left to the ✗", () => {
		expect(failureLine("Error: ENOENT: no such file")).toBe("ENOENT: no such file");
		expect(failureLine("TypeError: x")).toBe("TypeError: x");
	});
});
