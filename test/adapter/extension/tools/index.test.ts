/** read/grep/find/ls behaviour beyond the security table, declarations, deadlines and binaries. */

import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	createFindToolDefinition,
	createGrepToolDefinition,
	createLsToolDefinition,
	createReadToolDefinition,
} from "@mariozechner/pi-coding-agent";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import {
	advisorToolsMode,
	type DEFAULT_TOOLS_CONFIG,
	withoutDescriptions,
} from "../../../../src/adapter/extension/tools/index.ts";
import { running, settledPid } from "../../../support/processes.ts";
import { makeSandbox, PNG_1X1, run, type Sandbox, textOf, toolsFor } from "./fixture.ts";

let box: Sandbox;

beforeAll(() => {
	box = makeSandbox();
	box.write("img/dot.png", PNG_1X1);
	box.write("src/app.ts", "export function app() {\n\treturn 42;\n}\n");
	box.write(
		"long.txt",
		Array.from({ length: 500 }, (_, i) => `line ${String(i + 1).padStart(4, "0")} ${"x".repeat(20)}`).join("\n"),
	);
});

afterAll(() => box.cleanup());

describe("declarations", () => {
	const names = (config: Partial<typeof DEFAULT_TOOLS_CONFIG>) =>
		toolsFor(box.root, { config }).declarations.map((d) => d.name);

	test("the full read-only set in a fixed order; nothing that mutates", () => {
		expect(names({})).toEqual(["advisor_expand", "read", "grep", "find", "ls", "git_diff"]);
		expect(names({})).not.toEqual(expect.arrayContaining(["write"]));
		for (const mutating of ["write", "edit", "bash"]) expect(names({})).not.toContain(mutating);
	});

	test("repo:false → only advisor_expand; enabled:false or maxRounds:0 → none", () => {
		expect(names({ repo: false })).toEqual(["advisor_expand"]);
		expect(names({ enabled: false })).toEqual([]);
		expect(names({ maxRounds: 0 })).toEqual([]);
		expect(names({ enabled: false, repo: false })).toEqual([]);
		expect(advisorToolsMode({ enabled: true, repo: true, maxRounds: 3 })).toBe("repo");
		expect(advisorToolsMode({ enabled: true, repo: false, maxRounds: 3 })).toBe("expand");
		expect(advisorToolsMode({ enabled: true, repo: true, maxRounds: 0 })).toBe("none");
	});

	test("a tool that is not declared is not executed", async () => {
		const tools = toolsFor(box.root, { config: { repo: false } });
		const r = await run(tools, "read", { path: "src/app.ts" });
		expect(r).toMatchObject({ isError: true, summary: "read src/app.ts" });
		expect(textOf(r)).toMatch(/^Unknown tool: read/);
		const none = toolsFor(box.root, { config: { enabled: false } });
		expect((await run(none, "advisor_expand", { ids: ["a"] })).isError).toBe(true);
	});

	test("byte-identical across factories, whatever the cwd, deny list, cap or image support", () => {
		const a = toolsFor(box.root);
		const b = toolsFor(box.outside, {
			config: { denyPatterns: ["*.secret"], maxResultChars: 99 },
			images: true,
		});
		expect(JSON.stringify(b.declarations)).toBe(JSON.stringify(a.declarations));
		expect(JSON.stringify(toolsFor(box.root).declarations)).toBe(JSON.stringify(a.declarations));
	});

	test("Pi's own parameter names and types are reused, without parameter prose; one sentence each", () => {
		const declared = toolsFor(box.root).declarations;
		const pi = [
			createReadToolDefinition(box.root),
			createGrepToolDefinition(box.root),
			createFindToolDefinition(box.root),
			createLsToolDefinition(box.root),
		];
		const withoutProse = (schema: unknown) => JSON.stringify(schema, (k, v) => (k === "description" ? undefined : v));
		for (const d of pi) {
			const ours = declared.find((t) => t.name === d.name)!;
			expect(JSON.stringify(ours.parameters)).toBe(withoutProse(d.parameters));
			// Pi's schema does carry prose, so stripping it is what made them equal.
			expect(JSON.stringify(d.parameters)).toContain('"description"');
		}
		for (const t of declared) {
			expect(JSON.stringify(t.parameters)).not.toContain('"description"');
			expect(t.description).toMatch(/^[^.]+\.$/);
		}
		// The whole set, as sent in the head of every request (it was 4,234 chars with Pi's prose).
		expect(JSON.stringify(declared).length).toBeLessThan(1500);
	});

	test("stripping prose keeps a parameter that is itself called description", () => {
		const schema = {
			type: "object",
			description: "gone",
			properties: { description: { type: "string", description: "gone too" }, n: { type: "number" } },
		};
		expect(withoutDescriptions(schema)).toEqual({
			type: "object",
			properties: { description: { type: "string" }, n: { type: "number" } },
		});
	});
});

describe("images", () => {
	test("sent to a model whose input includes images", async () => {
		const r = await run(toolsFor(box.root, { images: true }), "read", { path: "img/dot.png" });
		expect(r.isError).toBe(false);
		expect(r.content.map((p) => p.type)).toEqual(["text", "image"]);
		expect(r.content[1]).toMatchObject({ type: "image", mimeType: "image/png" });
	});

	test("a text marker for a model without image input", async () => {
		const r = await run(toolsFor(box.root, { images: false }), "read", { path: "img/dot.png" });
		expect(r.isError).toBe(false);
		expect(r.content).toHaveLength(1);
		expect(textOf(r)).toMatch(/\[image \(image\/png\) not shown: this advisor model does not accept images\]/);
	});
});

