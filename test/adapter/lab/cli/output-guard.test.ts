/**
 * The CLI never writes over what it reads: `--svg` is refused when it names one of the inputs, a
 * `.jsonl` path, or an existing file that is not an SVG — one line on stderr, exit 1, the file as
 * it was — unless `--force`. Run in-process on a copy of a bundled sample.
 */

import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Io } from "../../../../src/adapter/lab/cli/io.ts";
import { svgOutputRefusal } from "../../../../src/adapter/lab/cli/output-guard.ts";
import { styleFor } from "../../../../src/adapter/lab/report/text-report.ts";
import { runCli } from "../../../../src/adapter/lab/run.ts";
import { repoRoot } from "../../../support/cli-build.ts";

let work: string;
let session: string;
let original: string;

beforeAll(() => {
	work = mkdtempSync(path.join(tmpdir(), "advisor-output-guard-"));
	session = path.join(work, "copy.jsonl");
	copyFileSync(path.join(repoRoot, "samples/tools.jsonl"), session);
	original = readFileSync(session, "utf8");
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** runCli in this process: what it printed, and its exit code. No advisor.json is read (empty XDG folder). */
async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
	let stdout = "";
	let stderr = "";
	const io: Io = {
		stdout: (t) => {
			stdout += t;
		},
		stderr: (t) => {
			stderr += t;
		},
		env: { XDG_CONFIG_HOME: work, HOME: work },
		cwd: work,
		stderrIsTTY: false,
		style: styleFor(false, {}),
		now: () => 0,
	};
	const code = await runCli(argv, io);
	return { code, stdout, stderr };
}

describe("svgOutputRefusal", () => {
	it("an input by the same path, by another spelling, or by a link to it", () => {
		symlinkSync(session, path.join(work, "link.svg"));
		expect(svgOutputRefusal("copy.jsonl", [session], work)).toBe("input");
		expect(svgOutputRefusal("./sub/../copy.jsonl", [session], work)).toBe("input");
		expect(svgOutputRefusal("link.svg", [session], work)).toBe("input");
	});

	it("a .jsonl path that is not an input, in any case", () => {
		expect(svgOutputRefusal("other.jsonl", [session], work)).toBe("session-name");
		expect(svgOutputRefusal("OTHER.JSONL", [session], work)).toBe("session-name");
	});

	it("an existing file that is not an SVG; a FIFO", () => {
		writeFileSync(path.join(work, "notes.txt"), "my notes\n");
		expect(svgOutputRefusal("notes.txt", [session], work)).toBe("not-svg");
		execFileSync("mkfifo", [path.join(work, "pipe.svg")]);
		expect(svgOutputRefusal("pipe.svg", [session], work)).toBe("not-svg");
	});

	it("may write: a new path, an empty file, an SVG (with or without the XML declaration, after a BOM)", () => {
		writeFileSync(path.join(work, "empty.svg"), "");
		writeFileSync(path.join(work, "old.svg"), '<svg xmlns="http://www.w3.org/2000/svg"></svg>');
		writeFileSync(path.join(work, "decl.svg"), '\uFEFF\n<?xml version="1.0"?>\n<svg/>');
		for (const name of ["new.svg", "empty.svg", "old.svg", "decl.svg", "chart"])
			expect(svgOutputRefusal(name, [session], work), name).toBeUndefined();
	});
});

describe("replay --svg", () => {
	// Absolute paths: the command resolves its inputs and outputs against the process's cwd.
	const at = (name: string) => path.join(work, name);
	const refused = async (argv: string[], why: string, file: string) => {
		const before = readFileSync(file, "utf8");
		const r = await cli(argv);
		expect(r.code).toBe(1);
		expect(r.stdout).toBe("");
		const override = why === "is one of the inputs" ? "(whatever --force says)" : "(--force writes anyway)";
		expect(r.stderr.trimEnd().split("\n")).toEqual([
			`advisor-ledger replay: --svg ${argv[argv.indexOf("--svg") + 1]}: ${why} — refusing to write over it ${override}`,
		]);
		expect(readFileSync(file, "utf8")).toBe(before);
	};

	it("the chart's path forgotten (`--svg copy.jsonl` after the input): refused, the session untouched", async () => {
		await refused(["replay", session, "--svg", session], "is one of the inputs", session);
		await refused(["replay", "--svg", session, work], "is one of the inputs", session);
	});

	it("--force never writes over an input session", async () => {
		await refused(["replay", session, "--svg", session, "--force"], "is one of the inputs", session);
		await refused(["replay", "--force", "--svg", session, work], "is one of the inputs", session);
	});

	it("a .jsonl output that is not an input", async () => {
		writeFileSync(path.join(work, "other.jsonl"), original);
		await refused(
			["replay", "copy.jsonl", "--svg", "other.jsonl"],
			"ends in .jsonl, like a session file",
			path.join(work, "other.jsonl"),
		);
	});

	it("an existing file that is not an SVG", async () => {
		writeFileSync(path.join(work, "report.txt"), "keep me\n");
		await refused(
			["replay", "copy.jsonl", "--svg", "report.txt"],
			"is an existing file that is not an SVG",
			path.join(work, "report.txt"),
		);
	});

	it("a new path and an old chart are written; --force writes where the guard would refuse", async () => {
		const fresh = await cli(["replay", session, "--svg", at("chart.svg")]);
		expect(fresh.code).toBe(0);
		expect(readFileSync(at("chart.svg"), "utf8").startsWith("<svg")).toBe(true);
		expect((await cli(["replay", session, "--svg", at("chart.svg")])).code).toBe(0);
		writeFileSync(at("forced.txt"), "old\n");
		const forced = await cli(["replay", session, "--svg", at("forced.txt"), "--force"]);
		expect(forced.code).toBe(0);
		expect(readFileSync(at("forced.txt"), "utf8").startsWith("<svg")).toBe(true);
		expect(readFileSync(session, "utf8")).toBe(original);
	});
});
