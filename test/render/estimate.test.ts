// The chars/4 estimate runs on whatever a model sent back, before anything else looks at it.
import type { AssistantMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { estimateMessageTokens } from "../../src/render/estimate.ts";
import { zeroUsage } from "../../src/render/usage.ts";

function withArguments(args: Record<string, unknown>): AssistantMessage {
	return {
		role: "assistant",
		content: [{ type: "toolCall", id: "c1", name: "read", arguments: args }],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "m",
		usage: zeroUsage(),
		stopReason: "toolUse",
		timestamp: 0,
	};
}

describe("estimateMessageTokens", () => {
	it("counts a tool call as its name plus its arguments as JSON", () => {
		// "read" 4 + {"path":"a.ts"} 15 = 19 chars → 5 tokens
		expect(estimateMessageTokens(withArguments({ path: "a.ts" }))).toBe(5);
	});

	it("arguments too deep to serialise count as nothing instead of throwing", () => {
		let deep: Record<string, unknown> = {};
		for (let i = 0; i < 200_000; i++) deep = { d: deep };
		expect(() => JSON.stringify(deep)).toThrow(RangeError);
		expect(estimateMessageTokens(withArguments(deep))).toBe(1);
	});
});
