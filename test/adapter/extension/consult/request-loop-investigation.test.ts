/**
 * The bounded investigation loop with pi-ai's faux provider as the advisor and the real
 * investigation tools (defaultInvestigation over a temp workspace): rounds, the call allowance,
 * the in-band refusal and "spent" notice, identical declarations, abort and timeout mid-round, a
 * tool that throws, the approval hook before every request, and usage summed over everything.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	type Api,
	type AssistantMessage,
	type Context,
	completeSimple,
	type FauxProviderRegistration,
	type FauxResponseStep,
	fauxAssistantMessage,
	fauxText,
	fauxToolCall,
	type Message,
	type Model,
	registerFauxProvider,
	type ToolCall,
	type ToolResultMessage,
} from "@mariozechner/pi-ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_ADVISOR_CONFIG } from "../../../../src/adapter/extension/config/load.ts";
import type { ConsultationSetup } from "../../../../src/adapter/extension/consult/advisor-tool.ts";
import type {
	ConsultationInput,
	InvestigationTools,
	NextRequest,
} from "../../../../src/adapter/extension/consult/consultation-input.ts";
import { runConsultation } from "../../../../src/adapter/extension/consult/request-loop.ts";
import { defaultInvestigation } from "../../../../src/adapter/extension/pi-advisor-ledger.ts";
import type { ToolsConfig } from "../../../../src/adapter/extension/tools/index.ts";
import { type LedgerState, ledgerOf } from "../../../../src/reducers/index.ts";
import {
	advisorSystemPrompt,
	buildContext,
	DEFAULT_LEDGER_CONFIG,
	FAILURE,
	renderRequest,
	TOOL_BUDGET_SPENT,
	TOOL_CALL_REFUSED,
	TOOL_TEXT,
	TOOLS_AFTER_SPENT,
} from "../../../../src/render/index.ts";
import { assistant, call, resetParents, result, user } from "../../../support/events.ts";

const APP_SOURCE = "export const answer = 41;\n";
const CARD_OUTPUT = "export const answer = 41; // the version the executor read first\n";

let faux: FauxProviderRegistration;
let workspace: string;

beforeEach(() => {
	faux = registerFauxProvider({
		provider: "loop-faux",
		models: [{ id: "loop-advisor", name: "Loop Advisor", reasoning: true, input: ["text"] }],
	});
	workspace = mkdtempSync(join(tmpdir(), "advisor-loop-"));
	mkdirSync(join(workspace, "src"));
	writeFileSync(join(workspace, "src/app.ts"), APP_SOURCE);
	writeFileSync(join(workspace, "notes.md"), "Remember: answer must be 42.\n");
});

afterEach(() => {
	faux.unregister();
	rmSync(workspace, { recursive: true, force: true });
});

/** A log whose oldest tool round is a card (#r1); the two newest are the verbatim tail. */
function ledgerState(): LedgerState {
	resetParents();
	return ledgerOf([
		user("u1", "Fix the failing test."),
		assistant("a1", { text: "Looking.", calls: [call("c1", "read", { path: "src/app.ts" })] }),
		result("r1", "c1", "read", CARD_OUTPUT),
		assistant("a2", { calls: [call("c2", "bash", { command: "npm test" })] }),
		result("r2", "c2", "bash", "FAIL: expected 42, got 41", { isError: true }),
		assistant("a3", { calls: [call("c3", "bash", { command: "ls" })] }),
		result("r3", "c3", "bash", "src\nnotes.md"),
		assistant("a4", { text: "Should I change answer to 42?", calls: [call("adv1", "advisor")] }),
	]);
}

/** What the faux advisor was sent, per request (tools as the JSON a provider would see). */
interface Sent {
	systemPrompt: string | undefined;
	messages: Message[];
	toolsJson: string;
}

function script(steps: FauxResponseStep[]): Sent[] {
	const sent: Sent[] = [];
	faux.setResponses(
		steps.map((step) => (context: Context, options, state, model) => {
			sent.push({
				systemPrompt: context.systemPrompt,
				messages: structuredClone(context.messages),
				toolsJson: JSON.stringify(context.tools ?? []),
			});
			return typeof step === "function" ? step(context, options, state, model) : step;
		}),
	);
	return sent;
}

