/**
 * Model keys as the user writes them in advisor.json: `provider/modelId`, or the legacy
 * `provider:modelId` that rpiv-advisor wrote. Canonical form is the slash form; the result
 * envelope's `details.advisorModel` keeps the colon form older hosts expect. Also why a saved key
 * cannot be used, which the notices spell and config/activation.ts decides.
 */

export interface ModelKey {
	provider: string;
	modelId: string;
}

/** The fields of a pi-ai `Model` this module needs; any registry model satisfies it. */
export interface ModelRef {
	provider: string;
	id: string;
	name?: string;
}

/**
 * Why a saved modelKey cannot be used (config/activation.ts decides it; docs/configuration.md): the
 * advisor is off for the session and the file is left as it is, so a typo fixed or a key set later
 * needs nothing typed again. `modelKey` is as written in the file.
 */
export type UnusableSelection =
	| { reason: "not-a-key"; modelKey: string }
	/** Not in Pi's registry: a typo, or a provider that was removed. */
	| { reason: "unknown-model"; modelKey: string }
	/** In the registry, but Pi has no credentials for its provider: `/advisor` would not list it. */
	| { reason: "no-credentials"; modelKey: string; provider: string };

// Provider ids never contain `/` or `:` (they are registry keys such as `amazon-bedrock`),
// while model ids contain both: `openrouter/anthropic/claude-sonnet-4`,
// `openrouter:deepseek/deepseek-r1:free`, `ollama:llama3:8b`,
// `amazon-bedrock/anthropic.claude-3-5-sonnet-20241022-v2:0`. So the key splits at the first
// separator of either kind, and everything after it is the model id, verbatim.
const SEPARATOR = /[/:]/;
const WHITESPACE = /\s/;

/** Parses either form; undefined when there is no provider, no model id, or the provider has spaces. */
export function parseModelKey(raw: string): ModelKey | undefined {
	const text = raw.trim();
	const at = text.search(SEPARATOR);
	if (at <= 0) return undefined;
	const provider = text.slice(0, at);
	const modelId = text.slice(at + 1);
	if (modelId.length === 0 || WHITESPACE.test(provider)) return undefined;
	return { provider, modelId };
}

export function formatModelKey(key: ModelKey): string {
	return `${key.provider}/${key.modelId}`;
}

/** `provider:modelId`, the form of `details.advisorModel` (docs/request-format.md). */
export function formatColonKey(key: ModelKey): string {
	return `${key.provider}:${key.modelId}`;
}

/** `provider/modelId` for either input form; undefined when unparseable. */
export function canonicalModelKey(raw: string): string | undefined {
	const key = parseModelKey(raw);
	return key ? formatModelKey(key) : undefined;
}

export function modelKeyOf(model: ModelRef): ModelKey {
	return { provider: model.provider, modelId: model.id };
}

/**
 * How a model is spelled wherever the user reads it (the progress line, the card, notices, the
 * picker): its display name followed by its `provider/modelId` key, or the key alone when the
 * registry gives it no name of its own (none, blank, or the bare id again).
 */
export function modelDisplayName(model: ModelRef): string {
	const key = formatModelKey(modelKeyOf(model));
	const name = model.name?.trim();
	return name && name !== model.id ? `${name} (${key})` : key;
}

/**
 * The same spelling from a recorded `provider:modelId` (details.advisorModel) and a registry
 * lookup: a model the registry no longer knows is spelled by its key alone. Undefined when the
 * record does not parse.
 */
export function recordedModelDisplayName(
	recorded: string,
	find: ((provider: string, modelId: string) => ModelRef | undefined) | undefined,
): string | undefined {
	const key = parseModelKey(recorded);
	if (key === undefined) return undefined;
	let model: ModelRef | undefined;
	try {
		model = find?.(key.provider, key.modelId);
	} catch {
		// A registry that throws is a registry without this model.
	}
	return modelDisplayName(model ?? { provider: key.provider, id: key.modelId });
}
