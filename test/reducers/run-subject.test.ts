/** What a round runs, as the watch follows it: subjects, verify kinds, benign failures, trouble lines. */
import { describe, expect, it } from "vitest";
import { benignFailure, runSubject, troubleLine, verifyKind } from "../../src/reducers/run-subject.ts";
import { call } from "../support/events.ts";

const bash = (command: string) => call("c", "bash", { command });

describe("verifyKind: the runs that tell whether the work holds", () => {
	it.each([
		["npm test", "test"],
		["npx vitest run src/a.test.ts", "test"],
		["pytest -x tests/test_a.py", "test"],
		["node test/run.js queue", "test"],
		["python3 tests/run.py", "test"],
		["npm run build 2>&1 | tail -3", "build"],
		["cargo build --release", "build"],
		["npx tsc --noEmit --skipLibCheck", "check"],
		["npm run check", "check"],
		["npx astro check 2>&1 | tail -40", "check"],
		["ruff check .", "check"],
	])("%s → %s", (command, kind) => {
		expect(verifyKind(command)).toBe(kind);
	});
	it.each(["ls -la", "grep -n foo src/a.ts", "git status", "node scripts/gen.js", "cat test.txt"])(
		"%s is none of them",
		(command) => {
			expect(verifyKind(command)).toBeUndefined();
		},
	);
});

describe("runSubject: the same run, whatever its exact text", () => {
	it("a test run is its kind and the files it names, flags left out", () => {
		expect(runSubject(bash("npx vitest run src/a.test.ts -t adds"), undefined)).toEqual({
			key: "test\u0000src/a.test.ts",
			label: "test src/a.test.ts",
			verify: "test",
		});
		expect(runSubject(bash("cd /repo && vitest run --reporter dot src/a.test.ts"), "/repo").key).toBe(
			"test\u0000src/a.test.ts",
		);
	});
	it("the whole suite, however it is started, is one subject", () => {
		const keys = ["npm test", "npm test -- -t adds", "CI=1 npx vitest run"].map(
			(c) => runSubject(bash(c), undefined).key,
		);
		expect(new Set(keys)).toEqual(new Set(["test\u0000"]));
	});
	it("another program is its name and the first word that is not a flag, after setup pieces", () => {
		expect(runSubject(bash("python3 -u scrape.py --pages 3"), undefined).label).toBe("python3 scrape.py");
		expect(runSubject(bash('echo "=== v ===" && grep -n autoSize typings.d.ts'), undefined).label).toBe(
			"grep autoSize",
		);
		expect(runSubject(bash('cd x; echo "a;b" && gh issue view 37'), undefined).label).toBe("gh issue");
	});
	it("another tool is its name and path", () => {
		expect(runSubject(call("c", "edit", { path: "src/a.ts", oldText: "a", newText: "b" }), undefined)).toEqual({
			key: "tool\u0000edit src/a.ts",
			label: "edit src/a.ts",
		});
		expect(runSubject(call("c", "browser", { action: "open", url: "http://x" }), undefined).label).toBe("browser");
	});
});

describe("benignFailure: failures that are answers", () => {
	it.each([
		["grep -n console src/theme.ts"],
		["rg foo"],
		['cat a.json 2>/dev/null | grep -E "version"'],
		["diff a b"],
		["test -f dist/index.js"],
		["ls missing-dir"],
		["npm test || true"],
		["npm run build || echo failed"],
	])("%s", (command) => {
		expect(benignFailure(bash(command), "Command exited with code 1")).toBe(true);
	});
	it("a command the user stopped", () => {
		expect(benignFailure(bash("sleep 5 && echo done"), "Command aborted")).toBe(true);
	});
	it.each([["npm test"], ["npx tsc --noEmit"], ["python3 scrape.py"], ['grep foo a.txt | node -e "x"']])(
		"%s is trouble",
		(command) => {
			expect(benignFailure(bash(command), "Command exited with code 1")).toBe(false);
		},
	);
	it("another tool's failure is always trouble", () => {
		expect(benignFailure(call("c", "edit", { path: "a.ts" }), "Could not find the exact text")).toBe(false);
	});
});

describe("troubleLine: the line that says what went wrong, as the watch compares it", () => {
	it("keeps the error line, collapses whitespace and leaves out timings", () => {
		const output = "> test\n\nFAIL  src/a.test.ts > adds\nAssertionError:   expected 2 to be 3\n Duration 1.23s";
		expect(troubleLine(output)).toBe("FAIL src/a.test.ts > adds");
		expect(troubleLine("src/a.ts(28,2):   error TS2739: Type is missing")).toBe(
			"src/a.ts(28,2): error TS2739: Type is missing",
		);
		const timed = "Error: timed out after 1200ms waiting for server";
		expect(troubleLine(timed)).toBe(troubleLine(timed.replace("1200ms", "900ms")));
	});
	it("an empty output has none", () => {
		expect(troubleLine("")).toBeUndefined();
	});
});
