// The masked arm: tool results older than the newest 10 assistant turns become one line each.
import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { maskOldOutputs, outputLines } from "../../../../src/adapter/cli/eval/mask.ts";

const user = (text: string): UserMessage => ({ role: "user", content: [{ type: "text", text }], timestamp: 0 });

function turn(n: number): [AssistantMessage, ToolResultMessage] {
	return [
		{
			role: "assistant",
			content: [
				{ type: "text", text: `step ${n}` },
				{ type: "toolCall", id: `c${n}`, name: "bash", arguments: { command: `ls ${n}` } },
			],
			api: "x",
			provider: "x",
			model: "x",
			usage: {
				input: 0,
				output: 0,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: 0,
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
			},
			stopReason: "toolUse",
			timestamp: 0,
		},
		{
			role: "toolResult",
			toolCallId: `c${n}`,
			toolName: "bash",
			content: [{ type: "text", text: `out ${n}\nline two\nline three` }],
			isError: false,
			timestamp: 0,
		},
	];
}

function session(turns: number): Message[] {
	const out: Message[] = [user("Do it.")];
	for (let n = 1; n <= turns; n++) out.push(...turn(n));
	return out;
}

describe("the masked arm", () => {
	it("counts a result's text lines (an image none)", () => {
		const [, result] = turn(1);
		expect(outputLines(result)).toBe(3);
		expect(
			outputLines({
				...result,
				content: [
					{ type: "text", text: "" },
					{ type: "image", data: "", mimeType: "image/png" },
				],
			}),
		).toBe(1);
	});

	it("with 12 turns, masks the results of the two oldest, exactly, and keeps every other message object", () => {
		const messages = session(12);
		const masked = maskOldOutputs(messages);
		expect(masked).toHaveLength(messages.length);
		// The oldest two results, byte for byte.
		expect(JSON.stringify(masked[2])).toBe(
			'{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"Old environment output: (3 lines omitted)"}],"isError":false,"timestamp":0}',
		);
		expect((masked[4] as ToolResultMessage).content).toEqual([
			{ type: "text", text: "Old environment output: (3 lines omitted)" },
		]);
		// The third-oldest turn is the tenth newest: its result stays.
		expect(masked[6]).toBe(messages[6]);
		masked.forEach((message, i) => {
			if (i !== 2 && i !== 4) expect(message).toBe(messages[i]);
		});
	});

	it("with 10 turns or fewer, masks nothing", () => {
		const messages = session(10);
		expect(maskOldOutputs(messages)).toEqual(messages);
		expect(maskOldOutputs(session(3))).toEqual(session(3));
	});

	it("masks by position: a result that arrives among the newest turns stays, whichever call it answers", () => {
		const messages = session(11);
		// The oldest turn's result, moved to the end.
		const late = [messages[0]!, messages[1]!, ...messages.slice(3), messages[2]!];
		const masked = maskOldOutputs(late);
		expect(masked.at(-1)).toBe(late.at(-1));
	});
});
