/**
 * The prompt cache on Anthropic's real rules, end to end: the real `pi` CLI of each host in print
 * mode, the executor scripted on a mock OpenAI-compatible server, the advisor on the mock Anthropic
 * Messages server (test/support/mock-anthropic.ts), which reads a cached prefix only from a
 * breakpoint at most 20 blocks after it and rejects a request with more than four marks.
 *
 * Three consultations, 30 tool rounds apart (each round a card and a prose block in the log, so far
 * more than 20 blocks lie between one consultation's stable end and the next one's), all within the
 * cache's five minutes: the second and the third must read from the cache at least the whole stable
 * portion of the request before them, what a token-prefix cache would give (docs/request-format.md §7).
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { APPENDIX_HEADER } from "../../../src/render/index.ts";
import {
	ADVISOR_MODEL,
	API_KEY,
	createSandbox,
	describeEachHost,
	EXECUTOR_MODEL,
	EXTENSION_ENTRY,
	type ProcessResult,
	printArgs,
	readJsonl,
	runPi,
	type Sandbox,
} from "../../support/hosts.ts";
import {
	MAX_BREAKPOINTS,
	type MockAnthropic,
	type MockAnthropicRequest,
	replyText,
	startMockAnthropic,
} from "../../support/mock-anthropic.ts";
import { type MockReply, type MockServer, startMockOpenAI } from "../../support/mock-openai.ts";

const ROUNDS_APART = 30;
const CONSULTATIONS = 3;
const FILE = "notes.txt";
const ADVICE = "Severity: none\nKeep going.";
const FINAL = "All three parts are checked.";

/** Tool rounds so far in the executor's conversation (advisor calls included). */
function roundsSoFar(body: any): number {
	return body.messages.filter((m: any) => m.role === "tool").length;
}

/**
 * 30 reads, each with a sentence of prose, then advisor(); three times; then the final answer.
 * Round r (0-based) is an advisor call when r + 1 is a multiple of 31.
 */
function executor(body: any): MockReply {
	const r = roundsSoFar(body);
	if (r >= CONSULTATIONS * (ROUNDS_APART + 1)) return { kind: "text", text: FINAL };
	if ((r + 1) % (ROUNDS_APART + 1) === 0) {
		const k = (r + 1) / (ROUNDS_APART + 1);
		return {
			kind: "toolCall",
			text: `Part ${k} is read. Is my reading right?`,
			id: `call_adv_${k}`,
			name: "advisor",
			arguments: "{}",
		};
	}
	return {
		kind: "toolCall",
		text: `Round ${r}: reading ${FILE} again to compare section ${r} with the plan, since the earlier pass left the ordering of the steps unclear and the next edit depends on it.`,
		id: `call_read_${r}`,
		name: "read",
		arguments: JSON.stringify({ path: FILE }),
	};
}

/** The prompt tokens (mock count) of a request up to the end of its stable portion: the block before the appendix. */
function stableTokens(request: MockAnthropicRequest): number {
	const messages = request.body!.messages;
	const m = messages.length - 1;
	const content = messages[m]!.content as { type: string; text?: string }[];
	const appendix = content.findIndex((b) => b.type === "text" && b.text!.startsWith(APPENDIX_HEADER));
	expect(appendix).toBeGreaterThan(0);
	const block = request.blocks.find((b) => b.path === `messages.${m}.content.${appendix - 1}`);
	expect(block).toBeDefined();
	return block!.end;
}

/** An Anthropic OAuth token: pi-ai then marks both of its system blocks, four marks of its own. */
const OAUTH_KEY = "sk-ant-oat01-test";

