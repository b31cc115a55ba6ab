/**
 * The plan of an eval, before anything is sent (docs/eval.md): the points drawn (eval-points.ts) with
 * every arm's first request built, the points skipped because a request would not fit the advisor's
 * context window, and the estimate of the whole run the user confirms.
 */

import type { Api, Model } from "@mariozechner/pi-ai";
import type { PrivacySettings } from "../../../events/index.ts";
import { estimateContextTokens, JUDGE_SYSTEM_PROMPT } from "../../../render/index.ts";
import { type ArmName, armRequests, type PointRequests, pointRequests } from "./arms.ts";
import { type DrawnPoint, drawOrder, type EvalSession } from "./eval-points.ts";
import { judgeMessage } from "./judge.ts";
import { ANSWER_MAX_TOKENS, JUDGE_MAX_TOKENS, requestUsd } from "./spend-cap.ts";

export interface PlannedPoint {
	/** 1-based position in the run. */
	index: number;
	drawn: DrawnPoint;
	requests: PointRequests;
}

export interface RunPlan {
	points: PlannedPoint[];
	/** Points drawn and skipped: some arm's first request plus its answer would not fit the advisor's window. */
	tooLarge: number;
	/** Consultation points found in all sessions (real and simulated). */
	available: number;
}

/** Whether every arm's first request and its answer fit the model's context window (0 = unknown: fits). */
function fits(requests: PointRequests, model: Pick<Model<Api>, "contextWindow">): boolean {
	if (!(model.contextWindow > 0)) return true;
	return armRequests(requests).every((arm) => arm.tokens + ANSWER_MAX_TOKENS <= model.contextWindow);
}

/** Draws points in the seeded order until `count` of them fit. */
export function planRun(
	sessions: readonly EvalSession[],
	options: { count: number; arms: readonly ArmName[]; seed: string; privacy: PrivacySettings },
	advisor: Pick<Model<Api>, "contextWindow">,
): RunPlan {
	const order = drawOrder(sessions, options.seed);
	const points: PlannedPoint[] = [];
	let tooLarge = 0;
	for (const drawn of order) {
		if (points.length >= options.count) break;
		const requests = pointRequests(drawn, options.arms, options.privacy);
		if (!fits(requests, advisor)) {
			tooLarge++;
			continue;
		}
		points.push({ index: points.length + 1, drawn, requests });
	}
	return { points, tooLarge, available: order.length };
}

export interface EstimateLine {
	requests: number;
	/** Estimated prompt tokens, summed. */
	prompt: number;
	/** Output tokens at most (the maxTokens cap), summed. */
	output: number;
	usd: number;
}

export interface RunEstimate {
	arms: Partial<Record<ArmName, EstimateLine>>;
	judge: EstimateLine;
	usd: number;
}

function line(requests: number, prompt: number, output: number, usd: number): EstimateLine {
	return { requests, prompt, output, usd };
}

function addLine(a: EstimateLine | undefined, b: EstimateLine): EstimateLine {
	return a === undefined ? b : line(a.requests + b.requests, a.prompt + b.prompt, a.output + b.output, a.usd + b.usd);
}

/** The judge's prompt with every answer at its longest (ANSWER_MAX_TOKENS of text each). */
function judgePromptTokens(requests: PointRequests, answers: number): number {
	const longest = "x".repeat(ANSWER_MAX_TOKENS * 4);
	const message = judgeMessage({
		userRequest: requests.userRequest,
		question: requests.question,
		answers: Array.from({ length: answers }, () => longest),
	});
	return estimateContextTokens({ systemPrompt: JUDGE_SYSTEM_PROMPT, messages: [message] });
}

/**
 * One request per arm and one judge request per point, each priced at its model with its output at
 * the cap. Work already recorded (`done`: a resumed run's arms and judged points) is left out.
 * advisor_expand rounds and a judge retry are not counted: each is checked against `--max-usd`.
 */
export function estimateRun(
	points: readonly PlannedPoint[],
	advisor: Pick<Model<Api>, "cost">,
	judge: Pick<Model<Api>, "cost">,
	done: (point: PlannedPoint, arm: ArmName | "judge") => boolean,
): RunEstimate {
	const out: RunEstimate = { arms: {}, judge: line(0, 0, 0, 0), usd: 0 };
	for (const point of points) {
		const arms = armRequests(point.requests);
		for (const arm of arms) {
			if (done(point, arm.arm)) continue;
			const usd = requestUsd(advisor, arm.tokens, ANSWER_MAX_TOKENS);
			out.arms[arm.arm] = addLine(out.arms[arm.arm], line(1, arm.tokens, ANSWER_MAX_TOKENS, usd));
			out.usd += usd;
		}
		if (done(point, "judge")) continue;
		const prompt = judgePromptTokens(point.requests, arms.length);
		const usd = requestUsd(judge, prompt, JUDGE_MAX_TOKENS);
		out.judge = addLine(out.judge, line(1, prompt, JUDGE_MAX_TOKENS, usd));
		out.usd += usd;
	}
	return out;
}
