// The long recorded sample (samples/long/taskq.jsonl): a day of work on a small JS project,
// recorded like the short samples (real Pi host, real tools, faux models) but long enough for
// the replay to show what a consultation costs once the session has grown: hundreds of entries,
// tool results of a few KB, several advisor consultations whose advice the later requests carry,
// and a compaction half-way.
//
// Everything here is generated from fixed tables, so the scenario (and the repo, its git hashes
// and every tool output) is the same on every recording. The generator keeps its own copy of each
// file it edits, so every scripted edit's oldText matches the file Pi's edit tool will see.

import type { Scenario, Step, Turn } from "./record-samples-types.ts";

type Template = "pick" | "count" | "format" | "sum" | "group";

interface ModuleSpec {
	name: string;
	noun: string;
	about: string;
	/** Fields the module's initial functions read, one function each. */
	fields: string[];
	/** Fields the later tasks add functions for, in task order. */
	extra: string[];
}

const MODULES: ModuleSpec[] = [
	{
		name: "queue",
		noun: "task",
		about: "The in-memory queue: tasks waiting for a worker, ordered by priority and due time.",
		fields: ["id", "priority", "weight", "state", "owner", "due", "tags", "attempts"],
		extra: ["cost", "lane", "deadline"],
	},
	{
		name: "store",
		noun: "record",
		about: "Persistence helpers: records as the JSON-lines store writes them, one per task run.",
		fields: ["key", "version", "size", "kind", "shard", "ttl", "writer", "checksum"],
		extra: ["bytes", "region", "expiry"],
	},
	{
		name: "parse",
		noun: "token",
		about: "The job-spec parser's token stream: what the tokenizer hands to the grammar.",
		fields: ["text", "line", "column", "kind", "width", "depth", "flags", "offset"],
		extra: ["length", "scope", "origin"],
	},
	{
		name: "format",
		noun: "row",
		about: "Table output for the CLI: rows of labelled values padded to fixed columns.",
		fields: ["label", "value", "width", "align", "colour", "indent", "unit", "note"],
		extra: ["total", "section", "marker"],
	},
	{
		name: "schedule",
		noun: "slot",
		about: "The scheduler's time slots: which worker runs what, when, and with how much load.",
		fields: ["start", "length", "worker", "load", "zone", "rank", "gap", "retries"],
		extra: ["overlap", "pool", "window"],
	},
	{
		name: "retry",
		noun: "attempt",
		about: "Retry bookkeeping: one attempt per execution of a task, with its delay and outcome.",
		fields: ["delay", "status", "code", "cause", "backoff", "jitter", "budget", "count"],
		extra: ["wait", "reason", "ceiling"],
	},
	{
		name: "report",
		noun: "entry",
		about: "Daily report lines: per-team totals and shares, ranked for the summary table.",
		fields: ["title", "total", "share", "group", "rank", "delta", "team", "period"],
		extra: ["score", "bucket", "caption"],
	},
	{
		name: "config",
		noun: "option",
		about: "Configuration options: name, default, scope and where each value came from.",
		fields: ["name", "fallback", "scope", "type", "source", "level", "alias", "env"],
		extra: ["weight", "layer", "hint"],
	},
];

const TEMPLATES: Template[] = ["pick", "count", "format", "sum", "group"];

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const plural = (noun: string) => (noun.endsWith("y") ? `${noun.slice(0, -1)}ies` : `${noun}s`);

function fnName(template: Template, noun: string, field: string): string {
	switch (template) {
		case "pick":
			return `pick${cap(noun)}${cap(field)}`;
		case "count":
			return `count${cap(plural(noun))}By${cap(field)}`;
		case "format":
			return `format${cap(noun)}${cap(field)}`;
		case "sum":
			return `sum${cap(noun)}${cap(field)}`;
		case "group":
			return `group${cap(plural(noun))}By${cap(field)}`;
	}
}

/** `{{key}}` placeholders, so the JS below needs no escaping of `${…}`. */
function fill(lines: readonly string[], vars: Record<string, string>): string {
	return lines.join("\n").replace(/\{\{(\w+)\}\}/g, (_, key: string) => vars[key] ?? `{{${key}}}`);
}

