// docs/ and README.md point at what exists and state the defaults the code has, and the docs src's
// comments name exist, down to the heading. The pointer forms the checker recognises are listed at the
// top of test/support/doc-pointers.ts: write pointers in them.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AdvisorFileSchema, DEFAULT_ADVISOR_CONFIG } from "../src/adapter/extension/config/load.ts";
import { DEFAULT_DENY_PATTERNS } from "../src/events/redact/deny.ts";
import {
	checkDefaults,
	checkPointers,
	checkSourceDocLinks,
	type DocContext,
	type Problem,
	sourceDocLinks,
} from "./support/doc-pointers.ts";

const repoRoot = path.resolve(import.meta.dirname, "..");
const DOCS = [
	"README.md",
	...readdirSync(path.join(repoRoot, "docs"))
		.filter((f) => f.endsWith(".md"))
		.map((f) => `docs/${f}`),
];

const SOURCES = readdirSync(path.join(repoRoot, "src"), { recursive: true })
	.map(String)
	.filter((f) => f.endsWith(".ts"))
	.map((f) => `src/${f.split(path.sep).join("/")}`)
	.sort();

const ctx: DocContext = {
	exists(repoPath) {
		const full = path.join(repoRoot, repoPath);
		if (!existsSync(full)) return false;
		return repoPath.endsWith("/") ? statSync(full).isDirectory() : true;
	},
	read(repoPath) {
		const full = path.join(repoRoot, repoPath);
		return existsSync(full) && statSync(full).isFile() ? readFileSync(full, "utf8") : undefined;
	},
	defaults: DEFAULT_ADVISOR_CONFIG as unknown as Record<string, unknown>,
};

const text = (doc: string) => ctx.read(doc)!;
const describeProblems = (problems: Problem[]) => problems.map((p) => `${p.doc}:${p.line} ${p.message}`);

