/**
 * `render` and `replay` read advisor.json like the extension (cli/cli-config.ts), so `render` shows what
 * would really be sent: redaction, the deny list and the ledger caps of the user's file, or of
 * `--config FILE`. A missing default file is the defaults, silently; a named file that cannot be
 * read is one line and exit 1. Run in-process.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Io } from "../../../../src/adapter/lab/cli/io.ts";
import { styleFor } from "../../../../src/adapter/lab/report/text-report.ts";
import type { RenderJson } from "../../../../src/adapter/lab/request/render-at.ts";
import { runCli } from "../../../../src/adapter/lab/run.ts";
import { WITHHELD_READ_TEXT } from "../../../../src/events/index.ts";
import { PLANTS } from "../../../events/redact/credentials.ts";

let work: string;
let session: string;
const token = PLANTS["github-classic"]!(31).text;
const ENV_TEXT = "API_TOKEN=live-value-123456789\nPORT=3000\n";

/** A session: the user pastes a token, the executor reads .env, then calls the advisor. */
function sessionText(): string {
	const lines = [
		{ type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" },
		{ type: "message", id: "u1", parentId: null, message: { role: "user", content: `deploy with ${token}` } },
		{
			type: "message",
			id: "a1",
			parentId: "u1",
			message: {
				role: "assistant",
				content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: ".env" } }],
				stopReason: "toolUse",
			},
		},
		{
			type: "message",
			id: "r1",
			parentId: "a1",
			message: { role: "toolResult", toolCallId: "c1", toolName: "read", content: ENV_TEXT, isError: false },
		},
		{
			type: "message",
			id: "a2",
			parentId: "r1",
			message: {
				role: "assistant",
				content: [
					{ type: "text", text: "Is this right?" },
					{ type: "toolCall", id: "adv", name: "advisor", arguments: {} },
				],
				stopReason: "toolUse",
			},
		},
	];
	return `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
}

beforeAll(() => {
	work = mkdtempSync(path.join(tmpdir(), "advisor-cli-config-"));
	session = path.join(work, "s.jsonl");
	writeFileSync(session, sessionText());
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A config home per test: `xdg` holds pi-advisor-ledger/advisor.json when `file` is given. */
function home(name: string, file?: string): string {
	const xdg = path.join(work, name);
	mkdirSync(path.join(xdg, "pi-advisor-ledger"), { recursive: true });
	if (file !== undefined) writeFileSync(path.join(xdg, "pi-advisor-ledger", "advisor.json"), file);
	return xdg;
}

async function cli(argv: string[], xdg: string): Promise<{ code: number; stdout: string; stderr: string }> {
	let stdout = "";
	let stderr = "";
	const io: Io = {
		stdout: (t) => {
			stdout += t;
		},
		stderr: (t) => {
			stderr += t;
		},
		env: { XDG_CONFIG_HOME: xdg, HOME: work },
		cwd: work,
		stderrIsTTY: false,
		style: styleFor(false, {}),
		now: () => 0,
	};
	return { code: await runCli(argv, io), stdout, stderr };
}

const json = (stdout: string) => JSON.parse(stdout) as RenderJson;

describe("render reads advisor.json", () => {
	it("no file: the defaults, silently — the token a mark, the .env read withheld, the header counts the marks", async () => {
		const r = await cli(["render", session], home("none"));
		expect(r.code).toBe(0);
		expect(r.stderr).toBe("");
		expect(r.stdout).not.toContain(token);
		expect(r.stdout).not.toContain("live-value");
		expect(r.stdout).toContain("[redacted: github-token]");
		expect(r.stdout).toContain(WITHHELD_READ_TEXT);
		expect(r.stdout).toContain("#3 read .env · 41 · withheld: deny list");
		expect(r.stdout).toMatch(/ · 1 credential redacted · /);
		const j = json((await cli(["render", session, "--json"], home("none"))).stdout);
		expect(j.summary.redactions).toBe(1);
	});

	it("the user's file: privacy.redact false and an empty deny list send what the executor saw", async () => {
		const xdg = home("open", JSON.stringify({ privacy: { redact: false }, tools: { denyPatterns: [] } }));
		const r = await cli(["render", session], xdg);
		expect(r.code).toBe(0);
		expect(r.stdout).toContain(token);
		expect(r.stdout).toContain("live-value");
		expect(r.stdout).toMatch(/ · 0 credentials redacted · /);
	});

	it("--config FILE instead of the user's file; its ledger caps apply too", async () => {
		const named = path.join(work, "mine.json");
		writeFileSync(
			named,
			JSON.stringify({ privacy: { patterns: ["live-value-[0-9]+"] }, tools: { denyPatterns: [] } }),
		);
		const r = await cli(
			["render", session, "--config", named],
			home("other", JSON.stringify({ privacy: { redact: false } })),
		);
		expect(r.code).toBe(0);
		expect(r.stdout).not.toContain(token);
		expect(r.stdout).toContain("API_TOKEN=[redacted: custom]");
		const capped = path.join(work, "capped.json");
		writeFileSync(capped, JSON.stringify({ ledger: { tailToolCalls: 0 } }));
		expect((await cli(["render", session, "--config", capped], home("none"))).stdout).not.toContain("[tool #3]");
		expect((await cli(["render", session], home("none"))).stdout).toContain("[tool #3]");
	});

	it("a bad entry costs that entry, with a warning line; the rest of the file applies", async () => {
		const named = path.join(work, "bad-entry.json");
		writeFileSync(named, JSON.stringify({ privacy: { patterns: ["(a+)+"], redact: false } }));
		const r = await cli(["render", session, "--config", named], home("none"));
		expect(r.code).toBe(0);
		expect(r.stderr).toBe(
			`advisor-ledger render: advisor.json: privacy.patterns[0] "(a+)+" could backtrack without bound (nested repetition) — skipped (in ${named})\n`,
		);
		expect(r.stdout).toContain(token);
	});

	it("--config: a misspelt key is a warning line with the nearest known key, and is ignored", async () => {
		const named = path.join(work, "typo.json");
		writeFileSync(named, JSON.stringify({ privacy: { redakt: false } }));
		const r = await cli(["render", session, "--config", named], home("none"));
		expect(r.code).toBe(0);
		expect(r.stderr).toBe(
			`advisor-ledger render: advisor.json: unknown key "privacy.redakt" — did you mean "privacy.redact"? (in ${named}, ignored)\n`,
		);
		expect(r.stdout).not.toContain(token);
	});

	it("a named file that is missing or not JSON: one line, exit 1, nothing rendered", async () => {
		for (const [file, why] of [
			[path.join(work, "absent.json"), "no such file"],
			[session, "not valid JSON"],
		] as const) {
			const r = await cli(["render", session, "--config", file], home("none"));
			expect(r.code).toBe(1);
			expect(r.stdout).toBe("");
			expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
			expect(r.stderr).toContain(`advisor-ledger render: --config ${file}: ${why}`);
		}
	});

	it("the user's own file broken: a warning line and the defaults, as in Pi", async () => {
		const r = await cli(["render", session], home("broken", "{nope"));
		expect(r.code).toBe(0);
		expect(r.stderr).toMatch(/^advisor-ledger render: advisor\.json: cannot use .* — using defaults\n$/);
		expect(r.stdout).not.toContain(token);
	});
});

describe("replay reads advisor.json", () => {
	it("--config missing: one line, exit 1", async () => {
		const r = await cli(["replay", session, "--config", path.join(work, "absent.json")], home("none"));
		expect(r.code).toBe(1);
		expect(r.stderr.trimEnd().split("\n")).toEqual([
			`advisor-ledger replay: --config ${path.join(work, "absent.json")}: no such file`,
		]);
	});

	it("the config shapes the measured request: no tools declared when the file turns them off", async () => {
		const off = path.join(work, "no-tools.json");
		writeFileSync(off, JSON.stringify({ tools: { enabled: false } }));
		const tokens = async (args: string[]) => {
			const r = await cli(["replay", session, "--json", ...args], home("none"));
			expect(r.code).toBe(0);
			return (JSON.parse(r.stdout) as { sessions: { points: { ledger: number }[] }[] }).sessions[0]!.points[0]!
				.ledger;
		};
		expect(await tokens(["--config", off])).toBeLessThan(await tokens([]));
	});
});
