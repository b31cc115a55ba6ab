/**
 * End to end on the real host (an SDK Pi session, the extension loaded from its path, faux models
 * for the executor and the advisor): the executor works with Pi's real tools and calls advisor();
 * the advisor expands one of the log's cards and reads a file of the workspace with its own
 * read-only tools, then answers. The advice reaches the executor as its tool result; the rounds
 * leave no trace in the session but the envelope, and are not replayed into the next consultation.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
	type Context,
	type FauxResponseStep,
	fauxAssistantMessage,
	fauxText,
	fauxToolCall,
	type Message,
} from "@mariozechner/pi-ai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { advisorSystemPrompt, TOOL_BUDGET_SPENT } from "../../../src/render/index.ts";
import { ADVISOR_MODEL, ADVISOR_PROVIDER, type Host, startHost } from "../../support/pi-host.ts";

const ADVISOR_KEY = `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`;
const PLAN_FILE = "notes/plan.md";
/** Only the advisor reads this file: any copy of it in the session would be a leaked round. */
const PLAN_TEXT = "ADVISOR-ONLY-NOTE: the maintainers want a CODE_OF_CONDUCT.md next to CONTRIBUTING.md.\n";
const ADVICE_1 = "Severity: nit\nAdd CONTRIBUTING.md, and a CODE_OF_CONDUCT.md as notes/plan.md asks.";
const ADVICE_2 = "Severity: none\nLooks complete.";

