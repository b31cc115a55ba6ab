/**
 * The advisor's own tools send what they find to the same provider as the log: every text result
 * is redacted with the session's settings before it is capped (docs/privacy.md). A `config.json`
 * outside the deny list holding an API key reaches the advisor as a mark.
 */

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PLANTS } from "../../../events/redact/credentials.ts";
import { git, makeSandbox, run, type Sandbox, textOf, toolsFor } from "./fixture.ts";

let box: Sandbox;
const openai = PLANTS["openai-api-key"]!(21).text;
const github = PLANTS["github-classic"]!(22).text;
const CONFIG = `{\n  "name": "app",\n  "apiKey": "${openai}",\n  "port": 3000\n}\n`;
const OFF = { redact: false, patterns: [], allow: [] } as const;

beforeAll(() => {
	box = makeSandbox();
	box.write("config.json", CONFIG);
	box.write("src/deploy.sh", `#!/bin/sh\ncurl -H "Authorization: token ${github}" https://api.github.com\n`);
	git(box.root, "init", "-q");
	git(box.root, "add", ".");
	git(box.root, "commit", "-q", "-m", "init");
	box.write("config.json", CONFIG.replace("3000", "3001"));
});
afterAll(() => box.cleanup());

describe("every text result is redacted", () => {
	test("read: the key becomes its mark, the rest of the file stays", async () => {
		const text = textOf(await run(toolsFor(box.root), "read", { path: "config.json" }));
		expect(text).not.toContain(openai);
		expect(text).toContain('"apiKey": "[redacted: openai-api-key]"');
		expect(text).toContain('"port": 3001');
	});

	test("grep: matching lines are redacted", async () => {
		const text = textOf(await run(toolsFor(box.root), "grep", { pattern: "Authorization" }));
		expect(text).not.toContain(github);
		expect(text).toContain("[redacted: github-token]");
	});

	test("git_diff: both sides of a changed line", async () => {
		const text = textOf(await run(toolsFor(box.root), "git_diff", { patch: true }));
		expect(text).toContain('+  "port": 3001');
		expect(text).toContain('"apiKey": "[redacted: openai-api-key]"');
		expect(text).not.toContain(openai);
	});

	test("before the cap: a credential where the cut would fall is a whole mark, never half a token", async () => {
		const long = `${"x".repeat(150)}\nAPI_TOKEN=${github}\n${"y".repeat(150)}\n`;
		box.write("long.env.txt", long);
		const text = textOf(
			await run(toolsFor(box.root, { config: { maxResultChars: 200 } }), "read", { path: "long.env.txt" }),
		);
		for (let i = 0; i + 8 <= github.length; i++) expect(text).not.toContain(github.slice(i, i + 8));
	});

	test("a user pattern applies; with redaction off the text is as found", async () => {
		box.write("notes.txt", "ticket INTERNAL-123456 open\n");
		const custom = { redact: true, patterns: [{ pattern: "INTERNAL-[0-9]{6}", kind: "ticket" }], allow: [] };
		expect(textOf(await run(toolsFor(box.root, { privacy: custom }), "read", { path: "notes.txt" }))).toBe(
			"ticket [redacted: ticket] open\n",
		);
		expect(textOf(await run(toolsFor(box.root, { privacy: OFF }), "read", { path: "config.json" }))).toContain(
			openai,
		);
	});
});
