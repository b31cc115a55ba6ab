/**
 * The eval's ledger arm is what the extension sends: a real Pi session (SDK, the extension loaded
 * from its path, faux executor and advisor) with `tools.repo: false` in advisor.json, one advisor()
 * consultation; then the ledger arm built from the session file Pi wrote, at that point, must be
 * byte for byte the request the advisor received. And against `render --at` with the default
 * config, the arm differs only by the workspace tools: their declarations and their sentence in the
 * system prompt.
 */

import { readFileSync } from "node:fs";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pointRequests } from "../../../../src/adapter/lab/eval/arms.ts";
import { drawOrder, loadSession } from "../../../../src/adapter/lab/eval/eval-points.ts";
import { renderAt } from "../../../../src/adapter/lab/request/render-at.ts";
import { DEFAULT_PRIVACY } from "../../../../src/events/index.ts";
import { advisorSystemPrompt, buildContext } from "../../../../src/render/index.ts";
import { ADVISOR_MODEL, ADVISOR_PROVIDER, type Host, startHost } from "../../../support/pi-host.ts";

describe("the ledger arm equals the extension's request with tools.repo false", () => {
	let host: Host;
	let text: string;

	beforeAll(async () => {
		host = await startHost({
			advisorConfig: { modelKey: `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`, tools: { repo: false } },
			executor: [
				fauxAssistantMessage(
					[fauxText("Reading first."), fauxToolCall("read", { path: "README.md" }, { id: "r1" })],
					{
						stopReason: "toolUse",
					},
				),
				fauxAssistantMessage(fauxToolCall("bash", { command: "ls -la" }, { id: "b1" }), { stopReason: "toolUse" }),
				fauxAssistantMessage(
					[fauxText("Should README get a usage section?"), fauxToolCall("advisor", {}, { id: "a1" })],
					{ stopReason: "toolUse" },
				),
				fauxAssistantMessage("Done."),
			],
			advisor: [fauxAssistantMessage("Severity: nit\nYes, a short one.")],
		});
		await host.runtime.session.prompt("Improve the README.");
		text = readFileSync(host.runtime.session.sessionManager.getSessionFile()!, "utf8");
	}, 60_000);

	afterAll(async () => {
		await host?.dispose();
	});

	it("the advisor was asked once, with advisor_expand alone", () => {
		expect(host.advisorCalls).toHaveLength(1);
		expect(host.advisorCalls[0]!.context.tools!.map((t) => t.name)).toEqual(["advisor_expand"]);
	});

	it("at the consultation point, the arm's system prompt, messages and tools are what was sent", () => {
		const session = loadSession("session.jsonl", text);
		const [drawn] = drawOrder([session], "1");
		expect(drawn!.point).toMatchObject({ kind: "advisor", callId: "a1" });
		const arm = pointRequests(drawn!, ["ledger"], DEFAULT_PRIVACY).ledger!;
		const sent = host.advisorCalls[0]!.context;
		expect(arm.context.systemPrompt).toBe(sent.systemPrompt);
		expect(arm.context.messages).toEqual(sent.messages);
		expect(arm.context.tools!.map((t) => ({ name: t.name, description: t.description }))).toEqual(sent.tools);
	});

	it("against render --at with the default tools, only the workspace tools differ", () => {
		const session = loadSession("session.jsonl", text);
		const [drawn] = drawOrder([session], "1");
		const arm = pointRequests(drawn!, ["ledger"], DEFAULT_PRIVACY).ledger!;
		const rendered = buildContext(renderAt("session.jsonl", text, undefined, drawn!.atEntryId).request);
		expect(arm.context.messages).toEqual(rendered.messages);
		expect(rendered.systemPrompt).toBe(advisorSystemPrompt("repo"));
		expect(arm.context.systemPrompt).toBe(advisorSystemPrompt("expand"));
		expect(rendered.tools!.map((t) => t.name)).toEqual(["advisor_expand", "read", "grep", "find", "ls", "git_diff"]);
		expect(arm.context.tools).toEqual(rendered.tools!.slice(0, 1));
	});
});
