/**
 * A stable fingerprint of a provider payload (pi-ai's request body as `onPayload` sees it), for the
 * cache-warming guard: a refresh replays a consultation's first request with a 16-token
 * output ceiling, and is sent only if its payload hashes equal to the original's — anything else
 * would write a new cache entry instead of touching the old one.
 *
 * Hash the payload AS SENT: after the adapter's own `onPayload` edits (its cache marks,
 * src/adapter/extension/consult/payload-cache-marks.ts), for the original and the refresh alike — in the form the
 * adapter hands over (`warmingForm`: where marks cache, cut after the stable portion, marks left out).
 *
 * Excluded, per API: only the output cap — the one field a refresh changes on purpose, and one no
 * provider keys its prompt cache on:
 *   anthropic-messages                       max_tokens
 *   openai-completions                       max_tokens, max_completion_tokens (pi-ai writes one, by compat)
 *   openai-responses, azure-openai-responses max_output_tokens
 *   openai-codex-responses                   (none: pi-ai sends no cap there — see refreshGuard)
 *   bedrock-converse-stream                  inferenceConfig.maxTokens
 *   google-generative-ai, google-vertex      config.maxOutputTokens
 *   mistral-conversations                    maxTokens
 *   any other API                            the top-level max_tokens, max_completion_tokens,
 *                                            max_output_tokens, maxTokens
 * Kept, deliberately: messages / input / contents, system, tools, model, reasoning and thinking
 * settings (Anthropic drops cached messages when thinking parameters change), cache markers and
 * cache keys (`cache_control`, `prompt_cache_key`, `prompt_cache_retention`), `stream` and
 * `stream_options` (pi-ai sends the same for both requests, so keeping them costs nothing and
 * catches a host that changed them), temperature, metadata, service tier.
 *
 * Canonical form: JSON with object keys sorted recursively (code-unit order, no locale), `undefined`
 * members dropped, non-finite numbers as null, `toJSON` honoured — what `JSON.stringify` would send,
 * independent of key insertion order. The API name is part of the hash.
 */

import { isRecord } from "../../events/index.ts";
import { hashString } from "../../render/index.ts";

/** The output ceiling of a warming refresh. OpenAI's Responses API refuses a smaller max_output_tokens. */
export const WARMING_OUTPUT_TOKENS = 16;

const FALLBACK_CAP_PATHS: readonly (readonly string[])[] = [
	["max_tokens"],
	["max_completion_tokens"],
	["max_output_tokens"],
	["maxTokens"],
];

const CAP_PATHS: Readonly<Record<string, readonly (readonly string[])[]>> = {
	"anthropic-messages": [["max_tokens"]],
	"openai-completions": [["max_tokens"], ["max_completion_tokens"]],
	"openai-responses": [["max_output_tokens"]],
	"azure-openai-responses": [["max_output_tokens"]],
	"openai-codex-responses": [["max_output_tokens"]],
	"bedrock-converse-stream": [["inferenceConfig", "maxTokens"]],
	"google-generative-ai": [["config", "maxOutputTokens"]],
	"google-vertex": [["config", "maxOutputTokens"]],
	"mistral-conversations": [["maxTokens"]],
};

/** Where the output cap sits in a payload of this API. */
export function outputCapPaths(api: string): readonly (readonly string[])[] {
	return CAP_PATHS[api] ?? FALLBACK_CAP_PATHS;
}

function compareKeys(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}

type OmitPaths = readonly (readonly string[])[];

/** The canonical text of a non-object (after toJSON), or undefined for an object or array. */
function scalarText(v: unknown): string | undefined {
	if (v === null) return "null";
	switch (typeof v) {
		case "string":
			return JSON.stringify(v);
		case "number":
			return Number.isFinite(v) ? JSON.stringify(v) : "null";
		case "boolean":
			return v ? "true" : "false";
		case "bigint":
			return JSON.stringify(v.toString());
		case "object":
			return undefined;
		default:
			// undefined, function, symbol
			return "null";
	}
}

/** An object or array being written: its remaining members, each with its key (objects) and omit paths. */
interface Frame {
	node: object;
	close: string;
	members: [key: string | undefined, value: unknown, omit: OmitPaths][];
	next: number;
}

