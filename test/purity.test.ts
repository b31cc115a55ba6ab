/** docs/architecture.md: src/events, src/reducers and src/render are pure — no I/O, clock, randomness, network or Pi runtime. */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(import.meta.dirname, "..");
const PURE = ["src/events", "src/reducers", "src/render"];

const sources = PURE.flatMap((folder) =>
	readdirSync(path.join(repoRoot, folder), { recursive: true })
		.map(String)
		.filter((name) => name.endsWith(".ts"))
		.map((name) => [`${folder}/${name}`, readFileSync(path.join(repoRoot, folder, name), "utf8")] as const),
);

/** Code only: comments may mention what the code must not do. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");

describe("the pure core has no I/O, clock, randomness, network, Pi runtime or adapter imports", () => {
	it("covers every pure folder", () => {
		for (const folder of PURE) expect(sources.some(([name]) => name.startsWith(folder))).toBe(true);
	});
	it.each(sources)("%s", (_, text) => {
		const body = code(text);
		expect(body).not.toMatch(
			/from\s+["'](node:)?(fs|fs\/promises|path|os|child_process|crypto|net|http|https|worker_threads)["']/,
		);
		expect(body).not.toMatch(
			/\bDate\b|Math\.random|performance\.|process\.|fetch\(|setTimeout|setInterval|require\(/,
		);
		expect(body).not.toMatch(/from\s+["'][^"']*\/adapter\//);
		for (const match of body.matchAll(/^import\s+(type\s+)?[^;]*from\s+["'](@mariozechner\/[^"']+)["']/gm)) {
			expect(match[1], `${match[2]} must be a type-only import`).toBeDefined();
		}
	});
});
