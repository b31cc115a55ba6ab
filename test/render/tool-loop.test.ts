/**
 * The tool loop's request: the ledger request with the advisor's replies and the tool results
 * appended, each part a unit in the one encoding (request-units.test.ts holds the encoding itself).
 */
import type { AssistantMessage, Message, ToolResultMessage } from "@mariozechner/pi-ai";
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { ledgerOf } from "../../src/reducers/index.ts";
import { estimateMessageTokens } from "../../src/render/estimate.ts";
import { DEFAULT_LEDGER_CONFIG } from "../../src/render/ledger-section.ts";
import { type RenderOptions, renderRequest } from "../../src/render/request-assembly.ts";
import { buildContext, commonUnits, stablePrefixRequest, unitCount } from "../../src/render/request-units.ts";
import { extendRequest } from "../../src/render/tool-loop.ts";
import { zeroUsage } from "../../src/render/usage.ts";
import { assistant, call, resetParents, user } from "../support/events.ts";
import { allUnits } from "../support/requests.ts";

const options: RenderOptions = {
	config: DEFAULT_LEDGER_CONFIG,
	catalogue: [{ name: "read", description: "Read a file." }],
	tools: [],
	toolsMode: "none",
	mode: "consult",
};

const first = () =>
	renderRequest(
		ledgerOf([
			user("u1", "Add a --json flag."),
			assistant("a1", { text: "Asking.", calls: [call("adv", "advisor")] }),
		]),
		options,
	);

const reply = (id: string): AssistantMessage => ({
	role: "assistant",
	content: [
		{ type: "text", text: "Let me look." },
		{ type: "thinking", thinking: "hmm" },
		{ type: "toolCall", id, name: "read", arguments: { path: "a.ts" } },
	],
	api: "anthropic-messages",
	provider: "anthropic",
	model: "claude-sonnet-4-5",
	usage: zeroUsage(),
	stopReason: "toolUse",
	timestamp: 0,
});

const results = (id: string, isError = false): ToolResultMessage => ({
	role: "toolResult",
	toolCallId: id,
	toolName: "read",
	content: [
		{ type: "text", text: "x" },
		{ type: "image", data: "AAAA", mimeType: "image/png" },
	],
	isError,
	timestamp: 0,
});

beforeEach(() => resetParents());

describe("extendRequest", () => {
	it("appends one unit per part: the reply's text, thinking and call, the result's header, text and image", () => {
		const request = first();
		const grown = extendRequest(request, {
			messages: [...buildContext(request).messages, reply("t1"), results("t1", true)],
		});
		expect(
			allUnits(grown)
				.slice(unitCount(request))
				.map((u) => u.text),
		).toEqual([
			"\u0001a\u0000Let me look.",
			"a\u0000\u0002thinking hmm",
			'a\u0000\u0002call t1 read {"path":"a.ts"}',
			"\u0001u\u0000\u0002result t1 error",
			"u\u0000x",
			"u\u0000\u0002image image/png",
		]);
		expect(allUnits(grown).slice(0, unitCount(request))).toEqual(allUnits(request));
		expect(grown.hash).toBe(allUnits(grown).at(-1)!.prefixHash);
		expect(grown.tokens).toBe(
			request.tokens + estimateMessageTokens(reply("t1")) + estimateMessageTokens(results("t1", true)),
		);
		expect(grown.stable).toBe(request.stable);
		expect(grown.messageCount).toBe(request.messageCount + 2);
		expect(buildContext(grown).messages).toEqual([
			...buildContext(request).messages,
			reply("t1"),
			results("t1", true),
		]);
	});

	it("a context with nothing new is the request itself", () => {
		const request = first();
		expect(extendRequest(request, { messages: buildContext(request).messages })).toBe(request);
	});

	it("property: growing round by round gives the request grown at once", () => {
		fc.assert(
			fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), (errors) => {
				const request = first();
				let messages: Message[] = [...buildContext(request).messages];
				let stepwise = request;
				errors.forEach((isError, round) => {
					messages = [...messages, reply(`t${round}`), results(`t${round}`, isError)];
					stepwise = extendRequest(stepwise, { messages });
				});
				const once = extendRequest(request, { messages });
				expect(allUnits(stepwise)).toEqual(allUnits(once));
				expect([stepwise.hash, stepwise.tokens, stepwise.messageCount]).toEqual([
					once.hash,
					once.tokens,
					once.messageCount,
				]);
				expect(commonUnits(stepwise, once)).toBe(unitCount(once));
			}),
		);
	});

	it("grows a stable prefix the same way: its units after the prefix's", () => {
		const request = first();
		const prefix = stablePrefixRequest(request);
		const grown = extendRequest(prefix, { messages: [...buildContext(prefix).messages, reply("t1")] });
		expect(unitCount(grown)).toBe(request.stable.unitCount + 3);
		expect(commonUnits(grown, prefix)).toBe(unitCount(prefix));
		expect(allUnits(grown)[unitCount(prefix)]!.prefixChars).toBe(
			request.stable.chars + "\u0001a\u0000Let me look.".length,
		);
	});
});
