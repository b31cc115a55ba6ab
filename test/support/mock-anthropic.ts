/**
 * A mock of Anthropic's Messages API (`POST /v1/messages`) on 127.0.0.1 that ENFORCES Anthropic's
 * documented prompt-caching rules and reports usage the way Anthropic does, so a test can see what a
 * request layout would really read from the cache. pi-ai's `anthropic-messages` provider (the
 * Anthropic SDK underneath) talks to it unchanged: `baseUrl` is the server root — the SDK appends
 * `/v1/messages`, and Pi 1.x's `client.beta.messages` appends `?beta=true`, which is served too.
 * Streams SSE exactly as Anthropic does (message_start, ping, content_block_start/delta/stop,
 * message_delta with the stop reason and cumulative usage, message_stop), or one JSON message when
 * `stream` is false. Scripted per request like `mock-openai.ts`; every request is logged with its
 * body, the prompt as Anthropic sees it (blocks, breakpoints), the cache outcome and the usage sent.
 *
 * The caching rules, as implemented. Sources: Anthropic's documentation, "Prompt caching" page
 * (build-with-claude/prompt-caching) — its sections named below — and the API's own 400 messages
 * as reported verbatim by its users.
 *
 * 1. The prompt is one ordered sequence of content blocks: `tools` (one block per tool), then
 *    `system` (a string is one block, an array is its blocks), then `messages` in order, each content
 *    block one block (a string content is one text block). ("Prompt caching caches the full prefix":
 *    tools, system, and messages, in that order.) `cache_control` may sit on any of them ("What can be
 *    cached"); a block carrying it is a breakpoint.
 * 2. At most 4 breakpoints per request; more is HTTP 400 `invalid_request_error` "A maximum of 4 blocks
 *    with cache_control may be provided. Found N." ("When to use multiple breakpoints": up to 4.)
 *    `cache_control` on an empty text block is a 400 ("What cannot be cached": empty text blocks), and
 *    a ttl='1h' breakpoint after a ttl='5m' one is a 400 ("Mixing different TTLs": longer TTLs first).
 * 3. Tokens: Math.ceil(chars / 4) per block, chars in UTF-16 code units (String.length) of what the
 *    block carries — a tool: name + description + JSON.stringify(input_schema); text: its text;
 *    tool_use: name + JSON.stringify(input); tool_result: the text of its content (string, or its
 *    text blocks) plus IMAGE_TOKENS per image in it; thinking: the thinking text; redacted_thinking:
 *    its data; image: IMAGE_TOKENS; anything else: its JSON without cache_control. No framing tokens,
 *    so the three usage parts sum to exactly the blocks' tokens. Output tokens are counted the same
 *    way over the reply (at least 1) unless the script says otherwise.
 * 4. A prefix is identified by a hash of exactly what precedes its end: the model, then each block's
 *    JSON (its role and whether it opens a message included, cache_control left out) in order; the
 *    first message block also folds in `tool_choice`, `thinking` and whether the prompt holds an image,
 *    which invalidate the messages cache but not tools/system ("What invalidates the cache"). Key
 *    order counts: the cache matches exact bytes ("Cache storage and sharing": 100% identical).
 * 5. WRITE: each breakpoint past the read hit whose prefix holds at least the model's minimum
 *    (`minCacheableTokens`, 1024 by default; 2048 for Haiku 3/3.5 — "Cache limitations") gets an entry,
 *    alive for its TTL: 5 minutes, or 1 hour with `ttl: "1h"` ("1-hour cache duration"). Shorter
 *    prefixes are processed without caching. Entries appear when the response begins, so an injected
 *    error writes nothing ("Cache limitations": available after the first response begins).
 * 6. READ: for each breakpoint, the block boundary at the breakpoint and up to `lookbackBlocks` (20)
 *    boundaries before it are checked for a live entry ("How automatic prefix checking works": up to
 *    about 20 blocks before each explicit breakpoint); the longest hit over all breakpoints is read.
 *    Nothing else is found: an entry 21 blocks before every breakpoint is out of reach. A read
 *    refreshes the entry's TTL ("How prompt caching works": refreshed each time it is used).
 * 7. Usage ("Tracking cache performance", "Mixing different TTLs"): with A the read prefix's tokens (0
 *    without a hit), C the tokens up to the furthest breakpoint written and B the furthest 1-hour
 *    breakpoint written (A if none): cache_read_input_tokens = A, cache_creation_input_tokens = C − A
 *    (split as cache_creation.ephemeral_1h_input_tokens = B − A and ephemeral_5m_input_tokens = C − B),
 *    input_tokens = the rest, so total = read + creation + input (the rate-limits page states this
 *    identity). Streaming sends it in message_start and, cumulative, in the final message_delta.
 */