describe("output cap", () => {
	test("maxResultChars keeps head and tail around a marker", async () => {
		const r = await run(toolsFor(box.root, { config: { maxResultChars: 600 } }), "read", { path: "long.txt" });
		const text = textOf(r);
		expect(text.length).toBeLessThanOrEqual(600);
		expect(text.startsWith("line 0001")).toBe(true);
		expect(text).toMatch(/\[… \d+ chars omitted …\]/);
		expect(text.trimEnd().endsWith("line 0500 xxxxxxxxxxxxxxxxxxxx")).toBe(true);
	});

	test("Pi's offset/limit still work under the fence", async () => {
		const r = await run(toolsFor(box.root), "read", { path: "long.txt", offset: 10, limit: 2 });
		expect(textOf(r)).toMatch(
			/^line 0010 x+\nline 0011 x+\n\n\[489 more lines in file\. Use offset=12 to continue\.\]$/,
		);
		expect(r.summary).toBe("read long.txt from line 10");
	});

	test("errors are capped too", async () => {
		const r = await run(toolsFor(box.root, { config: { maxResultChars: 200 } }), "read", { path: "x".repeat(1000) });
		expect(r.isError).toBe(true);
		expect(textOf(r).length).toBeLessThanOrEqual(200);
	});
});

describe("ordinary use", () => {
	test("grep, find and ls answer like Pi's tools", async () => {
		const tools = toolsFor(box.root);
		expect(textOf(await run(tools, "grep", { pattern: "return 42" }))).toBe("src/app.ts:2: \treturn 42;");
		expect(textOf(await run(tools, "grep", { pattern: "return", path: "src/app.ts" }))).toBe(
			"app.ts:2: \treturn 42;",
		);
		expect(textOf(await run(tools, "find", { pattern: "*.ts" }))).toBe("src/app.ts");
		expect(textOf(await run(tools, "find", { pattern: "src/*.ts" }))).toBe("src/app.ts");
		expect(textOf(await run(tools, "ls", { path: "src" }))).toBe("app.ts");
	});

	test("invalid arguments come back as a tool error, never a throw", async () => {
		const tools = toolsFor(box.root);
		const r = await run(tools, "grep", { path: "src" });
		expect(r.isError).toBe(true);
		expect(textOf(r)).toMatch(/Validation failed for tool "grep"/);
		const weird = await tools.execute({ id: "x", name: "ls", arguments: null as unknown as Record<string, unknown> });
		expect(weird.isError).toBe(false);
	});

	test("summaries are one line: control characters are escaped, runs of spaces collapsed", async () => {
		const r = await run(toolsFor(box.root), "grep", { pattern: "a\nb  c", path: "src" });
		expect(r.summary).toBe("grep /a\\nb c/ in src");
	});
});

describe("binaries, deadlines and cancellation", () => {
	const saved = { PATH: process.env.PATH, PI_CODING_AGENT_DIR: process.env.PI_CODING_AGENT_DIR };
	let scratch: string;

	beforeAll(() => {
		scratch = mkdtempSync(join(tmpdir(), "advisor-bins-"));
	});
	afterEach(() => {
		process.env.PATH = saved.PATH;
		if (saved.PI_CODING_AGENT_DIR === undefined) delete process.env.PI_CODING_AGENT_DIR;
		else process.env.PI_CODING_AGENT_DIR = saved.PI_CODING_AGENT_DIR;
		vi.unstubAllGlobals();
	});
	afterAll(() => rmSync(scratch, { recursive: true, force: true }));

	test("missing rg / fd → a tool error, never a download", async () => {
		const fetchSpy = vi.fn(() => Promise.reject(new Error("network used")));
		vi.stubGlobal("fetch", fetchSpy);
		const empty = join(scratch, "empty-bin");
		mkdirSync(empty, { recursive: true });
		process.env.PATH = empty;
		process.env.PI_CODING_AGENT_DIR = join(scratch, "agent");
		const tools = toolsFor(box.root);
		const grep = await run(tools, "grep", { pattern: "x" });
		expect(grep.isError).toBe(true);
		expect(textOf(grep)).toMatch(/grep is unavailable: ripgrep \(rg\) is not installed/);
		const find = await run(tools, "find", { pattern: "*" });
		expect(find.isError).toBe(true);
		expect(textOf(find)).toMatch(/find is unavailable: fd is not installed/);
		expect(fetchSpy).not.toHaveBeenCalled();
	});

	test("a hanging process is cut at the per-call deadline", async () => {
		const slow = join(scratch, "slow-bin");
		mkdirSync(slow, { recursive: true });
		const pidFile = join(slow, "pid");
		writeFileSync(
			join(slow, "fd"),
			`#!/bin/sh\n[ "$1" = "--help" ] && exit 0\necho $$ > ${pidFile}\nexec sleep 10\n`,
		);
		chmodSync(join(slow, "fd"), 0o755);
		process.env.PATH = `${slow}:${saved.PATH}`;
		const r = await run(toolsFor(box.root, { timeoutMs: 300 }), "find", { pattern: "*" });
		expect(r.isError).toBe(true);
		expect(textOf(r)).toBe("find timed out after 0.3s. Narrow the request.");
		// Killed, not left sleeping: no duration is asserted, the process is looked for.
		expect(running(await settledPid(pidFile))).toBe(false);
	});

	test("the caller's or the consultation's abort cancels a call", async () => {
		const already = new AbortController();
		already.abort();
		const r = await run(toolsFor(box.root), "ls", {}, already.signal);
		expect(r).toMatchObject({ isError: true });
		expect(textOf(r)).toBe("ls was cancelled.");
		const consultation = new AbortController();
		const tools = toolsFor(box.root, { signal: consultation.signal });
		consultation.abort();
		expect(textOf(await run(tools, "read", { path: "src/app.ts" }))).toBe("read was cancelled.");
	});
});
