/**
 * Sending an eval's points, against pi-ai's faux provider with a scripted advisor and judge: the
 * blinding over a seeded run, the judge's retry, a provider error, the --max-usd cap and --resume.
 * Replies are priced at the model's cost (pi-ai's calculateCost), as a real provider bills them.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
	type AssistantMessage,
	type Context,
	calculateCost,
	completeSimple,
	type FauxProviderRegistration,
	fauxAssistantMessage,
	fauxToolCall,
	registerFauxProvider,
} from "@mariozechner/pi-ai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { CompleteSimple } from "../../../../src/adapter/extension/pi/compat.ts";
import type { ArmName } from "../../../../src/adapter/lab/eval/arms.ts";
import { planRun } from "../../../../src/adapter/lab/eval/eval-plan.ts";
import { type EvalSession, loadSession } from "../../../../src/adapter/lab/eval/eval-points.ts";
import { blinding } from "../../../../src/adapter/lab/eval/judge.ts";
import type { ResolvedModel } from "../../../../src/adapter/lab/eval/models.ts";
import type { PointRecord } from "../../../../src/adapter/lab/eval/record.ts";
import { runPoints } from "../../../../src/adapter/lab/eval/runner.ts";
import { createBudget } from "../../../../src/adapter/lab/eval/spend-cap.ts";
import { type Fingerprint, openStore } from "../../../../src/adapter/lab/eval/store.ts";
import { DEFAULT_PRIVACY } from "../../../../src/events/index.ts";
import { FULL_CONTEXT_SYSTEM_PROMPT, JUDGE_RETRY, JUDGE_SYSTEM_PROMPT } from "../../../../src/render/index.ts";
import { repoRoot, samplesDir } from "../../../support/cli-build.ts";
import { judgeLabels, judgeReply, PRICES } from "../../../support/eval-mock.ts";

const SESSIONS = ["tools.jsonl", "branching.jsonl", "compaction.jsonl"];

let faux: FauxProviderRegistration;
let advisor: ResolvedModel;
let sessions: EvalSession[];
const tmp: string[] = [];

beforeAll(() => {
	faux = registerFauxProvider({
		provider: "eval-faux",
		models: [{ id: "advisor-1", name: "Faux Advisor", cost: PRICES, contextWindow: 400_000, maxTokens: 8192 }],
	});
	advisor = { key: "eval-faux/advisor-1", model: faux.getModel(), auth: { apiKey: "k" } };
	sessions = SESSIONS.map((name) => loadSession(name, readFileSync(join(samplesDir, name), "utf8")));
});

afterAll(() => faux.unregister());
afterEach(() => {
	for (const dir of tmp.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function outDir(): string {
	mkdirSync(join(repoRoot, ".tmp"), { recursive: true });
	const dir = mkdtempSync(join(repoRoot, ".tmp", "eval-run-"));
	tmp.push(dir);
	return join(dir, "out");
}

interface Sent {
	kind: ArmName | "judge";
	context: Context;
	maxTokens: number | undefined;
}

type Script = (kind: ArmName | "judge", context: Context, n: number) => AssistantMessage;

function kindOf(context: Context): ArmName | "judge" {
	if (context.systemPrompt === JUDGE_SYSTEM_PROMPT) return "judge";
	if (context.systemPrompt === FULL_CONTEXT_SYSTEM_PROMPT) return "full";
	return "ledger";
}

/** The judge's labels as the mock reads them, from the judge's first message. */
function labelsOf(context: Context) {
	return judgeLabels({ messages: context.messages.map((m) => ({ content: m.content })) });
}

const answer: Script = (kind, context, n) =>
	kind === "judge"
		? fauxAssistantMessage(judgeReply(labelsOf(context)))
		: fauxAssistantMessage(`Severity: concern\n[${kind}] answer #${n}`);

