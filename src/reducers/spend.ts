/**
 * Advisor spend on the branch, folded from the same events as the ledger. There is no
 * balance file: the spend is whatever the branch's own records say, so switching branches
 * switches the spend.
 *
 * A separate fold rather than a slice of LedgerState: spend must survive what resets the ledger
 * (a compaction rebuilds the blocks, never the bill), it is read by the gate and the status line
 * without rendering anything, and keeping it apart leaves the render memo's input untouched.
 *
 * Records, in branch order:
 * - every `advisor` tool result — ok, failed or skipped — with its usage: the result's top-level
 *   `usage` when the host kept it, else `details.usage` (the same aggregate, never both);
 * - `custom` entries of CUSTOM_TYPES.usage: completion reviews and cache warming (UsageRecordData).
 *
 * Besides the total, the fold keeps what the estimator needs: the last five positive output
 * counts per (model, effort), and the newest billed request per model (its fingerprint).
 */

import {
	ADVISOR_TOOL_NAME,
	CUSTOM_TYPES,
	isRecord,
	type LedgerEvent,
	parseAdvisorDetails,
	parseUsageRecordData,
	type RequestRecord,
	type ToolResultEvent,
} from "../events/index.ts";
import { completedAdvice } from "./advisor-result.ts";
import { type CaseReducers, foldCases, nothing } from "./case-reducers.ts";
import type { Draft } from "./immer.ts";
import { type BilledUsage, NO_USAGE, parseUsage, promptTokensOf } from "./token-usage.ts";

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

export type SpendSource = "consultation" | "review" | "warming" | "watch";
export type SpendOutcome = "ok" | "failed" | "skipped";

export interface SpendRecord {
	/** Entry id of the tool result or usage record. */
	entryId: string;
	source: SpendSource;
	/** Always "ok" for review and warming records. */
	outcome: SpendOutcome;
	/** `provider:modelId`, when recorded. */
	model: string | undefined;
	effort: string | undefined;
	usage: BilledUsage;
	/**
	 * One per request sent, first to last: the recorded attempts (every retry and investigation round)
	 * when the record has them, else its usage as one request when it billed anything, else none.
	 */
	requests: BilledUsage[];
}

/**
 * The previous request, as the estimator compares it with the next one: same model, effort,
 * routing key and system prompt, and a shared prefix, within the warm window, mean cache reads.
 */
export interface RequestFingerprint {
	/** `provider:modelId`. */
	model: string;
	effort: string | undefined;
	routingKey: string | undefined;
	systemHash: string | undefined;
	toolsHash: string | undefined;
	stableHash: string;
	stableUnits: number;
	stableTokens: number;
	/** The whole request: a retry or the next investigation round extends it. */
	hash: string;
	unitCount: number;
	estimatedTokens: number;
	/** Billed prompt tokens (input + cacheRead + cacheWrite); undefined = not known. */
	promptTokens: number | undefined;
	/** Epoch ms the cache was last touched. */
	timestampMs: number;
}

export interface OutputSamples {
	model: string;
	/** "off" when no reasoning was sent. */
	effort: string;
	/** Positive output token counts, oldest first, at most OUTPUT_SAMPLES. */
	counts: number[];
}

export interface SpendState {
	/** USD spent by the advisor on this branch. */
	totalUsd: number;
	/** Prompt tokens billed (input + cacheRead + cacheWrite) over every record: the status line's cache share. */
	promptTokens: number;
	cacheReadTokens: number;
	records: SpendRecord[];
	/** One entry per (model, effort) seen, in first-seen order. */
	outputs: OutputSamples[];
	/** The newest billed request per model, in first-seen order. */
	lastRequests: RequestFingerprint[];
}

/** How many positive output counts the output estimate averages. */
export const OUTPUT_SAMPLES = 5;

export function emptySpend(): SpendState {
	return { totalUsd: 0, promptTokens: 0, cacheReadTokens: 0, records: [], outputs: [], lastRequests: [] };
}

// ---------------------------------------------------------------------------------------------
// Parsing (recorded data is untrusted: a malformed field costs that field, never the fold)
// ---------------------------------------------------------------------------------------------

/** A record's requests: its attempts' usages, else its aggregate usage as one request when it billed anything. */
function requestsOf(attempts: readonly { usage?: unknown }[] | undefined, usage: BilledUsage): BilledUsage[] {
	if (attempts !== undefined && attempts.length > 0)
		return attempts.map((a) => parseUsage(a.usage) ?? { ...NO_USAGE });
	return promptTokensOf(usage) + usage.output > 0 || usage.usd > 0 ? [usage] : [];
}

/**
 * The fingerprint of a recorded request: only a request the provider billed (so it also wrote
 * its cache) whose stable portion was recorded. Anything less cannot predict a cache read.
 */
export function fingerprintFromRecord(
	request: RequestRecord,
	model: string,
	effort: string | undefined,
): RequestFingerprint | undefined {
	if (request.stableHash === undefined || request.stableUnits === undefined || request.stableUnits < 1)
		return undefined;
	if (request.promptTokens === undefined || request.promptTokens <= 0) return undefined;
	const unitCount = request.unitCount ?? request.stableUnits;
	return {
		model,
		effort,
		routingKey: request.routingKey,
		systemHash: request.systemHash,
		toolsHash: request.toolsHash,
		stableHash: request.stableHash,
		stableUnits: request.stableUnits,
		stableTokens: request.stableTokens ?? 0,
		hash: request.hash,
		unitCount,
		estimatedTokens: request.estimatedTokens,
		promptTokens: request.promptTokens,
		timestampMs: Math.max(request.timestamp, request.lastSentMs ?? request.timestamp),
	};
}

