/**
 * What an advisor needs and a careless rule would eat: hashes, ids, config values, paths, names,
 * references, placeholders, prose. Each comes back as the very same string. The project's own
 * code, docs, manifests and recorded sessions are a look-alike corpus too.
 */

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_PRIVACY, redactText } from "../../../src/events/redact/index.ts";
import { LOOKALIKES } from "./lookalikes.ts";

describe("look-alikes survive unchanged", () => {
	it.each(LOOKALIKES.map((t) => [t]))("%s", (text) => {
		expect(redactText(text, DEFAULT_PRIVACY)).toBe(text);
	});

	it("all of them in one text", () => {
		const text = LOOKALIKES.join("\n");
		expect(redactText(text, DEFAULT_PRIVACY)).toBe(text);
	});
});

const repoRoot = path.resolve(import.meta.dirname, "../../..");
const read = (file: string) => readFileSync(path.join(repoRoot, file), "utf8");

/**
 * The redaction rules, their tests and docs/privacy.md hold credential shapes on purpose; everything
 * else must survive.
 */
const projectFiles = (readdirSync(repoRoot, { recursive: true }) as string[])
	.map((f) => f.split(path.sep).join("/"))
	.filter((f) => /^(src|docs|bench|scripts)\//.test(f) && /\.(ts|md|mjs)$/.test(f))
	.filter((f) => !f.includes("/redact/") && f !== "docs/privacy.md");

describe("the project's own files are look-alikes", () => {
	it("covers the code and docs", () => {
		expect(projectFiles.length).toBeGreaterThan(50);
	});

	it.each([...projectFiles, "README.md", "BENCHMARKS.md", "package.json", "package-lock.json"].map((f) => [f]))(
		"%s",
		(file) => {
			const text = read(file);
			expect(redactText(text, DEFAULT_PRIVACY)).toBe(text);
		},
	);

	it.each(
		readdirSync(path.join(repoRoot, "samples"), { recursive: true })
			.map(String)
			.filter((f) => f.endsWith(".jsonl"))
			.map((f) => [`samples/${f}`]),
	)("recorded session %s", (file) => {
		const text = read(file);
		const redacted = redactText(text, DEFAULT_PRIVACY);
		// The GJC session holds one real credential: a chat invite link's token (its publisher
		// masked it as a UUID-like value, still a token by its name). Everything else is look-alikes.
		const expected = file.endsWith("gjc-inline-agent-design.jsonl")
			? text.replace(/(link_token=)[\w-]{36}/, "$1[redacted: secret-assignment]")
			: text;
		expect(redacted).toBe(expected);
	});
});