async function run(
	options: { points: number; arms?: ArmName[]; maxUsd?: number; dir?: string; resume?: boolean; seed?: string },
	script: Script = answer,
) {
	const arms = options.arms ?? ["ledger", "full"];
	const seed = options.seed ?? "1";
	const sent: Sent[] = [];
	faux.setResponses(
		Array.from({ length: 200 }, () => (context: Context, streamOptions: any) => {
			const kind = kindOf(context);
			sent.push({ kind, context: structuredClone(context), maxTokens: streamOptions?.maxTokens });
			return script(kind, context, sent.length);
		}),
	);
	const complete = (async (model, context, opts) => {
		const message = await completeSimple(model, context, opts);
		calculateCost(model, message.usage);
		return message;
	}) as CompleteSimple;
	const dir = options.dir ?? outDir();
	const fingerprint: Fingerprint = {
		inputs: [],
		advisor: advisor.key,
		judge: advisor.key,
		points: options.points,
		arms,
		seed,
	};
	const opened = openStore(dir, fingerprint, options.resume === true);
	if (!opened.ok) throw new Error(opened.error);
	opened.store.begin();
	const plan = planRun(sessions, { count: options.points, arms, seed, privacy: DEFAULT_PRIVACY }, advisor.model);
	let spent = 0;
	for (const r of opened.store.records.values()) {
		spent +=
			(r.arms.ledger?.billed.usd ?? 0) +
			(r.arms.full?.billed.usd ?? 0) +
			(r.judge?.billed.usd ?? 0) +
			(r.abandoned?.usd ?? 0);
	}
	const budget = createBudget(options.maxUsd, spent);
	const records = await runPoints(plan.points, {
		advisor,
		judge: advisor,
		complete,
		budget,
		privacy: DEFAULT_PRIVACY,
		blind: blinding(arms, seed),
		store: opened.store,
	});
	return { records, sent, budget, dir };
}

