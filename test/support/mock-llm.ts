/**
 * A small provider mock on 127.0.0.1 that speaks the streaming wire formats of three pi-ai APIs —
 * openai-completions (`…/chat/completions`), openai-responses (`…/responses`) and
 * anthropic-messages (`…/messages`) — so pi-ai's REAL serialisers, its `onPayload` hook and its
 * stream parsers run (the faux provider never calls onPayload). Scripted per request: the route
 * returns the reply text and the usage to report (prompt tokens and how many of them were cached),
 * and may hold the response open until released or until the client goes away (an abort).
 * Every request body is kept for the test to compare.
 */

import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type MockApi = "openai-completions" | "openai-responses" | "anthropic-messages";

export interface MockLlmRequest {
	api: MockApi;
	url: string;
	headers: IncomingHttpHeaders;
	body: any;
	/** The client closed the connection before the reply was finished (an abort). */
	aborted: boolean;
}

export interface MockLlmReply {
	text: string;
	/** Prompt tokens in all (cached included). Default 100. */
	promptTokens?: number;
	/** Of which read from the cache. Default 0. */
	cachedTokens?: number;
	outputTokens?: number;
	/** The response is held (headers not sent) until this settles, or the client aborts. */
	hold?: Promise<unknown>;
	/** Answer with this HTTP status and an error body instead. */
	status?: number;
}

export interface MockLlm {
	baseUrl: string;
	requests: MockLlmRequest[];
	close(): Promise<void>;
}

function apiOf(url: string): MockApi | undefined {
	if (url.endsWith("/chat/completions")) return "openai-completions";
	if (url.endsWith("/responses")) return "openai-responses";
	if (url.endsWith("/messages")) return "anthropic-messages";
	return undefined;
}

function sse(res: ServerResponse, event: string | undefined, data: unknown): void {
	res.write(`${event !== undefined ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
}

function openaiCompletions(res: ServerResponse, body: any, reply: MockLlmReply, id: string): void {
	const chunk = (delta: unknown, finish: string | null = null, usage?: unknown) =>
		sse(res, undefined, {
			id,
			object: "chat.completion.chunk",
			created: 0,
			model: body.model,
			choices: [{ index: 0, delta, finish_reason: finish }],
			...(usage ? { usage } : {}),
		});
	const prompt = reply.promptTokens ?? 100;
	const output = reply.outputTokens ?? 10;
	chunk({ role: "assistant", content: reply.text });
	chunk({}, "stop", {
		prompt_tokens: prompt,
		completion_tokens: output,
		total_tokens: prompt + output,
		prompt_tokens_details: { cached_tokens: reply.cachedTokens ?? 0 },
	});
	res.end("data: [DONE]\n\n");
}

function openaiResponses(res: ServerResponse, reply: MockLlmReply, id: string): void {
	const item = { type: "message", id: `msg_${id}`, role: "assistant", status: "in_progress", content: [] };
	const prompt = reply.promptTokens ?? 100;
	const output = reply.outputTokens ?? 10;
	sse(res, "response.created", { type: "response.created", response: { id, status: "in_progress" } });
	sse(res, "response.output_item.added", { type: "response.output_item.added", output_index: 0, item });
	sse(res, "response.content_part.added", {
		type: "response.content_part.added",
		output_index: 0,
		content_index: 0,
		part: { type: "output_text", text: "", annotations: [] },
	});
	sse(res, "response.output_text.delta", {
		type: "response.output_text.delta",
		output_index: 0,
		content_index: 0,
		delta: reply.text,
	});
	sse(res, "response.output_item.done", {
		type: "response.output_item.done",
		output_index: 0,
		item: { ...item, status: "completed", content: [{ type: "output_text", text: reply.text, annotations: [] }] },
	});
	sse(res, "response.completed", {
		type: "response.completed",
		response: {
			id,
			status: "completed",
			usage: {
				input_tokens: prompt,
				output_tokens: output,
				total_tokens: prompt + output,
				input_tokens_details: { cached_tokens: reply.cachedTokens ?? 0 },
			},
		},
	});
	res.end();
}

function anthropicMessages(res: ServerResponse, body: any, reply: MockLlmReply, id: string): void {
	const cached = reply.cachedTokens ?? 0;
	const prompt = reply.promptTokens ?? 100;
	sse(res, "message_start", {
		type: "message_start",
		message: {
			id,
			type: "message",
			role: "assistant",
			content: [],
			model: body.model,
			stop_reason: null,
			stop_sequence: null,
			usage: {
				input_tokens: Math.max(0, prompt - cached),
				output_tokens: 1,
				cache_read_input_tokens: cached,
				cache_creation_input_tokens: 0,
			},
		},
	});
	sse(res, "content_block_start", {
		type: "content_block_start",
		index: 0,
		content_block: { type: "text", text: "" },
	});
	sse(res, "content_block_delta", {
		type: "content_block_delta",
		index: 0,
		delta: { type: "text_delta", text: reply.text },
	});
	sse(res, "content_block_stop", { type: "content_block_stop", index: 0 });
	sse(res, "message_delta", {
		type: "message_delta",
		delta: { stop_reason: "end_turn", stop_sequence: null },
		usage: { output_tokens: reply.outputTokens ?? 10 },
	});
	sse(res, "message_stop", { type: "message_stop" });
	res.end();
}

export async function startMockLlm(route: (api: MockApi, body: any, index: number) => MockLlmReply): Promise<MockLlm> {
	const requests: MockLlmRequest[] = [];
	let n = 0;
	const server: Server = createServer((req, res) => {
		let raw = "";
		req.on("data", (chunk) => {
			raw += chunk;
		});
		req.on("end", async () => {
			const api = req.method === "POST" && req.url !== undefined ? apiOf(req.url) : undefined;
			if (api === undefined) {
				res.writeHead(404).end("{}");
				return;
			}
			const body = JSON.parse(raw);
			const record: MockLlmRequest = { api, url: req.url!, headers: req.headers, body, aborted: false };
			requests.push(record);
			res.on("close", () => {
				if (!res.writableFinished) record.aborted = true;
			});
			const index = n++;
			const reply = route(api, body, index);
			if (reply.hold !== undefined) {
				await Promise.race([reply.hold, new Promise((resolve) => res.on("close", resolve))]);
			}
			if (res.destroyed || record.aborted) return;
			if (reply.status !== undefined) {
				res.writeHead(reply.status, { "content-type": "application/json" });
				res.end(
					JSON.stringify({ error: { message: `mock error ${reply.status}`, type: "invalid_request_error" } }),
				);
				return;
			}
			res.writeHead(200, {
				"content-type": "text/event-stream",
				"cache-control": "no-cache",
				connection: "keep-alive",
			});
			const id = `mock-${index + 1}`;
			if (api === "openai-completions") openaiCompletions(res, body, reply, id);
			else if (api === "openai-responses") openaiResponses(res, reply, id);
			else anthropicMessages(res, body, reply, id);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		requests,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** A promise and its release, for `hold`. */
export function gate(): { promise: Promise<void>; release: () => void } {
	let release = () => {};
	const promise = new Promise<void>((resolve) => {
		release = resolve;
	});
	return { promise, release };
}
