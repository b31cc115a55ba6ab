import { describe, expect, it } from "vitest";
import { executorPayload } from "../../../../src/adapter/extension/consult/executor-payload.ts";

const tools = [{ name: "read", description: "Read a file.", parameters: { type: "object", properties: {} } }] as never;
// `[{"name":"read","description":"Read a file.","parameters":{"type":"object","properties":{}}}]`: 93 chars.
const toolTokens = 24;

describe("the executor's context a consultation stands in for", () => {
	it("Pi's estimate of its context, and of that the system prompt and the tool declarations", () => {
		const ctx = { getContextUsage: () => ({ tokens: 9000 }), getSystemPrompt: () => "p".repeat(400) };
		expect(executorPayload(ctx, tools)).toEqual({ tokens: 9000, headTokens: 100 + toolTokens });
	});
	it("the head is never more than the whole", () => {
		const ctx = { getContextUsage: () => ({ tokens: 50 }), getSystemPrompt: () => "p".repeat(4000) };
		expect(executorPayload(ctx, tools)).toEqual({ tokens: 50, headTokens: 50 });
	});
	it("none when Pi does not know its context's size: no call, none measured yet, a call that throws", () => {
		expect(executorPayload({}, tools)).toBeUndefined();
		expect(executorPayload({ getContextUsage: () => ({ tokens: null }) }, tools)).toBeUndefined();
		expect(executorPayload({ getContextUsage: () => undefined }, tools)).toBeUndefined();
		const throwing = {
			getContextUsage: () => {
				throw new Error("gone");
			},
		};
		expect(executorPayload(throwing, tools)).toBeUndefined();
	});
});