function texts(message: Message): string[] {
	if (typeof message.content === "string") return [message.content];
	return message.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`));
}

/** The id of the card for the executor's `read`, as the request shows it (`#<id> read · …`). */
function readCardId(context: Context): string {
	for (const message of context.messages) {
		if (message.role !== "user") continue;
		const match = /^#(\S+) read README\.md · /m.exec(texts(message).join(""));
		if (match) return match[1]!;
	}
	throw new Error("no read card in the advisor request");
}

describe("the advisor investigates, then advises", () => {
	let host: Host;
	let cardId = "";
	let executorSawAdvice: Message | undefined;

	beforeAll(async () => {
		const executor: FauxResponseStep[] = [
			fauxAssistantMessage(
				[fauxText("Looking around."), fauxToolCall("read", { path: "README.md" }, { id: "r1" })],
				{
					stopReason: "toolUse",
				},
			),
			fauxAssistantMessage(fauxToolCall("bash", { command: "ls" }, { id: "b1" }), { stopReason: "toolUse" }),
			fauxAssistantMessage(fauxToolCall("bash", { command: "git status --short" }, { id: "b2" }), {
				stopReason: "toolUse",
			}),
			fauxAssistantMessage(
				[fauxText("Plan: add CONTRIBUTING.md. Is that right?"), fauxToolCall("advisor", {}, { id: "a1" })],
				{ stopReason: "toolUse" },
			),
			(context) => {
				executorSawAdvice = context.messages.at(-1);
				return fauxAssistantMessage([fauxText("Anything else?"), fauxToolCall("advisor", {}, { id: "a2" })], {
					stopReason: "toolUse",
				});
			},
			fauxAssistantMessage("Done."),
		];
		const advisor: FauxResponseStep[] = [
			(context) => {
				cardId = readCardId(context);
				return fauxAssistantMessage(
					[
						fauxText("Checking the card and the plan."),
						fauxToolCall("advisor_expand", { ids: [`#${cardId}`] }, { id: "x1" }),
						fauxToolCall("read", { path: PLAN_FILE }, { id: "x2" }),
					],
					{ stopReason: "toolUse" },
				);
			},
			fauxAssistantMessage(ADVICE_1),
			fauxAssistantMessage(ADVICE_2),
		];
		host = await startHost({ advisorConfig: { modelKey: ADVISOR_KEY, effort: "high" }, executor, advisor });
		mkdirSync(join(host.cwd, "notes"), { recursive: true });
		writeFileSync(join(host.cwd, PLAN_FILE), PLAN_TEXT);
		await host.runtime.session.prompt("Please add a CONTRIBUTING file.");
	});

	afterAll(async () => {
		await host?.dispose();
	});

	it("the advisor's second request carries its calls and their results: the card's verbatim text and the file", () => {
		expect(host.advisorCalls).toHaveLength(3);
		const [first, second] = host.advisorCalls;
		const firstCount = first!.context.messages.length;
		expect(second!.context.messages.slice(0, firstCount)).toEqual(first!.context.messages);
		const added = second!.context.messages.slice(firstCount);
		expect(added.map((m) => m.role)).toEqual(["assistant", "toolResult", "toolResult"]);
		const [expanded, read] = added.slice(1) as Extract<Message, { role: "toolResult" }>[];
		expect(expanded).toMatchObject({ toolCallId: "x1", toolName: "advisor_expand", isError: false });
		// The card's verbatim text: the executor's read call and README.md as Pi's read returned it.
		const expandedText = texts(expanded!).join("");
		expect(expandedText.startsWith(`#${cardId}\n`)).toBe(true);
		expect(expandedText).toContain('"path":"README.md"');
		expect(expandedText).toContain("# demo");
		expect(read).toMatchObject({ toolCallId: "x2", toolName: "read", isError: false });
		expect(texts(read!).join("")).toContain(PLAN_TEXT.trim());
		// Two calls of the default three: no "spent" notice.
		expect(JSON.stringify(added)).not.toContain(TOOL_BUDGET_SPENT);
	});

	it("declares the same read-only tools in both requests, under the repo system prompt", () => {
		const [first, second] = host.advisorCalls;
		expect(first!.context.tools!.map((t) => t.name)).toEqual([
			"advisor_expand",
			"read",
			"grep",
			"find",
			"ls",
			"git_diff",
		]);
		expect(JSON.stringify(second!.context.tools)).toBe(JSON.stringify(first!.context.tools));
		expect(first!.context.systemPrompt).toBe(advisorSystemPrompt("repo"));
		expect(second!.context.systemPrompt).toBe(first!.context.systemPrompt);
		expect(second!.sessionId).toBe(`advisor:${host.sessionId()}`);
	});

	it("the final advice is the executor's tool result, and the executor saw it", () => {
		const [result] = host.advisorResults();
		expect(result!.isError).toBe(false);
		expect(result!.content).toEqual([{ type: "text", text: ADVICE_1 }]);
		expect(executorSawAdvice).toMatchObject({ role: "toolResult", toolName: "advisor", toolCallId: "a1" });
		expect(texts(executorSawAdvice!)).toEqual([ADVICE_1]);
	});

	it("the envelope sums both requests and names the calls", () => {
		// Pi stores the tool result's content and details (not the top-level usage): details.usage is the record.
		const { details } = host.advisorResults()[0]!;
		expect(details.attempts.map((a: any) => a.stopReason)).toEqual(["toolUse", "stop"]);
		expect(details.usage.input).toBe(details.attempts[0].usage.input + details.attempts[1].usage.input);
		expect(details.usage.output).toBe(details.attempts[0].usage.output + details.attempts[1].usage.output);
		expect(details.toolCalls).toEqual({ count: 2, names: ["advisor_expand", "read"] });
		expect(details.severity).toBe("nit");
	});

	it("streams one line per tool after the consulting line, accumulating", () => {
		const updates = host.events
			.filter((e: any) => e.type === "tool_execution_update" && e.toolCallId === "a1")
			.map((e: any) => e.partialResult.content[0].text as string);
		expect(updates.at(-1)).toBe(
			[
				"Consulting advisor: Advisor One (advisor-faux/advisor-1), high…",
				`advisor: advisor_expand #${cardId}`,
				`advisor: read ${PLAN_FILE}`,
			].join("\n"),
		);
		expect(updates[0]).toBe("Consulting advisor: Advisor One (advisor-faux/advisor-1), high…");
		expect(updates).toHaveLength(3);
	});

	it("leaves no trace of the rounds in the session log but the envelope", () => {
		const entries = host.entries();
		// The file only the advisor read, and its investigation calls, appear nowhere in the log.
		expect(JSON.stringify(entries)).not.toContain("ADVISOR-ONLY-NOTE");
		expect(JSON.stringify(entries)).not.toContain("Checking the card and the plan.");
		const withExpand = entries.filter((e) => JSON.stringify(e).includes("advisor_expand"));
		// Only the advisor results' envelopes name the call (details.toolCalls).
		expect(withExpand.map((e: any) => [e.type, e.message?.role, e.message?.toolName])).toEqual([
			["message", "toolResult", "advisor"],
		]);
		const roles = entries.filter((e) => e.type === "message").map((e: any) => e.message.role);
		// The executor's r1, b1, b2 and its two advisor calls: nothing of the advisor's own calls.
		expect(roles.filter((r) => r === "toolResult")).toHaveLength(5);
	});

	it("rounds are never replayed into the next consultation: only the advice is", () => {
		const third = host.advisorCalls[2]!.context.messages;
		expect(third.filter((m) => m.role === "toolResult")).toEqual([]);
		const assistants = third.filter((m) => m.role === "assistant");
		expect(assistants.map((m) => texts(m))).toEqual([[ADVICE_1]]);
		expect(JSON.stringify(third)).not.toContain("ADVISOR-ONLY-NOTE");
		expect(JSON.stringify(third)).not.toContain("Checking the card and the plan.");
		expect(host.advisorResults()[1]!.content).toEqual([{ type: "text", text: ADVICE_2 }]);
		expect(host.advisorResults()[1]!.details.toolCalls).toBeUndefined();
	});
});

describe("the tools config on the real host", () => {
	let host: Host | undefined;

	afterEach(async () => {
		await host?.dispose();
		host = undefined;
	});

	async function consult(tools: Record<string, unknown>, advisor: FauxResponseStep[]): Promise<Host> {
		host = await startHost({
			advisorConfig: { modelKey: ADVISOR_KEY, tools },
			executor: [
				fauxAssistantMessage([fauxText("Is this right?"), fauxToolCall("advisor", {}, { id: "a1" })], {
					stopReason: "toolUse",
				}),
				fauxAssistantMessage("Carrying on."),
			],
			advisor,
		});
		await host.runtime.session.prompt("Do the task.");
		return host;
	}

	it("repo: false declares only advisor_expand, with the matching system prompt", async () => {
		const h = await consult({ repo: false }, [
			fauxAssistantMessage(fauxToolCall("read", { path: "README.md" }, { id: "x1" }), { stopReason: "toolUse" }),
			fauxAssistantMessage("Severity: none\nok"),
		]);
		expect(h.advisorCalls[0]!.context.tools!.map((t) => t.name)).toEqual(["advisor_expand"]);
		expect(h.advisorCalls[0]!.context.systemPrompt).toBe(advisorSystemPrompt("expand"));
		// read is not declared: asked anyway, it is refused as an unknown tool, in-band.
		const result = h.advisorCalls[1]!.context.messages.at(-1)!;
		expect(result).toMatchObject({ role: "toolResult", isError: true });
		expect(texts(result).join("")).toMatch(/^Unknown tool: read\./);
		expect(h.advisorResults()[0]!.content[0]!.text).toBe("Severity: none\nok");
	});

	it.each([[{ enabled: false }], [{ maxRounds: 0 }]])("%j sends one request with no tools", async (tools) => {
		const h = await consult(tools, [fauxAssistantMessage("Severity: none\nok")]);
		expect(h.advisorCalls).toHaveLength(1);
		expect(h.advisorCalls[0]!.context.tools ?? []).toEqual([]);
		expect(h.advisorCalls[0]!.context.systemPrompt).toBe(advisorSystemPrompt("none"));
		expect(h.advisorResults()[0]!.content[0]!.text).toBe("Severity: none\nok");
	});

	it("maxRounds: 1 — the advisor is told in a user message to answer now, and does", async () => {
		const h = await consult({ maxRounds: 1 }, [
			fauxAssistantMessage(
				[fauxToolCall("read", { path: "README.md" }, { id: "x1" }), fauxToolCall("ls", {}, { id: "x2" })],
				{ stopReason: "toolUse" },
			),
			fauxAssistantMessage("Severity: none\nok"),
		]);
		const second = h.advisorCalls[1]!.context.messages;
		expect(second.slice(-3).map((m) => m.role)).toEqual(["toolResult", "toolResult", "user"]);
		expect(texts(second.at(-1)!)).toEqual([TOOL_BUDGET_SPENT]);
		expect(h.advisorResults()[0]!.details.toolCalls).toEqual({ count: 1, names: ["read"], refused: 1 });
	});
});