interface LoopSetup {
	tools: Partial<ToolsConfig>;
	signal?: AbortSignal;
	/** Wraps the real tools (e.g. to make one throw or hang). */
	wrap?: (tools: InvestigationTools) => InvestigationTools;
}

function consultation(setup: LoopSetup, extra: Partial<ConsultationInput> = {}) {
	const model = faux.getModel() as Model<Api>;
	const state = ledgerState();
	const consultationSetup = {
		ctx: { cwd: workspace, sessionManager: { getCwd: () => workspace } },
		config: { ...DEFAULT_ADVISOR_CONFIG, tools: { ...DEFAULT_ADVISOR_CONFIG.tools, ...setup.tools } },
		model,
		effort: "high",
		state,
		signal: setup.signal,
	} as unknown as ConsultationSetup;
	const plan = defaultInvestigation(consultationSetup);
	const tools = plan.tools === undefined ? undefined : (setup.wrap ?? ((t) => t))(plan.tools);
	const request = renderRequest(state, {
		config: DEFAULT_LEDGER_CONFIG,
		catalogue: [{ name: "read", description: "Read a file." }],
		tools: tools?.declarations ?? [],
		toolsMode: plan.toolsMode,
		mode: "consult",
		inFlightCallId: "adv1",
	});
	const progress: string[] = [];
	const input: ConsultationInput = {
		complete: completeSimple,
		model,
		auth: { apiKey: "faux-key" },
		effort: "high",
		sessionId: "advisor:loop-session",
		request,
		signal: setup.signal,
		onProgress: (line) => progress.push(line),
		...extra,
	};
	if (tools !== undefined) input.tools = tools;
	return { run: () => runConsultation(input), request, progress, plan };
}

const toolUse = (...blocks: Parameters<typeof fauxAssistantMessage>[0][]) =>
	fauxAssistantMessage(blocks.flat() as never, { stopReason: "toolUse" });

const resultsOf = (messages: readonly Message[]) =>
	messages.filter((m): m is ToolResultMessage => m.role === "toolResult");

const textOf = (message: Message | undefined): string => {
	if (message === undefined || typeof message.content === "string") return String(message?.content ?? "");
	return message.content.map((p) => (p.type === "text" ? p.text : `[${p.type}]`)).join("");
};

/** Counts the tool calls that actually reached execute. */
function counting(executed: string[]) {
	return (tools: InvestigationTools): InvestigationTools => ({
		...tools,
		execute: (c, signal) => {
			executed.push(c.id);
			return tools.execute(c, signal);
		},
	});
}

