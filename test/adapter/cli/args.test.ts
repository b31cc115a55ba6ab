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
			config: undefined,
			force: false,
		});
		expect(parseArgs(["replay", "a", "--every=3", "--svg", "c.svg", "--json", "--all-leaves", "--", "--b"])).toEqual({
			command: "replay",
			paths: ["a", "--b"],
			every: 3,
			allLeaves: true,
			json: true,
			svg: "c.svg",
			force: false,
		});
		expect(parseArgs(["replay", "--svg=c.svg", "--force", "--config", "my.json"])).toMatchObject({
			svg: "c.svg",
			force: true,
			config: "my.json",
		});
		for (const bad of [
			["replay", "--every", "1.5"],
			["replay", "--json", "--json"],
			["replay", "--x"],
			["nope"],
			["replay", "--force=yes"],
			["replay", "--config"],
			["render", "f.jsonl", "--force"],
		]) {
			expect(() => parseArgs(bad)).toThrow(UsageError);
		}
	});

	it("render: one FILE, --leaf, --at and --config", () => {
		expect(parseArgs(["render", "f.jsonl", "--at", "abc", "--leaf=def", "--config", "c.json"])).toEqual({
			command: "render",
			file: "f.jsonl",
			leaf: "def",
			at: "abc",
			json: false,
			config: "c.json",
		});
		expect(parseArgs(["render", "--help"])).toMatchObject({ command: "help" });
	});
});
