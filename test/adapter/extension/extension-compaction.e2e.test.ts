/**
 * Pi's compactions end to end, on each host: its SDK in a child process under the host's own Node
 * (test/support/compaction-driver.mjs), the extension loaded from its path, the executor and the
 * advisor scripted on a 127.0.0.1 mock (test/support/mock-openai.ts), Pi's summaries asked of the
 * executor's model on the same mock.
 *
 * The executor runs shell commands; a scripted usage crosses the executor model's window and Pi
 * compacts on its own after the run; the executor consults. It works on, the session is compacted
 * again (`session.compact()`, what `/compact` runs), and it consults again. The ledger's log is not
 * cut by a compaction (docs/request-format.md, "The executor's horizon"): the first request holds
 * the commands run before the compaction and the horizon mark with Pi's summary, and the second
 * request starts with the first one's stable portion, byte for byte.
 *
 * The kept spans are large (a long command output each) and the log small, so the log's size rule
 * (render/log-cut.ts) keeps the whole log at both compactions: the test checks that it is in that
 * case, and that nothing stands in for a left-out span.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventsFromBranch } from "../../../src/events/index.ts";
import { type Block, emptyLedger, foldLedger } from "../../../src/reducers/index.ts";
import {
	APPENDIX_HEADER,
	CONSULT_INSTRUCTION,
	DEFAULT_LEDGER_CONFIG,
	LEFT_OUT_INTRO,
	LOG_OPEN,
	ordinalId,
	tokensForChars,
} from "../../../src/render/index.ts";
import { COMPACTION_SHARE } from "../../../src/render/log-cut.ts";
import { COMPACTION_HORIZON, HORIZON_MARK } from "../../../src/render/model-text.ts";
import {
	ADVISOR_MODEL,
	API_KEY,
	createSandbox,
	describeEachHost,
	EXECUTOR_MODEL,
	EXTENSION_ENTRY,
	type ProcessResult,
	REPO_ROOT,
	readJsonl,
	runNode,
	type Sandbox,
} from "../../support/hosts.ts";
import { type MockReply, type MockRequest, type MockServer, startMockOpenAI } from "../../support/mock-openai.ts";

const DRIVER = join(REPO_ROOT, "test/support/compaction-driver.mjs");

/** The executor's window and Pi's reserve: Pi compacts once a reply's usage passes their difference. */
const CONTEXT_WINDOW = 64_000;
const RESERVE_TOKENS = 16_384;
/** What the reply that ends the second run reports: past the threshold, within the window. */
const CROSSING_PROMPT_TOKENS = 50_000;
/**
 * Pi keeps the newest messages up to this many estimated tokens (chars / 4). Each compacted run is a
 * long prompt (~500), a few small calls and one long output (~7,600): the budget runs out inside the
 * prompt, so Pi keeps the whole run from its prompt on, with the output — a large kept span.
 */
const KEEP_RECENT_TOKENS = 7_900;

const ROWS = 800;
const BIG_ONE = `yes fixture-row-kept-after-compaction-one | head -n ${ROWS}`;
const BIG_TWO = `yes fixture-row-kept-after-compaction-two | head -n ${ROWS}`;
const ALPHA = "echo alpha-before-compaction";
const BETA = "echo beta-before-compaction";
const GAMMA = "echo gamma-after-first-compaction";

/** A long user prompt: the budget of the kept span runs out inside it (see KEEP_RECENT_TOKENS). */
function longPrompt(head: string): string {
	const filler = " Keep every row exactly as printed; the next step compares them line by line.";
	return head + filler.repeat(Math.ceil((2000 - head.length) / filler.length));
}

const PROMPT_A = "Run the alpha and beta checks.";
const PROMPT_B = longPrompt("List the first fixture set.");
const PROMPT_C = "Ask the advisor whether the plan holds.";
const PROMPT_D = longPrompt("Run the gamma check, then list the second fixture set.");
const PROMPT_E = "Ask the advisor again before finishing.";

