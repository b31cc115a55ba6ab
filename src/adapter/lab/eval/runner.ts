/**
 * Sending an eval's points (docs/eval.md): per point, every arm to the advisor model — through the
 * extension's own request loop (consult/request-loop.ts: advisor_expand rounds, the Anthropic cache
 * breakpoint, one retry of a transient failure) — then the judge, blinded. The record is saved
 * after each step. `--max-usd` is checked before every request; once it refuses one, nothing more
 * is sent and the run ends with what it has. A provider error fails its point; the run goes on.
 */

import type { AssistantMessage, Context, Message, UserMessage } from "@mariozechner/pi-ai";
import { isRecord, type PrivacySettings, redactValue } from "../../../events/index.ts";
import { parseSeverity } from "../../../policy/index.ts";
import type { LedgerState } from "../../../reducers/index.ts";
import {
	expandSource,
	hashString,
	JUDGE_RETRY,
	JUDGE_SYSTEM_PROMPT,
	type LedgerRequest,
	requestFromContext,
} from "../../../render/index.ts";
import type { FailedAttempt, InvestigationTools } from "../../extension/consult/consultation-input.ts";
import { replyText, runConsultation } from "../../extension/consult/request-loop.ts";
import { classifyFailure } from "../../extension/consult/retry-classifier.ts";
import type { CompleteSimple } from "../../extension/pi/compat.ts";
import { errorText } from "../../extension/pi/error-text.ts";
import { createAdvisorTools, DEFAULT_TOOLS_CONFIG } from "../../extension/tools/index.ts";
import { type ArmName, type ArmRequest, armRequests } from "./arms.ts";
import { addBilled, type BilledRequests, billedRequestsOf, emptyBilled } from "./billed-requests.ts";
import type { PlannedPoint } from "./eval-plan.ts";
import { judgeMessage, LABELS, parseVerdict, unblind } from "./judge.ts";
import { pointMarkdown } from "./markdown.ts";
import type { ResolvedModel } from "./models.ts";
import { type ArmOutcome, type JudgeOutcome, type PointRecord, type PointStatus, RECORD_VERSION } from "./record.ts";
import { ANSWER_MAX_TOKENS, allowRequest, type Budget, JUDGE_MAX_TOKENS } from "./spend-cap.ts";
import type { Store } from "./store.ts";

export interface RunContext {
	advisor: ResolvedModel;
	judge: ResolvedModel;
	complete: CompleteSimple;
	budget: Budget;
	privacy: PrivacySettings;
	/** The arms in label order for the point at this 0-based position (judge.ts `blinding`). */
	blind: (pointIndex: number) => ArmName[];
	store: Store;
	onProgress?: (event: ProgressEvent) => void;
}

export type ProgressEvent =
	| { kind: "point"; point: PlannedPoint; total: number }
	| { kind: "step"; point: PlannedPoint; step: ArmName | "judge"; total: number }
	| { kind: "done"; record: PointRecord; total: number };

const FINAL: ReadonlySet<PointStatus> = new Set(["judged", "unjudged", "failed"]);

function newRecord(point: PlannedPoint): PointRecord {
	const { drawn, requests } = point;
	const record: PointRecord = {
		version: RECORD_VERSION,
		index: point.index,
		key: drawn.key,
		file: drawn.session.file,
		sessionId: drawn.session.sessionId,
		atEntryId: drawn.atEntryId,
		kind: drawn.point.kind,
		question: requests.question,
		userRequest: requests.userRequest,
		status: "stopped",
		arms: {},
	};
	if (drawn.point.callId !== undefined) record.callId = drawn.point.callId;
	return record;
}

/** The options every request of the eval is sent with: the model's credentials and the output cap. */
function capped(complete: CompleteSimple, model: ResolvedModel, maxTokens: number): CompleteSimple {
	return ((m, context, options) => complete(m, context, { ...options, ...model.auth, maxTokens })) as CompleteSimple;
}

