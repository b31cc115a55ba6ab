/**
 * The policy layer's public API: what the adapter and bench/ use, by name. Everything else stays inside the
 * layer; its tests import the module files.
 */

export {
	extensionMarks,
	LOOKBACK_BLOCKS,
	MAX_BREAKPOINTS,
	requestMarks,
	type StableEnd,
	unitPosition,
	withinReach,
} from "./budget/breakpoint-placement.ts";
export { DEFAULT_MIN_CACHED_TOKENS, minCachedTokens } from "./budget/cache-minimum.ts";
export { reuseShares } from "./budget/cache-reuse.ts";
export { CALL_OVERHEAD_TOKENS, type ConsultationEstimate, PRIOR } from "./budget/consultation-estimate.ts";
export type { Confirmation, GateDecision } from "./budget/gate.ts";
export {
	anthropicStyleMarks,
	cachingModelFor,
	fingerprintOf,
	type ModelPricing,
	type RequestEstimate,
	requestRecord,
} from "./budget/request-estimate.ts";
export {
	type ConsultationEstimateSetup,
	type ConsultationPlan,
	estimateWholeConsultation,
	type PlanBounds,
	type PlanBudget,
	type PlanModel,
	planConsultation,
	planNextRequest,
} from "./budget/request-plan.ts";
export { formatAdvisorStatus, formatUsd } from "./budget/status.ts";
export { type ReviewDelivery, reviewDelivery, reviewSendOptions, reviewUsageRecord } from "./review/delivery.ts";
export { parseSeverity, reviewSeverity } from "./review/severity.ts";
export {
	type ReviewDecision,
	type ReviewSettings,
	type ReviewSkipReason,
	reviewDecision,
	wokeSinceLastUserMessage,
} from "./review/trigger.ts";
export {
	type RefreshOutcome,
	refreshOutcome,
	refreshRequest,
	resolveCacheRetention,
	type WarmingDecision,
	type WarmingSettings,
	type WarmingSkipReason,
	warmingDecision,
	warmingUsageRecord,
} from "./warming/decision.ts";
export {
	canonicalPayload,
	payloadHash,
	payloadOutputCap,
	type RefreshGuard,
	refreshGuard,
	WARMING_OUTPUT_TOKENS,
} from "./warming/payload-hash.ts";
export {
	idleWarming,
	WARMING_CANCEL_REASONS,
	type WarmingCancelReason,
	type WarmingEnd,
	type WarmingEvent,
	type WarmingState,
	type WarmingTarget,
	warmingReducer,
} from "./warming/state.ts";
export {
	type WatchDecision,
	type WatchDecisionInput,
	type WatchSettings,
	type WatchSkipReason,
	watchDecision,
} from "./watch/decision.ts";
export {
	deliveredToExecutor,
	RECORDED_ADVICE_CHARS,
	type WatchDeliveryDecision,
	type WatchDeliveryState,
	type WatchUsageInput,
	watchDelivery,
	watchUsageRecord,
} from "./watch/delivery.ts";
export { findingHolds, type WatchSignalSettings, watchFindings } from "./watch/signals.ts";
export { createWatchTimeline, type WatchMoment, type WatchPricing, type WatchTimeline } from "./watch/timeline.ts";