/**
 * Canonical JSON of a value; `omit` names paths (from the root) left out. An explicit stack, not
 * recursion: a payload carries tool-call arguments a model wrote, which may nest arbitrarily deep.
 */
function canonical(value: unknown, omit: OmitPaths): string {
	const out: string[] = [];
	const onPath = new Set<object>();
	const stack: Frame[] = [];
	const open = (raw: unknown, paths: OmitPaths): void => {
		const v = isRecord(raw) && typeof raw.toJSON === "function" ? (raw.toJSON as () => unknown)() : raw;
		const text = scalarText(v);
		if (text !== undefined) {
			out.push(text);
			return;
		}
		const node = v as object;
		if (onPath.has(node)) {
			out.push('"[cycle]"');
			return;
		}
		onPath.add(node);
		if (Array.isArray(node)) {
			out.push("[");
			stack.push({ node, close: "]", members: node.map((item) => [undefined, item, []]), next: 0 });
			return;
		}
		const record = node as Record<string, unknown>;
		const members: Frame["members"] = [];
		for (const key of Object.keys(record).sort(compareKeys)) {
			const member = record[key];
			if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
			const here = paths.filter((path) => path[0] === key);
			if (here.some((path) => path.length === 1)) continue;
			members.push([key, member, here.map((path) => path.slice(1))]);
		}
		out.push("{");
		stack.push({ node, close: "}", members, next: 0 });
	};
	open(value, omit);
	while (stack.length > 0) {
		const frame = stack[stack.length - 1]!;
		if (frame.next >= frame.members.length) {
			out.push(frame.close);
			onPath.delete(frame.node);
			stack.pop();
			continue;
		}
		const [key, member, paths] = frame.members[frame.next]!;
		if (frame.next > 0) out.push(",");
		frame.next++;
		if (key !== undefined) out.push(`${JSON.stringify(key)}:`);
		open(member, paths);
	}
	return out.join("");
}

/** The canonical text `payloadHash` hashes (exposed for tests and debugging). */
export function canonicalPayload(payload: unknown, api: string): string {
	return canonical(payload, outputCapPaths(api));
}

/** A stable 64-bit hash of a provider payload, output cap excluded. */
export function payloadHash(payload: unknown, api: string): string {
	return hashString(`${api}\u0000${canonicalPayload(payload, api)}`);
}

/** The output cap a payload carries (the first cap path that holds a number), or undefined. */
export function payloadOutputCap(payload: unknown, api: string): number | undefined {
	for (const path of outputCapPaths(api)) {
		let at: unknown = payload;
		for (const key of path) at = isRecord(at) ? at[key] : undefined;
		if (typeof at === "number" && Number.isFinite(at)) return at;
	}
	return undefined;
}

export type RefreshGuard =
	| { send: true; hash: string; outputCap: number }
	| {
			send: false;
			/**
			 * "payload-changed": the refresh would not touch the original's cache entry.
			 * "output-cap": the payload carries no cap, or a higher one than the refresh asked for
			 * (pi-ai adds Anthropic's and Bedrock's budget-based thinking budget on top of maxTokens,
			 * and sends no cap at all for openai-codex-responses): the refresh could answer at length.
			 */
			reason: "payload-changed" | "output-cap";
			hash: string;
			outputCap: number | undefined;
	  };

/**
 * The last check before a refresh leaves (inside its `onPayload`, on the payload as it would be
 * sent): same hash as the original first request, and an output cap no higher than the ceiling.
 * On `send: false` the adapter aborts the request before any network I/O and ends the chain.
 */
export function refreshGuard(input: {
	originalHash: string;
	payload: unknown;
	api: string;
	ceiling?: number;
}): RefreshGuard {
	const hash = payloadHash(input.payload, input.api);
	const outputCap = payloadOutputCap(input.payload, input.api);
	if (hash !== input.originalHash) return { send: false, reason: "payload-changed", hash, outputCap };
	if (outputCap === undefined || outputCap > (input.ceiling ?? WARMING_OUTPUT_TOKENS))
		return { send: false, reason: "output-cap", hash, outputCap };
	return { send: true, hash, outputCap };
}
