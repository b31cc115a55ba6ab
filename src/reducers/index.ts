/**
 * The reducers layer's public API: what render, policy, the adapter and bench/ use, by name. Everything else stays inside the
 * layer; its tests import the module files.
 */

export { completedAdvice, partsText, reviewAdvice } from "./advisor-result.ts";
export { type BranchState, branchOf, foldBranch } from "./branch-fold.ts";
export { type CaseReducers, foldCases, nothing } from "./case-reducers.ts";
export { type ChunkedList, emptyList, listBuilder, listOf } from "./chunked.ts";
export { type ContextEdits, editedEvent, editedProse, editedRound } from "./context-edits.ts";
export { failureLine } from "./error-line.ts";
export { changedPaths, runKey, trackWork } from "./hidden-work.ts";
export type { Draft } from "./immer.ts";
export { emptyKeySet, type KeySet } from "./key-set.ts";
export { foldLedger, ledgerOf } from "./ledger-fold.ts";
export {
	type Block,
	type CarriedFailure,
	type CarriedTest,
	type ClosedSegment,
	type CompactionBlock,
	emptyLedger,
	type LedgerState,
	type PendingCall,
	type PendingConsultation,
	type SummaryWords,
	unansweredRound,
} from "./ledger-state.ts";
export { relativePath } from "./paths.ts";
export type { Round, RoundStatus } from "./round.ts";
export { benignFailure, type RunSubject, runSubject, troubleLine, type VerifyKind, verifyKind } from "./run-subject.ts";
export { collapse, commandFact, runFailed, shellCommand, splitCd } from "./shell.ts";
export {
	effortKey,
	emptySpend,
	foldSpend,
	OUTPUT_SAMPLES,
	outputSamples,
	previousRequest,
	type RequestFingerprint,
	remainingSessionUsd,
	type SpendRecord,
	type SpendState,
	spendOf,
} from "./spend.ts";
export { emptySpendSummary, type SpendSummary, summarizeSpend } from "./spend-summary.ts";
export {
	eventInstructions,
	type Instruction,
	instructionsFromPromptText,
	mergeSections,
	standingInstructions,
} from "./standing-instructions.ts";
export { isTestCommand, isTestRun, SUMMARY_MAX, testSummary, testSummaryLine } from "./test-summary.ts";
export {
	type BilledUsage,
	cacheReadShare,
	NO_USAGE,
	parseUsage,
	promptTokensOf,
	type TokenCounts,
	type TokenUsage,
} from "./token-usage.ts";
export { activeTrim, type RenderTrim, type TrimAnchorState, trimAnchorOf, trimAnchorRecord } from "./trim-anchor.ts";
export {
	emptyWatchFacts,
	type FailedRound,
	type FailureStreak,
	foldWatchFacts,
	type WatchFacts,
	type WatchFinding,
	watchFactsOf,
} from "./watch-facts.ts";
