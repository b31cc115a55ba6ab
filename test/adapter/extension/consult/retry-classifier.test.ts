import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as piAi from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import {
	classifyFailure,
	isContextOverflow,
	TRANSIENT_ERROR_PATTERN,
} from "../../../../src/adapter/extension/consult/retry-classifier.ts";

const error = (errorMessage: string) => ({ stopReason: "error" as const, errorMessage });

describe("classifyFailure", () => {
	it("aborted stays aborted, whatever the message", () => {
		expect(classifyFailure({ stopReason: "aborted" })).toBe("aborted");
		expect(classifyFailure({ stopReason: "aborted", errorMessage: "503 overloaded" })).toBe("aborted");
	});

	it.each([
		"529 overloaded_error: Overloaded",
		"Provider returned error",
		"429 Too Many Requests",
		"Rate limit exceeded, please retry",
		"500 Internal Server Error",
		"502 Bad Gateway",
		"503 Service Unavailable",
		"504 Gateway Timeout",
		"fetch failed",
		"socket hang up",
		"Connection error.",
		"ECONNREFUSED: connection refused",
		"WebSocket closed before response",
		"Request ended without sending any chunks",
		"other side closed",
		"Request timed out",
		"timeout",
		"terminated",
		"upstream connect error or disconnect/reset before headers",
		"http2 request did not get a response",
	])("transient: %j", (message) => {
		expect(classifyFailure(error(message))).toBe("transient");
	});

	it.each([
		"401 Unauthorized",
		"403 Forbidden",
		"invalid x-api-key",
		"Incorrect API key provided: sk-...",
		"API key not valid. Please pass a valid API key.",
		"authentication_error: invalid bearer token",
		"permission_denied: the caller does not have permission",
		// Auth wins even when a transient-looking number appears in the same message.
		"401 Unauthorized (request id req_5001)",
		"403 Forbidden: rate limit tier not available for this key",
	])("deterministic (auth): %j", (message) => {
		expect(classifyFailure(error(message))).toBe("deterministic");
	});

	it.each([
		"prompt is too long: 213462 tokens > 200000 maximum",
		"Your input exceeds the context window of this model",
		"This endpoint's maximum context length is 128000 tokens. However, you requested about 190000 tokens",
	])("deterministic (context overflow, even when it carries retryable-looking numbers): %j", (message) => {
		expect(classifyFailure(error(message))).toBe("deterministic");
	});

	it("a silent overflow (usage beyond the window) is deterministic when the window is known", () => {
		const usage = {
			input: 150_000,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 150_000,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		};
		expect(classifyFailure({ stopReason: "length", usage }, 150_000)).toBe("deterministic");
	});

	it.each(["400 invalid_request_error: messages: text content blocks must be non-empty", "Unknown model", ""])(
		"deterministic (anything else): %j",
		(message) => {
			expect(classifyFailure(error(message))).toBe("deterministic");
		},
	);

	it("an error without a message is deterministic", () => {
		expect(classifyFailure({ stopReason: "error" })).toBe("deterministic");
	});

	it.each(["stop", "length", "toolUse"] as const)("a %s stop is not retried", (stopReason) => {
		expect(classifyFailure({ stopReason })).toBe("deterministic");
	});

	it("a stop reason from a newer pi-ai does not throw", () => {
		expect(classifyFailure({ stopReason: "refusal" as never })).toBe("deterministic");
	});

	it("a rate limit is transient, not an overflow, even with pi-ai's generic 'too many tokens' pattern", () => {
		expect(classifyFailure(error("ThrottlingException: Too many tokens, please wait. rate limit"))).toBe("transient");
	});
});

describe("provenance", () => {
	it("isContextOverflow is pi-ai's own", () => {
		expect(isContextOverflow).toBe(piAi.isContextOverflow);
	});

	it("the transient pattern is byte-identical to AgentSession._isRetryableError in the installed Pi", () => {
		const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
		const file = join(root, "node_modules/@mariozechner/pi-coding-agent/dist/core/agent-session.js");
		const source = readFileSync(file, "utf8");
		const method = source.slice(source.indexOf("_isRetryableError(message)"));
		const literal = /return (\/.+\/i)\.test\(err\);/.exec(method)?.[1];
		expect(literal).toBe(String(TRANSIENT_ERROR_PATTERN));
	});
});
