// The arms of one eval point, on a long recorded session: the full arm is the replay's baseline
// plus the question, the masked arm differs from it only in masked results, and every arm is
// redacted.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Message, ToolResultMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { baselineMessages, prepareBaseline } from "../../../../src/adapter/extension/baseline/messages.ts";
import { pointRequests } from "../../../../src/adapter/lab/eval/arms.ts";
import { drawOrder, loadSession } from "../../../../src/adapter/lab/eval/eval-points.ts";
import { calledToolNames, sessionTools } from "../../../../src/adapter/lab/replay/tool-set.ts";
import { DEFAULT_PRIVACY } from "../../../../src/events/index.ts";
import {
	DEFAULT_QUESTION,
	FULL_CONTEXT_INSTRUCTION,
	FULL_CONTEXT_SYSTEM_PROMPT,
	fullContextQuestion,
	MASKED_OUTPUT,
} from "../../../../src/render/index.ts";
import { samplesDir } from "../../../support/cli-build.ts";

const taskq = readFileSync(join(samplesDir, "long/taskq.jsonl"), "utf8");

describe("the arms of a point", () => {
	const session = loadSession("taskq.jsonl", taskq);
	const real = drawOrder([session], "1").filter((d) => d.point.kind === "advisor");
	// The newest real point: the longest context, so there are results to mask.
	const drawn = real.reduce((a, b) => (b.point.upTo > a.point.upTo ? b : a));
	const requests = pointRequests(drawn, ["ledger", "full", "masked"], DEFAULT_PRIVACY);

	it("the full arm is the replay's baseline, then the question and the instruction, under the neutral prompt, declaring the tools its history calls", () => {
		const tools = sessionTools(session.cwd!, calledToolNames(session.entries));
		const baseline = baselineMessages(
			prepareBaseline(session.path, tools.inventory),
			drawn.point.upTo,
			drawn.point.callId,
		);
		const full = requests.full!.context;
		expect(full.systemPrompt).toBe(FULL_CONTEXT_SYSTEM_PROMPT);
		// A history with tool calls needs their tools declared (Anthropic refuses it otherwise): only those.
		const called = new Set<string>();
		for (const m of baseline)
			if (m.role === "assistant") for (const p of m.content) if (p.type === "toolCall") called.add(p.name);
		expect(full.tools?.map((t) => t.name).sort()).toEqual([...called].sort());
		expect(called.size).toBeGreaterThan(0);
		expect(full.messages.slice(0, -1)).toEqual(baseline);
		expect(requests.question.length).toBeGreaterThan(0);
		expect(full.messages.at(-1)).toEqual({
			role: "user",
			content: [
				{ type: "text", text: fullContextQuestion(requests.question) },
				{ type: "text", text: FULL_CONTEXT_INSTRUCTION },
			],
			timestamp: 0,
		});
		// The question is the executor's prose beside the call, and the ledger arm asks the same one.
		expect(flat(requests.ledger!.context.messages)).toContain(requests.question.trim());
	});

	it("the masked arm is the full arm with the older results replaced, nothing else", () => {
		const full = requests.full!.context.messages;
		const masked = requests.masked!.context.messages;
		expect(masked).toHaveLength(full.length);
		let changed = 0;
		masked.forEach((message, i) => {
			const original = full[i]!;
			if (JSON.stringify(message) === JSON.stringify(original)) return;
			changed++;
			expect(original.role).toBe("toolResult");
			const lines = (original as ToolResultMessage).content
				.filter((p) => p.type === "text")
				.reduce((n, p) => n + (p as { text: string }).text.split("\n").length, 0);
			expect(message).toEqual({ ...original, content: [{ type: "text", text: MASKED_OUTPUT(lines) }] });
		});
		expect(changed).toBeGreaterThan(0);
		expect(requests.masked!.tokens).toBeLessThan(requests.full!.tokens);
	});

	it("a simulated point asks the default question", () => {
		const compaction = loadSession("compaction.jsonl", readFileSync(join(samplesDir, "compaction.jsonl"), "utf8"));
		const [simulated] = drawOrder([compaction], "1");
		expect(simulated!.point.kind).toBe("simulated");
		const r = pointRequests(simulated!, ["full"], DEFAULT_PRIVACY);
		expect(r.question).toBe("");
		expect(r.full!.context.messages.at(-1)!.content).toContainEqual({
			type: "text",
			text: fullContextQuestion(DEFAULT_QUESTION),
		});
	});

	it("every arm and the texts the judge reads are redacted", () => {
		const secret = "ghp_16C7e42F292c6912E7710c838347Ae178B4a";
		const leaky = taskq.replace(
			"`formatEntryCaption` is in and the suite is green.",
			`GITHUB_TOKEN=${secret} is in .env.`,
		);
		expect(leaky).not.toBe(taskq);
		const s = loadSession("taskq.jsonl", leaky);
		const d = drawOrder([s], "1").find((x) => x.point.upTo === drawn.point.upTo)!;
		const r = pointRequests(d, ["ledger", "full", "masked"], DEFAULT_PRIVACY);
		expect(r.question).toContain("GITHUB_TOKEN=[redacted: github-token]");
		for (const arm of [r.ledger!, r.full!, r.masked!]) {
			const text = JSON.stringify(arm.context);
			expect(text).not.toContain(secret);
			expect(text).toContain("[redacted: github-token]");
		}
	});
});

function flat(messages: readonly Message[]): string {
	return JSON.stringify(messages);
}