/** A request built outside the ledger as the request loop takes it: no stable portion, so no breakpoint of ours. */
function plainRequest(arm: ArmRequest): LedgerRequest {
	return requestFromContext(
		arm.context,
		[],
		{ messageIndex: 0, partCount: 0, unitCount: 0, hash: "", chars: 0, tokens: 0 },
		{ hash: hashString(JSON.stringify(arm.context.messages)), tokens: arm.tokens },
	);
}

/** advisor_expand alone (`tools.repo: false`), answered from the session file, its answers redacted. */
function expandTools(state: LedgerState, cwd: string, ctx: RunContext): InvestigationTools {
	const config = { ...DEFAULT_TOOLS_CONFIG, repo: false };
	const tools = createAdvisorTools({
		cwd,
		config,
		modelAcceptsImages: ctx.advisor.model.input.includes("image"),
		expand: expandSource(state),
	});
	return {
		declarations: tools.declarations,
		execute: async (call, signal) => {
			const result = await tools.execute(
				{ ...call, arguments: isRecord(call.arguments) ? call.arguments : {} },
				signal,
			);
			return { ...result, content: redactValue(result.content, ctx.privacy) };
		},
		maxCalls: Math.floor(config.maxRounds),
	};
}

/** One retry of a failure Pi itself would retry (overloaded, rate limit, a dropped connection). */
function retryTransient(failure: FailedAttempt, contextWindow: number): boolean {
	if (failure.attempt > 0 || failure.empty) return false;
	const probe = failure.message ?? { stopReason: "error" as const, errorMessage: failure.thrown };
	return classifyFailure(probe, contextWindow) === "transient";
}

type ArmResult = { kind: "done"; outcome: ArmOutcome } | { kind: "stopped"; billed: BilledRequests };

async function sendArm(point: PlannedPoint, arm: ArmRequest, ctx: RunContext): Promise<ArmResult> {
	const { model } = ctx.advisor;
	const ledger = arm.arm === "ledger" ? point.requests.ledger : undefined;
	const envelope = await runConsultation({
		complete: capped(ctx.complete, ctx.advisor, ANSWER_MAX_TOKENS),
		model,
		auth: ctx.advisor.auth,
		effort: undefined,
		sessionId: `advisor-eval:${point.drawn.session.sessionId ?? point.drawn.session.file}`,
		request: ledger?.request ?? plainRequest(arm),
		signal: undefined,
		...(ledger !== undefined
			? { tools: expandTools(ledger.state, point.drawn.session.cwd ?? process.cwd(), ctx) }
			: {}),
		approve: async (next) =>
			allowRequest(ctx.budget, model, next.context, ANSWER_MAX_TOKENS, next.billedUsage.cost.total)
				? { send: true }
				: { send: false, reason: "--max-usd" },
		retry: (failure) => retryTransient(failure, model.contextWindow),
	});
	const { details } = envelope;
	const billed = billedRequestsOf(details.usage, details.attempts?.length ?? 0);
	ctx.budget.spent += billed.usd;
	if (details.skipped === true) return { kind: "stopped", billed };
	const text = envelope.content.map((c) => c.text).join("\n");
	const outcome: ArmOutcome = {
		status: details.errorMessage === undefined ? "answered" : "failed",
		text,
		severity: details.errorMessage === undefined ? (parseSeverity(text) ?? null) : null,
		billed,
		estimatedTokens: arm.tokens,
	};
	if (details.errorMessage !== undefined) outcome.error = details.errorMessage;
	if (details.toolCalls !== undefined) outcome.toolCalls = details.toolCalls.count;
	return { kind: "done", outcome };
}

function userMessage(text: string): UserMessage {
	return { role: "user", content: [{ type: "text", text }], timestamp: 0 };
}

type JudgeResult = { kind: "done"; outcome: JudgeOutcome } | { kind: "stopped"; billed: BilledRequests };

