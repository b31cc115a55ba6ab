export { completedAdvice, partsText, reviewAdvice } from "./advisor-result.ts";
export { foldAll, foldEvents } from "./fold.ts";
export {
	type BudgetLimits,
	type Confirmation,
	decideGate,
	type GateDecision,
	type GateInput,
	type OverLimit,
	type TrimStage,
} from "./gate.ts";
export {
	type ReviewDecision,
	type ReviewSettings,
	type ReviewSkipReason,
	reviewDecision,
	wokeSinceLastUserMessage,
} from "./review-trigger.ts";
export {
	effortKey,
	emptySpend,
	fingerprintFromRecord,
	foldSpend,
	OUTPUT_SAMPLES,
	type OutputSamples,
	outputSamples,
	parseRequestRecord,
	parseUsage,
	parseUsageRecordData,
	previousRequest,
	promptTokensOf,
	type RequestFingerprint,
	type RequestRecord,
	remainingSessionUsd,
	type SpendOutcome,
	type SpendRecord,
	type SpendSource,
	type SpendState,
	spendOf,
	type UsageRecordData,
	type UsageTotals,
} from "./spend.ts";
export * from "./state.ts";
export {
	activeTrim,
	emptyTrimAnchor,
	foldTrimAnchor,
	parseTrimAnchorRecord,
	type TrimAnchorRecord,
	type TrimAnchorState,
	trimAnchorOf,
	trimAnchorRecord,
} from "./trim-anchor.ts";
export {
	idleWarming,
	WARMING_CANCEL_REASONS,
	type WarmingAction,
	type WarmingCancelReason,
	type WarmingEnd,
	type WarmingEvent,
	type WarmingState,
	type WarmingStep,
	type WarmingTarget,
	warmingReducer,
} from "./warming-state.ts";
