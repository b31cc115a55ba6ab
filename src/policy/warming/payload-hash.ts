/**
 * A stable fingerprint of a provider payload (pi-ai's request body as `onPayload` sees it), for the
 * cache-warming guard: a refresh replays a consultation's first request with a 16-token
 * output ceiling, and is sent only if its payload hashes equal to the original's — anything else
 * would write a new cache entry instead of touching the old one.
 *
 * Hash the payload AS SENT: after the adapter's own `onPayload` edits (the Anthropic stable-prefix
 * breakpoint, src/adapter/consult/cache-breakpoint.ts), for the original and the refresh alike.
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

/** Canonical JSON of a value; `omit` names paths (from the root) left out. */
function canonical(value: unknown, omit: readonly (readonly string[])[], seen: unknown[]): string {
	let v = value;
	if (isRecord(v) && typeof v.toJSON === "function") v = (v.toJSON as () => unknown)();
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
		case "undefined":
		case "function":
		case "symbol":
			return "null";
		case "object":
			break;
		default:
			return "null";
	}
	if (seen.includes(v)) return '"[cycle]"';
	seen.push(v);
	let out: string;
	if (Array.isArray(v)) {
		out = `[${v.map((item) => canonical(item, [], seen)).join(",")}]`;
	} else {
		const record = v as Record<string, unknown>;
		const members: string[] = [];
		for (const key of Object.keys(record).sort(compareKeys)) {
			const member = record[key];
			if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
			const here = omit.filter((path) => path[0] === key);
			if (here.some((path) => path.length === 1)) continue;
			const deeper = here.map((path) => path.slice(1));
			members.push(`${JSON.stringify(key)}:${canonical(member, deeper, seen)}`);
		}
		out = `{${members.join(",")}}`;
	}
	seen.pop();
	return out;
}

/** The canonical text `payloadHash` hashes (exposed for tests and debugging). */
export function canonicalPayload(payload: unknown, api: string): string {
	return canonical(payload, outputCapPaths(api), []);
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
