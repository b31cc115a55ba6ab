/**
 * The demo's scripted models on the requests they get, as pi-ai serialises them for an
 * OpenAI-compatible server (captured before sending): the advisor tells a consultation, a watch
 * review and a completion review apart by the request's last part — the watch is not yet wired
 * into the extension, so its request is rendered here from the demo's own failing run — and the
 * executor keeps to its task when a message comes between its steps.
 */

import {
	type AssistantMessage,
	type Context,
	completeSimple,
	type Model,
	type ToolResultMessage,
} from "@mariozechner/pi-ai";
import { beforeEach, describe, expect, it } from "vitest";
import {
	ADVICE,
	ADVISOR,
	EXECUTOR,
	FINAL,
	QUESTION,
	scriptedModels,
	TASK,
	WATCH_NOTE,
} from "../../../scripts/demo/scripted-models.ts";
import { callsOf, type MockReply } from "../../../scripts/mock-openai.ts";
import { DEFAULT_WATCH_CONFIG } from "../../../src/adapter/extension/config/watch.ts";
import type { LedgerEvent } from "../../../src/events/index.ts";
import { parseSeverity, watchDecision } from "../../../src/policy/index.ts";
import { ledgerOf, watchFactsOf } from "../../../src/reducers/index.ts";
import { buildContext, DEFAULT_LEDGER_CONFIG, type RenderOptions, renderRequest } from "../../../src/render/index.ts";
import { assistant, call, resetParents, result, user } from "../../support/events.ts";

beforeEach(() => resetParents());

const TEST = "node test/slug.test.mjs";
const FAILURE = "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n'try-it without a key'";

function model(id: string): Model<"openai-completions"> {
	return {
		id,
		name: id,
		api: "openai-completions",
		provider: "demo",
		baseUrl: "http://127.0.0.1:1/v1",
		reasoning: false,
		input: ["text"],
		cost: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
		contextWindow: 128000,
		maxTokens: 16384,
		compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
	};
}

/** The body pi-ai would post for `context`, captured before any network I/O. */
async function body(modelId: string, context: Context): Promise<any> {
	let payload: unknown;
	await completeSimple(model(modelId), context, {
		apiKey: "demo-no-key",
		onPayload: (p) => {
			payload = structuredClone(p);
			throw new Error("captured");
		},
	});
	return payload;
}

/** The demo's run up to its third failing test run. */
function failingRun(): LedgerEvent[] {
	const events: LedgerEvent[] = [user("u1", TASK)];
	events.push(assistant("a0", { calls: [call("c0", "read", { path: "slug.mjs" })] }));
	events.push(result("r0", "c0", "read", "export function slugify(title) {}"));
	for (const i of [1, 2, 3]) {
		events.push(assistant(`a${i}`, { calls: [call(`c${i}`, "bash", { command: TEST })] }));
		events.push(result(`r${i}`, `c${i}`, "bash", `${FAILURE}\n\nCommand exited with code 1`, { isError: true }));
	}
	return events;
}

const OPTIONS: RenderOptions = {
	config: DEFAULT_LEDGER_CONFIG,
	catalogue: [{ name: "bash", description: "Run a command." }],
	tools: [],
	toolsMode: "repo",
	mode: "consult",
};

/** The advisor's request for a consultation on `question`, after the failing run. */
function consultation(question: string): Context {
	const events = [...failingRun(), assistant("q", { text: question, calls: [call("adv", "advisor")] })];
	return buildContext(renderRequest(ledgerOf(events), { ...OPTIONS, inFlightCallId: "adv" }));
}

/** The next round of the tool loop: the advisor's call and what it got back. */
function nextRound(context: Context, reply: MockReply, output: string): Context {
	if (reply.kind !== "toolCall") throw new Error(`expected a tool call, got ${JSON.stringify(reply)}`);
	const args = JSON.parse(reply.arguments);
	const called = {
		role: "assistant",
		content: [{ type: "toolCall", id: reply.id, name: reply.name, arguments: args }],
		api: "openai-completions",
		provider: "demo",
		model: ADVISOR.id,
		usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
		stopReason: "toolUse",
		timestamp: 0,
	} as unknown as AssistantMessage;
	const answered: ToolResultMessage = {
		role: "toolResult",
		toolCallId: reply.id,
		toolName: reply.name,
		content: [{ type: "text", text: output }],
		isError: false,
		timestamp: 0,
	};
	return { ...context, messages: [...context.messages, called, answered] };
}

