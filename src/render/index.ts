/**
 * The render layer's public API: what policy, the adapter and bench/ use, by name. Everything else stays inside the
 * layer; its tests import the module files.
 */

export { backtickedNames } from "./backticked-names.ts";
export { renderBlock, userWords } from "./blocks.ts";
export type { CatalogueEntry } from "./catalogue.ts";
export { estimateContextTokens, estimateMessageTokens, IMAGE_TOKENS, tokensForChars } from "./estimate.ts";
export { expandSource } from "./expand-source.ts";
export { hashString } from "./hash.ts";
export { DEFAULT_LEDGER_CONFIG, type LedgerConfig, LedgerSchema } from "./ledger-section.ts";
export { locateCut, logCut } from "./log-cut.ts";
export { type LogCut, ledgerItems } from "./log-items.ts";
export {
	ADVICE_CUT_MARKER,
	ADVISOR_TOOL_DESCRIPTION,
	ADVISOR_TOOL_LABEL,
	type AdvisorToolsMode,
	APPENDIX_HEADER,
	advisorSystemPrompt,
	CONSULT_INSTRUCTION,
	DEFAULT_PROMPT_GUIDELINES,
	DEFAULT_PROMPT_SNIPPET,
	DEFAULT_QUESTION,
	EXPAND_MAX_IDS,
	EXPAND_TOOL_DESCRIPTION,
	EXPAND_TOOL_NAME,
	FAILURE,
	FULL_CONTEXT_INSTRUCTION,
	FULL_CONTEXT_SYSTEM_PROMPT,
	formatDollars,
	fullContextQuestion,
	GIT_DIFF_TOOL_DESCRIPTION,
	GIT_DIFF_TOOL_NAME,
	JUDGE_INSTRUCTION,
	JUDGE_RETRY,
	JUDGE_SYSTEM_PROMPT,
	JUDGE_TAGS,
	LEFT_OUT_INTRO,
	LOG_CLOSE,
	LOG_OPEN,
	MASKED_OUTPUT,
	REVIEW_INSTRUCTION,
	REVIEW_MARKER,
	REVIEW_MESSAGE,
	REVIEW_PROMPT_GUIDELINES,
	REVIEW_PROMPT_SNIPPET,
	SKIP_REASONS,
	TAGS,
	TOOL_BUDGET_SPENT,
	TOOL_CALL_REFUSED,
	TOOL_REFUSAL,
	TOOL_TEXT,
	TOOLS_AFTER_SPENT,
	UNSUPPORTED_PI_AI,
	WATCH_INSTRUCTION,
	WATCH_MESSAGE,
	WATCH_PROMPT_GUIDELINE,
	WORKSPACE_TOOL_DESCRIPTIONS,
} from "./model-text.ts";
export { neutralise } from "./neutralise.ts";
export { ordinalId, ordinalPosition } from "./ordinal.ts";
export { createRenderMemo, type RenderMemo } from "./render-memo.ts";
export { type RenderOptions, type RequestMode, renderRequest, stableOpenBlocks } from "./request-assembly.ts";
export {
	buildContext,
	commonUnits,
	declarationCount,
	flatten,
	isLedgerRequest,
	type LedgerRequest,
	redactionCount,
	requestFromContext,
	type StablePortion,
	stablePrefixRequest,
	unitAt,
	unitCount,
	withContext,
} from "./request-units.ts";
export { reviewMessage } from "./review-message.ts";
export { ADVICE_START_CHARS } from "./stand-in.ts";
export { clip, oneLine, safeHead, safeTail } from "./text-shape.ts";
export { extendRequest } from "./tool-loop.ts";
export { zeroUsage } from "./usage.ts";
export { type WatchMessage, type WatchMessageInput, watchMessage, watchReason } from "./watch-note.ts";
