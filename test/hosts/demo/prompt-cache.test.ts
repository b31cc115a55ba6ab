/**
 * The demo's simulated prompt cache: a request reads from the cache the leading pieces it shares
 * with an earlier request to the same model, from 1,024 tokens, in steps of 128 — never more than
 * its prompt, never another model's.
 */

import { describe, expect, it } from "vitest";
import { promptCache } from "../../../scripts/demo/prompt-cache.ts";
import type { MockReply } from "../../../scripts/mock-openai.ts";

const REPLY: MockReply = { kind: "text", text: "Severity: none" };
/** A user message of `n` tokens (chars / 4). */
const user = (n: number, fill = "a") => ({ role: "user", content: [{ type: "text", text: fill.repeat(4 * n) }] });
const request = (model: string, ...messages: unknown[]) => ({ model, tools: [], messages });

describe("promptCache", () => {
	it("a first request is all fresh; the next one reads the shared prefix, in steps of 128", () => {
		const usage = promptCache();
		const first = usage(request("advisor", user(1000), user(300, "b")), REPLY);
		expect(first).toMatchObject({ prompt_tokens: 1301, prompt_tokens_details: { cached_tokens: 0 } });
		expect(first.completion_tokens).toBe(4);
		// "[]" (no tools) is 1 token: the shared prefix is 1 + 1000 + 300 = 1301 tokens → 1280.
		const second = usage(request("advisor", user(1000), user(300, "b"), user(50, "c")), REPLY);
		expect(second).toMatchObject({ prompt_tokens: 1351, prompt_tokens_details: { cached_tokens: 1280 } });
	});

	it("below 1,024 shared tokens nothing is read from the cache", () => {
		const usage = promptCache();
		usage(request("advisor", user(900), user(300, "b")), REPLY);
		const next = usage(request("advisor", user(900), user(300, "c")), REPLY);
		expect(next.prompt_tokens_details).toEqual({ cached_tokens: 0 });
	});

	it("the prefix ends at the first piece that differs, and another model's requests are not its cache", () => {
		const usage = promptCache();
		usage(request("advisor", user(2000), user(300, "b")), REPLY);
		expect(usage(request("executor", user(2000)), REPLY).prompt_tokens_details).toEqual({ cached_tokens: 0 });
		const changed = usage(request("advisor", user(2000), user(300, "c")), REPLY);
		expect(changed.prompt_tokens_details).toEqual({ cached_tokens: 1920 });
	});
});
