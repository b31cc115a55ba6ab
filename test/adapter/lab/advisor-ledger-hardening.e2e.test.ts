// The built CLI against hostile inputs, each written as the attack: a session "file" that is a FIFO,
// a link to /dev/zero or huge; JSON nested far deeper than the stack; lines full of terminal escapes;
// and a run stopped by a signal. Asserts exit codes and output, never timings: a hang is caught
// by the spawn timeout (generous, a busy machine is slow), which kills the child and fails.
import { type ChildProcess, execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSession } from "../../../bench/generate.ts";
import type { ReplayReport } from "../../../src/adapter/lab/report/replay-report.ts";
import type { RenderJson } from "../../../src/adapter/lab/request/render-at.ts";
// Not exported from the events index: nothing outside the events layer uses it.
import { NESTING_CLIPPED_MARKER } from "../../../src/events/depth.ts";
import { type Built, buildCli, repoRoot, runBuilt, toJsonl } from "../../support/cli-build.ts";

let built: Built;
let work: string;

/** Longer than any honest run of these inputs on a loaded machine; a hang runs into it. */
const HANG_MS = 60_000;
/** A test spawns the CLI a few times; each spawn is bounded by HANG_MS. */
const TEST_MS = 4 * HANG_MS;

beforeAll(() => {
	built = buildCli();
	work = mkdtempSync(path.join(repoRoot, ".tmp", "cli-hardening-"));
}, 120_000);

