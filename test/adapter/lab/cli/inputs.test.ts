// What `replay` reads: named files and folders, and where the defaults live.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
	BUNDLED_SAMPLES,
	collectInputs,
	isBundledSample,
	packageRoot,
	piSessionsDir,
} from "../../../../src/adapter/lab/cli/inputs.ts";
import { repoRoot } from "../../../support/cli-build.ts";

mkdirSync(path.join(repoRoot, ".tmp"), { recursive: true });
const tmp = mkdtempSync(path.join(repoRoot, ".tmp", "cli-inputs-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
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

	it("a bundled sample: a file under the package's samples, also through a link; nothing else", () => {
		const sample = path.join(BUNDLED_SAMPLES, "long/taskq.jsonl");
		expect(isBundledSample(sample)).toBe(true);
		expect(isBundledSample(path.join(BUNDLED_SAMPLES, "tools.jsonl"))).toBe(true);
		expect(isBundledSample(BUNDLED_SAMPLES)).toBe(false);
		expect(isBundledSample(path.join(repoRoot, "samples-other/taskq.jsonl"))).toBe(false);
		expect(isBundledSample(path.join(repoRoot, "package.json"))).toBe(false);
		const link = path.join(tmp, "linked-taskq.jsonl");
		symlinkSync(sample, link);
		expect(isBundledSample(link)).toBe(true);
		const copy = path.join(tmp, "copied-taskq.jsonl");
		writeFileSync(copy, "");
		expect(isBundledSample(copy)).toBe(false);
	});

	it("where the defaults live: the package's samples, Pi's session folder from PI_CODING_AGENT_DIR", () => {
		expect(packageRoot()).toBe(repoRoot);
		expect(BUNDLED_SAMPLES).toBe(path.join(repoRoot, "samples"));
		expect(piSessionsDir({ PI_CODING_AGENT_DIR: path.join(tmp, "agent") })).toBe(path.join(tmp, "agent/sessions"));
		expect(piSessionsDir({ PI_CODING_AGENT_DIR: "" })).toBe(path.join(os.homedir(), ".pi/agent/sessions"));
	});
});