/** The buggy line a task writes first, and its fix (both unique in their module). */
const SUM_BUG = ["\t\tif (Number.isFinite(value)) total = value;", "\t\tif (Number.isFinite(value)) total += value;"];
const COUNT_BUG = [
	"\t\tif (Number.isFinite(value) && value > min) n++;",
	"\t\tif (Number.isFinite(value) && value >= min) n++;",
];

function fnCode(template: Template, noun: string, field: string, buggy = false): string {
	const vars = { name: fnName(template, noun, field), noun, nouns: plural(noun), Nouns: cap(plural(noun)), field };
	switch (template) {
		case "pick":
			return fill(
				[
					"/**",
					" * Returns the `{{field}}` of every {{noun}} that has one, in input order.",
					" * {{Nouns}} without a `{{field}}` are skipped silently: callers treat a missing",
					' * value as "not set yet" (see docs/design.md, "Partial records").',
					" *",
					" * @param {Array<Record<string, unknown>>} items the {{nouns}} to read",
					' * @param {string} [key] the field to read (default "{{field}}")',
					" * @returns {unknown[]}",
					" */",
					'export function {{name}}(items, key = "{{field}}") {',
					'\tif (!Array.isArray(items)) throw new TypeError("{{name}}: items must be an array");',
					"\tconst out = [];",
					"\tfor (const item of items) {",
					'\t\tif (item === null || typeof item !== "object") continue;',
					"\t\tif (item[key] === undefined) continue;",
					"\t\tout.push(item[key]);",
					"\t}",
					"\treturn out;",
					"}",
				],
				vars,
			);
		case "count":
			return fill(
				[
					"/**",
					" * Counts the {{nouns}} whose `{{field}}` is at least `min`. Values are read as",
					' * numbers (`"5"` counts as 5); anything that is not a finite number is not',
					" * counted, and neither is a missing {{noun}} or a missing list.",
					" *",
					" * @param {Array<Record<string, unknown>> | undefined} items the {{nouns}}",
					" * @param {number} [min] the threshold, inclusive (default 1)",
					" * @returns {number}",
					" */",
					"export function {{name}}(items, min = 1) {",
					"\tlet n = 0;",
					"\tfor (const item of items ?? []) {",
					"\t\tconst value = Number(item?.{{field}});",
					buggy ? COUNT_BUG[0]! : COUNT_BUG[1]!,
					"\t}",
					"\treturn n;",
					"}",
				],
				vars,
			);
		case "format":
			return fill(
				[
					"/**",
					" * Formats a {{noun}}'s `{{field}}` for a fixed-width column: padded with spaces to",
					" * `width` characters, or clipped with an ellipsis when longer. A missing value",
					' * prints as "-" so the columns of a report stay aligned.',
					" *",
					" * @param {Record<string, unknown> | undefined} item the {{noun}}",
					" * @param {number} [width] the column width, at least 2 (default 24)",
					" * @returns {string} e.g. `{{noun}}[value   ]`",
					" */",
					"export function {{name}}(item, width = 24) {",
					'\tif (!Number.isInteger(width) || width < 2) throw new RangeError("{{name}}: width must be an integer >= 2");',
					'\tconst text = String(item?.{{field}} ?? "-");',
					'\tconst cell = text.length > width ? text.slice(0, width - 1) + "…" : text.padEnd(width);',
					'\treturn "{{noun}}[" + cell + "]";',
					"}",
				],
				vars,
			);
		case "sum":
			return fill(
				[
					"/**",
					" * Adds up the `{{field}}` of every {{noun}}. Values are read as numbers; anything",
					" * that is not a finite number (missing, `NaN`, a word) adds nothing, so a",
					" * partly filled list still gives a usable total.",
					" *",
					" * @param {Array<Record<string, unknown>> | undefined} items the {{nouns}}",
					" * @returns {number} 0 for an empty or missing list",
					" */",
					"export function {{name}}(items) {",
					"\tlet total = 0;",
					"\tfor (const item of items ?? []) {",
					"\t\tconst value = Number(item?.{{field}});",
					buggy ? SUM_BUG[0]! : SUM_BUG[1]!,
					"\t}",
					"\treturn total;",
					"}",
				],
				vars,
			);
		case "group":
			return fill(
				[
					"/**",
					" * Groups {{nouns}} by their `{{field}}` (as a string). {{Nouns}} without one go",
					' * under "none". The map keeps first-seen order, which the report relies on.',
					" *",
					" * @param {Array<Record<string, unknown>> | undefined} items the {{nouns}}",
					" * @returns {Map<string, Array<Record<string, unknown>>>}",
					" */",
					"export function {{name}}(items) {",
					"\tconst groups = new Map();",
					"\tfor (const item of items ?? []) {",
					'\t\tconst key = String(item?.{{field}} ?? "none");',
					"\t\tconst list = groups.get(key) ?? [];",
					"\t\tlist.push(item);",
					"\t\tgroups.set(key, list);",
					"\t}",
					"\treturn groups;",
					"}",
				],
				vars,
			);
	}
}