const QUESTION_1 = "Both checks ran and the first set is listed. Is the plan sound?";
const QUESTION_2 = "Gamma ran and the second set is listed. May I finish?";
const ADVICE_1 = "Severity: none\nThe plan holds: go on with gamma.";
const ADVICE_2 = "Severity: none\nFinish.";
const FINAL = "Finished after the advice.";

const SUMMARY_1 = "Summary one: alpha and beta ran; the first fixture set was being listed.";
const SUMMARY_2 = "Summary two: the advisor agreed; gamma ran; the second fixture set was being listed.";

const bash = (id: string, command: string, text: string): MockReply => ({
	kind: "toolCall",
	text,
	id,
	name: "bash",
	arguments: JSON.stringify({ command }),
});
const advisor = (id: string, question: string): MockReply => ({
	kind: "toolCall",
	text: question,
	id,
	name: "advisor",
	arguments: "{}",
});
const text = (t: string, promptTokens?: number): MockReply => ({
	kind: "text",
	text: t,
	...(promptTokens !== undefined ? { promptTokens } : {}),
});

/** Each run: its prompt, and the executor's replies in order (the k-th answers after k tool results). */
const RUNS: { prompt: string; replies: MockReply[] }[] = [
	{
		prompt: PROMPT_A,
		replies: [
			bash("call_alpha", ALPHA, "Running the alpha check."),
			bash("call_beta", BETA, "Now beta."),
			text("Alpha and beta both ran."),
		],
	},
	{
		prompt: PROMPT_B,
		replies: [
			bash("call_big_one", BIG_ONE, "Listing the first set."),
			text("The first set is listed.", CROSSING_PROMPT_TOKENS),
		],
	},
	{ prompt: PROMPT_C, replies: [advisor("call_adv_1", QUESTION_1), text("The advisor agrees; on to gamma.")] },
	{
		prompt: PROMPT_D,
		replies: [
			bash("call_gamma", GAMMA, "Running gamma."),
			bash("call_big_two", BIG_TWO, "Listing the second set."),
			text("Gamma ran; the second set is listed."),
		],
	},
	{ prompt: PROMPT_E, replies: [advisor("call_adv_2", QUESTION_2), text(FINAL)] },
];

const STEPS = [
	{ prompt: PROMPT_A },
	{ prompt: PROMPT_B, autoCompaction: true },
	{ prompt: PROMPT_C },
	{ prompt: PROMPT_D },
	{ compact: true },
	{ prompt: PROMPT_E },
];

function textOf(message: any): string {
	if (typeof message.content === "string") return message.content;
	return message.content
		.filter((p: any) => p.type === "text")
		.map((p: any) => p.text)
		.join("");
}

/** The text parts of a message as sent (a string content is one part). */
function partsOf(message: any): string[] {
	if (typeof message.content === "string") return [message.content];
	return message.content.map((p: any) => (p.type === "text" ? p.text : `[${p.type}]`));
}

const isSummaryRequest = (body: any) =>
	body.model === EXECUTOR_MODEL &&
	textOf(body.messages.find((m: any) => m.role === "user")).startsWith("<conversation>");

/** Routes by what was sent: the advisor, Pi's summary requests, then the executor's runs. */
function route(body: any): MockReply {
	if (body.model === ADVISOR_MODEL) {
		return text(body.messages.some((m: any) => m.role === "assistant") ? ADVICE_2 : ADVICE_1);
	}
	if (isSummaryRequest(body)) {
		const prompt = textOf(body.messages.find((m: any) => m.role === "user"));
		if (prompt.includes("PREFIX of a turn")) return text("Unexpected: a split turn.");
		return text(prompt.includes("<previous-summary>") ? SUMMARY_2 : SUMMARY_1);
	}
	const lastUser = body.messages.findLastIndex((m: any) => m.role === "user");
	const prompt = textOf(body.messages[lastUser]);
	const run = RUNS.find((r) => r.prompt === prompt);
	const results = body.messages.slice(lastUser + 1).filter((m: any) => m.role === "tool").length;
	return run?.replies[results] ?? text(`Unexpected request: ${results} results after ${JSON.stringify(prompt)}`);
}