// ---------------------------------------------------------------------------------------------
// The fold
// ---------------------------------------------------------------------------------------------

interface Observed {
	record: SpendRecord;
	request: RequestRecord | undefined;
	/** Output that may stand for the next request of this model and effort. */
	sampleOutput: boolean;
}

function advisorResult(event: ToolResultEvent): Observed {
	const details = parseAdvisorDetails(event.details);
	// Top-level usage first; details.usage is the same aggregate for hosts that drop it. Never both.
	// Read from the raw details: parseUsage forgives partial usages that the record schema would drop.
	const usage = parseUsage(event.usage) ?? parseUsage(isRecord(event.details) ? event.details.usage : undefined);
	const outcome: SpendOutcome =
		details.skipped === true ? "skipped" : completedAdvice(event) === undefined ? "failed" : "ok";
	const model = details.advisorModel;
	const effort = details.effort;
	const request = details.request;
	const totals = usage ?? { ...NO_USAGE };
	return {
		record: {
			entryId: event.id,
			source: "consultation",
			outcome,
			model,
			effort,
			usage: totals,
			requests: requestsOf(details.attempts, totals),
		},
		request,
		// A failed call's output was cut short, a skipped one has none: neither predicts the next answer.
		sampleOutput: outcome === "ok",
	};
}

function usageRecord(id: string, data: unknown): Observed | undefined {
	const parsed = parseUsageRecordData(data);
	if (parsed === undefined) return undefined;
	const usage = parseUsage(parsed.usage) ?? { ...NO_USAGE };
	let request = parsed.request;
	// A warming record is one request: its usage is that request's bill.
	if (request !== undefined && request.promptTokens === undefined && parsed.kind === "warming") {
		const prompt = promptTokensOf(usage);
		if (prompt > 0) request = { ...request, promptTokens: prompt };
	}
	return {
		record: {
			entryId: id,
			source: parsed.kind,
			outcome: "ok",
			model: parsed.model,
			effort: parsed.effort,
			usage,
			requests: requestsOf(parsed.attempts, usage),
		},
		request,
		// Warming answers with a 16-token ceiling: its output says nothing about a real answer.
		sampleOutput: parsed.kind === "review" || parsed.kind === "watch",
	};
}

/** What each kind of event puts on the bill: only advisor results and the extension's usage records. */
const spendCases: CaseReducers<SpendState, LedgerEvent> = {
	toolResult: (draft, event) => {
		if (event.toolName === ADVISOR_TOOL_NAME) addSpend(draft, advisorResult(event));
	},
	custom: (draft, event) => {
		if (event.customType !== CUSTOM_TYPES.usage) return;
		const observed = usageRecord(event.id, event.data);
		if (observed !== undefined) addSpend(draft, observed);
	},
	// Pi 1.x's own spend (its cache warming of the executor's model): only Pi writes these, no
	// extension can, and the advisor's background spend has records of its own (CUSTOM_TYPES.usage),
	// so a usage entry is never the advisor's (docs/request-format.md#context-edits).
	usage: nothing,
	// No other entry records what the advisor cost.
	user: nothing,
	assistant: nothing,
	bashRun: nothing,
	customMessage: nothing,
	compaction: nothing,
	branchSummary: nothing,
	modelChange: nothing,
	thinkingLevel: nothing,
	system: nothing,
	other: nothing,
	contextEdit: nothing,
};

function addSpend(draft: Draft<SpendState>, { record, request, sampleOutput }: Observed): void {
	draft.records.push(record);
	draft.totalUsd += record.usage.usd;
	draft.promptTokens += promptTokensOf(record.usage);
	draft.cacheReadTokens += record.usage.cacheRead;
	if (record.model === undefined) return;
	if (sampleOutput && record.usage.output > 0) {
		const key = effortKey(record.effort);
		let samples = draft.outputs.find((o) => o.model === record.model && o.effort === key);
		if (samples === undefined) {
			samples = { model: record.model, effort: key, counts: [] };
			draft.outputs.push(samples);
		}
		samples.counts.push(record.usage.output);
		if (samples.counts.length > OUTPUT_SAMPLES) samples.counts.splice(0, samples.counts.length - OUTPUT_SAMPLES);
	}
	const fingerprint = request === undefined ? undefined : fingerprintFromRecord(request, record.model, record.effort);
	if (fingerprint !== undefined) {
		const at = draft.lastRequests.findIndex((f) => f.model === fingerprint.model);
		if (at === -1) draft.lastRequests.push(fingerprint);
		else draft.lastRequests[at] = fingerprint;
	}
}

export function effortKey(effort: string | undefined): string {
	return effort ?? "off";
}

export function foldSpend(state: SpendState, events: readonly LedgerEvent[]): SpendState {
	return foldCases(spendCases, state, events);
}

export function spendOf(events: readonly LedgerEvent[]): SpendState {
	return foldSpend(emptySpend(), events);
}

// ---------------------------------------------------------------------------------------------
// Reading the state
// ---------------------------------------------------------------------------------------------

/** The newest billed request of this model on the branch: the candidate for cache reads. */
export function previousRequest(state: SpendState, model: string): RequestFingerprint | undefined {
	return state.lastRequests.find((f) => f.model === model);
}

/** The last (up to five) positive output counts for this model and effort, oldest first. */
export function outputSamples(state: SpendState, model: string, effort: string | undefined): readonly number[] {
	const key = effortKey(effort);
	return state.outputs.find((o) => o.model === model && o.effort === key)?.counts ?? [];
}

/** What is left of budget.sessionUsd on this branch (never negative). */
export function remainingSessionUsd(state: SpendState, sessionUsd: number): number {
	return Math.max(0, sessionUsd - state.totalUsd);
}