/** Two checks per function; `m` is the module namespace in the test file. */
function checks(template: Template, noun: string, field: string): string[] {
	const name = fnName(template, noun, field);
	switch (template) {
		case "pick":
			return [
				`check("${name} skips ${plural(noun)} without ${field}", m.${name}([{ ${field}: 1 }, {}, { ${field}: 3 }]).join(","), "1,3");`,
				`check("${name} rejects a non-array", throws(() => m.${name}(null)), true);`,
			];
		case "count":
			return [
				`check("${name} counts ${field} >= min", m.${name}([{ ${field}: 0 }, { ${field}: 2 }, { ${field}: "5" }, { ${field}: 1 }, {}], 1), 3);`,
				`check("${name} of nothing is 0", m.${name}(undefined), 0);`,
			];
		case "format":
			return [
				`check("${name} pads short values", m.${name}({ ${field}: "abc" }, 6), "${noun}[abc   ]");`,
				`check("${name} clips long values", m.${name}({ ${field}: "abcdefgh" }, 6), "${noun}[abcde…]");`,
			];
		case "sum":
			return [
				`check("${name} adds numeric ${field}s", m.${name}([{ ${field}: 2 }, { ${field}: "3" }, { ${field}: "x" }, {}]), 5);`,
				`check("${name} of nothing is 0", m.${name}([]), 0);`,
			];
		case "group":
			return [
				`check("${name} groups by ${field}", m.${name}([{ ${field}: "a" }, { ${field}: "b" }, { ${field}: "a" }]).get("a").length, 2);`,
				`check("${name} puts a missing ${field} under none", m.${name}([{}]).has("none"), true);`,
			];
	}
}

const moduleEnd = (m: ModuleSpec) => `// end of src/${m.name}.js`;
const TESTS_END = "\t// end of tests";

function moduleText(m: ModuleSpec): string {
	const fns = m.fields.map((field, k) => fnCode(TEMPLATES[k % TEMPLATES.length]!, m.noun, field));
	return [
		"/**",
		` * src/${m.name}.js — part of taskq, a small task-queue toolkit.`,
		" *",
		` * ${m.about}`,
		" *",
		" * Every function here is pure: it never mutates its input, and it skips a malformed",
		" * record rather than throwing, except where its comment says otherwise. The tests",
		` * for this file are in test/${m.name}.test.js (run \`node test/run.js ${m.name}\`).`,
		" */",
		"",
		...fns.flatMap((f) => [f, ""]),
		moduleEnd(m),
		"",
	].join("\n");
}

function testText(m: ModuleSpec): string {
	const lines = m.fields.flatMap((field, k) => checks(TEMPLATES[k % TEMPLATES.length]!, m.noun, field));
	return [
		`// Checks for src/${m.name}.js. Run with \`node test/run.js ${m.name}\` (or without a name for all suites).`,
		'import { check, throws } from "./harness.js";',
		`import * as m from "../src/${m.name}.js";`,
		"",
		"export function run() {",
		...lines.map((l) => `\t${l}`),
		TESTS_END,
		"}",
		"",
	].join("\n");
}

const HARNESS = [
	"// A tiny test harness: checks are collected, test/run.js prints them.",
	"export const results = [];",
	'let current = "";',
	"",
	"export function suite(name) {",
	"\tcurrent = name;",
	"}",
	"",
	"export function check(name, actual, expected) {",
	"\tresults.push({ suite: current, name, ok: Object.is(actual, expected), actual, expected });",
	"}",
	"",
	"export function throws(fn) {",
	"\ttry {",
	"\t\tfn();",
	"\t\treturn false;",
	"\t} catch {",
	"\t\treturn true;",
	"\t}",
	"}",
	"",
].join("\n");

