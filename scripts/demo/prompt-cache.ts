/**
 * A provider's prompt cache, simulated for the demo's scripted models (docs/demo.md): a request's
 * tokens are counted as scripts/mock-openai.ts `measuredUsage` counts them (chars / 4 per piece),
 * and the longest run of leading pieces it shares with an earlier request to the same model is
 * reported as read from the cache — at least 1,024 tokens, in steps of 128, as OpenAI caches. So
 * the footer and the card show the share a real provider would bill, for the same reason: the
 * ledger keeps the start of the advisor's request byte for byte (docs/request-format.md).
 */

import { callsOf, type MockReply, type MockUsage } from "../mock-openai.ts";

const MIN_CACHED_TOKENS = 1024;
const CACHE_STEP = 128;

const tokens = (text: string) => Math.ceil(text.length / 4);

/** The request as the cache sees it: the tools, then every message's role and parts, in order. */
function pieces(body: any): string[] {
	const out = [JSON.stringify(body.tools ?? [])];
	for (const message of body.messages ?? []) {
		out.push(`role:${message.role}`);
		const content = typeof message.content === "string" ? [{ text: message.content }] : (message.content ?? []);
		for (const part of content) out.push(typeof part?.text === "string" ? part.text : JSON.stringify(part));
		for (const call of message.tool_calls ?? []) out.push(JSON.stringify(call.function ?? {}));
	}
	return out;
}

/** Only the text a model reads counts as tokens (the `role:` markers and empty parts cost nothing). */
function pieceTokens(piece: string): number {
	return piece.startsWith("role:") ? 0 : tokens(piece);
}

function sharedLength(a: readonly string[], b: readonly string[]): number {
	let n = 0;
	while (n < a.length && n < b.length && a[n] === b[n]) n++;
	return n;
}

function replyTokens(reply: MockReply): number {
	const text =
		reply.kind === "text"
			? reply.text
			: `${reply.text ?? ""}${callsOf(reply)
					.map((c) => `${c.name}${c.arguments}`)
					.join("")}`;
	return Math.max(1, tokens(text));
}

/** A usage function for `startMockOpenAI`: each model's earlier requests are its cache. */
export function promptCache(): (body: any, reply: MockReply) => MockUsage {
	const seen = new Map<string, string[][]>();
	return (body, reply) => {
		const request = pieces(body);
		const earlier = seen.get(body.model) ?? [];
		const shared = Math.max(0, ...earlier.map((previous) => sharedLength(previous, request)));
		const prompt = request.reduce((n, piece) => n + pieceTokens(piece), 0);
		const prefix = request.slice(0, shared).reduce((n, piece) => n + pieceTokens(piece), 0);
		const cached = prefix < MIN_CACHED_TOKENS ? 0 : prefix - (prefix % CACHE_STEP);
		seen.set(body.model, [...earlier, request]);
		const completion = replyTokens(reply);
		return {
			prompt_tokens: prompt,
			completion_tokens: completion,
			total_tokens: prompt + completion,
			prompt_tokens_details: { cached_tokens: cached },
		};
	};
}