afterAll(() => {
	built?.dispose();
	if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

function write(name: string, text: string): string {
	const file = path.join(work, name);
	mkdirSync(path.dirname(file), { recursive: true });
	writeFileSync(file, text);
	return file;
}

function fifo(name: string): string {
	const file = path.join(work, name);
	mkdirSync(path.dirname(file), { recursive: true });
	execFileSync("mkfifo", [file]);
	return file;
}

interface Ended {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	/** Killed by the HANG_MS guard. */
	hung: boolean;
}

/** Spawns the built CLI; `onSpawn` may watch and signal it. Never waits longer than HANG_MS. */
function spawnCli(args: readonly string[], onSpawn?: (child: ChildProcess) => void): Promise<Ended> {
	return new Promise((resolve) => {
		let hung = false;
		const child = execFile(
			process.execPath,
			[built.main, ...args],
			{ cwd: repoRoot, env: { PATH: process.env.PATH, HOME: path.join(work, "home") }, maxBuffer: 256 << 20 },
			(error, stdout, stderr) => {
				clearTimeout(guard);
				const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
				resolve({ code, signal: error?.signal ?? null, stdout, stderr, hung });
			},
		);
		const guard = setTimeout(() => {
			hung = true;
			child.kill("SIGKILL");
		}, HANG_MS);
		onSpawn?.(child);
	});
}

const hasControl = (text: string) => /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(text);

describe("session inputs that are not regular files, or too large", () => {
	const refused: [string, () => string, RegExp][] = [
		["a FIFO", () => fifo("fifo/session.jsonl"), /is a FIFO \(named pipe\), not a regular file/],
		[
			"a link to /dev/zero",
			() => {
				const link = path.join(work, "zero/session.jsonl");
				mkdirSync(path.dirname(link), { recursive: true });
				symlinkSync("/dev/zero", link);
				return link;
			},
			/is a character device, not a regular file/,
		],
		["a device", () => "/dev/zero", /is a character device, not a regular file/],
		[
			"larger than the cap (a sparse 300 MB file)",
			() => {
				const file = write("big/session.jsonl", "");
				truncateSync(file, 300 * 1024 * 1024);
				return file;
			},
			/is 300 MB, larger than the 256 MB limit/,
		],
	];

	it.each(refused)(
		"%s: render and replay end at once with exit 3 and one clear line",
		async (_, make, reason) => {
			const file = make();
			const render = await spawnCli(["render", file]);
			expect(render.hung).toBe(false);
			expect(render.code).toBe(3);
			expect(render.stdout).toBe("");
			expect(render.stderr).toMatch(reason);
			expect(render.stderr.trimEnd().split("\n")).toHaveLength(1);

			const replay = await spawnCli(["replay", file]);
			expect(replay.hung).toBe(false);
			expect(replay.code).toBe(3);
			expect(replay.stderr).toMatch(reason);
			expect(replay.stdout).toBe(""); // nothing was replayed: no report
		},
		TEST_MS,
	);

	it(
		"a FIFO named *.jsonl inside a folder is reported, the regular files beside it are replayed",
		async () => {
			const dir = path.join(work, "mixed");
			fifo("mixed/a-pipe.jsonl");
			writeFileSync(path.join(dir, "b.jsonl"), readFileSync(path.join(repoRoot, "samples/tools.jsonl")));
			const r = await spawnCli(["replay", dir, "--json"]);
			expect(r.hung).toBe(false);
			expect(r.code).toBe(3);
			const report = JSON.parse(r.stdout) as ReplayReport;
			expect(report.sessions.map((s) => path.basename(s.file))).toEqual(["b.jsonl"]);
			expect(report.diagnostics.unreadable).toEqual([
				{ path: expect.stringContaining("a-pipe.jsonl"), error: "is a FIFO (named pipe), not a regular file" },
			]);
		},
		TEST_MS,
	);
});

describe("fatal errors print one clean line and no report", () => {
	it(
		"a missing file: one line, the error once, no repeated code, no zero-filled report (text and JSON)",
		async () => {
			const missing = path.join(work, "nope", "missing.jsonl");
			const render = await runBuilt(built.main, ["render", missing]);
			expect(render.code).toBe(3);
			expect(render.stderr).toBe(`advisor-ledger render: cannot read ${missing}: no such file or directory\n`);

			for (const json of [[], ["--json"]]) {
				const replay = await runBuilt(built.main, ["replay", missing, ...json]);
				expect(replay.code).toBe(3);
				expect(replay.stdout).toBe("");
				expect(replay.stderr).not.toMatch(/ENOENT/);
				// One line per error: not `cannot read …` and then `nothing to replay …` for the same file.
				expect(replay.stderr).toBe(
					`advisor-ledger replay: cannot read ${path.relative(repoRoot, missing)}: no such file or directory\n`,
				);
			}
		},
		TEST_MS,
	);

	it(
		"--version prints the package version",
		async () => {
			const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
			for (const flag of ["--version", "-V", "-v"]) {
				const r = await runBuilt(built.main, [flag]);
				expect(r).toEqual({ code: 0, stdout: `advisor-ledger ${pkg.version}\n`, stderr: "" });
			}
			expect((await runBuilt(built.main, ["--version", "extra"])).code).toBe(1);
		},
		TEST_MS,
	);
});

describe("the CLI ends on SIGTERM and SIGINT like any CLI", () => {
	it.each(["SIGTERM", "SIGINT"] as const)(
		"%s in the middle of a long replay ends it by that signal",
		async (signal) => {
			// Forty names for one 3,000-entry session: far more replay than the wait below. The first
			// name sorts first and dangles: its "cannot read" line says the replay loop has begun (every
			// module loaded), so the signal lands in the synchronous work, where a JavaScript handler
			// (Pi's lock-file dependency installs one) could never run.
			const text = generateSession(3000).jsonl;
			const dir = path.join(work, `long-${signal}`);
			mkdirSync(dir, { recursive: true });
			const file = path.join(work, `long-${signal}.session`);
			writeFileSync(file, text);
			symlinkSync(path.join(dir, "nowhere"), path.join(dir, "a-dangling.jsonl"));
			for (let i = 0; i < 40; i++) symlinkSync(file, path.join(dir, `copy-${String(i).padStart(2, "0")}.jsonl`));
			const ended = await spawnCli(["replay", dir], (child) => {
				let sent = false;
				child.stderr?.on("data", (chunk: Buffer | string) => {
					if (!sent && String(chunk).includes("cannot read")) {
						sent = true;
						child.kill(signal);
					}
				});
			});
			expect(ended.hung).toBe(false);
			// Killed by the signal (a shell shows 143 / 130), not finished and not held until the end.
			expect(ended.signal).toBe(signal);
			expect(ended.stdout).toBe("");
		},
		TEST_MS,
	);
});

/** A session whose one tool call (or its result) nests `depth` levels deep, then a user message after it. */
function nestedSession(depth: number, where: "arguments" | "details"): string {
	const deep = `{"list":${"[".repeat(depth)}1${"]".repeat(depth)},"obj":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`;
	const head = [
		{ type: "session", version: 3, id: "nested-session", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/tmp" },
		{
			type: "message",
			id: "u1",
			parentId: null,
			timestamp: "2026-01-01T00:00:01.000Z",
			message: { role: "user", content: "read it", timestamp: 1 },
		},
	];
	const args = where === "arguments" ? deep : '{"path":"a.txt"}';
	const details = where === "details" ? deep : "{}";
	const call = `{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":${args}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":2}}`;
	const result = `{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"contents"}],"isError":false,"details":${details},"timestamp":3}}`;
	const after = {
		type: "message",
		id: "u2",
		parentId: "r1",
		timestamp: "2026-01-01T00:00:04.000Z",
		message: { role: "user", content: "and after the deep call", timestamp: 4 },
	};
	return `${toJsonl(head)}${call}\n${result}\n${toJsonl([after])}`;
}

describe("deeply nested JSON is clipped with a marker: nothing crashes, nothing is skipped", () => {
	const cases = [2_500, 100_000].flatMap((depth) =>
		(["arguments", "details"] as const).map((where) => [depth, where] as const),
	);

	it.each(cases)(
		"%i levels in the tool call's %s",
		async (depth, where) => {
			const file = write(`nested/${where}-${depth}.jsonl`, nestedSession(depth, where));

			const render = await spawnCli(["render", file, "--json"]);
			expect(render.hung).toBe(false);
			expect(render.code).toBe(0);
			const out = JSON.parse(render.stdout) as RenderJson;
			const text = JSON.stringify(out.request.messages);
			expect(text).toContain("and after the deep call");
			// The call's arguments are shown clipped, with the marker where the depth ran out.
			if (where === "arguments") expect(text).toContain(JSON.stringify(NESTING_CLIPPED_MARKER).slice(1, -1));
			expect(render.stderr).toMatch(/1 reader diagnostic /);
			expect(render.stderr).toMatch(/:\d: deep-nesting: nested deeper than 100 levels/);

			// Dispatched right after the call: the call is in flight, its arguments shown verbatim (this
			// one ended in RangeError: Maximum call stack size exceeded, exit 70).
			const inFlight = await spawnCli(["render", file, "--at", "a1"]);
			expect(inFlight.hung).toBe(false);
			expect(inFlight.code).toBe(0);
			expect(inFlight.stdout).toContain("Advisor request for");
			if (where === "arguments") expect(inFlight.stdout).toContain(NESTING_CLIPPED_MARKER);

			const replay = await spawnCli(["replay", file, "--json"]);
			expect(replay.hung).toBe(false);
			expect(replay.code).toBe(0);
			const report = JSON.parse(replay.stdout) as ReplayReport;
			expect(report.diagnostics.unreadable).toEqual([]);
			expect(report.sessions).toHaveLength(1);
			expect(report.points).toBeGreaterThan(0);
			expect(report.diagnostics.byReason).toEqual({ "deep-nesting": 1 });
			expect(report.userMessages).toMatchObject({ total: 2, missing: 0 });
		},
		TEST_MS,
	);
});

describe("what the reader could not use is reported, escaped", () => {
	const ESC = "\u001b";
	function damaged(): string {
		const base = readFileSync(path.join(repoRoot, "samples/tools.jsonl"), "utf8").trimEnd().split("\n");
		const entries = base.map((l) => JSON.parse(l) as { id?: string; parentId?: string | null });
		const leaf = entries.at(-1)!.id!;
		const bad = [
			// Not JSON, and full of terminal escapes (red, a window title), which the parser quotes back.
			`${ESC}[31mRED${ESC}]0;t\u0007`,
			// A user message whose content has the wrong type: kept as an opaque entry, its words lost.
			JSON.stringify({
				type: "message",
				id: "bad00001",
				parentId: leaf,
				timestamp: "2026-01-01T00:00:00.000Z",
				message: { role: "user", content: 42, note: `${ESC}[31m` },
			}),
			// A duplicate id.
			JSON.stringify({ ...entries[1], id: entries[1]!.id }),
		];
		return `${[...base, ...bad].join("\n")}\n`;
	}

	it(
		"render: exit 0, the request on stdout, a count and the first diagnostics on stderr, no raw control bytes",
		async () => {
			const file = write("damaged/render.jsonl", damaged());
			const r = await spawnCli(["render", file]);
			expect(r.code).toBe(0);
			expect(r.stdout).toContain("Advisor request for");
			const lines = r.stderr.trimEnd().split("\n");
			expect(lines[0]).toMatch(
				/: 3 reader diagnostics \(2 bad lines, 1 unknown entry, 0 broken parent links\); the request lacks what they describe:$/,
			);
			expect(lines.slice(1).map((l) => l.match(/: ([a-z-]+): /)?.[1])).toEqual([
				"invalid-json",
				"schema-mismatch",
				"duplicate-id",
			]);
			expect(r.stderr).toContain("\\x1b[31mRED\\x1b]0;t\\x07");
			expect(hasControl(r.stderr)).toBe(false);
			expect(hasControl(r.stdout)).toBe(false);
		},
		TEST_MS,
	);

	it(
		"replay: the diagnostics in the report and on the terminal are escaped",
		async () => {
			const file = write("damaged/replay.jsonl", damaged());
			const text = await spawnCli(["replay", file]);
			expect(text.code).toBe(0);
			expect(hasControl(text.stdout)).toBe(false);
			expect(hasControl(text.stderr)).toBe(false);
			const json = await spawnCli(["replay", file, "--json"]);
			const report = JSON.parse(json.stdout) as ReplayReport;
			expect(report.diagnostics.messages.some((m) => m.includes("\\x1b[31mRED"))).toBe(true);
			for (const m of report.diagnostics.messages) expect(hasControl(m)).toBe(false);
		},
		TEST_MS,
	);

	it(
		"a file name with control characters is escaped in every message",
		async () => {
			const name = path.join(work, `evil-${ESC}[31m-\n-name.jsonl`);
			const render = await spawnCli(["render", name]);
			expect(render.code).toBe(3);
			expect(render.stderr).toContain("evil-\\x1b[31m-\\n-name.jsonl: no such file or directory");
			expect(hasControl(render.stderr.trimEnd())).toBe(false);
			const replay = await spawnCli(["replay", name]);
			expect(replay.code).toBe(3);
			expect(hasControl(replay.stderr.replace(/\n/g, ""))).toBe(false);

			// A real session under such a name, with an entry type and an id carrying escapes too: the
			// text report and the chart show them escaped (the JSON report escapes them as JSON does).
			const lines = readFileSync(path.join(repoRoot, "samples/tools.jsonl"), "utf8").trimEnd().split("\n");
			const leaf = (JSON.parse(lines.at(-1)!) as { id: string }).id;
			const odd = {
				type: `kind${ESC}[2J`,
				id: `id${ESC}[31m`,
				parentId: leaf,
				timestamp: "2026-01-01T00:00:00.000Z",
			};
			writeFileSync(name, `${[...lines, JSON.stringify(odd)].join("\n")}\n`);
			const svg = path.join(work, "evil.svg");
			const report = await spawnCli(["replay", name, "--all-leaves", "--svg", svg]);
			expect(report.code).toBe(0);
			expect(report.stdout).toContain("evil-\\x1b[31m-\\n-name.jsonl");
			expect(report.stdout).toContain("kind\\x1b[2J ×1");
			expect(hasControl(report.stdout)).toBe(false);
			expect(hasControl(readFileSync(svg, "utf8").replace(/\n/g, ""))).toBe(false);
		},
		TEST_MS,
	);
});
