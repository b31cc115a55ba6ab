/**
 * The shortest prompt prefix each model's provider caches. A prefix shorter than its model's minimum
 * is neither written nor read — the provider bills it as input and says nothing — so every figure that
 * expects a cache (the estimate, the follow-ups, warming, the replay's cache models, the card) takes
 * the number from here. One table, the same rows as docs/configuration.md ("Minimum cacheable
 * lengths", with the sources); test/policy/budget/cache-minimum.test.ts holds the two together.
 *
 * pi-ai's model registry lists prices and (1.x) cache lifetimes but no minimum, so the table is the
 * only source. A row names models as their providers' documents do; its pattern is tested against
 * the model id wherever the id puts the name (`anthropic/claude-opus-4.5` on OpenRouter,
 * `us.anthropic.claude-opus-4-5-…` on Bedrock), dots read as dashes. The first row that matches
 * decides; a model no row names gets DEFAULT_MIN_CACHED_TOKENS.
 */

export interface CacheMinimum {
	/** The models, as the provider's document names them. */
	models: string;
	/** Tested against `normalizedModelId`. */
	pattern: RegExp;
	minTokens: number;
	/** Where the provider documents it. */
	source: string;
}

const ANTHROPIC = "https://platform.claude.com/docs/en/build-with-claude/prompt-caching";
const GOOGLE = "https://ai.google.dev/gemini-api/docs/caching";
const OPENAI = "https://developers.openai.com/api/docs/guides/prompt-caching";

/** Any model no row names: OpenAI's minimum, and most Claude models'. */
export const DEFAULT_MIN_CACHED_TOKENS = 1024;

export const CACHE_MINIMUMS: readonly CacheMinimum[] = [
	{
		models: "Claude Opus 4.5, 4.6, 4.7; Claude Haiku 4.5",
		pattern: /claude-(?:opus-4-[5-7]|haiku-4-5)(?!\d)/,
		minTokens: 4096,
		source: ANTHROPIC,
	},
	{ models: "Claude Haiku 3, 3.5", pattern: /claude-3(?:-5)?-haiku/, minTokens: 2048, source: ANTHROPIC },
	{
		models: "Claude Sonnet 3.x, 4, 4.5, 4.6; Claude Opus 3, 4, 4.1",
		// A minor version is one digit (`-1`); a date after it (`-20250514`) is not one.
		pattern: /claude-(?:sonnet-4(?:-[056])?|opus-4(?:-[01])?)(?!-\d(?!\d))|claude-3(?:-[57])?-(?:sonnet|opus)/,
		minTokens: 1024,
		source: ANTHROPIC,
	},
	// Aliases (OpenRouter's `~anthropic/claude-opus-latest`) and models newer than this table: the largest
	// Claude minimum, so no read is expected that the provider may not make.
	{ models: "other Claude models and aliases", pattern: /claude/, minTokens: 4096, source: ANTHROPIC },
	{ models: "Gemini 3 and later", pattern: /gemini-(?:[3-9]|\d{2,})-/, minTokens: 4096, source: GOOGLE },
	{ models: "Gemini 2.5", pattern: /gemini-2-5-/, minTokens: 2048, source: GOOGLE },
	// Aliases (`gemini-flash-latest`) and models before 2.5, for which Google documents no implicit
	// caching: the largest Gemini minimum, as for Claude.
	{ models: "other Gemini models and aliases", pattern: /gemini/, minTokens: 4096, source: GOOGLE },
	{
		models: "OpenAI (GPT-4o and newer, o-series, Codex)",
		pattern: /(?:^|\/)(?:gpt-|o\d|codex|chatgpt)/,
		minTokens: 1024,
		source: OPENAI,
	},
];

/** The id as the patterns read it: lower case, dots as dashes. */
export function normalizedModelId(id: string): string {
	return id.toLowerCase().replaceAll(".", "-");
}

/** The table's row for this model id; undefined when no row names it. */
export function cacheMinimumRow(id: string): CacheMinimum | undefined {
	const normalized = normalizedModelId(id);
	return CACHE_MINIMUMS.find((row) => row.pattern.test(normalized));
}

/** The shortest prompt prefix the model's provider caches, in tokens. */
export function minCachedTokens(model: { id?: string | undefined }): number {
	return (model.id === undefined ? undefined : cacheMinimumRow(model.id))?.minTokens ?? DEFAULT_MIN_CACHED_TOKENS;
}