async function sendJudge(point: PlannedPoint, record: PointRecord, ctx: RunContext): Promise<JudgeResult> {
	const order = ctx.blind(point.index - 1);
	const labels = LABELS.slice(0, order.length);
	const first = judgeMessage({
		userRequest: record.userRequest,
		question: record.question,
		answers: order.map((arm) => record.arms[arm]!.text),
	});
	let messages: Message[] = [redactValue(first, ctx.privacy)];
	const outcome: JudgeOutcome = { status: "unjudged", order, replies: [], problems: [], billed: emptyBilled() };
	const complete = capped(ctx.complete, ctx.judge, JUDGE_MAX_TOKENS);
	for (let attempt = 0; attempt < 2; attempt++) {
		const context: Context = { systemPrompt: JUDGE_SYSTEM_PROMPT, messages };
		if (!allowRequest(ctx.budget, ctx.judge.model, context, JUDGE_MAX_TOKENS)) {
			return { kind: "stopped", billed: outcome.billed };
		}
		let reply: AssistantMessage;
		try {
			reply = await complete(ctx.judge.model, context, {});
		} catch (error) {
			outcome.error = errorText(error);
			return { kind: "done", outcome };
		}
		const billed = billedRequestsOf(reply.usage, 1);
		outcome.billed = addBilled(outcome.billed, billed);
		ctx.budget.spent += billed.usd;
		if (reply.stopReason === "error" || reply.stopReason === "aborted") {
			outcome.error = reply.errorMessage ?? reply.stopReason;
			return { kind: "done", outcome };
		}
		const text = replyText(reply);
		outcome.replies.push(text);
		const parsed = parseVerdict(text, labels);
		if (parsed.ok) {
			outcome.status = "judged";
			outcome.verdict = unblind(parsed.verdict, order);
			return { kind: "done", outcome };
		}
		outcome.problems.push(parsed.problem);
		messages = [...messages, reply, userMessage(JUDGE_RETRY(parsed.problem))];
	}
	return { kind: "done", outcome };
}

function save(record: PointRecord, ctx: RunContext): void {
	ctx.store.save(record, pointMarkdown(record, ctx.advisor.key, ctx.judge.key));
}

function abandon(record: PointRecord, billed: BilledRequests): void {
	if (billed.requests > 0) record.abandoned = addBilled(record.abandoned ?? emptyBilled(), billed);
}

/** Sends what a point still lacks; returns its record (saved whenever something was sent). */
async function runPoint(point: PlannedPoint, ctx: RunContext, total: number): Promise<PointRecord> {
	const record = structuredClone(ctx.store.records.get(point.drawn.key)) ?? newRecord(point);
	if (FINAL.has(record.status) || ctx.budget.stopped) return record;
	ctx.onProgress?.({ kind: "point", point, total });
	for (const arm of armRequests(point.requests)) {
		if (record.arms[arm.arm] !== undefined) continue;
		ctx.onProgress?.({ kind: "step", point, step: arm.arm, total });
		const result = await sendArm(point, arm, ctx);
		if (result.kind === "stopped") {
			abandon(record, result.billed);
			if (result.billed.requests > 0) save(record, ctx);
			return record;
		}
		record.arms[arm.arm] = result.outcome;
		if (result.outcome.status === "failed") record.status = "failed";
		save(record, ctx);
		if (record.status === "failed") return record;
	}
	ctx.onProgress?.({ kind: "step", point, step: "judge", total });
	const judged = await sendJudge(point, record, ctx);
	if (judged.kind === "stopped") {
		abandon(record, judged.billed);
		if (judged.billed.requests > 0) save(record, ctx);
		return record;
	}
	record.judge = judged.outcome;
	record.status = judged.outcome.status;
	save(record, ctx);
	return record;
}

/** Every planned point, in order; the records come back whether sent now, earlier, or not at all. */
export async function runPoints(points: readonly PlannedPoint[], ctx: RunContext): Promise<PointRecord[]> {
	const records: PointRecord[] = [];
	for (const point of points) {
		const record = await runPoint(point, ctx, points.length);
		records.push(record);
		if (FINAL.has(record.status)) ctx.onProgress?.({ kind: "done", record, total: points.length });
	}
	return records;
}
