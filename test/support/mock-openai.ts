/**
 * A tiny OpenAI-compatible chat.completions server (SSE streaming, as Pi always streams) on
 * 127.0.0.1, scripted per model: each request is routed by its `model` field to a responder,
 * and every request (body and headers) is kept for the test to inspect.
 */

import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface MockRequest {
	url: string;
	headers: IncomingHttpHeaders;
	body: any;
}

export type MockReply =
	| { kind: "text"; text: string }
	| { kind: "toolCall"; text?: string; id: string; name: string; arguments: string };

export interface MockServer {
	port: number;
	baseUrl: string;
	requests: MockRequest[];
	close(): Promise<void>;
}

const USAGE = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };

export async function startMockOpenAI(route: (body: any) => MockReply): Promise<MockServer> {
	const requests: MockRequest[] = [];
	let n = 0;
	const server: Server = createServer((req, res) => {
		let raw = "";
		req.on("data", (chunk) => {
			raw += chunk;
		});
		req.on("end", () => {
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
			res.writeHead(200, {
				"content-type": "text/event-stream",
				"cache-control": "no-cache",
				connection: "keep-alive",
			});
			const reply = route(body);
			if (reply.kind === "text") {
				res.write(chunk({ role: "assistant", content: reply.text }));
				res.write(chunk({}, "stop", USAGE));
			} else {
				res.write(chunk({ role: "assistant", content: reply.text ?? "" }));
				res.write(
					chunk({
						tool_calls: [
							{
								index: 0,
								id: reply.id,
								type: "function",
								function: { name: reply.name, arguments: reply.arguments },
							},
						],
					}),
				);
				res.write(chunk({}, "tool_calls", USAGE));
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