describe("the docs' pointers", () => {
	it.each(DOCS)("%s: every path exists and every named function is declared in its file", (doc) => {
		expect(describeProblems(checkPointers(doc, text(doc), ctx))).toEqual([]);
	});

	it("are not vacuous: the rule table and the configuration pages carry checked pairs", () => {
		// A checker that recognised nothing would pass everything: count the pairs it does check by
		// breaking every name and counting the reports.
		for (const doc of ["docs/architecture.md", "docs/configuration.md"]) {
			const broken = text(doc).replace(
				/(`(?:src\/)?(?:events|reducers|render|policy|adapter)\/[\w./-]+\.ts`\s+`)(\w+)`/g,
				"$1$2Nope`",
			);
			const reports = checkPointers(doc, broken, ctx).filter((p) => p.message.includes("Nope` is not declared"));
			expect(reports.length, doc).toBeGreaterThan(15);
		}
	});
});

describe("the docs src names in its comments", () => {
	it("exist, and so do the headings they name by anchor or by text", () => {
		const problems = SOURCES.flatMap((file) => checkSourceDocLinks(file, text(file), ctx));
		expect(describeProblems(problems)).toEqual([]);
	});

	it("are not vacuous: the scan finds docs, anchors and quoted headings across src", () => {
		const links = SOURCES.flatMap((file) => sourceDocLinks(text(file)));
		expect(links.length).toBeGreaterThan(150);
		expect(links.filter((l) => l.anchor !== undefined).length).toBeGreaterThan(15);
		expect(links.filter((l) => l.heading !== undefined).length).toBeGreaterThan(40);
	});
});

describe("the defaults the docs state", () => {
	it.each(DOCS)("%s: every key/default table agrees with DEFAULT_ADVISOR_CONFIG", (doc) => {
		expect(describeProblems(checkDefaults(doc, text(doc), ctx).problems)).toEqual([]);
	});

	it("configuration.md has a row for every key advisor.json may hold", () => {
		const documented = new Set(checkDefaults("docs/configuration.md", text("docs/configuration.md"), ctx).keys);
		const keys = Object.entries(AdvisorFileSchema.properties).flatMap(([name, schema]) => {
			const inner = (schema as { properties?: Record<string, unknown> }).properties;
			return inner === undefined ? [name] : Object.keys(inner).map((k) => `${name}.${k}`);
		});
		expect(keys.length).toBeGreaterThan(30);
		expect(keys.filter((k) => !documented.has(k))).toEqual([]);
	});

	it("configuration.md states the default deny list the code has", () => {
		const { problems, keys } = checkDefaults("docs/configuration.md", text("docs/configuration.md"), ctx);
		expect(keys).toContain("tools.denyPatterns");
		expect(problems).toEqual([]);
		expect(DEFAULT_DENY_PATTERNS.length).toBeGreaterThan(10);
	});
});

describe("the checker", () => {
	const config = text("docs/configuration.md");
	const arch = text("docs/architecture.md");
	/** What the checker reports on a planted copy of architecture.md and not on the doc itself. */
	const added = (planted: string) => {
		const before = checkPointers("docs/architecture.md", arch, ctx).map((p) => p.message);
		return checkPointers("docs/architecture.md", planted, ctx)
			.map((p) => p.message)
			.filter((m) => {
				const i = before.indexOf(m);
				if (i < 0) return true;
				before.splice(i, 1);
				return false;
			});
	};

	it("reports a planted wrong function, a wrong path and an unrooted path", () => {
		const planted = `${arch}

| rule | decided in |
| --- | --- |
| a | \`policy/budget/gate.ts\` \`decideGate\`, \`decideGateWrongly\` |
| b | \`policy/budget/no-such-file.ts\` \`decideGate\` |
| c | \`budget/gate.ts\` |
| d | \`src/render/\` |
`;
		expect(added(planted)).toEqual([
			"`decideGateWrongly` is not declared in src/policy/budget/gate.ts",
			"`policy/budget/no-such-file.ts`: no such file (src/policy/budget/no-such-file.ts)",
			"`budget/gate.ts`: a .ts file must be named from the repository root or from src/",
		]);
	});

	it("reports a broken link, a broken anchor and a bare path that is not there", () => {
		const planted = `${arch}

See [the gate](configuration.md#the-gate), [nothing](configuration.md#no-such-heading),
[gone](no-such-page.md) and src/render/no-such-file.ts.
`;
		expect(added(planted)).toEqual([
			"src/render/no-such-file.ts: no such file",
			"link configuration.md#no-such-heading: no such heading",
			"link no-such-page.md: no such file",
		]);
	});

	it("reports, in a source's comments, a planted broken anchor, unknown heading and missing doc", () => {
		const source = `/**
 * Fine: docs/request-format.md#the-logs-size, docs/decisions.md, "A replay's
 * memory follows the branch", docs/cli.md, "render" (a heading's opening words).
 * Broken: docs/request-format.md#the-logs-sise and docs/configuration.md, "No such
 * heading", docs/no-such-page.md.
 */
// Line comments too: docs/request-format.md#cards
export const x = 1;
`;
		expect(describeProblems(checkSourceDocLinks("src/planted.ts", source, ctx))).toEqual([
			"src/planted.ts:4 docs/request-format.md#the-logs-sise: no such heading",
			'src/planted.ts:4 docs/configuration.md, "No such heading": no such heading',
			"src/planted.ts:5 docs/no-such-page.md: no such file",
			"src/planted.ts:7 docs/request-format.md#cards: no such heading",
		]);
		expect(sourceDocLinks(source).slice(0, 3)).toEqual([
			{ line: 2, doc: "docs/request-format.md", anchor: "the-logs-size" },
			{ line: 2, doc: "docs/decisions.md", heading: "A replay's memory follows the branch" },
			{ line: 3, doc: "docs/cli.md", heading: "render" },
		]);
	});

	it("reports a planted wrong default, an unreadable one and a changed deny list, in list items", () => {
		const planted = config
			.replace(/(- `proseMaxChars` \([^)]*, default )300\)/, "$1301)")
			.replace(/(- `sessionUsd` \([^)]*, default )20\)/, "$1twenty)")
			.replace("*.kdbx", "*.kdb");
		expect(planted).not.toBe(config);
		const messages = checkDefaults("docs/configuration.md", planted, ctx).problems.map((p) => p.message);
		expect(messages).toEqual([
			"ledger.proseMaxChars: the doc says 301, the code 300",
			expect.stringMatching(/^tools\.denyPatterns: the doc says \[.*"\*\.kdb"\], the code \[.*"\*\.kdbx"\]$/),
			'budget.sessionUsd: default "twenty" cannot be read',
		]);
	});

	it("reports a planted wrong default in a table row", () => {
		const readme = text("README.md");
		const planted = readme.replace(/(\| `budget\.perCallHardUsd` *\| *)3( *\|)/, "$14$2");
		expect(planted).not.toBe(readme);
		const messages = checkDefaults("README.md", planted, ctx).problems.map((p) => p.message);
		expect(messages).toEqual(["budget.perCallHardUsd: the doc says 4, the code 3"]);
	});
});
