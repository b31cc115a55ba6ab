/**
 * A tiny OpenAI-compatible chat.completions server (SSE streaming, as Pi always streams) on
 * 127.0.0.1, scripted per model: each request is routed by its `model` field to a responder,
 * and every request (body and headers) is kept for the caller to inspect. The end-to-end tests
 * script it (test/support/mock-openai.ts re-exports it), and so does `npm run demo`
 * (scripts/demo.ts, docs/demo.md).
 */

import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface MockRequest {
	url: string;
	headers: IncomingHttpHeaders;
	body: any;
}

export interface MockCall {
	id: string;
	name: string;
	arguments: string;
}

export type MockReply = (
	| { kind: "text"; text: string }
	| ({ kind: "toolCall"; text?: string } & MockCall)
	/** Several calls in one reply (parallel tool calls). */
	| { kind: "toolCalls"; text?: string; calls: MockCall[] }
) & {
	/** The prompt tokens this reply reports, over the server's `usage` option (e.g. to cross Pi's compaction threshold). */
	promptTokens?: number;
	/** The reply is held (nothing sent) until this settles. */
	hold?: Promise<unknown>;
};

/** The calls a reply makes. */
export function callsOf(reply: MockReply): MockCall[] {
	if (reply.kind === "toolCall") return [{ id: reply.id, name: reply.name, arguments: reply.arguments }];
	return reply.kind === "toolCalls" ? reply.calls : [];
}

export interface MockServer {
	port: number;
	baseUrl: string;
	requests: MockRequest[];
	close(): Promise<void>;
}

const USAGE = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };

const tokens = (text: string) => Math.ceil(text.length / 4);

function contentTokens(content: unknown): number {
	if (typeof content === "string") return tokens(content);
	if (!Array.isArray(content)) return 0;
	return content.reduce((n, part) => n + (typeof part?.text === "string" ? tokens(part.text) : 0), 0);
}

/**
 * Usage counted from what was sent and answered, the way mock-anthropic.ts counts it: chars / 4,
 * rounded up, per piece — each message's text, each tool call (name + arguments), each tool
 * declaration (name + description + JSON schema); the reply's text and call likewise (at least 1).
 */
export function measuredUsage(body: any, reply: MockReply) {
	let prompt = 0;
	for (const message of body.messages ?? []) {
		prompt += contentTokens(message.content);
		for (const call of message.tool_calls ?? [])
			prompt += tokens(`${call.function?.name ?? ""}${call.function?.arguments ?? ""}`);
	}
	for (const tool of body.tools ?? []) {
		const f = tool.function ?? {};
		prompt += tokens(`${f.name ?? ""}${f.description ?? ""}${JSON.stringify(f.parameters ?? {})}`);
	}
	const answer =
		reply.kind === "text"
			? tokens(reply.text)
			: tokens(
					`${reply.text ?? ""}${callsOf(reply)
						.map((c) => `${c.name}${c.arguments}`)
						.join("")}`,
				);
	const completion = Math.max(1, answer);
	return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The `usage` a reply reports, as an OpenAI-compatible server spells it (cached tokens included). */
export interface MockUsage {
	prompt_tokens: number;
	completion_tokens: number;
	total_tokens: number;
	prompt_tokens_details?: { cached_tokens: number };
}

export interface MockOptions {
	/**
	 * "fixed" (default): every reply reports 100 prompt and 10 completion tokens; "measured":
	 * `measuredUsage`; a function: what it returns for the request and the reply.
	 */
	usage?: "fixed" | "measured" | ((body: any, reply: MockReply) => MockUsage);
}

function usageOf(body: any, reply: MockReply, options: MockOptions): MockUsage {
	if (reply.promptTokens !== undefined)
		return {
			prompt_tokens: reply.promptTokens,
			completion_tokens: USAGE.completion_tokens,
			total_tokens: reply.promptTokens + USAGE.completion_tokens,
		};
	if (typeof options.usage === "function") return options.usage(body, reply);
	return options.usage === "measured" ? measuredUsage(body, reply) : USAGE;
}

export async function startMockOpenAI(route: (body: any) => MockReply, options: MockOptions = {}): Promise<MockServer> {
	const requests: MockRequest[] = [];
	let n = 0;
	const server: Server = createServer((req, res) => {
		let raw = "";
		req.on("data", (chunk) => {
			raw += chunk;
		});
		req.on("end", async () => {
			if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
				res.writeHead(404).end("{}");
				return;
			}
			const body = JSON.parse(raw);
			requests.push({ url: req.url, headers: req.headers, body });
			const id = `chatcmpl-${++n}`;
			const chunk = (delta: unknown, finish: string | null = null, usage?: unknown) =>
				`data: ${JSON.stringify({
					id,
					object: "chat.completion.chunk",
					created: 0,
					model: body.model,
					choices: [{ index: 0, delta, finish_reason: finish }],
					...(usage ? { usage } : {}),
				})}\n\n`;
			const reply = route(body);
			if (reply.hold !== undefined) await reply.hold;
			res.writeHead(200, {
				"content-type": "text/event-stream",
				"cache-control": "no-cache",
				connection: "keep-alive",
			});
			const usage = usageOf(body, reply, options);
			if (reply.kind === "text") {
				res.write(chunk({ role: "assistant", content: reply.text }));
				res.write(chunk({}, "stop", usage));
			} else {
				res.write(chunk({ role: "assistant", content: reply.text ?? "" }));
				callsOf(reply).forEach((call, index) => {
					res.write(
						chunk({
							tool_calls: [
								{
									index,
									id: call.id,
									type: "function",
									function: { name: call.name, arguments: call.arguments },
								},
							],
						}),
					);
				});
				res.write(chunk({}, "tool_calls", usage));
			}
			res.end("data: [DONE]\n\n");
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		port,
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
