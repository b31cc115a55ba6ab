import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ToolCallInfo } from "../../src/events/index.ts";
import {
	commandFact,
	folderFromCwd,
	reportedExitCode,
	runFailed,
	shellCommand,
	splitCd,
} from "../../src/reducers/shell.ts";

const call = (name: string, args: Record<string, unknown>): ToolCallInfo => ({ id: "c", name, arguments: args });

describe("a shell run is recognised by its arguments, not by the tool's name", () => {
	it.each([
		["bash", { command: "npm test" }, "npm test"],
		["exec", { command: "ls -la" }, "ls -la"],
		["run_command", { cmd: "make" }, "make"],
		["shell", { cmd: ["bash", "-lc", "npm run build"] }, "npm run build"],
		["shell", { cmd: ["/bin/zsh", "-c", "echo hi"] }, "echo hi"],
		["shell", { command: ["git", "status", "--short"] }, "git status --short"],
	])("%s %j → %s", (name, args, expected) => {
		expect(shellCommand(call(name, args))).toBe(expected);
	});

	it("a call without a command is no shell run", () => {
		expect(shellCommand(call("read", { path: "a.ts" }))).toBeUndefined();
		expect(shellCommand(call("shell", { cmd: ["ls", 3] }))).toBeUndefined();
	});
});

describe("a leading cd says where a command ran", () => {
	const cwd = "/home/user/raddit";
	it.each([
		["cd /home/user/raddit && npm test", { command: "npm test" }],
		[
			"cd /home/user/raddit/raddit-astro && npm run build 2>&1 | tail",
			{ dir: "raddit-astro", command: "npm run build 2>&1 | tail" },
		],
		['cd "/home/user/raddit/my dir"; ls', { dir: "my dir", command: "ls" }],
		["cd /home/user/other && make", { dir: "../other", command: "make" }],
		["cd /opt/x && make", { dir: "/opt/x", command: "make" }],
		["cd sub && make", { dir: "sub", command: "make" }],
		["npm test", { command: "npm test" }],
	])("%s", (command, expected) => {
		expect(splitCd(command, cwd)).toEqual(expected);
	});

	it("a folder beside the cwd is shown relative only when that is not longer", () => {
		expect(folderFromCwd("/home/user/project-two/src", "/home/user/project-one")).toBe("../project-two/src");
		expect(folderFromCwd("/a/b/c/d", "/a/b/x/y/z")).toBe("/a/b/c/d");
		expect(folderFromCwd("/a/q", "/a/b/c/d/e/f/g")).toBe("/a/q");
		expect(folderFromCwd("/a/b", "/a/b")).toBe(".");
	});
});

describe("the command fact", () => {
	it("is the first line after a leading cd, whitespace collapsed, at most 100 chars", () => {
		expect(commandFact("cd /w/sub &&  npm   test\nsecond line", "/w")).toBe("npm test");
		expect(commandFact(`echo ${"x".repeat(200)}`, undefined)).toHaveLength(100);
		expect(commandFact("\n\n  ls  \n", undefined)).toBe("ls");
	});
});

describe("a non-zero exit read from the output", () => {
	it.each([
		["Exit code: 2", 2],
		["output\nmore\nexit code 1", 1],
		["Command exited with code 127", 127],
		["Process exited with code 0", 0],
		["done\nexit status 3", 3],
		["fatal: x\nreturn code: 128", 128],
		["all good", undefined],
	])("%j → %s", (text, code) => {
		expect(reportedExitCode(text)).toBe(code);
	});

	it("is read from the first and the last three lines only", () => {
		const middle = ["start", "a", "exit code 1 was logged earlier", "b", "c", "d"].join("\n");
		expect(reportedExitCode(middle)).toBeUndefined();
	});

	it("fails a shell run without an error flag, never another tool", () => {
		expect(runFailed(call("exec", { command: "x" }), false, () => "boom\nExit code: 1")).toBe(true);
		expect(runFailed(call("exec", { command: "x" }), false, () => "ok\nExit code: 0")).toBe(false);
		expect(runFailed(call("read", { path: "log.txt" }), false, () => "exit code 1")).toBe(false);
		expect(runFailed(call("read", { path: "x" }), true, () => "")).toBe(true);
	});

	it("property: a reported zero never fails a run, any non-zero last line does", () => {
		fc.assert(
			fc.property(
				fc.array(
					fc.string({ maxLength: 30 }).filter((s) => !/exit|code|status/i.test(s)),
					{ maxLength: 6 },
				),
				fc.integer({ min: 1, max: 255 }),
				(lines, code) => {
					const shell = call("exec", { command: "x" });
					expect(runFailed(shell, false, () => [...lines, "exit code 0"].join("\n"))).toBe(false);
					expect(runFailed(shell, false, () => [...lines, `exit code ${code}`].join("\n"))).toBe(true);
				},
			),
		);
	});
});
