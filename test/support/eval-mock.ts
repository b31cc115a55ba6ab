/**
 * For the eval's tests: an agent dir with a models.json pointing at the local mock provider
 * (mock-llm.ts, OpenAI chat completions), and a scripted advisor and judge behind it. The advisor
 * answers say which arm they answer (`[ledger]`, `[full]`, `[masked]`), so the judge script can
 * tell what the blinded labels stand for; the judge's reply is built by a test-given function.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FULL_CONTEXT_SYSTEM_PROMPT, JUDGE_SYSTEM_PROMPT, MASKED_OUTPUT } from "../../src/render/index.ts";
import type { MockLlmReply } from "./mock-llm.ts";

export const PRICES = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

export interface AgentDir {
	root: string;
	agentDir: string;
	dispose(): void;
}

/** A temporary agent dir whose models.json names `mock/advisor-1` and `mock/judge-1` at `baseUrl`. */
export function mockAgentDir(baseUrl: string, contextWindow = 400_000): AgentDir {
	const root = mkdtempSync(join(tmpdir(), "advisor-eval-"));
	const agentDir = join(root, "agent");
	mkdirSync(agentDir, { recursive: true });
	const model = (id: string, name: string) => ({
		id,
		name,
		reasoning: false,
		input: ["text"],
		cost: PRICES,
		contextWindow,
		maxTokens: 8192,
	});
	writeFileSync(
		join(agentDir, "models.json"),
		JSON.stringify({
			providers: {
				mock: {
					baseUrl,
					api: "openai-completions",
					apiKey: "test-key",
					compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
					models: [model("advisor-1", "Mock Advisor"), model("judge-1", "Mock Judge")],
				},
			},
		}),
	);
	return { root, agentDir, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

export type Arm = "ledger" | "full" | "masked";

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content)) return content.map((p: any) => (typeof p?.text === "string" ? p.text : "")).join("\n");
	return "";
}

/** What a chat-completions request body was: an arm of the advisor, or the judge. */
export function requestKind(body: any): Arm | "judge" {
	const system = textOf(body.messages?.[0]?.content);
	if (system === JUDGE_SYSTEM_PROMPT) return "judge";
	if (system === FULL_CONTEXT_SYSTEM_PROMPT) {
		const all = body.messages.map((m: any) => textOf(m.content)).join("\n");
		return all.includes(MASKED_OUTPUT(0).split("(")[0]!) ? "masked" : "full";
	}
	return "ledger";
}

/** The judge's labels and the arm each answer came from, read from the `[arm]` marks of the answers. */
export function judgeLabels(body: any): { label: string; arm: Arm }[] {
	const text = textOf(body.messages.at(-1)?.content ?? "");
	const first = body.messages.map((m: any) => textOf(m.content)).join("\n");
	const out: { label: string; arm: Arm }[] = [];
	for (const m of first.matchAll(/<answer label="([ABC])">\n[^\n]*\n\[(ledger|full|masked)\]/g)) {
		out.push({ label: m[1]!, arm: m[2] as Arm });
	}
	return out.length > 0 ? out : [...text.matchAll(/label="([ABC])"/g)].map((m) => ({ label: m[1]!, arm: "full" }));
}

/** A valid judge reply: the given severities, every pair agreeing unless told, `full` more useful. */
export function judgeReply(
	labels: readonly { label: string; arm: Arm }[],
	options: { lacking?: Arm; disagree?: boolean } = {},
): string {
	const byArm = new Map(labels.map((l) => [l.arm, l.label]));
	const pairs: { answers: [string, string]; agree: boolean }[] = [];
	for (let i = 0; i < labels.length; i++)
		for (let j = i + 1; j < labels.length; j++)
			pairs.push({ answers: [labels[i]!.label, labels[j]!.label], agree: options.disagree !== true });
	const points =
		options.lacking !== undefined && byArm.has("full") && options.lacking !== "full"
			? [
					{
						answer: byArm.get("full")!,
						point: "Run the failing test first.",
						lackedBy: [byArm.get(options.lacking)!],
					},
				]
			: [];
	return JSON.stringify({
		severities: Object.fromEntries(labels.map((l) => [l.label, "concern"])),
		sameVerdict: pairs,
		points,
		moreUseful: byArm.get("full") ?? "tie",
	});
}

/** An advisor answer for an arm: `Severity: <level>`, then the arm's mark. */
export function advice(arm: Arm, severity = "concern"): MockLlmReply {
	return {
		text: `Severity: ${severity}\n[${arm}] Fix the failing test before going on.`,
		promptTokens: 1000,
		outputTokens: 40,
	};
}