const text = (reply: MockReply) => (reply.kind === "text" ? reply.text : `(tool call ${callsOf(reply)[0]?.name})`);

describe("the demo's advisor", () => {
	it("on the task's question reads the test, then answers with a concern", async () => {
		const first = consultation(QUESTION);
		const read = scriptedModels(await body(ADVISOR.id, first));
		expect(read).toMatchObject({ kind: "toolCall", name: "read", arguments: '{"path":"test/slug.test.mjs"}' });
		const answer = scriptedModels(await body(ADVISOR.id, nextRound(first, read, "assert.equal(…)")));
		expect(text(answer)).toBe(ADVICE);
		expect(parseSeverity(ADVICE)).toBe("concern");
	});

	it("on a watch review of the failing run answers the watch's note, whichever advisor model", async () => {
		const events = failingRun();
		const decision = watchDecision({
			facts: watchFactsOf(events),
			// What the demo's advisor.json asks for: the watch on, every other key its default.
			settings: { ...DEFAULT_WATCH_CONFIG, enabled: true },
			executorUsd: 0,
			expectedUsd: 0,
		});
		if (!decision.review) throw new Error(`the watch did not wake: ${decision.reason}`);
		const request = renderRequest(ledgerOf(events), { ...OPTIONS, mode: "watch", watch: decision.finding });
		for (const id of [ADVISOR.id, "advisor-lite"])
			expect(text(scriptedModels(await body(id, buildContext(request))))).toBe(WATCH_NOTE);
		expect(parseSeverity(WATCH_NOTE)).toBe("concern");
	});

	it("on a completion review answers `Severity: none` at once", async () => {
		const request = renderRequest(ledgerOf(failingRun()), { ...OPTIONS, mode: "review" });
		const reply = scriptedModels(await body(ADVISOR.id, buildContext(request)));
		expect(parseSeverity(text(reply))).toBe("none");
	});

	it("on any other question looks at git_diff, and answers by what it shows", async () => {
		const later = consultation("Is anything left to do?");
		const diff = scriptedModels(await body(ADVISOR.id, later));
		expect(diff).toMatchObject({ kind: "toolCall", name: "git_diff" });
		const fixed = scriptedModels(await body(ADVISOR.id, nextRound(later, diff, "-a\n+b")));
		expect(parseSeverity(text(fixed))).toBe("none");
		const unchanged = scriptedModels(await body(ADVISOR.id, nextRound(later, diff, "(no changes)")));
		expect(text(unchanged)).toMatch(/^Severity: nit\ngit_diff shows no change yet/);
	});
});

/** The executor's requests, grown one step at a time with what the scripted executor asked for. */
async function executorRun(steps: number, between?: string): Promise<MockReply[]> {
	const replies: MockReply[] = [];
	let context: Context = { systemPrompt: "You are Pi.", messages: [{ role: "user", content: TASK, timestamp: 0 }] };
	for (let i = 0; i < steps; i++) {
		const reply = scriptedModels(await body(EXECUTOR.id, context));
		replies.push(reply);
		if (reply.kind === "text") break;
		context = nextRound(context, reply, "ok");
		if (between !== undefined && i === 2)
			context = { ...context, messages: [...context.messages, { role: "user", content: between, timestamp: 0 }] };
	}
	return replies;
}

describe("the demo's executor", () => {
	it("reads, runs the test three times, consults, fixes, runs it once and answers", async () => {
		const replies = await executorRun(20);
		expect(replies.map((r) => (r.kind === "text" ? "answer" : callsOf(r)[0]?.name))).toEqual([
			"read",
			"bash",
			"bash",
			"bash",
			"advisor",
			"edit",
			"bash",
			"answer",
		]);
		expect(replies[4]).toMatchObject({ text: QUESTION, arguments: "{}" });
		expect(text(replies.at(-1)!)).toBe(FINAL);
	});

	it("goes on with its task when a message (a steered watch note) comes between two steps", async () => {
		const plain = await executorRun(20);
		const steered = await executorRun(20, "Advisor watch: Severity: concern …");
		expect(steered).toEqual(plain);
	});
});