const RUNNER = [
	"// Runs every test/*.test.js (or the suites named on the command line) and prints one line per check.",
	'import { readdirSync } from "node:fs";',
	'import { results, suite } from "./harness.js";',
	"",
	"const only = process.argv.slice(2);",
	'const dir = new URL(".", import.meta.url);',
	'const files = readdirSync(dir).filter((f) => f.endsWith(".test.js")).sort();',
	"let suites = 0;",
	"for (const file of files) {",
	'\tconst name = file.slice(0, -".test.js".length);',
	"\tif (only.length > 0 && !only.includes(name)) continue;",
	"\tsuites++;",
	"\tsuite(name);",
	"\tconst mod = await import(new URL(file, dir).href);",
	"\tmod.run();",
	"}",
	"let failed = 0;",
	"for (const r of results) {",
	// biome-ignore lint/suspicious/noTemplateCurlyInString: JS source text for the repo file
	"\tif (r.ok) console.log(`ok    ${r.suite} › ${r.name}`);",
	"\telse {",
	"\t\tfailed++;",
	// biome-ignore lint/suspicious/noTemplateCurlyInString: JS source text for the repo file
	"\t\tconsole.log(`FAIL  ${r.suite} › ${r.name}`);",
	// biome-ignore lint/suspicious/noTemplateCurlyInString: JS source text for the repo file
	"\t\tconsole.log(`      expected: ${JSON.stringify(r.expected)}`);",
	// biome-ignore lint/suspicious/noTemplateCurlyInString: JS source text for the repo file
	"\t\tconsole.log(`      actual:   ${JSON.stringify(r.actual)}`);",
	"\t}",
	"}",
	'console.log("");',
	// biome-ignore lint/suspicious/noTemplateCurlyInString: JS source text for the repo file
	"console.log(`${results.length - failed} passing, ${failed} failing (${suites} suites)`);",
	"if (failed > 0) process.exit(1);",
	"",
].join("\n");

const README = [
	"# taskq",
	"",
	"A small task-queue toolkit: an in-memory queue, a JSON-lines store, a job-spec parser,",
	"a scheduler with retry bookkeeping, and the table formatter the CLI prints reports with.",
	"",
	"| module | what it holds |",
	"| --- | --- |",
	...MODULES.map((m) => `| \`src/${m.name}.js\` | ${m.about} |`),
	"",
	"## Tests",
	"",
	"`node test/run.js` runs every suite; `node test/run.js queue store` runs two. There are no",
	"dependencies: the harness is `test/harness.js`, about twenty lines.",
	"",
	"## Conventions",
	"",
	"- Functions are pure and never mutate their input.",
	"- A malformed record is skipped, not an error, unless the function's comment says otherwise.",
	"- Every exported function has two checks in its suite: the normal case and an edge case.",
	"",
].join("\n");

const DESIGN = [
	"# Design notes",
	"",
	"## Partial records",
	"",
	"Records arrive from three producers (the CLI, the scheduler and the importer) and any field",
	"may be missing while a task is being built. Readers therefore treat a missing field as",
	'"not set yet": list functions skip the record, sums add nothing, counts do not count it,',
	'formatters print "-". Throwing is reserved for programming errors (a non-array where a list',
	"is required, a column narrower than two characters).",
	"",
	"## Numbers",
	"",
	'Numeric fields are read with `Number(...)`, so `"5"` is 5 and `"x"` is not a number. Only',
	"finite numbers count; `Infinity` from a division by zero upstream is ignored like a word.",
	"",
	"## Order",
	"",
	"Grouping keeps first-seen order (a `Map`), because the report prints groups in the order",
	"their first task was queued. Sorting is the caller's job.",
	"",
	"## Adding a function",
	"",
	"Write the function with a doc comment that says what it skips, add its two checks to the",
	"module's suite, run that suite, then the whole suite, then commit with `<module>: <what>`.",
	"",
].join("\n");

const PACKAGE_JSON = `${JSON.stringify(
	{ name: "taskq", version: "0.4.0", type: "module", private: true, scripts: { test: "node test/run.js" } },
	null,
	2,
)}\n`;