describe("an eval run", () => {
	it("answers the ledger arm's advisor_expand from the session file, redacted", async () => {
		const secret = "ghp_16C7e42F292c6912E7710c838347Ae178B4a";
		const text = readFileSync(join(samplesDir, "tools.jsonl"), "utf8");
		const lines = text.split("\n");
		const at = lines.findIndex((l) => l.includes('"role":"toolResult"'));
		const entry = JSON.parse(lines[at]!);
		entry.message.content = [{ type: "text", text: `GITHUB_TOKEN=${secret}` }];
		lines[at] = JSON.stringify(entry);
		const saved = sessions;
		sessions = [loadSession("tools.jsonl", lines.join("\n"))];
		try {
			let expanded = false;
			const { records, sent } = await run({ points: 1 }, (kind, context, n) => {
				if (kind !== "ledger" || expanded) return answer(kind, context, n);
				expanded = true;
				return fauxAssistantMessage(fauxToolCall("advisor_expand", { ids: [entry.id] }, { id: "x1" }), {
					stopReason: "toolUse",
				});
			});
			expect(sent.map((s) => s.kind)).toEqual(["ledger", "ledger", "full", "judge"]);
			const result = sent[1]!.context.messages.at(-1)!;
			expect(result.role).toBe("toolResult");
			expect(JSON.stringify(result)).toContain("GITHUB_TOKEN=[redacted: github-token]");
			expect(JSON.stringify(sent)).not.toContain(secret);
			expect(records[0]!.arms.ledger).toMatchObject({ status: "answered", toolCalls: 1 });
			expect(records[0]!.arms.ledger!.billed.requests).toBe(2);
		} finally {
			sessions = saved;
		}
	});

	it("sends every arm and the judge, each with its output cap, and records the answers", async () => {
		const { records, sent } = await run({ points: 3 });
		expect(sent.map((s) => s.kind)).toEqual([
			"ledger",
			"full",
			"judge",
			"ledger",
			"full",
			"judge",
			"ledger",
			"full",
			"judge",
		]);
		expect(sent.every((s) => s.maxTokens === 2048)).toBe(true);
		expect(records.map((r) => r.status)).toEqual(["judged", "judged", "judged"]);
		expect(records[0]!.arms.ledger!.text).toBe("Severity: concern\n[ledger] answer #1");
		expect(records[0]!.arms.ledger!.severity).toBe("concern");
		expect(records[0]!.arms.full!.billed.usd).toBeGreaterThan(0);
	});

	it("blinds the judge: over a seeded run each arm is answer A and answer B", async () => {
		const { sent } = await run({ points: 6 });
		const labels = sent.filter((s) => s.kind === "judge").map((s) => labelsOf(s.context));
		const at = (label: string) => new Set(labels.map((ls) => ls.find((l) => l.label === label)!.arm));
		expect(at("A")).toEqual(new Set(["ledger", "full"]));
		expect(at("B")).toEqual(new Set(["ledger", "full"]));
	});

	it("retries a judge reply that fails the parser once, saying why; a second failure leaves the point unjudged", async () => {
		let judged = 0;
		const { records, sent } = await run({ points: 3 }, (kind, context, n) => {
			if (kind !== "judge") return answer(kind, context, n);
			judged++;
			// Point 1: bad then good. Point 2: bad twice. Point 3: good.
			if (judged === 1 || judged === 3 || judged === 4) return fauxAssistantMessage("A is better, clearly.");
			return answer(kind, context, n);
		});
		expect(records.map((r) => r.status)).toEqual(["judged", "unjudged", "judged"]);
		expect(records[0]!.judge!.problems).toEqual(["it is not a JSON object"]);
		expect(records[0]!.judge!.replies).toHaveLength(2);
		const retry = sent.filter((s) => s.kind === "judge")[1]!.context.messages;
		expect(retry).toHaveLength(3);
		expect(retry[1]!.role).toBe("assistant");
		expect(retry[2]!.content).toEqual([{ type: "text", text: JUDGE_RETRY("it is not a JSON object") }]);
		expect(records[1]!.judge!.problems).toHaveLength(2);
		expect(records[1]!.judge!.verdict).toBeUndefined();
		expect(sent.filter((s) => s.kind === "judge")).toHaveLength(5);
	});

	it("a provider error fails its point, without a judge, and the run goes on", async () => {
		const { records, sent } = await run({ points: 3 }, (kind, context, n) =>
			kind === "full" && n === 5
				? fauxAssistantMessage("", { stopReason: "error", errorMessage: "400 invalid request: tool history" })
				: answer(kind, context, n),
		);
		expect(records.map((r) => r.status)).toEqual(["judged", "failed", "judged"]);
		expect(records[1]!.arms.full).toMatchObject({
			status: "failed",
			error: "400 invalid request: tool history",
			severity: null,
		});
		expect(sent.map((s) => s.kind)).toEqual(["ledger", "full", "judge", "ledger", "full", "ledger", "full", "judge"]);
	});

	it("--max-usd: no request once one would cross the cap, and what was billed stays under it", async () => {
		const unlimited = await run({ points: 4 });
		const total = unlimited.records.reduce(
			(sum, r) => sum + r.arms.ledger!.billed.usd + r.arms.full!.billed.usd + r.judge!.billed.usd,
			0,
		);
		const capped = await run({ points: 4, maxUsd: total / 2 });
		expect(capped.budget.stopped).toBe(true);
		expect(capped.sent.length).toBeGreaterThan(0);
		expect(capped.sent.length).toBeLessThan(unlimited.sent.length);
		expect(capped.budget.spent).toBeLessThanOrEqual(total / 2);
		expect(capped.records.at(-1)!.status).toBe("stopped");
		// The requests sent are a prefix of the unlimited run's: the cap refused the next one and everything after.
		expect(capped.sent.map((s) => s.kind)).toEqual(unlimited.sent.slice(0, capped.sent.length).map((s) => s.kind));
	});

	it("--resume sends only what is missing: no arm and no judge twice", async () => {
		// A cap a little above one request's estimate (its output is counted at the 2,048-token cap).
		const first = await run({ points: 4, maxUsd: 0.05 });
		expect(first.budget.stopped).toBe(true);
		const done = first.records.filter((r) => r.status === "judged").length;
		const answered = first.records.flatMap((r) => Object.values(r.arms));
		expect(answered.length).toBeGreaterThan(0);
		const second = await run({ points: 4, dir: first.dir, resume: true });
		expect(second.records.map((r) => r.status)).toEqual(["judged", "judged", "judged", "judged"]);
		// Everything recorded in the first run is kept as it was.
		for (const r of first.records) {
			for (const [arm, outcome] of Object.entries(r.arms))
				expect(second.records[r.index - 1]!.arms[arm as ArmName]).toEqual(outcome);
		}
		const arms = second.sent.filter((s) => s.kind !== "judge").length;
		const judges = second.sent.filter((s) => s.kind === "judge").length;
		expect(arms + answered.length).toBe(8);
		expect(judges + done).toBe(4);
		// On disk too: the records read back are the final ones.
		const onDisk = JSON.parse(readFileSync(join(first.dir, "points", "04.json"), "utf8")) as PointRecord;
		expect(onDisk.status).toBe("judged");
	});

	it("--resume refuses a run with other arguments", async () => {
		const first = await run({ points: 2 });
		expect(() =>
			openStore(
				first.dir,
				{ inputs: [], advisor: advisor.key, judge: advisor.key, points: 2, arms: ["ledger", "full"], seed: "2" },
				true,
			),
		).not.toThrow();
		expect(
			openStore(
				first.dir,
				{ inputs: [], advisor: advisor.key, judge: advisor.key, points: 2, arms: ["ledger", "full"], seed: "2" },
				true,
			),
		).toEqual({
			ok: false,
			error: `cannot resume the run in ${first.dir}: --seed differ from that run's`,
		});
		expect(
			openStore(
				first.dir,
				{ inputs: [], advisor: advisor.key, judge: advisor.key, points: 2, arms: ["ledger", "full"], seed: "1" },
				false,
			),
		).toMatchObject({
			ok: false,
			error: expect.stringContaining("is not empty"),
		});
	});
});