describe("a tool round, then the answer", () => {
	it("runs the advisor's calls on the real tools, sends the results back and returns the final advice", async () => {
		const sent = script([
			toolUse(
				fauxText("Let me check the card and the file."),
				fauxToolCall("advisor_expand", { ids: ["#r1"] }, { id: "t1" }),
				fauxToolCall("read", { path: "src/app.ts" }, { id: "t2" }),
			),
			fauxAssistantMessage("Severity: nit\nYes: set answer to 42 in src/app.ts."),
		]);
		const { run, request, progress } = consultation({ tools: {} });
		const out = await run();

		expect(out.content).toEqual([{ type: "text", text: "Severity: nit\nYes: set answer to 42 in src/app.ts." }]);
		expect(sent).toHaveLength(2);
		// The first request is the rendered one; the second extends it with the reply and one result per call.
		expect(sent[0]!.messages).toEqual(buildContext(request).messages);
		const second = sent[1]!.messages;
		expect(second.slice(0, buildContext(request).messages.length)).toEqual(buildContext(request).messages);
		expect(second.slice(buildContext(request).messages.length).map((m) => m.role)).toEqual([
			"assistant",
			"toolResult",
			"toolResult",
		]);
		const [expanded, read] = resultsOf(second);
		expect(expanded).toMatchObject({ toolCallId: "t1", toolName: "advisor_expand", isError: false });
		expect(textOf(expanded)).toContain(CARD_OUTPUT);
		expect(read).toMatchObject({ toolCallId: "t2", toolName: "read", isError: false });
		expect(textOf(read)).toContain("export const answer = 41;");
		// No notice: the default allowance (3) is not used up by two calls.
		expect(second.some((m) => m.role === "user" && textOf(m) === TOOL_BUDGET_SPENT)).toBe(false);

		expect(progress).toEqual([
			"Consulting advisor: Loop Advisor (loop-faux/loop-advisor), high…",
			"advisor: advisor_expand #r1",
			"advisor: read src/app.ts",
		]);
		expect(out.details.toolCalls).toEqual({ count: 2, names: ["advisor_expand", "read"] });
		expect(out.details.severity).toBe("nit");
		expect(out.details.stopReason).toBe("stop");
	});

	it("sums the usage of every request into the envelope, one attempt record per request", async () => {
		script([
			toolUse(fauxToolCall("read", { path: "notes.md" }, { id: "t1" })),
			fauxAssistantMessage("Severity: none\nFine."),
		]);
		const out = await consultation({ tools: {} }).run();
		const attempts = out.details.attempts!;
		expect(attempts.map((a) => a.stopReason)).toEqual(["toolUse", "stop"]);
		const input = attempts.reduce((n, a) => n + a.usage!.input, 0);
		expect(input).toBeGreaterThan(0);
		expect(out.usage!.input).toBe(input);
		expect(out.usage!.output).toBe(attempts.reduce((n, a) => n + a.usage!.output, 0));
		expect(out.details.usage).toEqual(out.usage);
	});

	it("also counts retried attempts of a round (usage of every round and attempt)", async () => {
		script([
			toolUse(fauxToolCall("ls", {}, { id: "t1" })),
			fauxAssistantMessage([], { stopReason: "error", errorMessage: "503 overloaded" }),
			fauxAssistantMessage("Severity: none\nFine."),
		]);
		const gate: [number, number][] = [];
		const out = await consultation(
			{ tools: {} },
			{
				retry: (failure) => failure.attempt === 0,
				approve: async (next) => {
					gate.push([next.round, next.attempt]);
					return { send: true };
				},
			},
		).run();
		expect(out.content[0]!.text).toBe("Severity: none\nFine.");
		expect(gate).toEqual([
			[0, 0],
			[1, 0],
			[1, 1],
		]);
		expect(out.details.attempts!.map((a) => a.stopReason)).toEqual(["toolUse", "error", "stop"]);
		expect(out.usage!.input).toBe(out.details.attempts!.reduce((n, a) => n + (a.usage?.input ?? 0), 0));
	});
});

