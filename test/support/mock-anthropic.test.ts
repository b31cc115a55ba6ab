/**
 * The mock Anthropic server's caching rules, pinned one by one: through pi-ai's real
 * `anthropic-messages` provider (the Anthropic SDK underneath) where pi-ai can express the request,
 * and raw fetch where it cannot (5 marks, marks in the middle, mixed TTLs, non-stream JSON).
 * Token counts are chars / 4 per block, so every text below is built to an exact token count.
 */

import {
	type AssistantMessage,
	type AssistantMessageEvent,
	type Context,
	complete,
	getModel,
	type Message,
	type Model,
	stream,
	type Tool,
} from "@mariozechner/pi-ai";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
	type AnthropicReply,
	type AnthropicRequestBody,
	FIVE_MINUTES_MS,
	internalError,
	LOOKBACK_BLOCKS,
	type MockAnthropic,
	manualClock,
	ONE_HOUR_MS,
	overloadedError,
	planCache,
	promptBlocks,
	replyText,
	replyToolUse,
	startMockAnthropic,
	usageOf,
} from "./mock-anthropic.ts";

const KEY = "sk-test";
const SONNET = "claude-sonnet-4-5";

/** Exactly `tokens` tokens (4 chars each) of text, starting with `tag` so prompts differ. */
function filler(tokens: number, tag: string): string {
	return `${tag} `.padEnd(tokens * 4, "abcd ");
}

const modelAt = (mock: MockAnthropic, id = SONNET): Model<"anthropic-messages"> => ({
	...(getModel("anthropic", SONNET) as Model<"anthropic-messages">),
	id,
	baseUrl: mock.baseUrl,
});

const user = (text: string): Message => ({ role: "user", content: text, timestamp: 0 });