interface TaskPlan {
	module: ModuleSpec;
	template: Template;
	field: string;
	buggy: boolean;
	/** An existing function of the module the task greps for. */
	sibling: string;
}

/** Task i: a new function in module i mod 8; sums and counts go in buggy first and are fixed after the failing run. */
function plan(count: number): TaskPlan[] {
	const tasks: TaskPlan[] = [];
	for (let i = 0; i < count; i++) {
		const module = MODULES[i % MODULES.length]!;
		const round = Math.floor(i / MODULES.length);
		const template = TEMPLATES[(i * 3 + 1) % TEMPLATES.length]!;
		const field = module.extra[round % module.extra.length]!;
		tasks.push({
			module,
			template,
			field,
			buggy: template === "sum" || template === "count",
			sibling: fnName(TEMPLATES[i % TEMPLATES.length]!, module.noun, module.fields[i % TEMPLATES.length]!),
		});
	}
	return tasks;
}

const TEMPLATE_ASK: Record<Template, (noun: string, field: string) => string> = {
	pick: (noun, field) => `a function that lists the \`${field}\` of every ${noun} that has one`,
	count: (noun, field) => `a function that counts the ${plural(noun)} whose \`${field}\` is at least a threshold`,
	format: (noun, field) => `a formatter that prints a ${noun}'s \`${field}\` in a fixed-width column`,
	sum: (noun, field) => `a function that adds up the \`${field}\` of a list of ${plural(noun)}`,
	group: (noun, field) => `a function that groups ${plural(noun)} by their \`${field}\``,
};

/**
 * Advice per consulted task (0-based task index): what the faux advisor answers. Each text fits
 * the task it answers (see `plan`: task i works on module i mod 8 with template (3i + 1) mod 5).
 */
const ADVICE: Record<number, { investigate?: "read" | "grep"; severity: string; text: string }> = {
	// format in parse
	2: {
		investigate: "read",
		severity: "nit",
		text:
			"The new formatter matches its siblings, but two things will bite later. First, every formatter in " +
			"this module throws a RangeError for a bad width while the README says functions never throw; say in " +
			"the README's conventions that programming errors (bad width, non-array list) do throw. Second, the " +
			"clip check only covers ASCII: add one check with a multi-byte value before the report starts using " +
			"team names.",
	},
	// count in retry, after its `>` bug was fixed
	5: {
		severity: "concern",
		text:
			"The fix is right, but the bug slipped through because nothing tested the boundary. From now on give " +
			"every sum/count check at least one string number, one word and one missing field — the sum checks " +
			"already do; the count checks must also include a value equal to `min`, which is exactly the `>` vs " +
			"`>=` mistake you just fixed. Also run the whole suite before each commit, not just the module's.",
	},
	// group in config, just before the compaction
	11: {
		investigate: "grep",
		severity: "nit",
		text:
			"Consistent with the other group functions. The design notes promise that grouping keeps first-seen " +
			"order, but no check pins it: add one that groups [b, a, b] and expects the keys in the order b, a. " +
			"While you are there, two commit messages have drifted from the `<module>: <what>` convention in " +
			"docs/design.md; keep to it so the changelog script can pick them up.",
	},
	// count in config, after its `>` bug was fixed
	15: {
		investigate: "read",
		severity: "none",
		text:
			"Nothing to change. The count has the boundary check I asked for earlier, the suite is green and the " +
			"commit follows the convention. One thing to keep in mind for this module: `fallback` is a " +
			"reserved-looking field in the option records; if the importer ever maps `default` onto it, the pick " +
			"functions will start returning values nobody set.",
	},
	// sum in format, after the fourth `total = value` bug
	19: {
		severity: "concern",
		text:
			"This is the fourth time a sum went in with `total = value`: the pattern is being copied from a " +
			"template with the bug in it. Before the next task, grep for `total = value` and `value > min` across " +
			"src/ to make sure no other copy is left, and consider a shared `numeric(value)` helper so the " +
			"finite-number rule lives in one place (docs/design.md, Numbers).",
	},
	// format in report
	22: {
		investigate: "read",
		severity: "nit",
		text:
			"The work since the compaction is consistent: every new function has its two checks and the suite is " +
			"green. Before you call it done, update the README's module table (it does not mention the functions " +
			"added today) and bump package.json from 0.4.0 to 0.5.0, since the public surface grew.",
	},
};