describe("the call allowance (tools.maxRounds bounds executed calls)", () => {
	it("a response with more calls than remain: the rest are refused in-band, then the advisor is told in a user message", async () => {
		const sent = script([
			toolUse(
				fauxToolCall("read", { path: "src/app.ts" }, { id: "t1" }),
				fauxToolCall("read", { path: "notes.md" }, { id: "t2" }),
				fauxToolCall("ls", {}, { id: "t3" }),
			),
			fauxAssistantMessage("Severity: concern\nanswer must be 42."),
		]);
		const executed: string[] = [];
		const { run, progress } = consultation({ tools: { maxRounds: 2 }, wrap: counting(executed) });
		const out = await run();

		expect(executed).toEqual(["t1", "t2"]);
		const second = sent[1]!.messages;
		const results = resultsOf(second);
		expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
			["t1", false],
			["t2", false],
			["t3", true],
		]);
		expect(results[2]!.content).toEqual([{ type: "text", text: TOOL_CALL_REFUSED }]);
		// Results first (each follows its call), then the notice as the request's last message.
		expect(second.slice(-5).map((m) => m.role)).toEqual([
			"assistant",
			"toolResult",
			"toolResult",
			"toolResult",
			"user",
		]);
		expect(second.at(-1)).toEqual({
			role: "user",
			content: [{ type: "text", text: TOOL_BUDGET_SPENT }],
			timestamp: 0,
		});
		expect(progress).toEqual([
			"Consulting advisor: Loop Advisor (loop-faux/loop-advisor), high…",
			"advisor: read src/app.ts",
			"advisor: read notes.md",
		]);
		expect(out.content[0]!.text).toBe("Severity: concern\nanswer must be 42.");
		expect(out.details.toolCalls).toEqual({ count: 2, names: ["read", "read"], refused: 1 });
	});

	it("calls spread over rounds: the notice follows the round that spends the allowance, not before", async () => {
		const sent = script([
			toolUse(fauxToolCall("read", { path: "src/app.ts" }, { id: "t1" })),
			toolUse(fauxToolCall("grep", { pattern: "answer" }, { id: "t2" })),
			fauxAssistantMessage("Severity: none\nDone looking."),
		]);
		const out = await consultation({ tools: { maxRounds: 2 } }).run();
		expect(sent).toHaveLength(3);
		expect(sent[1]!.messages.at(-1)!.role).toBe("toolResult");
		expect(sent[1]!.messages.some((m) => m.role === "user" && textOf(m) === TOOL_BUDGET_SPENT)).toBe(false);
		expect(sent[2]!.messages.at(-2)!.role).toBe("toolResult");
		expect(sent[2]!.messages.at(-1)).toMatchObject({
			role: "user",
			content: [{ type: "text", text: TOOL_BUDGET_SPENT }],
		});
		expect(sent[2]!.messages.filter((m) => textOf(m) === TOOL_BUDGET_SPENT)).toHaveLength(1);
		expect(out.content[0]!.text).toBe("Severity: none\nDone looking.");
		expect(out.details.toolCalls).toEqual({ count: 2, names: ["read", "grep"] });
	});

	it("a reply that still calls tools after the notice ends the consultation with its text; nothing more is run or sent", async () => {
		script([
			toolUse(fauxToolCall("read", { path: "src/app.ts" }, { id: "t1" })),
			toolUse(
				fauxText("Severity: nit\nSet answer to 42."),
				fauxToolCall("read", { path: "notes.md" }, { id: "t2" }),
			),
			fauxAssistantMessage("never requested"),
		]);
		const executed: string[] = [];
		const out = await consultation({ tools: { maxRounds: 1 }, wrap: counting(executed) }).run();
		expect(executed).toEqual(["t1"]);
		expect(faux.getPendingResponseCount()).toBe(1);
		expect(out.content[0]!.text).toBe("Severity: nit\nSet answer to 42.");
		expect(out.details).toMatchObject({ severity: "nit", stopReason: "toolUse", toolCalls: { count: 1 } });
		expect(out.details.errorMessage).toBeUndefined();
	});

	it("…and without text it ends as a failure row, not a loop", async () => {
		script([
			toolUse(fauxToolCall("read", { path: "src/app.ts" }, { id: "t1" })),
			toolUse(fauxToolCall("read", { path: "notes.md" }, { id: "t2" })),
			fauxAssistantMessage("never requested"),
		]);
		const out = await consultation({ tools: { maxRounds: 1 } }).run();
		expect(faux.getPendingResponseCount()).toBe(1);
		expect(out.content[0]!.text).toBe(FAILURE.failed(TOOLS_AFTER_SPENT));
		expect(out.content[0]!.text).toBe(
			"Advisor call failed: the advisor kept calling tools after its investigation allowance was spent",
		);
		expect(out.details).toMatchObject({ errorMessage: TOOLS_AFTER_SPENT, stopReason: "toolUse" });
		expect(out.details.attempts).toHaveLength(2);
	});
});