import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const LOOKBACK_BLOCKS = 20;
export const DEFAULT_MIN_CACHEABLE_TOKENS = 1024;
export const FIVE_MINUTES_MS = 5 * 60_000;
export const ONE_HOUR_MS = 60 * 60_000;
/** The fixed token count of an image (Anthropic's ~1.15 megapixel image costs about 1,600). */
export const IMAGE_TOKENS = 1600;
export const MAX_BREAKPOINTS = 4;

// ---------------------------------------------------------------------------------------------
// The request, as far as the mock reads it
// ---------------------------------------------------------------------------------------------

export type CacheTtl = "5m" | "1h";

export interface CacheControl {
	type: "ephemeral";
	ttl?: CacheTtl;
}

/** A content block as sent: only the fields the mock reads are typed. */
export interface ContentBlockParam {
	type: string;
	text?: string;
	thinking?: string;
	data?: string;
	name?: string;
	input?: unknown;
	content?: string | ContentBlockParam[];
	cache_control?: unknown;
	[key: string]: unknown;
}

export interface ToolParam {
	name: string;
	description?: string;
	input_schema?: unknown;
	cache_control?: unknown;
	[key: string]: unknown;
}

export interface MessageParam {
	role: string;
	content: string | ContentBlockParam[];
}

export interface AnthropicRequestBody {
	model: string;
	max_tokens: number;
	messages: MessageParam[];
	system?: string | ContentBlockParam[];
	tools?: ToolParam[];
	tool_choice?: unknown;
	thinking?: unknown;
	stream?: boolean;
	[key: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------------------------

export type ReplyBlock =
	| { type: "text"; text: string }
	| { type: "thinking"; thinking: string; signature: string }
	| { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal";

export type AnthropicReply =
	| {
			kind: "message";
			content: ReplyBlock[];
			/** Default: `tool_use` when the content holds one, else `end_turn`. */
			stopReason?: StopReason;
			/** Default: the reply's chars / 4, at least 1. */
			outputTokens?: number;
	  }
	| {
			kind: "error";
			status: number;
			type: string;
			message: string;
			/** e.g. `retry-after-ms` or `x-should-retry`, which the Anthropic SDK obeys. */
			headers?: Record<string, string>;
	  };

export const replyText = (text: string): AnthropicReply => ({ kind: "message", content: [{ type: "text", text }] });

export const replyToolUse = (
	call: { id: string; name: string; input: Record<string, unknown> },
	text?: string,
): AnthropicReply => ({
	kind: "message",
	content: [...(text !== undefined ? [{ type: "text" as const, text }] : []), { type: "tool_use", ...call }],
});

/** HTTP 529 as Anthropic sends it when overloaded; the SDK retries it (after `retryAfterMs`). */
export const overloadedError = (retryAfterMs = 0): AnthropicReply => ({
	kind: "error",
	status: 529,
	type: "overloaded_error",
	message: "Overloaded",
	headers: { "retry-after-ms": String(retryAfterMs) },
});

/** HTTP 500 `api_error`; `retry: false` sends `x-should-retry: false` so the SDK gives up at once. */
export const internalError = (options: { retryAfterMs?: number; retry?: boolean } = {}): AnthropicReply => ({
	kind: "error",
	status: 500,
	type: "api_error",
	message: "Internal server error",
	headers: {
		"retry-after-ms": String(options.retryAfterMs ?? 0),
		...(options.retry === false ? { "x-should-retry": "false" } : {}),
	},
});

// ---------------------------------------------------------------------------------------------
// The prompt as Anthropic sees it
// ---------------------------------------------------------------------------------------------

export interface PromptBlock {
	/** Position in the prompt: tools first, then system, then messages. */
	index: number;
	/** The path Anthropic's error messages use: `tools.2`, `system.0`, `messages.3.content.1`. */
	path: string;
	level: "tools" | "system" | "messages";
	/** `tool` for a tool definition, else the block's `type`. */
	kind: string;
	tokens: number;
	/** Tokens of the prefix ending with this block. */
	end: number;
	/** Set when the block is a breakpoint. */
	ttl?: CacheTtl;
	/** Identifies the prefix ending with this block (rule 4). */
	prefixHash: string;
}

export interface CacheWrite {
	block: number;
	tokens: number;
	ttl: CacheTtl;
}

export interface CacheOutcome {
	/** The longest live prefix found from a breakpoint: its last block and its tokens. */
	read?: { block: number; tokens: number };
	writes: CacheWrite[];
	/** Breakpoints past the hit whose prefix is under the minimum: nothing written for them. */
	belowMinimum: number[];
}

export interface AnthropicUsage {
	input_tokens: number;
	cache_creation_input_tokens: number;
	cache_read_input_tokens: number;
	cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
	output_tokens: number;
	service_tier: "standard";
}

export interface MockAnthropicRequest {
	/** Position in `requests`. */
	index: number;
	url: string;
	headers: IncomingHttpHeaders;
	/** The parsed body (undefined when it was not JSON). */
	body: AnthropicRequestBody | undefined;
	/** The mock clock when it arrived. */
	at: number;
	status: number;
	/** The prompt's blocks ([] when the body was rejected before they were read). */
	blocks: PromptBlock[];
	/** Indices into `blocks` of the blocks carrying cache_control. */
	breakpoints: number[];
	/** Set for a 200. */
	cache?: CacheOutcome;
	usage?: AnthropicUsage;
	/** Set for an error status. */
	error?: { type: string; message: string };
	/** The client closed the connection before the reply was finished. */
	aborted: boolean;
}

export interface CacheEntry {
	prefixHash: string;
	model: string;
	tokens: number;
	/** How many blocks the prefix holds. */
	blocks: number;
	ttl: CacheTtl;
	writtenAt: number;
	expiresAt: number;
}

export interface MockAnthropicOptions {
	/** The mock's clock in ms (default Date.now); see `manualClock`. */
	now?: () => number;
	/** The minimum cacheable prefix, per model (default 1024). */
	minCacheableTokens?: number | ((model: string) => number);
	lookbackBlocks?: number;
	/** When set, requests must carry this key (`x-api-key` or `Authorization: Bearer`). */
	apiKey?: string;
}

export interface MockAnthropic {
	port: number;
	/** The server root, as pi-ai's anthropic-messages `baseUrl` expects it (no `/v1`). */
	baseUrl: string;
	requests: MockAnthropicRequest[];
	/** The live cache entries at the mock's clock, oldest write first. */
	cacheEntries(): CacheEntry[];
	close(): Promise<void>;
}

/** A clock a test moves by hand. */
export function manualClock(start = 0): { now: () => number; advance: (ms: number) => void } {
	let t = start;
	return {
		now: () => t,
		advance: (ms) => {
			t += ms;
		},
	};
}

class RequestError extends Error {
	constructor(
		readonly status: number,
		readonly type: string,
		message: string,
	) {
		super(message);
	}
}

const invalid = (message: string) => new RequestError(400, "invalid_request_error", message);

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

function textChars(content: string | ContentBlockParam[] | undefined): { chars: number; images: number } {
	if (typeof content === "string") return { chars: content.length, images: 0 };
	let chars = 0;
	let images = 0;
	for (const part of content ?? []) {
		if (part.type === "image") images++;
		else if (typeof part.text === "string") chars += part.text.length;
	}
	return { chars, images };
}

const quarter = (chars: number) => Math.ceil(chars / 4);

function tokensOfBlock(block: ContentBlockParam): number {
	switch (block.type) {
		case "text":
			return quarter((block.text ?? "").length);
		case "thinking":
			return quarter((block.thinking ?? "").length);
		case "redacted_thinking":
			return quarter((block.data ?? "").length);
		case "tool_use":
			return quarter((block.name ?? "").length + JSON.stringify(block.input ?? {}).length);
		case "tool_result": {
			const { chars, images } = textChars(block.content);
			return quarter(chars) + images * IMAGE_TOKENS;
		}
		case "image":
			return IMAGE_TOKENS;
		default: {
			const { cache_control: _, ...rest } = block;
			return quarter(JSON.stringify(rest).length);
		}
	}
}

function tokensOfTool(tool: ToolParam): number {
	return quarter(tool.name.length + (tool.description ?? "").length + JSON.stringify(tool.input_schema ?? {}).length);
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function ttlOf(path: string, control: unknown): CacheTtl {
	if (!isObject(control) || control.type !== "ephemeral") {
		throw invalid(`${path}.cache_control.type: Input should be 'ephemeral'`);
	}
	if (control.ttl === undefined) return "5m";
	if (control.ttl === "5m" || control.ttl === "1h") return control.ttl;
	throw invalid(`${path}.cache_control.ttl: Input should be '5m' or '1h'`);
}

interface FlatBlock {
	path: string;
	level: PromptBlock["level"];
	kind: string;
	tokens: number;
	control: unknown;
	/** What the prefix hash covers for this block. */
	identity: unknown;
	isEmptyText: boolean;
	/** Images in the block (an image, or a tool_result holding some). */
	images: number;
}

function flatten(body: AnthropicRequestBody): FlatBlock[] {
	const flat: FlatBlock[] = [];
	(body.tools ?? []).forEach((tool, i) => {
		const { cache_control, ...rest } = tool;
		flat.push({
			path: `tools.${i}`,
			level: "tools",
			kind: "tool",
			tokens: tokensOfTool(tool),
			control: cache_control,
			identity: ["tool", rest],
			isEmptyText: false,
			images: 0,
		});
	});
	const addContent = (
		level: "system" | "messages",
		path: string,
		content: string | ContentBlockParam[],
		role: string | undefined,
	) => {
		const blocks: ContentBlockParam[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
		blocks.forEach((block, i) => {
			const { cache_control, ...rest } = block;
			flat.push({
				path: typeof content === "string" ? path : `${path}.${i}`,
				level,
				kind: block.type,
				tokens: tokensOfBlock(block),
				control: cache_control,
				// A string content is the same prompt as one text block holding it.
				identity: [level, role ?? null, i === 0, rest],
				isEmptyText: block.type === "text" && (block.text ?? "") === "",
				images: block.type === "image" ? 1 : block.type === "tool_result" ? textChars(block.content).images : 0,
			});
		});
	};
	if (body.system !== undefined) addContent("system", "system", body.system, undefined);
	body.messages.forEach((message, m) => {
		addContent("messages", `messages.${m}.content`, message.content, message.role);
	});
	return flat;
}

/** Rule 1–4: the blocks with their tokens, breakpoints and prefix hashes, or the 400 Anthropic sends. */
export function promptBlocks(body: AnthropicRequestBody): PromptBlock[] {
	const flat = flatten(body);
	const marked = flat.filter((b) => b.control !== undefined && b.control !== null);
	if (marked.length > MAX_BREAKPOINTS) {
		throw invalid(
			`A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${marked.length}.`,
		);
	}
	const hasImage = flat.some((b) => b.images > 0);
	let hash = sha256(JSON.stringify(["model", body.model]));
	let end = 0;
	let seenFiveMinutes = false;
	let firstMessage = true;
	return flat.map((block, index) => {
		let ttl: CacheTtl | undefined;
		if (block.control !== undefined && block.control !== null) {
			if (block.isEmptyText) throw invalid(`${block.path}.text: cache_control cannot be set for empty text blocks`);
			ttl = ttlOf(block.path, block.control);
			if (ttl === "1h" && seenFiveMinutes) {
				throw invalid(
					`${block.path}.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: \`tools\`, \`system\`, \`messages\`.`,
				);
			}
			if (ttl === "5m") seenFiveMinutes = true;
		}
		if (block.level === "messages" && firstMessage) {
			firstMessage = false;
			hash = sha256(hash + JSON.stringify(["messages", body.tool_choice ?? null, body.thinking ?? null, hasImage]));
		}
		hash = sha256(hash + JSON.stringify(block.identity));
		end += block.tokens;
		return {
			index,
			path: block.path,
			level: block.level,
			kind: block.kind,
			tokens: block.tokens,
			end,
			...(ttl !== undefined ? { ttl } : {}),
			prefixHash: hash,
		};
	});
}

const ttlMs = (ttl: CacheTtl) => (ttl === "1h" ? ONE_HOUR_MS : FIVE_MINUTES_MS);

/** Rules 5–6 against the live entries, without changing them. */
export function planCache(
	blocks: readonly PromptBlock[],
	isLive: (prefixHash: string) => boolean,
	minimum: number,
	lookback: number = LOOKBACK_BLOCKS,
): CacheOutcome {
	const breakpoints = blocks.filter((b) => b.ttl !== undefined);
	let hit: PromptBlock | undefined;
	for (const bp of breakpoints) {
		for (let j = bp.index; j >= Math.max(0, bp.index - lookback); j--) {
			const candidate = blocks[j]!;
			if (hit !== undefined && candidate.index <= hit.index) break;
			if (isLive(candidate.prefixHash)) {
				hit = candidate;
				break;
			}
		}
	}
	const past = breakpoints.filter((bp) => hit === undefined || bp.index > hit.index);
	return {
		...(hit !== undefined ? { read: { block: hit.index, tokens: hit.end } } : {}),
		writes: past.filter((bp) => bp.end >= minimum).map((bp) => ({ block: bp.index, tokens: bp.end, ttl: bp.ttl! })),
		belowMinimum: past.filter((bp) => bp.end < minimum).map((bp) => bp.index),
	};
}

/** Rule 7. */
export function usageOf(blocks: readonly PromptBlock[], cache: CacheOutcome, outputTokens: number): AnthropicUsage {
	const total = blocks.at(-1)?.end ?? 0;
	const a = cache.read?.tokens ?? 0;
	const c = cache.writes.at(-1)?.tokens ?? a;
	const b = cache.writes.filter((w) => w.ttl === "1h").at(-1)?.tokens ?? a;
	return {
		input_tokens: total - c,
		cache_creation_input_tokens: c - a,
		cache_read_input_tokens: a,
		cache_creation: { ephemeral_5m_input_tokens: c - b, ephemeral_1h_input_tokens: b - a },
		output_tokens: outputTokens,
		service_tier: "standard",
	};
}

function outputTokensOf(reply: Extract<AnthropicReply, { kind: "message" }>): number {
	if (reply.outputTokens !== undefined) return reply.outputTokens;
	let chars = 0;
	for (const block of reply.content) {
		switch (block.type) {
			case "text":
				chars += block.text.length;
				break;
			case "thinking":
				chars += block.thinking.length;
				break;
			case "tool_use":
				chars += block.name.length + JSON.stringify(block.input).length;
				break;
		}
	}
	return Math.max(1, quarter(chars));
}

function validateBody(parsed: unknown): AnthropicRequestBody {
	if (!isObject(parsed)) throw invalid("Request body must be a JSON object.");
	if (typeof parsed.model !== "string") throw invalid("model: Field required");
	if (typeof parsed.max_tokens !== "number") throw invalid("max_tokens: Field required");
	if (!Array.isArray(parsed.messages)) throw invalid("messages: Field required");
	if (parsed.messages.length === 0) throw invalid("messages: at least one message is required");
	return parsed as AnthropicRequestBody;
}

function authorize(headers: IncomingHttpHeaders, apiKey: string | undefined): void {
	if (headers["anthropic-version"] === undefined) throw invalid("anthropic-version: header is required");
	const key = headers["x-api-key"] ?? headers.authorization?.replace(/^Bearer /, "");
	if (key === undefined) throw new RequestError(401, "authentication_error", "x-api-key header is required");
	if (apiKey !== undefined && key !== apiKey) {
		throw new RequestError(401, "authentication_error", "invalid x-api-key");
	}
}

// ---------------------------------------------------------------------------------------------
// Wire
// ---------------------------------------------------------------------------------------------

function sse(res: ServerResponse, event: string, data: unknown): void {
	res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Splits a delta into a few pieces so the client's accumulation is exercised. */
function pieces(text: string, size = 16): string[] {
	const out: string[] = [];
	for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
	return out.length > 0 ? out : [""];
}

function streamReply(
	res: ServerResponse,
	id: string,
	model: string,
	content: ReplyBlock[],
	stopReason: StopReason,
	usage: AnthropicUsage,
): void {
	sse(res, "message_start", {
		type: "message_start",
		message: {
			id,
			type: "message",
			role: "assistant",
			model,
			content: [],
			stop_reason: null,
			stop_sequence: null,
			usage: { ...usage, output_tokens: 1 },
		},
	});
	sse(res, "ping", { type: "ping" });
	content.forEach((block, index) => {
		switch (block.type) {
			case "text":
				sse(res, "content_block_start", {
					type: "content_block_start",
					index,
					content_block: { type: "text", text: "" },
				});
				for (const text of pieces(block.text)) {
					sse(res, "content_block_delta", {
						type: "content_block_delta",
						index,
						delta: { type: "text_delta", text },
					});
				}
				break;
			case "thinking":
				sse(res, "content_block_start", {
					type: "content_block_start",
					index,
					content_block: { type: "thinking", thinking: "", signature: "" },
				});
				for (const thinking of pieces(block.thinking)) {
					sse(res, "content_block_delta", {
						type: "content_block_delta",
						index,
						delta: { type: "thinking_delta", thinking },
					});
				}
				sse(res, "content_block_delta", {
					type: "content_block_delta",
					index,
					delta: { type: "signature_delta", signature: block.signature },
				});
				break;
			case "tool_use":
				sse(res, "content_block_start", {
					type: "content_block_start",
					index,
					content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
				});
				// Anthropic opens a tool's input with an empty partial_json, then streams the JSON.
				for (const partial_json of ["", ...pieces(JSON.stringify(block.input))]) {
					sse(res, "content_block_delta", {
						type: "content_block_delta",
						index,
						delta: { type: "input_json_delta", partial_json },
					});
				}
				break;
		}
		sse(res, "content_block_stop", { type: "content_block_stop", index });
	});
	const { cache_creation: _, service_tier: __, ...cumulative } = usage;
	sse(res, "message_delta", {
		type: "message_delta",
		delta: { stop_reason: stopReason, stop_sequence: null },
		usage: cumulative,
	});
	sse(res, "message_stop", { type: "message_stop" });
	res.end();
}

function sendError(res: ServerResponse, requestId: string, error: RequestError, headers: Record<string, string> = {}) {
	res.writeHead(error.status, { "content-type": "application/json", "request-id": requestId, ...headers });
	res.end(
		JSON.stringify({
			type: "error",
			error: { type: error.type, message: error.message },
			request_id: requestId,
		}),
	);
}

// ---------------------------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------------------------

export async function startMockAnthropic(
	route: (body: AnthropicRequestBody, index: number) => AnthropicReply,
	options: MockAnthropicOptions = {},
): Promise<MockAnthropic> {
	const now = options.now ?? Date.now;
	const lookback = options.lookbackBlocks ?? LOOKBACK_BLOCKS;
	const minimumFor = (model: string) =>
		typeof options.minCacheableTokens === "function"
			? options.minCacheableTokens(model)
			: (options.minCacheableTokens ?? DEFAULT_MIN_CACHEABLE_TOKENS);
	const requests: MockAnthropicRequest[] = [];
	const cache = new Map<string, CacheEntry>();
	const isLive = (prefixHash: string) => {
		const entry = cache.get(prefixHash);
		return entry !== undefined && now() < entry.expiresAt;
	};

	const handle = (url: string, headers: IncomingHttpHeaders, raw: string, res: ServerResponse) => {
		const index = requests.length;
		const requestId = `req_mock_${index + 1}`;
		const record: MockAnthropicRequest = {
			index,
			url,
			headers,
			body: undefined,
			at: now(),
			status: 0,
			blocks: [],
			breakpoints: [],
			aborted: false,
		};
		requests.push(record);
		res.on("close", () => {
			if (!res.writableFinished) record.aborted = true;
		});
		const fail = (error: RequestError, extra?: Record<string, string>) => {
			record.status = error.status;
			record.error = { type: error.type, message: error.message };
			sendError(res, requestId, error, extra);
		};
		try {
			if (new URL(url, "http://mock").pathname !== "/v1/messages") {
				throw new RequestError(404, "not_found_error", "Not Found");
			}
			authorize(headers, options.apiKey);
			let parsed: unknown;
			try {
				parsed = JSON.parse(raw);
			} catch {
				throw invalid("Request body is not valid JSON.");
			}
			const body = validateBody(parsed);
			record.body = body;
			const blocks = promptBlocks(body);
			record.blocks = blocks;
			record.breakpoints = blocks.filter((b) => b.ttl !== undefined).map((b) => b.index);
			const plan = planCache(blocks, isLive, minimumFor(body.model), lookback);
			const reply = route(body, index);
			if (reply.kind === "error") {
				fail(new RequestError(reply.status, reply.type, reply.message), reply.headers);
				return;
			}
			// The response begins: the read refreshes its entry, the writes appear.
			const t = now();
			if (plan.read !== undefined) {
				const entry = cache.get(blocks[plan.read.block]!.prefixHash)!;
				entry.expiresAt = t + ttlMs(entry.ttl);
			}
			for (const write of plan.writes) {
				const prefixHash = blocks[write.block]!.prefixHash;
				cache.delete(prefixHash);
				cache.set(prefixHash, {
					prefixHash,
					model: body.model,
					tokens: write.tokens,
					blocks: write.block + 1,
					ttl: write.ttl,
					writtenAt: t,
					expiresAt: t + ttlMs(write.ttl),
				});
			}
			const stopReason =
				reply.stopReason ?? (reply.content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
			const usage = usageOf(blocks, plan, outputTokensOf(reply));
			record.cache = plan;
			record.usage = usage;
			record.status = 200;
			const id = `msg_mock_${index + 1}`;
			if (body.stream === true) {
				res.writeHead(200, {
					"content-type": "text/event-stream",
					"cache-control": "no-cache",
					connection: "keep-alive",
					"request-id": requestId,
				});
				streamReply(res, id, body.model, reply.content, stopReason, usage);
				return;
			}
			res.writeHead(200, { "content-type": "application/json", "request-id": requestId });
			res.end(
				JSON.stringify({
					id,
					type: "message",
					role: "assistant",
					model: body.model,
					content: reply.content,
					stop_reason: stopReason,
					stop_sequence: null,
					usage,
				}),
			);
		} catch (error) {
			if (error instanceof RequestError) fail(error);
			else fail(new RequestError(500, "api_error", error instanceof Error ? error.message : String(error)));
		}
	};

	const server: Server = createServer((req, res) => {
		let raw = "";
		req.setEncoding("utf8");
		req.on("data", (chunk: string) => {
			raw += chunk;
		});
		req.on("end", () => {
			if (req.method !== "POST") {
				res.writeHead(405, { "content-type": "application/json" }).end("{}");
				return;
			}
			handle(req.url ?? "/", req.headers, raw, res);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		port,
		baseUrl: `http://127.0.0.1:${port}`,
		requests,
		cacheEntries: () => [...cache.values()].filter((e) => now() < e.expiresAt),
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