const TASKS = 24;
/** The compaction comes after this task (0-based). */
const COMPACT_AFTER = 11;

function taskPrompt(t: TaskPlan, index: number): string {
	const name = fnName(t.template, t.module.noun, t.field);
	const ask = TEMPLATE_ASK[t.template](t.module.noun, t.field);
	const extra =
		index % 4 === 0
			? " Follow the conventions in docs/design.md, and commit when the whole suite passes."
			: index % 4 === 1
				? " Same drill as before: tests first, then the whole suite, then commit."
				: index % 4 === 2
					? " Keep the doc comment style of the other functions."
					: "";
	return `Next: add \`${name}\` to src/${t.module.name}.js — ${ask}. Give it its two checks in test/${t.module.name}.test.js.${extra}`;
}

/** The state of every file the scenario edits, so each edit's oldText is exact. */
interface Files {
	src: Map<string, string>;
	tests: Map<string, string>;
}

function lineOf(text: string, needle: string): number {
	const at = text.indexOf(needle);
	if (at < 0) throw new Error(`record-samples-long: ${needle} not found`);
	return text.slice(0, at).split("\n").length;
}

function taskSteps(t: TaskPlan, index: number, files: Files, commits: string[]): Step[] {
	const m = t.module;
	const name = fnName(t.template, m.noun, t.field);
	const srcPath = `src/${m.name}.js`;
	const testPath = `test/${m.name}.test.js`;
	const src = files.src.get(m.name)!;
	const code = fnCode(t.template, m.noun, t.field, t.buggy);
	const addedSrc = src.replace(moduleEnd(m), `${code}\n\n${moduleEnd(m)}`);
	const fixedSrc = t.buggy
		? addedSrc.replace(
				t.template === "sum" ? SUM_BUG[0]! : COUNT_BUG[0]!,
				t.template === "sum" ? SUM_BUG[1]! : COUNT_BUG[1]!,
			)
		: addedSrc;
	files.src.set(m.name, fixedSrc);
	const newChecks = checks(t.template, m.noun, t.field);
	files.tests.set(
		m.name,
		files.tests.get(m.name)!.replace(TESTS_END, `${newChecks.map((c) => `\t${c}`).join("\n")}\n${TESTS_END}`),
	);
	const advice = ADVICE[index];
	const commitMessage = index === 7 || index === 10 ? `add ${name}` : `${m.name}: add ${name}`;
	commits.push(commitMessage);

	const turns: Turn[] = [];
	turns.push({
		thinking: `Task ${index + 1}: ${name} in ${srcPath}. Read the module and its suite together before touching anything.`,
		text: `Reading ${srcPath} and ${testPath}.`,
		calls: [
			{ tool: "read", args: { path: srcPath } },
			{ tool: "read", args: { path: testPath } },
		],
	});
	turns.push({
		thinking: "Baseline first: the module's suite should be green before I add anything.",
		calls: [{ tool: "bash", args: { command: `node test/run.js ${m.name}` } }],
	});
	if (index % 4 === 3) {
		turns.push({
			thinking: "Check which suites exist and where the helpers live.",
			calls: [
				{ tool: "find", args: { pattern: "*.js" } },
				{ tool: "ls", args: { path: "test" } },
			],
		});
	} else {
		turns.push({
			thinking: `See how ${t.sibling} is used and documented, so the new function reads like its siblings.`,
			calls: [{ tool: "grep", args: { pattern: t.sibling, path: "." } }],
		});
	}
	turns.push({
		text: `Adding \`${name}\` after the last function of ${srcPath}.`,
		calls: [
			{
				tool: "edit",
				args: { path: srcPath, edits: [{ oldText: moduleEnd(m), newText: `${code}\n\n${moduleEnd(m)}` }] },
			},
		],
	});
	turns.push({
		text: `And its two checks in ${testPath}.`,
		calls: [
			{
				tool: "edit",
				args: {
					path: testPath,
					edits: [{ oldText: TESTS_END, newText: `${newChecks.map((c) => `\t${c}`).join("\n")}\n${TESTS_END}` }],
				},
			},
		],
	});
	turns.push({ calls: [{ tool: "bash", args: { command: `node test/run.js ${m.name}` } }] });
	if (t.buggy) {
		const bug = t.template === "sum" ? SUM_BUG : COUNT_BUG;
		const why =
			t.template === "sum"
				? "expected 5, got 3: the loop assigns instead of adding, so only the last number survives"
				: "expected 3, got 2: the comparison is strict, so a value equal to min is not counted";
		turns.push({
			thinking: `The new check fails — ${why}. Look at the function as written.`,
			text: `The new check fails (${why}). Looking at the function.`,
			calls: [
				{
					tool: "read",
					args: { path: srcPath, offset: lineOf(addedSrc, `export function ${name}(`) - 9, limit: 24 },
				},
			],
		});
		turns.push({
			text: t.template === "sum" ? "Accumulate instead of assigning." : "The threshold is inclusive.",
			calls: [{ tool: "edit", args: { path: srcPath, edits: [{ oldText: bug[0], newText: bug[1] }] } }],
		});
	}
	turns.push({
		thinking: "Module suite green; now the whole suite, as the conventions ask.",
		calls: [{ tool: "bash", args: { command: "node test/run.js" } }],
	});
	turns.push({
		calls: [
			{
				tool: "bash",
				args: {
					command: `git add -A && git commit -q -m "${commitMessage}" && git log --oneline -6 && git show --stat HEAD`,
				},
			},
		],
	});
	if (index % 6 === 4) {
		turns.push({
			thinking: "Look at the whole change against the start of the day before moving on.",
			calls: [{ tool: "bash", args: { command: "git diff --stat HEAD~4 && git diff HEAD~1 -- test" } }],
		});
	}
	let advisorTurns: Turn[] | undefined;
	if (advice !== undefined) {
		turns.push({
			advisor: true,
			text: `\`${name}\` is in and the suite is green. Before I move on: is there anything in how I am doing these that I should change?`,
			calls: [{ tool: "advisor", args: {} }],
		});
		advisorTurns = [];
		if (advice.investigate === "read") advisorTurns.push({ calls: [{ tool: "read", args: { path: srcPath } }] });
		if (advice.investigate === "grep")
			advisorTurns.push({ calls: [{ tool: "grep", args: { pattern: "export function group", path: "src" } }] });
		advisorTurns.push({ text: `Severity: ${advice.severity}\n${advice.text}` });
	}
	const previousAdvice = Object.keys(ADVICE)
		.map(Number)
		.filter((k) => k < index)
		.at(-1);
	turns.push({
		text:
			`Done: \`${name}\` is in ${srcPath} with its doc comment, and ${testPath} has its two checks` +
			(t.buggy ? " (the first version had a bug the new check caught; fixed)" : "") +
			`. The whole suite passes; committed as "${commitMessage}".` +
			(advice !== undefined
				? " The advisor's notes are above; I will apply them from the next task on."
				: previousAdvice !== undefined
					? " I kept to the advisor's earlier notes."
					: ""),
	});
	const step: Step = { kind: "prompt", text: taskPrompt(t, index), turns };
	if (advisorTurns !== undefined) step.advisorTurns = advisorTurns;
	return [step];
}