describe("declarations", () => {
	it("are byte-identical in every request of the consultation, with the same system prompt", async () => {
		const sent = script([
			toolUse(fauxToolCall("find", { pattern: "*.ts" }, { id: "t1" })),
			toolUse(fauxToolCall("git_diff", {}, { id: "t2" }), fauxToolCall("ls", { path: "src" }, { id: "t3" })),
			fauxAssistantMessage("Severity: none\nok"),
		]);
		const { run, request } = consultation({ tools: { maxRounds: 3 } });
		await run();
		expect(sent).toHaveLength(3);
		const declared = JSON.stringify(buildContext(request).tools);
		expect(JSON.parse(declared).map((t: { name: string }) => t.name)).toEqual([
			"advisor_expand",
			"read",
			"grep",
			"find",
			"ls",
			"git_diff",
		]);
		for (const s of sent) {
			expect(s.toolsJson).toBe(declared);
			expect(s.systemPrompt).toBe(advisorSystemPrompt("repo"));
		}
		// Each request extends the previous one: earlier messages are never rewritten.
		for (let i = 1; i < sent.length; i++) {
			expect(sent[i]!.messages.slice(0, sent[i - 1]!.messages.length)).toEqual(sent[i - 1]!.messages);
		}
	});

	it("follow the config: repo false → advisor_expand only; enabled false or maxRounds 0 → no tools, one request", () => {
		const names = (tools: Partial<ToolsConfig>) => {
			const { plan, request } = consultation({ tools });
			return {
				mode: plan.toolsMode,
				names: (buildContext(request).tools ?? []).map((t) => t.name),
				tools: plan.tools,
			};
		};
		expect(names({ repo: false })).toMatchObject({ mode: "expand", names: ["advisor_expand"] });
		expect(names({ enabled: false })).toEqual({ mode: "none", names: [], tools: undefined });
		expect(names({ maxRounds: 0 })).toEqual({ mode: "none", names: [], tools: undefined });
		// Nothing that could change anything is ever declared.
		const all = names({}).names;
		for (const mutating of ["bash", "edit", "write"]) expect(all).not.toContain(mutating);
	});

	it("with no tools the advisor answers in one request, and a stray tool call is not run", async () => {
		const sent = script([toolUse(fauxText("Severity: none\nFine as is."), fauxToolCall("read", { path: "x" }))]);
		const out = await consultation({ tools: { enabled: false } }).run();
		expect(sent).toHaveLength(1);
		expect(sent[0]!.toolsJson).toBe("[]");
		expect(sent[0]!.systemPrompt).toBe(advisorSystemPrompt("none"));
		expect(out.content[0]!.text).toBe("Severity: none\nFine as is.");
		expect(out.details.toolCalls).toBeUndefined();
	});
});

/** A tool that waits until its signal fires (or forever). */
function hanging(started: () => void) {
	return (tools: InvestigationTools): InvestigationTools => ({
		...tools,
		execute: (c: ToolCall, signal) =>
			c.name === "grep"
				? new Promise((resolve) => {
						started();
						signal?.addEventListener("abort", () =>
							resolve({ content: [{ type: "text", text: TOOL_TEXT.cancelled(c.name) }], isError: true }),
						);
					})
				: tools.execute(c, signal),
	});
}

describe("abort and timeout mid-round", () => {
	it("the executor aborts while a tool runs: cancelled, the round's later calls are not run, nothing more is sent", async () => {
		const controller = new AbortController();
		const sent = script([
			toolUse(
				fauxToolCall("read", { path: "src/app.ts" }, { id: "t1" }),
				fauxToolCall("grep", { pattern: "answer" }, { id: "t2" }),
				fauxToolCall("ls", {}, { id: "t3" }),
			),
			fauxAssistantMessage("never requested"),
		]);
		const executed: string[] = [];
		const { run, progress } = consultation({
			tools: {},
			signal: controller.signal,
			wrap: (t) => counting(executed)(hanging(() => setTimeout(() => controller.abort(), 5))(t)),
		});
		const out = await run();
		expect(executed).toEqual(["t1", "t2"]);
		expect(sent).toHaveLength(1);
		expect(faux.getPendingResponseCount()).toBe(1);
		expect(out.content[0]!.text).toBe(FAILURE.cancelled);
		expect(out.details).toMatchObject({ errorMessage: "aborted", toolCalls: { count: 2, names: ["read", "grep"] } });
		// The first round's usage is still billed.
		expect(out.details.attempts).toHaveLength(1);
		expect(out.usage!.input).toBeGreaterThan(0);
		expect(progress.slice(1)).toEqual(["advisor: read src/app.ts", "advisor: grep /answer/ in ."]);
	});

	it("the consultation's deadline fires while a tool runs: `Advisor timed out after <n>s`", async () => {
		script([toolUse(fauxToolCall("grep", { pattern: "answer" }, { id: "t1" })), fauxAssistantMessage("never")]);
		const out = await consultation({ tools: {}, wrap: hanging(() => {}) }, { timeoutMs: 40 }).run();
		expect(out.content[0]!.text).toBe(FAILURE.timeout(0.04));
		expect(out.details).toMatchObject({ errorMessage: "timeout", toolCalls: { count: 1 } });
	});
});

