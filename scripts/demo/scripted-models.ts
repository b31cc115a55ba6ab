/**
 * The demo's two scripted models (docs/demo.md): what the executor does with the task, step by step,
 * and what the advisor answers — a consultation, a watch note or a completion review, told apart by
 * the last part of the advisor's request (the instruction render/ closes each mode with).
 */

import {
	CONSULT_INSTRUCTION,
	REVIEW_INSTRUCTION,
	TAGS,
	TOOL_TEXT,
	WATCH_INSTRUCTION,
} from "../../src/render/model-text.ts";
import type { MockReply } from "../mock-openai.ts";

export const PROVIDER = "demo";
export const EXECUTOR = { id: "executor", name: "Demo Executor" };
export const ADVISOR = { id: "advisor", name: "Demo Advisor" };
export const ADVISOR_LITE = { id: "advisor-lite", name: "Demo Advisor Lite" };

const TEST = "node test/slug.test.mjs";

/** The task Pi starts with: the user's first message. */
export const TASK = `\`${TEST}\` fails. Fix \`slugify\` in slug.mjs so that it passes.`;

/** The files of the project the executor works in. */
export const PROJECT_FILES: Readonly<Record<string, string>> = {
	"slug.mjs": [
		'// Turns a title into a URL slug: "Hello World" -> "hello-world".',
		"export function slugify(title) {",
		'\treturn title.trim().toLowerCase().replace(" ", "-");',
		"}",
		"",
	].join("\n"),
	"test/slug.test.mjs": [
		'import assert from "node:assert/strict";',
		'import { slugify } from "../slug.mjs";',
		"",
		'assert.equal(slugify("Hello World"), "hello-world");',
		'assert.equal(slugify("  Try it without a key "), "try-it-without-a-key");',
		'console.log("ok: slugify");',
		"",
	].join("\n"),
};

export const QUESTION = "The test keeps failing and I cannot see why. Is `slugify` wrong, or the test?";

export const ADVICE = [
	"Severity: concern",
	'`slugify` calls `replace(" ", "-")`: a string pattern replaces only the first space,',
	'so "Try it without a key" becomes "try-it without a key" (test/slug.test.mjs, line 5).',
	"Rerunning the test unchanged cannot pass: change the code, not the command.",
	`Replace every run of whitespace, \`.replace(/\\s+/g, "-")\`, then run \`${TEST}\` once.`,
].join("\n");

export const WATCH_NOTE = [
	"Severity: concern",
	`\`${TEST}\` failed three times with the same assertion: rerunning it unchanged cannot pass.`,
	"Read the failing assertion and change `slugify` before running the test again.",
].join("\n");

const LATER_ADVICE = [
	"Severity: none",
	"Nothing to add: the diff is the one-line fix in slug.mjs, and the test passed after it.",
	"(The demo's scripted advisor answers every later question this way.)",
].join("\n");

const NO_CHANGE_ADVICE = [
	"Severity: nit",
	"git_diff shows no change yet: fix `slugify` in slug.mjs, then run the test once.",
	"(The demo's scripted advisor answers every later question this way.)",
].join("\n");

const REVIEW = "Severity: none\nThe fix is in slug.mjs and the test passes.";

export const FINAL =
	'Fixed: `slugify` called `replace(" ", "-")`, which replaces only the first space; it now replaces every run of ' +
	`whitespace (\`/\\s+/g\`), and \`${TEST}\` passes. The advisor's point: rerunning a failing test unchanged tells ` +
	"nothing new — read the assertion, change the code, run the test once.";

type Step = { text: string; name: string; arguments: Record<string, unknown> };