const ZERO_USAGE = {
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 0,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

const assistant = (text: string): AssistantMessage => ({
	role: "assistant",
	content: [{ type: "text", text }],
	api: "anthropic-messages",
	provider: "anthropic",
	model: SONNET,
	usage: ZERO_USAGE,
	stopReason: "stop",
	timestamp: 0,
});

let mocks: MockAnthropic[] = [];

async function mock(
	route: (body: AnthropicRequestBody, index: number) => AnthropicReply = () => replyText("ok"),
	options: Parameters<typeof startMockAnthropic>[1] = {},
): Promise<MockAnthropic> {
	const m = await startMockAnthropic(route, options);
	mocks.push(m);
	return m;
}

afterEach(async () => {
	await Promise.all(mocks.map((m) => m.close()));
	mocks = [];
});

const ask = (m: MockAnthropic, context: Context, options: Parameters<typeof complete>[2] = {}, id = SONNET) =>
	complete(modelAt(m, id), context, { apiKey: KEY, ...options });

/** usage as the mock logged it for request `i`: read / creation / input. */
const usageAt = (m: MockAnthropic, i: number) => {
	const u = m.requests[i]!.usage!;
	return { read: u.cache_read_input_tokens, creation: u.cache_creation_input_tokens, input: u.input_tokens };
};

async function post(m: MockAnthropic, body: Record<string, unknown>, headers: Record<string, string> = {}) {
	const res = await fetch(`${m.baseUrl}/v1/messages`, {
		method: "POST",
		headers: { "content-type": "application/json", "x-api-key": KEY, "anthropic-version": "2023-06-01", ...headers },
		body: JSON.stringify({ model: SONNET, max_tokens: 64, ...body }),
	});
	return { status: res.status, headers: res.headers, text: await res.text() };
}

const mark = { type: "ephemeral" } as const;
const markHour = { type: "ephemeral", ttl: "1h" } as const;
const text = (t: string, cache_control?: unknown) => ({
	type: "text",
	text: t,
	...(cache_control ? { cache_control } : {}),
});

/** A tool whose name + description + `{"type":"object"}` is exactly `tokens` tokens. */
function tool(name: string, tokens: number, cache_control?: unknown) {
	const schema = { type: "object" };
	const description = "d".repeat(tokens * 4 - name.length - JSON.stringify(schema).length);
	return { name, description, input_schema: schema, ...(cache_control ? { cache_control } : {}) };
}

// ---------------------------------------------------------------------------------------------

describe("pi-ai's anthropic-messages provider against the mock", () => {
	const SYSTEM = filler(1500, "system");
	const QUESTION = filler(100, "question");

	it("sends what Anthropic expects: /v1/messages, its key and version, stream, and marks on system and the last user block", async () => {
		const m = await mock();
		const reply = await ask(m, { systemPrompt: SYSTEM, messages: [user(QUESTION)] });
		expect(reply.stopReason).toBe("stop");
		const [request] = m.requests;
		expect(request!.url).toBe("/v1/messages");
		expect(request!.headers["x-api-key"]).toBe(KEY);
		expect(request!.headers["anthropic-version"]).toBe("2023-06-01");
		expect(request!.body!.stream).toBe(true);
		expect(request!.blocks.map((b) => [b.path, b.tokens, b.ttl])).toEqual([
			["system.0", 1500, "5m"],
			["messages.0.content.0", 100, "5m"],
		]);
		expect(request!.breakpoints).toEqual([0, 1]);
	});

	it("a first request writes its prefix at each breakpoint; the same request again reads all of it", async () => {
		const m = await mock();
		const context: Context = { systemPrompt: SYSTEM, messages: [user(QUESTION)] };
		const first = await ask(m, context);
		expect(m.requests[0]!.cache).toEqual({
			writes: [
				{ block: 0, tokens: 1500, ttl: "5m" },
				{ block: 1, tokens: 1600, ttl: "5m" },
			],
			belowMinimum: [],
		});
		expect(usageAt(m, 0)).toEqual({ read: 0, creation: 1600, input: 0 });
		// pi-ai's mapping: cache_creation → cacheWrite, cache_read → cacheRead, input_tokens → input.
		expect(first.usage).toMatchObject({ input: 0, cacheRead: 0, cacheWrite: 1600, output: 1, totalTokens: 1601 });

		const second = await ask(m, context);
		expect(m.requests[1]!.cache).toEqual({ read: { block: 1, tokens: 1600 }, writes: [], belowMinimum: [] });
		expect(second.usage).toMatchObject({ input: 0, cacheRead: 1600, cacheWrite: 0, output: 1, totalTokens: 1601 });
		expect(m.cacheEntries().map((e) => [e.blocks, e.tokens, e.ttl])).toEqual([
			[1, 1500, "5m"],
			[2, 1600, "5m"],
		]);
	});

	it("the next turn reads the previous turn's prefix and writes only the new blocks (Anthropic's multi-turn example)", async () => {
		const m = await mock();
		await ask(m, { systemPrompt: SYSTEM, messages: [user(QUESTION)] });
		const answer = filler(300, "answer");
		const followUp = filler(40, "follow-up");
		const next = await ask(m, {
			systemPrompt: SYSTEM,
			messages: [user(QUESTION), assistant(answer), user(followUp)],
		});
		expect(m.requests[1]!.breakpoints).toEqual([0, 3]);
		expect(m.requests[1]!.cache).toEqual({
			read: { block: 1, tokens: 1600 },
			writes: [{ block: 3, tokens: 1940, ttl: "5m" }],
			belowMinimum: [],
		});
		expect(next.usage).toMatchObject({ input: 0, cacheRead: 1600, cacheWrite: 340 });
	});

	it("a prefix under the minimum is not written, so the same request reads nothing", async () => {
		const m = await mock();
		const context: Context = { systemPrompt: filler(500, "short"), messages: [user(filler(100, "q"))] };
		await ask(m, context);
		const again = await ask(m, context);
		for (const i of [0, 1]) {
			expect(m.requests[i]!.cache).toEqual({ writes: [], belowMinimum: [0, 1] });
			expect(usageAt(m, i)).toEqual({ read: 0, creation: 0, input: 600 });
		}
		expect(again.usage).toMatchObject({ input: 600, cacheRead: 0, cacheWrite: 0 });
		expect(m.cacheEntries()).toEqual([]);
	});

	it("the minimum is per model (Haiku 2048) and the model is part of the prefix", async () => {
		const m = await mock(undefined, { minCacheableTokens: (model) => (model.includes("haiku") ? 2048 : 1024) });
		const context: Context = { systemPrompt: SYSTEM, messages: [user(QUESTION)] };
		await ask(m, context, {}, "claude-haiku-mock");
		expect(usageAt(m, 0)).toEqual({ read: 0, creation: 0, input: 1600 });
		await ask(m, context, {}, SONNET);
		expect(usageAt(m, 1)).toEqual({ read: 0, creation: 1600, input: 0 });
		// The same prompt to another model finds nothing of Sonnet's entries.
		await ask(m, context, {}, "claude-opus-4-1");
		expect(usageAt(m, 2)).toEqual({ read: 0, creation: 1600, input: 0 });
		await ask(m, context, {}, SONNET);
		expect(usageAt(m, 3)).toEqual({ read: 1600, creation: 0, input: 0 });
	});

	describe("the 20-block lookback", () => {
		// A system prompt under the minimum (never written on its own) and a first user message that
		// brings the prefix over it: the only entry after request 1 ends at block 1 (1050 tokens).
		const SHORT_SYSTEM = filler(50, "sys");
		const FIRST = filler(1000, "first");
		const grown = (k: number): Message[] => [
			user(FIRST),
			...Array.from({ length: k }, (_, i) => user(filler(10, `m${i}`))),
		];

		it.each([
			[20, { read: 1050, creation: 200, input: 0 }],
			[21, { read: 0, creation: 1260, input: 0 }],
		])("a breakpoint %i blocks after the previous one → %o", async (k, expected) => {
			const m = await mock();
			await ask(m, { systemPrompt: SHORT_SYSTEM, messages: [user(FIRST)] });
			expect(m.requests[0]!.cache).toEqual({ writes: [{ block: 1, tokens: 1050, ttl: "5m" }], belowMinimum: [0] });
			await ask(m, { systemPrompt: SHORT_SYSTEM, messages: grown(k) });
			expect(m.requests[1]!.breakpoints).toEqual([0, 1 + k]);
			expect(usageAt(m, 1)).toEqual(expected);
		});

		it("a bridge mark on the previous breakpoint's block (added in onPayload) reads it from 21+ blocks away", async () => {
			const m = await mock();
			await ask(m, { systemPrompt: SHORT_SYSTEM, messages: [user(FIRST)] });
			await ask(
				m,
				{ systemPrompt: SHORT_SYSTEM, messages: grown(40) },
				{
					onPayload: (payload) => {
						const params = payload as AnthropicRequestBody;
						params.messages[0]!.content = [text(FIRST, mark)];
						return undefined;
					},
				},
			);
			expect(m.requests[1]!.breakpoints).toEqual([0, 1, 41]);
			expect(m.requests[1]!.cache).toEqual({
				read: { block: 1, tokens: 1050 },
				writes: [{ block: 41, tokens: 1450, ttl: "5m" }],
				belowMinimum: [],
			});
		});
	});

	it("a fifth mark is a 400 that pi-ai reports as an error, and nothing is cached", async () => {
		const m = await mock();
		const tools: Tool[] = [
			{
				name: "read",
				description: "Read a file",
				parameters: { type: "object", properties: {} } as Tool["parameters"],
			},
		];
		const reply = await ask(
			m,
			{ systemPrompt: SYSTEM, tools, messages: [user("a"), user("b"), user("c")] },
			{
				onPayload: (payload) => {
					const params = payload as AnthropicRequestBody;
					params.messages[0]!.content = [text("a", mark)];
					params.messages[1]!.content = [text("b", mark)];
					return undefined;
				},
			},
		);
		expect(reply.stopReason).toBe("error");
		expect(reply.errorMessage).toContain("A maximum of 4 blocks with cache_control may be provided. Found 5.");
		expect(m.requests).toHaveLength(1);
		expect(m.requests[0]!.status).toBe(400);
		expect(m.cacheEntries()).toEqual([]);
	});

	describe("TTL (the mock's clock)", () => {
		const context: Context = { systemPrompt: SYSTEM, messages: [user(QUESTION)] };

		it.each([
			[FIVE_MINUTES_MS - 1, 1600],
			[FIVE_MINUTES_MS, 0],
		])("5m entries: %i ms later the read is %i tokens", async (later, read) => {
			const clock = manualClock(1_000);
			const m = await mock(undefined, { now: clock.now });
			await ask(m, context);
			clock.advance(later);
			await ask(m, context);
			expect(usageAt(m, 1)).toEqual({ read, creation: 1600 - read, input: 0 });
		});

		it("a read refreshes the entry: 4 + 4 minutes after the write it is still read", async () => {
			const clock = manualClock();
			const m = await mock(undefined, { now: clock.now });
			await ask(m, context);
			clock.advance(4 * 60_000);
			await ask(m, context);
			clock.advance(4 * 60_000);
			await ask(m, context);
			expect([1, 2].map((i) => usageAt(m, i).read)).toEqual([1600, 1600]);
			// Only the entry that was read is refreshed; the system prompt's own entry (5 minutes after
			// the write) is gone.
			expect(m.cacheEntries().map((e) => [e.blocks, e.writtenAt, e.expiresAt])).toEqual([
				[2, 0, 8 * 60_000 + FIVE_MINUTES_MS],
			]);
		});

		it("cacheRetention 'long' marks ttl 1h: alive at 59 minutes, gone an hour after the last read", async () => {
			const clock = manualClock();
			const m = await mock(undefined, { now: clock.now });
			const first = await ask(m, context, { cacheRetention: "long" });
			expect(m.requests[0]!.blocks.map((b) => b.ttl)).toEqual(["1h", "1h"]);
			expect(m.requests[0]!.usage!.cache_creation).toEqual({
				ephemeral_5m_input_tokens: 0,
				ephemeral_1h_input_tokens: 1600,
			});
			expect(first.usage.cacheWrite).toBe(1600);
			clock.advance(59 * 60_000);
			await ask(m, context, { cacheRetention: "long" });
			expect(usageAt(m, 1).read).toBe(1600);
			clock.advance(ONE_HOUR_MS);
			await ask(m, context, { cacheRetention: "long" });
			expect(usageAt(m, 2)).toEqual({ read: 0, creation: 1600, input: 0 });
		});

		it("six minutes: a 5m entry is gone, a 1h entry is read", async () => {
			const clock = manualClock();
			const m = await mock(undefined, { now: clock.now });
			await ask(m, context, { cacheRetention: "short" });
			await ask(m, { ...context, systemPrompt: filler(1500, "other") }, { cacheRetention: "long" });
			clock.advance(6 * 60_000);
			await ask(m, context, { cacheRetention: "short" });
			await ask(m, { ...context, systemPrompt: filler(1500, "other") }, { cacheRetention: "long" });
			expect([usageAt(m, 2).read, usageAt(m, 3).read]).toEqual([0, 1600]);
		});
	});

	describe("streaming, as pi-ai parses it", () => {
		it("text, then a tool_use whose input streams as input_json_delta → text + toolCall, stopReason toolUse", async () => {
			const input = { path: "src/some/rather/long/path/to/a/file.ts", offset: 10, limit: 200 };
			const m = await mock(() => replyToolUse({ id: "toolu_01", name: "read", input }, "Let me look at it."));
			const reply = await ask(m, { systemPrompt: SYSTEM, messages: [user(QUESTION)] });
			expect(reply.stopReason).toBe("toolUse");
			expect(reply.content).toEqual([
				{ type: "text", text: "Let me look at it." },
				{ type: "toolCall", id: "toolu_01", name: "read", arguments: input },
			]);
			const output = Math.ceil(("Let me look at it.".length + "read".length + JSON.stringify(input).length) / 4);
			expect(reply.usage).toMatchObject({ input: 0, output, cacheRead: 0, cacheWrite: 1600 });
			expect(m.requests[0]!.usage!.output_tokens).toBe(output);
		});

		it("thinking with its signature, then text; the text arrives in several deltas", async () => {
			const long = "The answer, at some length, so that it streams in more than one piece.";
			const m = await mock(() => ({
				kind: "message",
				content: [
					{ type: "thinking", thinking: "Consider the question first.", signature: "sig-123" },
					{ type: "text", text: long },
				],
				outputTokens: 42,
			}));
			const events: AssistantMessageEvent[] = [];
			const s = stream(modelAt(m), { systemPrompt: SYSTEM, messages: [user(QUESTION)] }, { apiKey: KEY });
			for await (const event of s) events.push(event);
			const done = await s.result();
			expect(done.content).toEqual([
				{ type: "thinking", thinking: "Consider the question first.", thinkingSignature: "sig-123" },
				{ type: "text", text: long },
			]);
			expect(done.stopReason).toBe("stop");
			expect(done.usage).toMatchObject({ output: 42, cacheWrite: 1600 });
			expect(events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(1);
			expect(events.map((e) => e.type).filter((t) => !t.endsWith("_delta"))).toEqual([
				"start",
				"thinking_start",
				"thinking_end",
				"text_start",
				"text_end",
				"done",
			]);
		});

		it("max_tokens is passed through as pi-ai's 'length'", async () => {
			const m = await mock(() => ({
				kind: "message",
				content: [{ type: "text", text: "cut" }],
				stopReason: "max_tokens",
			}));
			const reply = await ask(m, { messages: [user("hi")] });
			expect(reply.stopReason).toBe("length");
		});
	});

	describe("injected errors", () => {
		it("529 overloaded, then success: the SDK retries; the failed attempt wrote nothing", async () => {
			const m = await mock((_body, i) => (i === 0 ? overloadedError() : replyText("ok")));
			const reply = await ask(m, { systemPrompt: SYSTEM, messages: [user(QUESTION)] });
			expect(reply.stopReason).toBe("stop");
			expect(m.requests.map((r) => r.status)).toEqual([529, 200]);
			expect(m.requests[0]!.error).toEqual({ type: "overloaded_error", message: "Overloaded" });
			expect(usageAt(m, 1)).toEqual({ read: 0, creation: 1600, input: 0 });
		});

		it("maxRetries 0: the 529 is pi-ai's error", async () => {
			const m = await mock(() => overloadedError());
			const reply = await ask(m, { messages: [user("hi")] }, { maxRetries: 0 });
			expect(reply.stopReason).toBe("error");
			expect(reply.errorMessage).toContain("Overloaded");
			expect(m.requests).toHaveLength(1);
		});

		it("500 with x-should-retry: false is not retried", async () => {
			const m = await mock(() => internalError({ retry: false }));
			const reply = await ask(m, { messages: [user("hi")] });
			expect(reply.stopReason).toBe("error");
			expect(reply.errorMessage).toContain("Internal server error");
			expect(m.requests.map((r) => r.status)).toEqual([500]);
		});
	});
});

// ---------------------------------------------------------------------------------------------

describe("raw requests (what pi-ai cannot send)", () => {
	it("5 marks: HTTP 400 with Anthropic's error body", async () => {
		const m = await mock();
		const res = await post(m, {
			system: [text("s", mark)],
			messages: [{ role: "user", content: ["a", "b", "c", "d"].map((t) => text(t, mark)) }],
		});
		expect(res.status).toBe(400);
		expect(JSON.parse(res.text)).toEqual({
			type: "error",
			error: {
				type: "invalid_request_error",
				message: "A maximum of 4 blocks with cache_control may be provided. Found 5.",
			},
			request_id: res.headers.get("request-id"),
		});
		expect(m.requests[0]!.error!.type).toBe("invalid_request_error");
	});

	it("4 marks are accepted", async () => {
		const m = await mock();
		const res = await post(m, {
			messages: [{ role: "user", content: ["a", "b", "c", "d"].map((t) => text(t, mark)) }],
		});
		expect(res.status).toBe(200);
		expect(m.requests[0]!.breakpoints).toEqual([0, 1, 2, 3]);
	});

	it("a 1h mark after a 5m mark is a 400 naming the block", async () => {
		const m = await mock();
		const res = await post(m, {
			system: [text(filler(10, "s"), mark)],
			messages: [{ role: "user", content: [text("q", markHour)] }],
		});
		expect(res.status).toBe(400);
		expect(JSON.parse(res.text).error.message).toBe(
			"messages.0.content.0.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: `tools`, `system`, `messages`.",
		);
	});

	it("cache_control on an empty text block is a 400", async () => {
		const m = await mock();
		const res = await post(m, { messages: [{ role: "user", content: [text("q"), text("", mark)] }] });
		expect(res.status).toBe(400);
		expect(JSON.parse(res.text).error.message).toBe(
			"messages.0.content.1.text: cache_control cannot be set for empty text blocks",
		);
	});

	it("a request without anthropic-version or a key is refused as Anthropic refuses it", async () => {
		const m = await mock(undefined, { apiKey: KEY });
		const res = await fetch(`${m.baseUrl}/v1/messages`, {
			method: "POST",
			headers: { "content-type": "application/json", "x-api-key": KEY },
			body: JSON.stringify({ model: SONNET, max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
		});
		expect(res.status).toBe(400);
		expect(JSON.parse(await res.text()).error.message).toBe("anthropic-version: header is required");
		const wrongKey = await post(m, { messages: [{ role: "user", content: "hi" }] }, { "x-api-key": "sk-other" });
		expect(wrongKey.status).toBe(401);
		expect(JSON.parse(wrongKey.text).error).toEqual({ type: "authentication_error", message: "invalid x-api-key" });
	});

	describe("usage: read + creation + input = the prompt, split by TTL", () => {
		// Blocks: 0 tool 300 (1h, under the minimum), 1 system 800 (1h), 2 user 200 (5m), 3 user 150,
		// 4 assistant 100, 5 user 50. Ends: 300, 1100, 1300, 1450, 1550, 1600.
		const body = (lastMark: "block2" | "block5") => ({
			tools: [tool("tool_a", 300, markHour)],
			system: [text(filler(800, "system"), markHour)],
			messages: [
				{
					role: "user",
					content: [text(filler(200, "u0"), lastMark === "block2" ? mark : undefined), text(filler(150, "u1"))],
				},
				{ role: "assistant", content: [text(filler(100, "a0"))] },
				{ role: "user", content: [text(filler(50, "u2"), lastMark === "block5" ? mark : undefined)] },
			],
		});

		it("first request: no read, 1h writes up to the system prompt, 5m after it, the tail is input", async () => {
			const m = await mock();
			const res = await post(m, body("block2"));
			expect(res.status).toBe(200);
			const json = JSON.parse(res.text);
			expect(json.usage).toEqual({
				input_tokens: 300,
				cache_creation_input_tokens: 1300,
				cache_read_input_tokens: 0,
				cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 1100 },
				output_tokens: 1,
				service_tier: "standard",
			});
			expect(m.requests[0]!.blocks.map((b) => [b.path, b.end])).toEqual([
				["tools.0", 300],
				["system.0", 1100],
				["messages.0.content.0", 1300],
				["messages.0.content.1", 1450],
				["messages.1.content.0", 1550],
				["messages.2.content.0", 1600],
			]);
			expect(m.requests[0]!.cache).toEqual({
				writes: [
					{ block: 1, tokens: 1100, ttl: "1h" },
					{ block: 2, tokens: 1300, ttl: "5m" },
				],
				belowMinimum: [0],
			});
		});

		it("again: the longest entry is read; moving the last mark to the end writes only the difference", async () => {
			const m = await mock();
			await post(m, body("block2"));
			await post(m, body("block2"));
			expect(usageAt(m, 1)).toEqual({ read: 1300, creation: 0, input: 300 });
			await post(m, body("block5"));
			expect(usageAt(m, 2)).toEqual({ read: 1300, creation: 300, input: 0 });
			expect(m.requests[2]!.usage!.cache_creation).toEqual({
				ephemeral_5m_input_tokens: 300,
				ephemeral_1h_input_tokens: 0,
			});
		});
	});

	it("non-stream: one JSON message with the content and usage", async () => {
		const m = await mock(() => replyToolUse({ id: "toolu_9", name: "grep", input: { pattern: "x" } }, "Searching."));
		const res = await post(m, { stream: false, messages: [{ role: "user", content: "find x" }] });
		expect(res.headers.get("content-type")).toBe("application/json");
		expect(JSON.parse(res.text)).toEqual({
			id: "msg_mock_1",
			type: "message",
			role: "assistant",
			model: SONNET,
			content: [
				{ type: "text", text: "Searching." },
				{ type: "tool_use", id: "toolu_9", name: "grep", input: { pattern: "x" } },
			],
			stop_reason: "tool_use",
			stop_sequence: null,
			usage: {
				input_tokens: 2,
				cache_creation_input_tokens: 0,
				cache_read_input_tokens: 0,
				cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
				output_tokens: Math.ceil(("Searching.".length + "grep".length + '{"pattern":"x"}'.length) / 4),
				service_tier: "standard",
			},
		});
	});

	it("stream: Anthropic's event sequence, usage in message_start and cumulative in message_delta", async () => {
		const m = await mock(() => replyText("hi"));
		const res = await post(m, {
			stream: true,
			system: [text(filler(1100, "s"), mark)],
			messages: [{ role: "user", content: "q" }],
		});
		expect(res.headers.get("content-type")).toBe("text/event-stream");
		const events = res.text
			.trim()
			.split("\n\n")
			.map((chunk) => {
				const [event, data] = chunk.split("\n");
				return { event: event!.replace("event: ", ""), data: JSON.parse(data!.replace("data: ", "")) };
			});
		expect(events.map((e) => e.event)).toEqual([
			"message_start",
			"ping",
			"content_block_start",
			"content_block_delta",
			"content_block_stop",
			"message_delta",
			"message_stop",
		]);
		for (const e of events) expect(e.data.type).toBe(e.event);
		expect(events[0]!.data.message.usage).toEqual({
			input_tokens: 1,
			cache_creation_input_tokens: 1100,
			cache_read_input_tokens: 0,
			cache_creation: { ephemeral_5m_input_tokens: 1100, ephemeral_1h_input_tokens: 0 },
			output_tokens: 1,
			service_tier: "standard",
		});
		expect(events[5]!.data).toEqual({
			type: "message_delta",
			delta: { stop_reason: "end_turn", stop_sequence: null },
			usage: { input_tokens: 1, cache_creation_input_tokens: 1100, cache_read_input_tokens: 0, output_tokens: 1 },
		});
	});

	it("the longest hit over all breakpoints wins, and a changed block cuts every prefix after it", async () => {
		const m = await mock();
		const blocks = (changedAt?: number) =>
			Array.from({ length: 40 }, (_, i) => filler(60, i === changedAt ? `changed${i}` : `b${i}`));
		const request = (contents: string[], marks: number[]) => ({
			messages: [{ role: "user", content: contents.map((t, i) => text(t, marks.includes(i) ? mark : undefined)) }],
		});
		await post(m, request(blocks(), [19, 30])); // entries at 19 (1200 tokens) and 30 (1860)
		expect(m.requests[0]!.cache!.writes.map((w) => [w.block, w.tokens])).toEqual([
			[19, 1200],
			[30, 1860],
		]);
		// Marks at 19 and 39: 39 reaches back to 19..39, so the entry at 30 is the longest hit.
		await post(m, request(blocks(), [19, 39]));
		expect(m.requests[1]!.cache!.read).toEqual({ block: 30, tokens: 1860 });
		// Block 25 changed: the entry at 30 no longer matches; 19 is still read.
		await post(m, request(blocks(25), [19, 39]));
		expect(m.requests[2]!.cache!.read).toEqual({ block: 19, tokens: 1200 });
	});

	it("tool_choice changes the messages cache, not the tools and system cache", async () => {
		const m = await mock();
		const body = (tool_choice?: unknown) => ({
			tools: [tool("tool_a", 100)],
			system: [text(filler(1100, "system"), mark)],
			messages: [{ role: "user", content: [text(filler(200, "q"), mark)] }],
			...(tool_choice ? { tool_choice } : {}),
		});
		await post(m, body());
		await post(m, body({ type: "any" }));
		expect(usageAt(m, 1)).toEqual({ read: 1200, creation: 200, input: 0 });
	});
});

// ---------------------------------------------------------------------------------------------

describe("properties of the rules", () => {
	const texts = (maxLength: number) => fc.array(fc.string({ minLength: 1, maxLength: 400 }), { maxLength });
	const marks = fc.uniqueArray(fc.nat(69), { maxLength: 4 });
	// An earlier request, then one that keeps a prefix of its blocks and adds others: the second
	// sees the first's entries, as a conversation's next request does.
	const arbScenario = fc.record({
		base: texts(40),
		keep: fc.nat(40),
		extra: texts(30),
		earlierMarks: marks,
		laterMarks: marks,
		minimum: fc.constantFrom(0, 64, 1024),
	});
	const bodyOf = (contents: string[], marked: number[]): AnthropicRequestBody => ({
		model: SONNET,
		max_tokens: 8,
		messages: [
			{
				role: "user",
				content: (contents.length > 0 ? contents : ["x"]).map((t, i) =>
					text(t, marked.includes(i) ? mark : undefined),
				),
			},
		],
	});

	it("read + creation + input is every block's tokens; a read is a live entry within the lookback of a breakpoint", () => {
		fc.assert(
			fc.property(arbScenario, ({ base, keep, extra, earlierMarks, laterMarks, minimum }) => {
				const earlier = promptBlocks(bodyOf(base, earlierMarks));
				const live = new Set(
					planCache(earlier, () => false, minimum).writes.map((w) => earlier[w.block]!.prefixHash),
				);
				const blocks = promptBlocks(bodyOf([...base.slice(0, keep), ...extra], laterMarks));
				const plan = planCache(blocks, (h) => live.has(h), minimum);
				const usage = usageOf(blocks, plan, 1);
				const total = blocks.reduce((sum, b) => sum + b.tokens, 0);
				const parts = [usage.cache_read_input_tokens, usage.cache_creation_input_tokens, usage.input_tokens];
				expect(parts.reduce((a, b) => a + b)).toBe(total);
				for (const part of parts) expect(part).toBeGreaterThanOrEqual(0);
				expect(
					usage.cache_creation.ephemeral_5m_input_tokens + usage.cache_creation.ephemeral_1h_input_tokens,
				).toBe(usage.cache_creation_input_tokens);
				const breakpoints = blocks.filter((b) => b.ttl !== undefined).map((b) => b.index);
				if (plan.read !== undefined) {
					const read = plan.read.block;
					expect(live.has(blocks[read]!.prefixHash)).toBe(true);
					expect(breakpoints.some((bp) => bp >= read && bp - read <= LOOKBACK_BLOCKS)).toBe(true);
				}
				// Nothing longer was within reach.
				for (const bp of breakpoints) {
					for (let j = Math.max(0, bp - LOOKBACK_BLOCKS); j <= bp; j++) {
						if (live.has(blocks[j]!.prefixHash)) expect(plan.read!.block).toBeGreaterThanOrEqual(j);
					}
				}
				for (const w of plan.writes) expect(w.tokens).toBeGreaterThanOrEqual(minimum);
			}),
		);
	});
});