describe("tool errors go back to the advisor", () => {
	it("a tool that throws becomes an error result; the consultation goes on", async () => {
		const sent = script([
			toolUse(
				fauxToolCall("grep", { pattern: "answer" }, { id: "t1" }),
				fauxToolCall("read", { path: "src/app.ts" }, { id: "t2" }),
			),
			fauxAssistantMessage("Severity: nit\ngrep broke, but the file says 41."),
		]);
		const { run, progress } = consultation({
			tools: {},
			wrap: (tools) => ({
				...tools,
				execute: async (c, signal) => {
					if (c.name === "grep") throw new Error("disk on fire");
					return tools.execute(c, signal);
				},
			}),
		});
		const out = await run();
		const [grep, read] = resultsOf(sent[1]!.messages);
		expect(grep).toMatchObject({
			toolCallId: "t1",
			isError: true,
			content: [{ type: "text", text: "grep failed: disk on fire" }],
		});
		expect(read!.isError).toBe(false);
		expect(progress.slice(1)).toEqual(["advisor: grep /answer/ in .", "advisor: read src/app.ts"]);
		expect(out.content[0]!.text).toBe("Severity: nit\ngrep broke, but the file says 41.");
		expect(out.details.toolCalls).toEqual({ count: 2, names: ["grep", "read"] });
	});

	it("refused paths and unknown tools come back as error results too", async () => {
		const sent = script([
			toolUse(
				fauxToolCall("read", { path: "../../etc/passwd" }, { id: "t1" }),
				fauxToolCall("bash", { command: "rm -rf ." }, { id: "t2" }),
			),
			fauxAssistantMessage("Severity: none\nok"),
		]);
		await consultation({ tools: {} }).run();
		const [outside, bash] = resultsOf(sent[1]!.messages);
		expect(outside!.isError).toBe(true);
		expect(textOf(outside)).toContain("outside the workspace");
		expect(bash!.isError).toBe(true);
		expect(textOf(bash)).toBe(TOOL_TEXT.unknownTool("bash"));
	});
});

