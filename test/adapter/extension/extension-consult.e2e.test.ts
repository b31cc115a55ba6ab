/**
 * End to end on the real host: an SDK Pi session with the extension loaded from its path, the
 * executor calling advisor() twice, the advisor's requests captured by its faux model.
 */

import { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall } from "@mariozechner/pi-ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventsFromBranch } from "../../../src/events/index.ts";
import { emptyLedger, foldLedger } from "../../../src/reducers/index.ts";
import {
	advisorSystemPrompt,
	buildContext,
	CONSULT_INSTRUCTION,
	DEFAULT_LEDGER_CONFIG,
	LOG_OPEN,
	renderRequest,
} from "../../../src/render/index.ts";
import { ADVISOR_MODEL, ADVISOR_PROVIDER, type Host, startHost } from "../../support/pi-host.ts";
import { flattenParts, sentCatalogue, texts } from "../../support/requests.ts";

const ADVICE_1 = "Severity: none\nGo ahead: add CONTRIBUTING.md as planned.";
const ADVICE_2 =
	"Severity: nit\nMention the new file in README.md.\nKeep it short.\nLink the issue tracker.\nAdd a code of conduct.\nDone.";

describe("a consultation on the real host", () => {
	let host: Host;
	let started: number;

	beforeAll(async () => {
		started = Date.now();
		host = await startHost({
			advisorConfig: { modelKey: `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`, effort: "high" },
			executor: [
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
					[
						fauxThinking("The repo is tiny; a CONTRIBUTING file is all that is needed."),
						fauxText("Plan: add CONTRIBUTING.md. Is that right?"),
						fauxToolCall("advisor", {}, { id: "a1" }),
					],
					{ stopReason: "toolUse" },
				),
				fauxAssistantMessage(
					fauxToolCall("write", { path: "CONTRIBUTING.md", content: "# Contributing\n" }, { id: "w1" }),
					{ stopReason: "toolUse" },
				),
				fauxAssistantMessage([fauxText("Written. Am I done?"), fauxToolCall("advisor", {}, { id: "a2" })], {
					stopReason: "toolUse",
				}),
				fauxAssistantMessage("Done. The advisor suggests mentioning it in README.md."),
			],
			advisor: [fauxAssistantMessage(ADVICE_1), fauxAssistantMessage(ADVICE_2)],
		});
		await host.runtime.session.prompt("Please add a CONTRIBUTING file.");
	});

	afterAll(async () => {
		await host?.dispose();
	});

	describe("the advisor request", () => {
		it("starts with the tool catalogue: every registered tool, one line each, no schemas", () => {
			const first = host.advisorCalls[0]!.context.messages[0]!;
			expect(first.role).toBe("user");
			const catalogue = texts(first).join("");
			expect(catalogue.startsWith("<tool_catalogue>\n")).toBe(true);
			for (const name of ["read", "bash", "edit", "write", "grep", "find", "ls", "advisor"]) {
				expect(catalogue).toMatch(new RegExp(`^- ${name} — `, "m"));
			}
			expect(catalogue).not.toContain('"type"');
		});

		it("sends the executor's log as data inside user-role <executor_log> messages", () => {
			const [, ...rest] = host.advisorCalls[0]!.context.messages;
			expect(rest.map((m) => m.role)).toEqual(["user"]);
			expect(texts(rest[0]!)[0]).toBe(LOG_OPEN);
			const log = texts(rest[0]!).join("");
			expect(log).toContain("Please add a CONTRIBUTING file.");
			expect(log).toContain("</executor_log>");
		});

		it("ends on the instruction from the user role, with the executor's question and reasoning before it", () => {
			const messages = host.advisorCalls[0]!.context.messages;
			const last = messages[messages.length - 1]!;
			expect(last.role).toBe("user");
			const parts = texts(last);
			expect(parts[parts.length - 1]).toBe(CONSULT_INSTRUCTION);
			expect(parts[parts.length - 2]).toContain("Plan: add CONTRIBUTING.md. Is that right?");
			expect(parts.join("")).toContain("a CONTRIBUTING file is all that is needed");
		});

		it("replays past advice as the only assistant turns", () => {
			const second = host.advisorCalls[1]!.context.messages;
			expect(second.map((m) => m.role)).toEqual(["user", "user", "assistant", "user"]);
			expect(texts(second[2]!)).toEqual([ADVICE_1]);
			expect(host.advisorCalls[0]!.context.messages.some((m) => m.role === "assistant")).toBe(false);
		});

		it("carries sessionId advisor:<session id>, the configured effort, the call's signal and the key", () => {
			for (const call of host.advisorCalls) {
				expect(call.sessionId).toBe(`advisor:${host.sessionId()}`);
				expect(call.reasoning).toBe("high");
				expect(call.hasSignal).toBe(true);
				expect(call.apiKey).toBe("test-key");
				expect(call.model).toBe(ADVISOR_MODEL);
			}
		});

		it("uses the advisor system prompt and declares its read-only tools (default `tools` config)", () => {
			expect(host.advisorCalls[0]!.context.systemPrompt).toBe(advisorSystemPrompt("repo"));
			expect(host.advisorCalls[0]!.context.tools!.map((t) => t.name)).toEqual([
				"advisor_expand",
				"read",
				"grep",
				"find",
				"ls",
				"git_diff",
			]);
		});

		it("a second consultation starts with the first one's stable part, byte for byte", () => {
			// The first request re-rendered by the core from the session log, to learn where its stable part ends.
			const entries = host.entries();
			const callEntry = entries.findIndex(
				(e: any) =>
					e.type === "message" &&
					e.message.role === "assistant" &&
					e.message.content.some((c: any) => c.id === "a1"),
			);
			const branch = host.runtime.session.sessionManager.getBranch(entries[callEntry]!.id);
			const state = foldLedger(emptyLedger(), eventsFromBranch(branch, entries).events);
			const first = host.advisorCalls[0]!.context;
			const catalogue = sentCatalogue(first.messages);
			const rerendered = renderRequest(state, {
				config: DEFAULT_LEDGER_CONFIG,
				catalogue,
				tools: [],
				toolsMode: "none",
				mode: "consult",
				inFlightCallId: "a1",
			});
			expect(buildContext(rerendered).messages.slice(1)).toEqual(first.messages.slice(1).map((m) => ({ ...m })));
			const { stable } = rerendered;
			// The stable part holds the log's head: the opening tag, the user's words, the prose and the oldest card.
			expect(stable.messageIndex).toBe(1);
			expect(stable.partCount).toBeGreaterThanOrEqual(3);

			const firstStable = flattenParts(first.messages, stable);
			const second = host.advisorCalls[1]!.context.messages;
			const secondAll = flattenParts(second, {
				messageIndex: second.length - 1,
				partCount: texts(second[second.length - 1]!).length,
			});
			expect(secondAll.startsWith(firstStable)).toBe(true);
			expect(firstStable.length).toBeGreaterThan(texts(first.messages[0]!).join("").length);
		});
	});

	describe("the result envelope in the session log", () => {
		it("is a normal tool result with the advice as content and the envelope as details", () => {
			const [first, second] = host.advisorResults();
			expect(first!.isError).toBe(false);
			expect(first!.content).toEqual([{ type: "text", text: ADVICE_1 }]);
			expect(second!.content).toEqual([{ type: "text", text: ADVICE_2 }]);
			const details = first!.details;
			expect(details).toMatchObject({
				advisorModel: `${ADVISOR_PROVIDER}:${ADVISOR_MODEL}`,
				effort: "high",
				stopReason: "stop",
				severity: "none",
			});
			expect(details.errorMessage).toBeUndefined();
			expect(details.skipped).toBeUndefined();
			expect(second!.details.severity).toBe("nit");
		});

		it("records usage (summed over attempts), each attempt, and the request measurements", () => {
			const details = host.advisorResults()[0]!.details;
			expect(details.usage.input).toBeGreaterThan(0);
			expect(details.attempts).toHaveLength(1);
			expect(details.attempts[0]).toMatchObject({ stopReason: "stop", usage: details.usage });
			expect(details.request).toMatchObject({
				hash: expect.stringMatching(/^[0-9a-f]+$/),
				messageCount: 2,
				estimatedTokens: expect.any(Number),
				timestamp: expect.any(Number),
				// For the next consultation's estimate (test/adapter/consult/cost-control-*.e2e.test.ts).
				routingKey: `advisor:${host.sessionId()}`,
				stableHash: expect.any(String),
			});
			expect(details.request.estimatedTokens).toBeGreaterThan(0);
			expect(details.request.timestamp).toBeGreaterThanOrEqual(started);
			expect(details.request.timestamp).toBeLessThanOrEqual(Date.now());
			expect(host.advisorResults()[1]!.details.request.messageCount).toBe(4);
		});

		it("the executor saw the advice and carried on", () => {
			const last = host.entries().at(-1) as any;
			expect(last.message.role).toBe("assistant");
			expect(last.message.content[0].text).toContain("mentioning it in README.md");
		});
	});

	it("streams `Consulting advisor: <name> (<provider/model>), <effort>…` while the call is in flight", () => {
		const updates = host.events.filter((e: any) => e.type === "tool_execution_update" && e.toolName === "advisor");
		expect(updates.length).toBeGreaterThanOrEqual(2);
		for (const update of updates as any[]) {
			expect(update.partialResult.content[0].text).toBe(
				"Consulting advisor: Advisor One (advisor-faux/advisor-1), high…",
			);
		}
	});
});
