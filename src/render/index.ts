export { cardLine, displayId, renderBlock, verbatimRound } from "./blocks.ts";
export { breakpointChars, breakpointUnits, cacheShares, tokenPrefixChars, totalChars } from "./cache.ts";
export { type CatalogueEntry, renderCatalogue } from "./catalogue.ts";
export { DEFAULT_LEDGER_CONFIG, type LedgerConfig } from "./config.ts";
export {
	estimateContextTokens,
	estimateMessageTokens,
	estimateToolsTokens,
	IMAGE_TOKENS,
	tokensForChars,
} from "./estimate.ts";
export {
	BREAKPOINT_LOOKBACK_BLOCKS,
	type CacheMatch,
	type CachingKind,
	type CachingModel,
	cachingModelFor,
	coldPromptTokens,
	type EstimateInput,
	envelopeEstimate,
	estimateRequest,
	expectedOutput,
	fingerprintOf,
	MIN_CACHED_TOKENS,
	type ModelPricing,
	OPENAI_CACHE_STEP,
	PROMPT_HEADROOM,
	type RequestEstimate,
	type RequestMeta,
	requestRecord,
} from "./estimate-cost.ts";
export { type ExpandResult, expandEntry, expandSource } from "./expand.ts";
export { chainHash, hashString } from "./hash.ts";
export { neutralise } from "./neutralise.ts";
export {
	canonicalPayload,
	outputCapPaths,
	payloadHash,
	payloadOutputCap,
	type RefreshGuard,
	refreshGuard,
	WARMING_OUTPUT_TOKENS,
} from "./payload-hash.ts";
export {
	type ConsultationPlan,
	type ConsultationPlanInput,
	type EnvelopeContext,
	type EnvelopeEstimate,
	type NextRequestInput,
	type PlanBudget,
	type PlanModel,
	planConsultation,
	planNextRequest,
	type RequestPlan,
} from "./plan.ts";
export {
	createRenderMemo,
	flatten,
	type LedgerRequest,
	type RenderMemo,
	type RenderOptions,
	type RequestMode,
	type RequestUnit,
	renderRequest,
	type StablePortion,
	stableOpenBlocks,
} from "./request.ts";
export {
	type DeliveryState,
	type ReviewDelivery,
	type ReviewMessage,
	type ReviewMessageDetails,
	type ReviewMessageInput,
	type ReviewUsageInput,
	reviewDelivery,
	reviewMessage,
	reviewSendOptions,
	reviewUsageRecord,
} from "./review.ts";
export { parseSeverity, reviewSeverity } from "./severity.ts";
export { formatAdvisorStatus, formatUsd } from "./status.ts";
export { extendRequest } from "./tool-loop.ts";
export { chooseTrim, contextDetails, TAIL_CAPS, type TrimChoice, type TrimSettings, trimCandidates } from "./trim.ts";
export {
	droppedBlocks,
	type LedgerItem,
	ledgerItems,
	locateCut,
	type RenderTrim,
	type TrimCut,
	trimmedPart,
} from "./trim-cut.ts";
export {
	ANTHROPIC_LONG_CACHE_TTL_SEC,
	type CacheModelInfo,
	type CacheRetention,
	estimateRefresh,
	knownCacheTtlSec,
	OPENAI_LONG_CACHE_TTL_SEC,
	type RefreshEstimateInput,
	type RefreshOutcome,
	refreshOutcome,
	resolveCacheRetention,
	SHORT_CACHE_TTL_SEC,
	WARMING_TTL_FRACTION,
	type WarmingDecision,
	type WarmingInput,
	type WarmingSettings,
	type WarmingSkipReason,
	type WarmingUsageInput,
	warmingDecision,
	warmingTtlSec,
	warmingUsageRecord,
} from "./warming.ts";
