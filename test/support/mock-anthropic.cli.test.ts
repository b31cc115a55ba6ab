/**
 * The real `pi` CLI of each host in print mode with its model on a models.json provider whose
 * `api` is `anthropic-messages`, pointed at the mock Anthropic server: one prompt, one tool round.
 * Pins where pi-ai puts its own cache_control marks on that route (the last tool, the system
 * prompt, the last block of the last user message) and that the mock's caching rules apply to what
 * a real host sends: the second request reads the first request's whole prefix.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
	API_KEY,
	createSandbox,
	describeEachHost,
	EXECUTOR_MODEL,
	type ProcessResult,
	printArgs,
	runPi,
	type Sandbox,
} from "./hosts.ts";
import {
	type AnthropicRequestBody,
	type MockAnthropic,
	replyText,
	replyToolUse,
	startMockAnthropic,
} from "./mock-anthropic.ts";

const FILE = "hello.txt";
const FILE_TEXT = "Hello from the sandbox.";
const FINAL = "The file says hello.";

/** Read the file, then answer once the tool result is back. */
function route(body: AnthropicRequestBody) {
	const last = body.messages.at(-1)!.content;
	const answered = Array.isArray(last) && last.some((block) => block.type === "tool_result");
	return answered ? replyText(FINAL) : replyToolUse({ id: "toolu_read_1", name: "read", input: { path: FILE } });
}

describeEachHost("pi --print on anthropic-messages against the mock Anthropic server", (host) => {
	let server: MockAnthropic;
	let sandbox: Sandbox;
	let result: ProcessResult;

	beforeAll(async () => {
		server = await startMockAnthropic(route, { apiKey: API_KEY });
		sandbox = createSandbox(server.baseUrl);
		writeFileSync(
			join(sandbox.agentDir, "models.json"),
			JSON.stringify({
				providers: {
					mock: {
						baseUrl: server.baseUrl,
						api: "anthropic-messages",
						apiKey: API_KEY,
						models: [{ id: EXECUTOR_MODEL, name: "Mock Claude", contextWindow: 200000, maxTokens: 4096 }],
					},
				},
			}),
		);
		writeFileSync(join(sandbox.project, FILE), FILE_TEXT);
		result = await runPi(host, printArgs(sandbox, `Read ${FILE} and tell me what it says.`), sandbox);
	}, 120_000);

	afterAll(async () => {
		await server?.close();
		sandbox?.dispose();
	});

	it("exits 0 with the scripted answer after one tool round", () => {
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		expect(result.stdout.trim()).toBe(FINAL);
		expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
		const toolResult = server.requests[1]!.body!.messages.at(-1)!.content;
		expect(JSON.stringify(toolResult)).toContain(FILE_TEXT);
	});

	it("pi-ai marks the last tool, the system prompt and the last block of the last user message", () => {
		for (const request of server.requests) {
			const tools = request.body!.tools!;
			expect(tools.map((t) => t.name)).toContain("read");
			const messages = request.body!.messages;
			const lastMessage = messages.at(-1)!;
			const lastPath = `messages.${messages.length - 1}.content.${(lastMessage.content as unknown[]).length - 1}`;
			expect(request.breakpoints.map((i) => request.blocks[i]!.path)).toEqual([
				`tools.${tools.length - 1}`,
				"system.0",
				lastPath,
			]);
			expect(request.blocks.filter((b) => b.ttl !== undefined).map((b) => b.ttl)).toEqual(["5m", "5m", "5m"]);
		}
		expect(server.requests[1]!.blocks.at(-1)!.kind).toBe("tool_result");
	});

	it("the second request reads the whole first prompt and writes only the tool round", () => {
		const [first, second] = server.requests;
		const firstTotal = first!.blocks.at(-1)!.end;
		// Pi's system prompt and tools are over the 1024-token minimum under the chars/4 count.
		expect(first!.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: firstTotal });
		expect(second!.cache!.read).toEqual({ block: first!.blocks.length - 1, tokens: firstTotal });
		expect(second!.usage).toMatchObject({
			cache_read_input_tokens: firstTotal,
			cache_creation_input_tokens: second!.blocks.at(-1)!.end - firstTotal,
			input_tokens: 0,
		});
	});
});
