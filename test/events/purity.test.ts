import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./helpers.ts";

const dir = path.join(repoRoot, "src/events");
const sources = readdirSync(dir)
	.filter((name) => name.endsWith(".ts"))
	.map((name) => [name, readFileSync(path.join(dir, name), "utf8")] as const);

/** Code only: comments may mention what the code must not do. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");

describe("src/events is pure: no I/O, clock, randomness or Pi runtime", () => {
	it.each(sources)("%s", (_, text) => {
		const body = code(text);
		expect(body).not.toMatch(/from\s+["'](node:)?(fs|fs\/promises|path|os|child_process|crypto|net|http|https)["']/);
		expect(body).not.toMatch(/\bDate\b|Math\.random|performance\.|process\.|fetch\(|setTimeout|setInterval/);
		for (const match of body.matchAll(/^import\s+(type\s+)?[^;]*from\s+["'](@mariozechner\/[^"']+)["']/gm)) {
			expect(match[1], `${match[2]} must be a type-only import`).toBeDefined();
		}
	});
});
