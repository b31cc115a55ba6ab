// The CLI's small parts, in-process: argument parsing, colours, the baseline, inputs, sampling.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseArgs, UsageError } from "../../src/adapter/cli/args.ts";
import { baselineMessages, INVENTORY_HEADER, prepareBaseline } from "../../src/adapter/cli/baseline/messages.ts";
import { BUNDLED_SAMPLES, collectInputs, packageRoot, piSessionsDir } from "../../src/adapter/cli/inputs.ts";
import { scratchIndices } from "../../src/adapter/cli/replay/engine.ts";
import { sessionTools } from "../../src/adapter/cli/replay/tool-set.ts";
import { percentile } from "../../src/adapter/cli/report/report.ts";
import { styleFor } from "../../src/adapter/cli/report/text.ts";
import { readSession } from "../../src/events/index.ts";
import { buildSession } from "../support/session-gen.ts";
import { repoRoot } from "./helpers.ts";

mkdirSync(path.join(repoRoot, ".tmp"), { recursive: true });
const tmp = mkdtempSync(path.join(repoRoot, ".tmp", "cli-units-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

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

describe("colours", () => {
	it("only on a terminal, and never with NO_COLOR", () => {
		expect(styleFor(true, {}).red("x")).toBe("\u001b[31mx\u001b[39m");
		expect(styleFor(true, { NO_COLOR: "1" }).red("x")).toBe("x");
		expect(styleFor(false, {}).red("x")).toBe("x");
		expect(styleFor(true, { NO_COLOR: "" }).red("x")).not.toBe("x");
	});
});

describe("baseline", () => {
	it("Pi's context for the branch, the in-flight advisor call stripped, the inventory first", () => {
		const session = buildSession([
			{ t: "user", text: "hello there", long: false, images: 0 },
			{
				t: "consult",
				prose: "question?",
				thinking: "",
				outcome: "ok",
				advice: "Severity: none\nfine",
				sibling: null,
			},
		]);
		const read = readSession(session.jsonl);
		const tools = sessionTools("/tmp", []);
		const branch = prepareBaseline(read.path, tools.inventory);
		const resultIndex = read.path.findIndex((e) => e.id === session.consultations[0]!.resultEntryId);
		const messages = baselineMessages(branch, resultIndex, session.consultations[0]!.callId);
		expect(messages.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
		const inventory = JSON.stringify(messages[0]);
		expect(inventory).toContain(INVENTORY_HEADER);
		for (const name of ["read", "bash", "edit", "write", "advisor"]) expect(inventory).toContain(`### ${name}\\n`);
		expect(inventory).not.toContain("### grep"); // inactive by default and never called here
		const assistant = messages[2]!;
		expect(assistant.role === "assistant" && assistant.content.some((p) => p.type === "toolCall")).toBe(false);
		expect(JSON.stringify(assistant)).toContain("question?");
		// Without the strip, the call is there.
		expect(JSON.stringify(baselineMessages(branch, resultIndex))).toContain('"name":"advisor"');
	});

	it("a parentId cycle on the path cannot hang Pi's walk", () => {
		const session = buildSession([
			{ t: "user", text: "a", long: false, images: 0 },
			{ t: "user", text: "b", long: false, images: 0 },
			{ t: "user", text: "c", long: false, images: 0 },
		]);
		const entries = session.entries.map((e) => ({ ...e }));
		entries[0]!.parentId = entries[2]!.id;
		const jsonl = [session.header, ...entries].map((e) => JSON.stringify(e)).join("\n");
		const read = readSession(jsonl);
		const branch = prepareBaseline(read.path, []);
		expect(baselineMessages(branch, read.path.length).length).toBe(1 + read.path.length);
	});

	it("the catalogue lists every registered tool; the inventory the active and the called ones", () => {
		const tools = sessionTools("/tmp", ["read", "grep", "my_ext_tool"]);
		expect(tools.catalogue.map((t) => t.name)).toEqual([
			"read",
			"bash",
			"edit",
			"write",
			"grep",
			"find",
			"ls",
			"advisor",
			"my_ext_tool",
		]);
		expect(tools.inventory.map((t) => t.name)).toEqual([
			"read",
			"bash",
			"edit",
			"write",
			"grep",
			"advisor",
			"my_ext_tool",
		]);
		expect(tools.declarations.map((t) => t.name)).toEqual([
			"advisor_expand",
			"read",
			"grep",
			"find",
			"ls",
			"git_diff",
		]);
	});
});

describe("inputs", () => {
	it("folders are searched recursively for *.jsonl, sorted; symlinked folders are not followed", () => {
		mkdirSync(path.join(tmp, "in/b/c"), { recursive: true });
		writeFileSync(path.join(tmp, "in/b/c/z.jsonl"), "");
		writeFileSync(path.join(tmp, "in/a.jsonl"), "");
		writeFileSync(path.join(tmp, "in/b/readme.md"), "");
		symlinkSync(path.join(tmp, "in"), path.join(tmp, "in/b/loop"));
		const got = collectInputs([path.join(tmp, "in"), path.join(tmp, "in/a.jsonl"), path.join(tmp, "missing")]);
		expect(got.files.map((f) => path.relative(tmp, f))).toEqual(["in/a.jsonl", "in/b/c/z.jsonl"]);
		expect(got.unreadable).toHaveLength(1);
		expect(got.unreadable[0]!.error).toBe("no such file or directory");
	});

	it("where the defaults live: the package's samples, Pi's session folder from PI_CODING_AGENT_DIR", () => {
		expect(packageRoot()).toBe(repoRoot);
		expect(BUNDLED_SAMPLES).toBe(path.join(repoRoot, "samples"));
		expect(piSessionsDir({ PI_CODING_AGENT_DIR: path.join(tmp, "agent") })).toBe(path.join(tmp, "agent/sessions"));
		expect(piSessionsDir({ PI_CODING_AGENT_DIR: "" })).toBe(path.join(os.homedir(), ".pi/agent/sessions"));
	});
});

describe("statistics", () => {
	it("nearest-rank percentiles", () => {
		expect(percentile([], 50)).toBe(0);
		expect(percentile([5], 90)).toBe(5);
		expect(percentile([4, 1, 3, 2], 50)).toBe(2);
		expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90)).toBe(9);
	});

	it("scratch samples are spread evenly and always include the last point", () => {
		expect([...scratchIndices(5, 20)]).toEqual([0, 1, 2, 3, 4]);
		const picked = [...scratchIndices(100, 5)];
		expect(picked).toEqual([0, 25, 50, 74, 99]);
		expect([...scratchIndices(10, 1)]).toEqual([9]);
	});
});