for (const [label, advisorKey] of [
	["an API key", API_KEY],
	["an OAuth token", OAUTH_KEY],
] as const)
	describeEachHost(
		`three consultations 30 tool rounds apart, advisor on the mock Anthropic server with ${label}`,
		(host) => {
			let openai: MockServer;
			let anthropic: MockAnthropic;
			let sandbox: Sandbox;
			let result: ProcessResult;

			beforeAll(async () => {
				openai = await startMockOpenAI(executor);
				anthropic = await startMockAnthropic(() => replyText(ADVICE), { apiKey: advisorKey });
				sandbox = createSandbox(openai.baseUrl, { modelKey: `claude/${ADVISOR_MODEL}` });
				writeFileSync(
					join(sandbox.agentDir, "models.json"),
					JSON.stringify({
						providers: {
							mock: {
								baseUrl: openai.baseUrl,
								api: "openai-completions",
								apiKey: API_KEY,
								compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
								models: [{ id: EXECUTOR_MODEL, name: "Mock Executor", contextWindow: 200000, maxTokens: 1024 }],
							},
							claude: {
								baseUrl: anthropic.baseUrl,
								api: "anthropic-messages",
								apiKey: advisorKey,
								models: [{ id: ADVISOR_MODEL, name: "Mock Claude", contextWindow: 200000, maxTokens: 4096 }],
							},
						},
					}),
				);
				writeFileSync(join(sandbox.project, FILE), "Step one.\nStep two.\nStep three.\n".repeat(20));
				result = await runPi(
					host,
					printArgs(sandbox, "Check the notes in three parts.", ["-e", EXTENSION_ENTRY]),
					sandbox,
				);
			}, 300_000);

			afterAll(async () => {
				await openai?.close();
				await anthropic?.close();
				sandbox?.dispose();
			});

			it("runs the three consultations and answers", () => {
				expect(result.stderr).toBe("");
				expect(result.code).toBe(0);
				expect(result.stdout.trim()).toBe(FINAL);
				expect(anthropic.requests.map((r) => r.status)).toEqual([200, 200, 200]);
				const entries = readJsonl(sandbox.sessionFiles()[0]!);
				const advice = entries.filter((e) => e.type === "message" && e.message.toolName === "advisor");
				expect(advice.map((e) => e.message.content[0].text)).toEqual([ADVICE, ADVICE, ADVICE]);
			});

			it("no request carries more than four marks; the later ones bridge to the previous stable end", () => {
				const ends = anthropic.requests.map((r) => r.breakpoints.map((i) => r.blocks[i]!.end));
				for (const request of anthropic.requests)
					expect(request.breakpoints.length).toBeLessThanOrEqual(MAX_BREAKPOINTS);
				const stable = anthropic.requests.map(stableTokens);
				// The first: pi-ai's (last tool, system — both blocks with OAuth —, last block) and the stable end,
				// pi-ai's earliest giving way beyond four.
				expect(ends[0]).toHaveLength(4);
				expect(ends[0]).toContain(stable[0]);
				if (advisorKey === OAUTH_KEY) expect(anthropic.requests[0]!.body!.system).toHaveLength(2);
				// Then the bridge: the last tool's mark gives way (a system block's, a block or two later, covers it).
				for (const k of [1, 2]) {
					expect(ends[k]).toHaveLength(4);
					expect(ends[k]).toContain(stable[k - 1]);
					expect(ends[k]).toContain(stable[k]);
					const request = anthropic.requests[k]!;
					const lastTool = `tools.${request.body!.tools!.length - 1}`;
					expect(request.breakpoints.map((i) => request.blocks[i]!.path)).not.toContain(lastTool);
				}
			});

			it("more than 20 blocks lie between one consultation's stable end and the next one's", () => {
				const [first, second] = anthropic.requests;
				const end = (r: MockAnthropicRequest) => r.blocks.findIndex((b) => b.end === stableTokens(r));
				expect(end(second!) - end(first!)).toBeGreaterThan(20);
			});

			it("the second and third consultations read at least the previous one's whole stable portion", () => {
				const reads = anthropic.requests.map((r) => r.usage!.cache_read_input_tokens);
				const stable = anthropic.requests.map(stableTokens);
				expect(reads[0]).toBe(0);
				for (const k of [1, 2]) {
					expect(reads[k], `consultation ${k + 1}`).toBeGreaterThanOrEqual(stable[k - 1]!);
				}
			});
		},
	);
