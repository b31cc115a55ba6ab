// README.md says what the code and BENCHMARKS.md say: the figures it quotes, the progress line.

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { consultingLine } from "../src/adapter/extension/pi/notices.ts";
import { EXIT } from "../src/adapter/lab/cli/args.ts";
import { MAIN_HELP } from "../src/adapter/lab/cli/help.ts";
import { EXTENSION_ENTRY, REPO_ROOT } from "./support/hosts.ts";

const read = (name: string) => readFileSync(fileURLToPath(new URL(`../${name}`, import.meta.url)), "utf8");
const README = read("README.md");
const BENCHMARKS = read("BENCHMARKS.md");

/** The Ratios table's cells of one row, by column header. */
function ratios(row: string): Record<string, string> {
	const lines = BENCHMARKS.split("\n");
	const header = lines.find((l) => l.startsWith("| session | entries | points |"))!;
	const line = lines.find((l) => l.startsWith(`| ${row} |`) && lines.indexOf(l) > lines.indexOf(header))!;
	const cells = (l: string) =>
		l
			.split("|")
			.slice(1, -1)
			.map((c) => c.trim());
	return Object.fromEntries(cells(header).map((name, i) => [name, cells(line)[i]!]));
}

describe("README.md", () => {
	it("quotes BENCHMARKS.md's token and cost ratios, in one sentence, as measured", () => {
		const pi = ratios("samples/long/pi-mono-large-session.jsonl");
		const generated = ratios("generated 10000-entry session");
		const sentence = README.replace(/\s+/g, " ");
		expect(sentence).toContain(
			`on a real 1,000-entry Pi session the ledger sends ${pi["ledger / baseline tokens"]} of the baseline's tokens (${pi["effective cost / baseline"]} of its cost with both sides cached); on a generated 10,000-entry session ${generated["ledger / baseline tokens"]} (${generated["effective cost / baseline"]}).`,
		);
		// Nowhere else: a second copy would be the one left stale.
		for (const figure of [pi["ledger / baseline tokens"]!, generated["ledger / baseline tokens"]!]) {
			expect(sentence.split(figure)).toHaveLength(2);
		}
	});

	it("quotes the watch's reviews and share on the bundled real sessions as BENCHMARKS.md measured them", () => {
		const from = BENCHMARKS.indexOf("## The watch");
		const section = BENCHMARKS.slice(from, BENCHMARKS.indexOf("\n## ", from + 1));
		const rows = section
			.split("\n")
			.filter((l) => l.startsWith("| samples/long/"))
			.map((l) => l.split("|").map((c) => c.trim()));
		expect(rows.length).toBeGreaterThan(0);
		// Columns: input, reviews, by signal, held back, watch $, executor $, share, reuse, time.
		const dollars = (cell: string) => Number(cell.replace("$", ""));
		const reviews = rows.reduce((n, r) => n + Number(r[2]), 0);
		const share = rows.reduce((n, r) => n + dollars(r[5]!), 0) / rows.reduce((n, r) => n + dollars(r[6]!), 0);
		expect(README.replace(/\s+/g, " ")).toContain(
			`(\`advisor-ledger replay --watch\`) it reviewed ${reviews} times for ${share.toFixed(3)} of the executor's spend.`,
		);
	});

	it("stays a guide: at most 15 KB (reference goes to docs/)", () => {
		expect(Buffer.byteLength(README, "utf8")).toBeLessThanOrEqual(15_000);
	});

	it("spells the progress line as the extension writes it", () => {
		const shown = README.split("\n").filter((line) => line.includes("Consulting advisor"));
		expect(shown.length).toBeGreaterThan(0);
		for (const line of shown) expect(line.trim()).toBe(consultingLine("GPT-5 (openai/gpt-5)", "high"));
	});
});

describe("the entry Pi loads", () => {
	const pkg = JSON.parse(read("package.json")) as { name: string; pi: { extensions: string[] } };

	it("is named after the package (Pi's banner lists it by file name), in package.json, README and the tests alike", () => {
		expect(pkg.pi.extensions).toEqual([`./src/adapter/extension/${pkg.name}.ts`]);
		expect(EXTENSION_ENTRY).toBe(`${REPO_ROOT}/src/adapter/extension/${pkg.name}.ts`);
		expect(README).toContain(`pi -e /path/to/pi-advisor-ledger/src/adapter/extension/${pkg.name}.ts`);
	});
});

/** What follows each `npm run` in `text`, up to the end of its line, code span or comment. */
function npmRunForms(text: string): string[] {
	return [...text.matchAll(/npm run ([^`\n#]*)/g)].map((m) => m[1]!.trim());
}

/** The fenced code blocks of a Markdown text: the commands a reader copies. */
function codeBlocks(text: string): string {
	return [...text.matchAll(/^```[a-z]*\n([\s\S]*?)^```/gm)].map((m) => m[1]).join("\n");
}

describe("the CLI as the README shows it", () => {
	it("every `npm run` puts the CLI's flags after -- (npm keeps those before it: npm-run.e2e.test.ts)", () => {
		const docs = readdirSync(new URL("../docs/", import.meta.url)).filter((name) => name.endsWith(".md"));
		const shown = [README, ...docs.map((name) => codeBlocks(read(`docs/${name}`)))].flatMap(npmRunForms);
		expect(shown).toContain("replay -- [flags]");
		for (const form of shown) {
			// npm's own -s (silent: no banner on stdout) comes before the script's name.
			const [, ...args] = form.replace(/^-s\s+/, "").split(/\s+/);
			const beforeDashes = args.slice(0, args.indexOf("--") === -1 ? args.length : args.indexOf("--"));
			expect(
				beforeDashes.filter((arg) => arg.startsWith("-")),
				`npm run ${form}`,
			).toEqual([]);
		}
	});

	it("every `npm run … --json` a reader copies is npm's silent form, -s (else npm's banner precedes the JSON: npm-run.e2e.test.ts)", () => {
		const docs = readdirSync(new URL("../docs/", import.meta.url)).filter((name) => name.endsWith(".md"));
		const shown = [README, ...docs.map((name) => read(`docs/${name}`))].map(codeBlocks).flatMap(npmRunForms);
		const json = shown.filter((form) => /(^|\s)--json(\s|$)/.test(form));
		expect(json.length).toBeGreaterThan(0);
		for (const form of json) expect(form, `npm run ${form}`).toMatch(/^-s /);
	});

	it("names every exit code, as --help does", () => {
		const readme = README.slice(README.indexOf("exit codes:")).split("\n```")[0]!;
		const help = MAIN_HELP.slice(MAIN_HELP.indexOf("Exit codes:"));
		for (const code of Object.values(EXIT)) {
			expect(readme, `README exit ${code}`).toMatch(new RegExp(`(^ *|[:·] )${code} [a-z]`, "m"));
			expect(help, `--help exit ${code}`).toMatch(new RegExp(`[:,] ${code} [a-z]`));
		}
	});
});
