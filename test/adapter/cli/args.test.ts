// Argument parsing of the `advisor-ledger` command line.
import { describe, expect, it } from "vitest";
import { parseArgs, UsageError } from "../../../src/adapter/cli/args.ts";

describe("arguments", () => {
	it("replay: defaults, both value forms, repeated and unknown flags", () => {
		expect(parseArgs(["replay"])).toEqual({
			command: "replay",
			paths: [],
			every: 10,
			allLeaves: false,
			json: false,
			svg: undefined,
		});
		expect(parseArgs(["replay", "a", "--every=3", "--svg", "c.svg", "--json", "--all-leaves", "--", "--b"])).toEqual({
			command: "replay",
			paths: ["a", "--b"],
			every: 3,
			allLeaves: true,
			json: true,
			svg: "c.svg",
		});
		for (const bad of [["replay", "--every", "1.5"], ["replay", "--json", "--json"], ["replay", "--x"], ["nope"]]) {
			expect(() => parseArgs(bad)).toThrow(UsageError);
		}
	});

	it("render: one FILE, --leaf and --at", () => {
		expect(parseArgs(["render", "f.jsonl", "--at", "abc", "--leaf=def"])).toEqual({
			command: "render",
			file: "f.jsonl",
			leaf: "def",
			at: "abc",
			json: false,
		});
		expect(parseArgs(["render", "--help"])).toMatchObject({ command: "help" });
	});
});