describe("the approval hook", () => {
	it("sees every request before it is sent, with the conversation as it will be sent", async () => {
		script([
			toolUse(fauxToolCall("read", { path: "src/app.ts" }, { id: "t1" })),
			toolUse(fauxToolCall("read", { path: "notes.md" }, { id: "t2" })),
			fauxAssistantMessage("Severity: none\nok"),
		]);
		const seen: Omit<NextRequest, "paused">[] = [];
		const { run, request } = consultation(
			{ tools: { maxRounds: 2 } },
			{
				approve: async (next) => {
					const { paused: _paused, ...data } = next;
					seen.push(structuredClone({ ...data, context: { ...next.context, tools: [] } }));
					return { send: true };
				},
			},
		);
		await run();
		const base = buildContext(request).messages.length;
		expect(seen.map((n) => [n.round, n.attempt, n.context.messages.length])).toEqual([
			[0, 0, base],
			[1, 0, base + 2],
			[2, 0, base + 5],
		]);
		expect(seen[1]!.billedUsage.input).toBeGreaterThan(0);
		expect(seen[2]!.context.messages.at(-1)).toMatchObject({ role: "user" });
	});

	it("tells the gate how many tool calls the advisor may still run: none once the allowance is spent", async () => {
		script([
			toolUse(fauxToolCall("read", { path: "src/app.ts" }, { id: "t1" })),
			toolUse(fauxToolCall("read", { path: "notes.md" }, { id: "t2" })),
			fauxAssistantMessage("Severity: none\nok"),
		]);
		const left: number[] = [];
		await consultation(
			{ tools: { maxRounds: 2 } },
			{
				approve: async (next) => {
					left.push(next.callsLeft);
					return { send: true };
				},
			},
		).run();
		expect(left).toEqual([2, 1, 0]);
		// Without tools there is nothing to run.
		script([fauxAssistantMessage("Severity: none\nok")]);
		const none: number[] = [];
		await consultation(
			{ tools: { enabled: false } },
			{
				approve: async (next) => {
					none.push(next.callsLeft);
					return { send: true };
				},
			},
		).run();
		expect(none).toEqual([0]);
	});

	it("answer now: that request carries the in-band notice (once), nothing later may call tools, and a reply that still does ends it", async () => {
		const sent = script([
			toolUse(fauxToolCall("read", { path: "src/app.ts" }, { id: "t1" })),
			toolUse(fauxToolCall("read", { path: "notes.md" }, { id: "t2" })),
		]);
		const left: number[] = [];
		const executed: string[] = [];
		const { run, request } = consultation(
			{ tools: { maxRounds: 3 }, wrap: counting(executed) },
			{
				approve: async (next) => {
					left.push(next.callsLeft);
					return next.round === 0 ? { send: true } : { send: true, answerNow: true };
				},
			},
		);
		const out = await run();
		const base = buildContext(request).messages.length;
		expect(sent).toHaveLength(2);
		// The round after the first: its results, then the notice, as when the allowance is spent.
		expect(sent[1]!.messages).toHaveLength(base + 3);
		expect(sent[1]!.messages.at(-1)).toMatchObject({
			role: "user",
			content: [{ type: "text", text: TOOL_BUDGET_SPENT }],
		});
		expect(textOf(sent[1]!.messages.at(-2))).not.toBe(TOOL_BUDGET_SPENT);
		expect(executed).toEqual(["t1"]);
		expect(left).toEqual([3, 2]);
		expect(out.content[0]!.text).toBe(FAILURE.failed(TOOLS_AFTER_SPENT));
		expect(out.details.attempts).toHaveLength(2);
	});

	it("answer now on the first request: the notice follows the request as rendered", async () => {
		const sent = script([fauxAssistantMessage("Severity: nit\nfrom the log alone")]);
		const { run, request } = consultation({ tools: {} }, { approve: async () => ({ send: true, answerNow: true }) });
		const out = await run();
		expect(sent[0]!.messages).toHaveLength(buildContext(request).messages.length + 1);
		expect(textOf(sent[0]!.messages.at(-1))).toBe(TOOL_BUDGET_SPENT);
		expect(out.content[0]!.text).toBe("Severity: nit\nfrom the log alone");
	});

	it("a refusal before a later round ends as a skip that still carries the usage and calls so far", async () => {
		script([toolUse(fauxToolCall("read", { path: "src/app.ts" }, { id: "t1" })), fauxAssistantMessage("never")]);
		const out = await consultation(
			{ tools: {} },
			{
				approve: async (next) =>
					next.round === 0 ? { send: true } : { send: false, reason: "over the per-call budget" },
			},
		).run();
		expect(out.content[0]!.text).toBe(FAILURE.skipped("over the per-call budget"));
		expect(out.details).toMatchObject({ skipped: true, toolCalls: { count: 1, names: ["read"] } });
		expect(out.details.attempts).toHaveLength(1);
		expect(out.usage!.input).toBeGreaterThan(0);
	});
});

it("a reply's thinking and text travel back with its calls (providers need the whole turn)", async () => {
	const reply = toolUse(fauxText("Checking."), fauxToolCall("ls", {}, { id: "t1" })) as AssistantMessage;
	const sent = script([reply, fauxAssistantMessage("Severity: none\nok")]);
	const { run, request } = consultation({ tools: {} });
	await run();
	const echoed = sent[1]!.messages[buildContext(request).messages.length] as AssistantMessage;
	expect(echoed.content).toEqual(reply.content);
});