/** The executor's task, one tool call per step; after the last result, FINAL. */
const STEPS: readonly Step[] = [
	{ text: "I'll read the helper first.", name: "read", arguments: { path: "slug.mjs" } },
	{ text: "`slugify` looks right. Running the test.", name: "bash", arguments: { command: TEST } },
	{ text: "Odd, maybe a stale module. Running it again.", name: "bash", arguments: { command: TEST } },
	{
		text: "Once more, with a longer stack trace.",
		name: "bash",
		arguments: { command: "node --stack-trace-limit=50 test/slug.test.mjs" },
	},
	{ text: QUESTION, name: "advisor", arguments: {} },
	{
		text: "The advisor is right. Fixing `slugify`.",
		name: "edit",
		arguments: { path: "slug.mjs", edits: [{ oldText: 'replace(" ", "-")', newText: 'replace(/\\s+/g, "-")' }] },
	},
	{ text: "Running the test once.", name: "bash", arguments: { command: TEST } },
];

function textOf(message: any): string {
	if (typeof message?.content === "string") return message.content;
	if (!Array.isArray(message?.content)) return "";
	return message.content.map((part: any) => (typeof part?.text === "string" ? part.text : "")).join("");
}

function call(step: Step, id: string): MockReply {
	return { kind: "toolCall", text: step.text, id, name: step.name, arguments: JSON.stringify(step.arguments) };
}

/**
 * The executor goes by the tool results it has had: the task's steps in order, whatever message
 * came between (a watch note steered into the run does not restart it). After the task, each new
 * prompt gets one more consultation, and its advice restated.
 */
function executor(body: any): MockReply {
	const messages: any[] = body.messages ?? [];
	const results = messages.filter((m) => m.role === "tool").length;
	const last = messages.at(-1);
	if (results < STEPS.length) return call(STEPS[results]!, `demo_call_${results + 1}`);
	if (last?.role !== "tool")
		return call({ text: "Is anything left to do?", name: "advisor", arguments: {} }, `demo_call_${results + 1}`);
	if (results === STEPS.length) return { kind: "text", text: FINAL };
	const advice = textOf(last).split("\n").slice(1).join(" ").trim();
	return { kind: "text", text: `The advisor says: ${advice || textOf(last)}` };
}

/** The instruction that closes the advisor's request (the last part of its last user message), and that message. */
function closing(messages: readonly any[]): { instruction: string; text: string } {
	const user = [...messages].reverse().find((m) => m.role === "user");
	const parts = Array.isArray(user?.content) ? user.content : [{ text: textOf(user) }];
	return { instruction: String(parts.at(-1)?.text ?? ""), text: textOf(user) };
}

/**
 * The advisor: the task's consultation reads the test, then answers ADVICE; a later one checks
 * git_diff, then answers; a watch request gets WATCH_NOTE and a review REVIEW, at once.
 */
function advisor(body: any): MockReply {
	const messages: any[] = body.messages ?? [];
	const { instruction, text } = closing(messages);
	if (instruction === WATCH_INSTRUCTION || text.includes(`<${TAGS.watch}>`)) return { kind: "text", text: WATCH_NOTE };
	if (instruction === REVIEW_INSTRUCTION) return { kind: "text", text: REVIEW };
	const result = messages.at(-1)?.role === "tool" ? textOf(messages.at(-1)) : undefined;
	if (instruction === CONSULT_INSTRUCTION && text.includes(`<${TAGS.question}>\n${QUESTION}\n`)) {
		if (result !== undefined) return { kind: "text", text: ADVICE };
		return call({ text: "", name: "read", arguments: { path: "test/slug.test.mjs" } }, "demo_advisor_read");
	}
	if (result === undefined)
		return call({ text: "", name: "git_diff", arguments: { patch: true } }, "demo_advisor_diff");
	return { kind: "text", text: result.includes(TOOL_TEXT.noChanges) ? NO_CHANGE_ADVICE : LATER_ADVICE };
}

/** Routes a request by its model; a script that cannot place a request answers in words rather than failing. */
export function scriptedModels(body: any): MockReply {
	try {
		return body.model === EXECUTOR.id ? executor(body) : advisor(body);
	} catch (error) {
		return { kind: "text", text: `(The demo's script could not answer this request: ${String(error)})` };
	}
}