function buildLong(): Scenario {
	const repo: Record<string, string> = {
		"README.md": README,
		"docs/design.md": DESIGN,
		"package.json": PACKAGE_JSON,
		"test/harness.js": HARNESS,
		"test/run.js": RUNNER,
	};
	const files: Files = { src: new Map(), tests: new Map() };
	for (const m of MODULES) {
		repo[`src/${m.name}.js`] = moduleText(m);
		repo[`test/${m.name}.test.js`] = testText(m);
		files.src.set(m.name, moduleText(m));
		files.tests.set(m.name, testText(m));
	}
	const commits: string[] = [];
	const steps: Step[] = [
		{ kind: "activateTools", tools: ["grep", "find", "ls"] },
		{
			kind: "prompt",
			text:
				"We are going to extend taskq today, one small function at a time. Start by getting to know the repo: " +
				"layout, conventions, how the tests run. Don't change anything yet.",
			turns: [
				{
					thinking: "Layout first, then the docs and the test harness, in parallel.",
					text: "Looking at the layout, the docs and the test setup.",
					calls: [
						{ tool: "ls", args: { path: "." } },
						{ tool: "find", args: { pattern: "*.js" } },
						{ tool: "read", args: { path: "README.md" } },
						{ tool: "read", args: { path: "docs/design.md" } },
					],
				},
				{
					calls: [
						{ tool: "read", args: { path: "test/run.js" } },
						{ tool: "read", args: { path: "test/harness.js" } },
						{ tool: "read", args: { path: "src/queue.js" } },
					],
				},
				{ calls: [{ tool: "bash", args: { command: "node test/run.js" } }] },
				{
					text:
						"taskq has eight modules under src/ (queue, store, parse, format, schedule, retry, report, config), " +
						"each a set of small pure functions with doc comments, and one suite per module under test/ " +
						"(two checks per function, run by `node test/run.js [suite…]`). docs/design.md fixes the rules: " +
						"missing fields are skipped, numbers are read with Number(), grouping keeps first-seen order, and " +
						"commits are `<module>: <what>`. All 128 checks pass.",
				},
			],
		},
	];
	plan(TASKS).forEach((t, index) => {
		steps.push(...taskSteps(t, index, files, commits));
		if (index === COMPACT_AFTER) {
			steps.push({
				kind: "compact",
				instructions: "Keep the advisor's notes and the conventions; the individual edits can go.",
				summary: [
					"## Goal",
					"Extend taskq one function at a time: each task adds a function to one module with two checks,",
					"runs the module's suite and the whole suite, and commits as `<module>: <what>`.",
					"",
					"## Progress",
					...plan(COMPACT_AFTER + 1).map(
						(p, k) =>
							`- Task ${k + 1}: ${fnName(p.template, p.module.noun, p.field)} in src/${p.module.name}.js.`,
					),
					"- Sums and counts went in with bugs twice (assignment instead of +=, > instead of >=); the checks caught both.",
					"",
					"## Advisor notes to keep",
					"- README conventions should say that programming errors do throw; add a multi-byte clip check.",
					"- Count checks must test the boundary value itself; run the whole suite before every commit.",
					"- Pin the first-seen order of groups with a check; keep the `<module>: <what>` commit convention.",
					"",
					"## Next Steps",
					"- Continue with the next module in the rotation.",
				].join("\n"),
				// Pi keeps the last 20k tokens, which starts inside a task: it asks for a turn-prefix summary too.
				turnPrefixSummary: [
					"## Original Request",
					"The user asked for the next function of the rotation, with its two checks, committed as `<module>: <what>`.",
					"",
					"## Early Progress",
					"- Read the module and its suite, ran the module's suite, looked up a sibling function.",
					"",
					"## Context for Suffix",
					"- The kept turns add the function and its checks, run the suites and commit.",
				].join("\n"),
			});
		}
	});
	steps.push({ kind: "sessionName", name: "taskq: two dozen small functions" });
	return {
		name: "taskq",
		dir: "long",
		ownRepo: true,
		description:
			`A long working session on \`taskq\`, a small JS project (8 modules of 3–6 KB, a suite per module): ` +
			`${TASKS} tasks, each adding one function — read the module and its suite in parallel, run the suite, ` +
			"grep (or find/ls), edit the module, edit the suite, run the suite, fix the bug a failing check found " +
			"(sums and counts go in with one), run the whole suite (about 8 KB of output), commit. The session " +
			`is compacted once through session.compact() after task ${COMPACT_AFTER + 1}.`,
		advisorDescription:
			`Advisor: ${Object.keys(ADVICE).length} completed consultations spread over the day, some with an ` +
			"investigation round (the advisor reads a module or greps). Every later request carries the advice given " +
			"since the last compaction verbatim (older advice lives on in the compaction summary, which keeps its " +
			"notes), and the executor's later turns follow it.",
		files: repo,
		steps,
		features: [
			"read",
			"bash-fail",
			"bash-pass",
			"grep",
			"find",
			"ls",
			"parallel-calls",
			"thinking",
			"compaction",
			"long-session",
		],
		advisorFeatures: ["advisor", "advisor-ok", "advisor-tools", "advisor-many"],
	};
}

export const LONG_SCENARIO: Scenario = buildLong();
