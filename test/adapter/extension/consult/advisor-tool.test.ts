/**
 * advisor()'s execute with a scripted context: the order of the checks, the host-compat loader's
 * failure, and what reaches completeSimple.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Api, AssistantMessage, Model } from "@mariozechner/pi-ai";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../../src/adapter/extension/config/load.ts";
import {
	type AdvisorToolDeps,
	createAdvisorTool,
	type PlanningSetup,
} from "../../../../src/adapter/extension/consult/advisor-tool.ts";
import { createSessionLedger } from "../../../../src/adapter/extension/consult/session-ledger.ts";
import type { CompleteSimple } from "../../../../src/adapter/extension/pi/compat.ts";
import { buildContext, UNSUPPORTED_PI_AI, zeroUsage } from "../../../../src/render/index.ts";
import { testTempDir } from "../../../support/temp.ts";

function model(provider: string, id: string, reasoning = true): Model<Api> {
	return {
		id,
		name: `${id} name`,
		api: "openai-completions",
		provider,
		baseUrl: "http://localhost:0",
		reasoning,
		input: ["text"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 1000,
		maxTokens: 100,
	} as Model<Api>;
}

const textOf = (out: { content: { type: string }[] }) => (out.content[0] as unknown as { text: string }).text;

const ADVISOR = model("adv", "big");
const LITE = model("adv", "lite", false);
const EXECUTOR = model("exec", "small");

function setup(
	config: Record<string, unknown>,
	complete?: CompleteSimple | Error,
	executor = EXECUTOR,
	getAllTools: () => never = () => [{ name: "read", description: "Read a file." }] as never,
	extra: Partial<AdvisorToolDeps> = {},
) {
	const home = testTempDir("adv-tool-");
	mkdirSync(join(home, "pi-advisor-ledger"));
	writeFileSync(join(home, "pi-advisor-ledger", "advisor.json"), JSON.stringify(config));
	const loaded = loadConfig({ env: { XDG_CONFIG_HOME: home } }).config;
	const authLookups: string[] = [];
	const sm = SessionManager.inMemory("/tmp/x");
	sm.appendMessage({ role: "user", content: "Fix it.", timestamp: 0 });
	sm.appendMessage({
		role: "assistant",
		content: [
			{ type: "text", text: "Right?" },
			{ type: "toolCall", id: "adv1", name: "advisor", arguments: {} },
		],
		api: "x",
		provider: "exec",
		model: "small",
		usage: zeroUsage(),
		stopReason: "toolUse",
		timestamp: 0,
	} as AssistantMessage);
	const ctx = {
		model: executor,
		sessionManager: sm,
		cwd: "/tmp/x",
		modelRegistry: {
			find: (p: string, id: string) => [ADVISOR, LITE, EXECUTOR].find((m) => m.provider === p && m.id === id),
			getApiKeyAndHeaders: async (m: Model<Api>) => {
				authLookups.push(m.id);
				return { ok: true, apiKey: "k", headers: { "x-h": "1" } };
			},
		},
	};
	const sent: { options: unknown; context: any }[] = [];
	const tool = createAdvisorTool({
		pi: { getAllTools, getThinkingLevel: () => "off" },
		config: () => loaded,
		ledger: createSessionLedger(),
		loadCompleteSimple: async () => {
			if (complete instanceof Error) throw complete;
			if (complete) return complete;
			return (async (_m: Model<Api>, context: unknown, options: unknown) => {
				sent.push({ options, context });
				return {
					role: "assistant",
					content: [{ type: "text", text: "Severity: none\nok" }],
					usage: {
						input: 1,
						output: 1,
						cacheRead: 0,
						cacheWrite: 0,
						totalTokens: 2,
						cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
					},
					stopReason: "stop",
				};
			}) as unknown as CompleteSimple;
		},
		...extra,
	});
	const run = () => tool.execute("adv1", {}, undefined, undefined, ctx as never);
	return { run, authLookups, sent, sessionId: sm.getSessionId() };
}

describe("advisor() execute", () => {
	it("a zero-parameter tool with the default guidance", () => {
		const { run } = setup({});
		expect(run).toBeTypeOf("function");
		const tool = createAdvisorTool({
			pi: { getAllTools: () => [], getThinkingLevel: () => "off" },
			config: () => loadConfig({ env: { XDG_CONFIG_HOME: testTempDir("adv-tool-") } }).config,
			ledger: createSessionLedger(),
			loadCompleteSimple: async () => {
				throw new Error("unused");
			},
		});
		expect(tool.name).toBe("advisor");
		expect(tool.parameters).toMatchObject({ type: "object", properties: {} });
		expect(tool.promptSnippet).toBeTruthy();
		expect(tool.promptGuidelines!.length).toBeGreaterThan(0);
	});

	it("the same-model skip comes before any credential lookup", async () => {
		const { run, authLookups } = setup({ modelKey: "adv/big" }, undefined, model("elsewhere", "big"));
		const out = await run();
		expect(out.details).toMatchObject({ skipped: true, advisorModel: "adv:big" });
		expect(authLookups).toEqual([]);
	});

	it("the disabled-for skip comes before any credential lookup too", async () => {
		const { run, authLookups } = setup({ modelKey: "adv/big", disabledForModels: ["small"] });
		const out = await run();
		expect(textOf(out)).toMatch(
			/^Advisor skipped: the advisor is disabled for executor model small name \(exec\/small\)\. /,
		);
		expect(authLookups).toEqual([]);
	});

	it("a host whose pi-ai has no completeSimple gets `Advisor call threw: …unsupported host…`", async () => {
		const { run } = setup({ modelKey: "adv/big" }, new Error(UNSUPPORTED_PI_AI));
		const out = await run();
		expect(textOf(out)).toBe(`Advisor call threw: ${UNSUPPORTED_PI_AI}`);
		expect(out.details).toMatchObject({ advisorModel: "adv:big", errorMessage: UNSUPPORTED_PI_AI });
	});

	it("sends the snapshotted effort, the key and headers, and sessionId advisor:<id>", async () => {
		const { run, sent, sessionId } = setup({ modelKey: "adv:big", effort: "max" });
		const out = await run();
		expect(out.details).toMatchObject({ advisorModel: "adv:big", effort: "xhigh", severity: "none" });
		expect(sent[0]!.options).toMatchObject({
			reasoning: "xhigh",
			apiKey: "k",
			headers: { "x-h": "1" },
			sessionId: `advisor:${sessionId}`,
		});
	});

	it("a model without reasoning is sent no effort, whatever the file says", async () => {
		const { run, sent } = setup({ modelKey: "adv/lite", effort: "high" });
		const out = await run();
		expect(out.details.effort).toBeUndefined();
		expect(sent[0]!.options).not.toHaveProperty("reasoning");
	});

	it("never throws, even when the host does", async () => {
		const { run } = setup({ modelKey: "adv/big" }, undefined, EXECUTOR, () => {
			throw new Error("host exploded");
		});
		const out = await run();
		expect(textOf(out)).toBe("Advisor call threw: host exploded");
		expect(out.details.errorMessage).toBe("host exploded");
	});

	it("the planning hook sees the rendered request, can send another one and gate it", async () => {
		const seen: PlanningSetup[] = [];
		let sentInstead: unknown;
		const { run, sent } = setup({ modelKey: "adv/big" }, undefined, EXECUTOR, undefined, {
			consultationHooks: (planning) => {
				seen.push(planning);
				const other = planning.render({ config: { ...planning.config.ledger, userMessageMaxChars: 4 } });
				sentInstead = buildContext(other);
				return {
					request: other,
					base: { context: { trimmed: true, originalPromptTokens: planning.request.tokens } },
				};
			},
		});
		const out = await run();
		expect(seen).toHaveLength(1);
		expect(seen[0]!.request.messageCount).toBe(2);
		expect(sent).toHaveLength(1);
		expect(sent[0]!.context).toBe(sentInstead);
		expect(JSON.stringify(sent[0]!.context)).not.toEqual(JSON.stringify(buildContext(seen[0]!.request)));
		expect(out.details.context).toEqual({ trimmed: true, originalPromptTokens: seen[0]!.request.tokens });

		const gated = setup({ modelKey: "adv/big" }, undefined, EXECUTOR, undefined, {
			consultationHooks: () => ({ approve: async () => ({ send: false, reason: "over budget" }) }),
		});
		const skipped = await gated.run();
		expect(skipped.details).toMatchObject({ skipped: true, errorMessage: "over budget" });
		expect(gated.sent).toHaveLength(0);
	});
});
