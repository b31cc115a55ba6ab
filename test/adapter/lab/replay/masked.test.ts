// The masked baseline (eval's masked arm, replay's masked column): tool results older than the
// newest 10 assistant turns become one line each.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { baselineMessages, prepareBaseline } from "../../../../src/adapter/extension/baseline/messages.ts";
import { loadSession } from "../../../../src/adapter/lab/eval/eval-points.ts";
import { replayText } from "../../../../src/adapter/lab/replay/engine.ts";
import { maskOldOutputs, outputLines } from "../../../../src/adapter/lab/replay/masked.ts";
import { calledToolNames, sessionTools } from "../../../../src/adapter/lab/replay/tool-set.ts";
import { estimateMessageTokens } from "../../../../src/render/index.ts";
import { samplesDir } from "../../../support/cli-build.ts";

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

describe("the masked column of a replay", () => {
	it("at every point, the running measure equals masking the baseline built from scratch (taskq, with a compaction)", () => {
		const text = readFileSync(join(samplesDir, "long/taskq.jsonl"), "utf8");
		const session = loadSession("taskq.jsonl", text);
		const tools = sessionTools(session.cwd!, calledToolNames(session.entries));
		const branch = prepareBaseline(session.path, tools.inventory);
		const [replayed] = replayText("taskq.jsonl", text, { every: 10, allLeaves: false }).sessions;
		expect(replayed!.points).toHaveLength(session.points.length);
		let masking = 0;
		replayed!.points.forEach((p, i) => {
			const point = session.points[i]!;
			const full = baselineMessages(branch, point.upTo, point.callId);
			const masked = maskOldOutputs(full);
			const tokens = masked.reduce((n, m) => n + estimateMessageTokens(m), 0);
			expect(p.masked).toBe(tokens);
			expect(p.baseline).toBe(full.reduce((n, m) => n + estimateMessageTokens(m), 0));
			if (p.masked < p.baseline) masking++;
		});
		expect(masking).toBeGreaterThan(0);
		// Masking never changes the previous point's masked results: consecutive points share a prefix.
		expect(replayed!.points.slice(1).every((p) => p.maskedCacheShare!.tokenPrefix > 0)).toBe(true);
	});
});