describeEachHost("Pi compacts twice; the advisor's requests keep the log whole", (host) => {
	let server: MockServer;
	let sandbox: Sandbox;
	let result: ProcessResult;
	let out: any;
	let entries: any[];

	beforeAll(async () => {
		server = await startMockOpenAI(route);
		sandbox = createSandbox(server.baseUrl);
		writeFileSync(
			join(sandbox.agentDir, "models.json"),
			JSON.stringify({
				providers: {
					mock: {
						baseUrl: server.baseUrl,
						api: "openai-completions",
						apiKey: API_KEY,
						compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
						models: [
							{ id: EXECUTOR_MODEL, name: "Mock Executor", contextWindow: CONTEXT_WINDOW, maxTokens: 1024 },
							{ id: ADVISOR_MODEL, name: "Mock Advisor", contextWindow: 32000, maxTokens: 1024 },
						],
					},
				},
			}),
		);
		writeFileSync(
			join(sandbox.agentDir, "settings.json"),
			JSON.stringify({
				defaultProvider: "mock",
				defaultModel: EXECUTOR_MODEL,
				defaultThinkingLevel: "off",
				compaction: { enabled: true, reserveTokens: RESERVE_TOKENS, keepRecentTokens: KEEP_RECENT_TOKENS },
				retry: { enabled: false },
			}),
		);
		result = await runNode(
			host.node,
			[
				DRIVER,
				host.sdk,
				EXTENSION_ENTRY,
				sandbox.project,
				sandbox.agentDir,
				sandbox.sessions,
				JSON.stringify(STEPS),
			],
			{ cwd: sandbox.project, env: sandbox.env },
		);
		try {
			out = JSON.parse(result.stdout);
		} catch {
			out = { error: `the driver printed no result (exit ${result.code}): ${result.stderr}` };
		}
		entries = out.sessionFile ? readJsonl(out.sessionFile).filter((e) => e.type !== "session") : [];
	}, 300_000);

	afterAll(async () => {
		await server?.close();
		sandbox?.dispose();
	});

	const advisorRequests = (): MockRequest[] => server.requests.filter((r) => r.body.model === ADVISOR_MODEL);
	const summaryRequests = (): MockRequest[] => server.requests.filter((r) => isSummaryRequest(r.body));
	/** The 1-based path position of an entry (the branch is linear: file order), as the request's ids count. */
	const pos = (id: string): number => {
		const index = entries.findIndex((e) => e.id === id);
		expect(index, `entry ${id}`).toBeGreaterThanOrEqual(0);
		return index + 1;
	};
	const compactionEntries = (): any[] => entries.filter((e) => e.type === "compaction");
	const promptEntry = (prompt: string): any =>
		entries.find((e) => e.type === "message" && e.message.role === "user" && textOf(e.message) === prompt);
	/** The card of the bash round `callId` begins so: the result's id, the tool, the command, its size. */
	const cardStart = (callId: string, command: string): string => {
		const result = entries.find((e) => e.type === "message" && e.message.toolCallId === callId);
		expect(result, callId).toBeDefined();
		return `#${ordinalId(pos(result.id))} bash ${command} · `;
	};
	/** The block Pi's k-th compaction is in the log: the horizon mark, where its kept span starts, its summary. */
	const horizonPart = (k: number): string => {
		const entry = compactionEntries()[k]!;
		const kept = ordinalId(pos(entry.firstKeptEntryId));
		return `[compaction #${ordinalId(pos(entry.id))}] ${COMPACTION_HORIZON(kept)}\n${entry.summary}\n`;
	};
	const indexOfCard = (parts: string[], callId: string, command: string): number => {
		const start = cardStart(callId, command);
		const index = parts.findIndex((p) => p.startsWith(start));
		expect(index, `the card ${start}`).toBeGreaterThan(0);
		return index;
	};

	it("the session ran through: Pi compacted on its own past the threshold, then on compact(), and the executor finished", () => {
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		expect(out.error).toBeUndefined();
		expect(out.extensionErrors).toEqual([]);
		expect(out.lastText).toBe(FINAL);
		expect(out.compactions).toEqual([
			{ reason: "threshold", ok: true, aborted: false },
			{ reason: "manual", ok: true, aborted: false },
		]);
		const [first, second] = compactionEntries();
		expect(compactionEntries()).toHaveLength(2);
		// The first was the scripted usage's doing: Pi measured the context past its threshold.
		expect(first.tokensBefore).toBeGreaterThan(CONTEXT_WINDOW - RESERVE_TOKENS);
		expect([first.summary, second.summary]).toEqual([SUMMARY_1, SUMMARY_2]);
		// Pi asked the executor's model for each summary, the second one updating the first.
		const asked = summaryRequests().map((r) => textOf(r.body.messages.find((m: any) => m.role === "user")));
		expect(asked).toHaveLength(2);
		expect(asked[0]).toContain(ALPHA);
		expect(asked[0]).not.toContain("<previous-summary>");
		expect(asked[1]).toContain(`<previous-summary>\n${SUMMARY_1}\n</previous-summary>`);
		expect(asked[1]).toContain(QUESTION_1);
	});

	it("each compaction kept the whole run before it from its prompt on, its long output included", () => {
		const [first, second] = compactionEntries();
		expect(first.firstKeptEntryId).toBe(promptEntry(PROMPT_B)?.id);
		expect(second.firstKeptEntryId).toBe(promptEntry(PROMPT_D)?.id);
	});

	it("after the first compaction the executor's own context had only Pi's summary of the commands before it", () => {
		const asking = server.requests.find(
			(r) => r.body.model === EXECUTOR_MODEL && textOf(r.body.messages.at(-1)) === PROMPT_C,
		);
		expect(asking).toBeDefined();
		const sent = JSON.stringify(asking!.body.messages);
		expect(sent).toContain(SUMMARY_1);
		for (const command of [ALPHA, BETA]) expect(sent).not.toContain(command);
		expect(sent).toContain(BIG_ONE);
	});

	it("the first consultation holds the commands run before the compaction, then the horizon mark and Pi's summary", () => {
		const requests = advisorRequests();
		expect(requests).toHaveLength(2);
		const messages = requests[0]!.body.messages;
		expect(messages.map((m: any) => m.role)).toEqual(["system", "user", "user"]);
		const parts = partsOf(messages[2]);
		expect(parts[0]).toBe(LOG_OPEN);
		const cards = [
			indexOfCard(parts, "call_alpha", ALPHA),
			indexOfCard(parts, "call_beta", BETA),
			indexOfCard(parts, "call_big_one", BIG_ONE),
		];
		const horizon = parts.indexOf(horizonPart(0));
		expect(horizon, "the first compaction's block").toBeGreaterThan(0);
		expect(parts[horizon]).toContain("── executor's horizon ──");
		expect(parts[horizon]!.endsWith(`:\n${SUMMARY_1}\n`)).toBe(true);
		for (const card of cards) expect(card).toBeLessThan(horizon);
		expect(parts.filter((p) => p.includes(HORIZON_MARK))).toHaveLength(1);
		expect(parts.at(-2)).toContain(QUESTION_1);
		expect(parts.at(-1)).toBe(CONSULT_INSTRUCTION);
	});

	it("the second consultation starts with the first one's stable portion, byte for byte, after a second compaction", () => {
		const [first, second] = advisorRequests().map((r) => r.body);
		const m = first.messages.length - 1;
		const firstLog = partsOf(first.messages[m]);
		const appendix = firstLog.findIndex((p) => p.startsWith(APPENDIX_HEADER));
		// The stable portion holds the first compaction's block.
		expect(appendix).toBeGreaterThan(firstLog.indexOf(horizonPart(0)));
		// What the extension recorded as that request's stable portion is this one: the system prompt, the
		// declarations, the catalogue's parts and the log's parts before the appendix.
		const recorded = entries.find((e) => e.type === "message" && e.message.toolCallId === "call_adv_1");
		expect(recorded.message.details.request.stableUnits).toBe(2 + partsOf(first.messages[1]).length + appendix);

		expect(second.tools).toEqual(first.tools);
		expect(JSON.stringify(second.messages.slice(0, m))).toBe(JSON.stringify(first.messages.slice(0, m)));
		expect(second.messages[m].content.slice(0, appendix)).toEqual(first.messages[m].content.slice(0, appendix));
		// That message is now the closed segment: the question, then the advice as the advisor's turn.
		expect(partsOf(second.messages[m]).slice(appendix)).toHaveLength(1);
		expect(partsOf(second.messages[m])[appendix]).toContain(QUESTION_1);
		expect(textOf(second.messages[m + 1])).toBe(ADVICE_1);
	});

	it("the second consultation holds the commands run since, then the second horizon mark and Pi's second summary", () => {
		const messages = advisorRequests()[1]!.body.messages;
		expect(messages.map((m: any) => m.role)).toEqual(["system", "user", "user", "assistant", "user"]);
		const parts = partsOf(messages[4]);
		const cards = [indexOfCard(parts, "call_gamma", GAMMA), indexOfCard(parts, "call_big_two", BIG_TWO)];
		const horizon = parts.indexOf(horizonPart(1));
		expect(horizon, "the second compaction's block").toBeGreaterThan(0);
		expect(parts[horizon]!.endsWith(`:\n${SUMMARY_2}\n`)).toBe(true);
		for (const card of cards) expect(card).toBeLessThan(horizon);
		// The system prompt explains the mark; in the log it stands once per compaction.
		const marks = messages
			.slice(1)
			.flatMap((m: any) => partsOf(m))
			.filter((p: string) => p.includes(HORIZON_MARK));
		expect(marks).toEqual([horizonPart(0), horizonPart(1)]);
		expect(parts.at(-2)).toContain(QUESTION_2);
		expect(parts.at(-1)).toBe(CONSULT_INSTRUCTION);
	});

	it("the log's size rule keeps the whole log: at each compaction it fits in half of Pi's context, and nothing stands in", () => {
		const requests = advisorRequests().map((r) => r.body);
		for (const body of requests)
			for (const message of body.messages)
				for (const part of partsOf(message)) expect(part.startsWith(LEFT_OUT_INTRO)).toBe(false);
		// What Pi's context held right after each compaction, as the ledger measures it (its summary and kept span).
		const header = readJsonl(out.sessionFile)[0];
		const state = foldLedger(emptyLedger(header.cwd), eventsFromBranch(entries).events);
		const blocks: Block[] = [...state.closed.flatMap((s) => s.blocks), ...state.open];
		const rooms = blocks
			.filter((b) => b.kind === "compaction")
			.map((b) => Math.floor(COMPACTION_SHARE * tokensForChars(b.contextChars)));
		expect(rooms).toHaveLength(2);
		// The log each request carried up to each compaction's block, part by part (the appendix and
		// the instruction are no part of the log).
		const logTokens = (body: any, upTo: string): number => {
			let tokens = 0;
			for (const message of body.messages.slice(2))
				for (const part of partsOf(message)) {
					if (part !== LOG_OPEN) tokens += tokensForChars(part.length);
					if (part === upTo) return tokens;
				}
			throw new Error("no such part");
		};
		expect(logTokens(requests[0], horizonPart(0))).toBeLessThan(rooms[0]!);
		expect(logTokens(requests[1], horizonPart(1))).toBeLessThan(rooms[1]!);
		expect(logTokens(requests[1], horizonPart(1))).toBeLessThan(DEFAULT_LEDGER_CONFIG.logTargetTokens);
	});
});
