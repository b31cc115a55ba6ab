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
export { type ExpandResult, expandEntry, expandSource } from "./expand.ts";
export { chainHash, hashString } from "./hash.ts";
export { neutralise } from "./neutralise.ts";
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
} from "./request.ts";
