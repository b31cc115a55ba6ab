/**
 * `replay --price provider/model`: the model whose prices the report uses, looked up in pi-ai's
 * registry (the one Pi itself prices usage with), so a report prices exactly what a user's
 * provider would bill for the same tokens.
 */

import { type Api, getModels, getProviders, type KnownProvider, type Model } from "@mariozechner/pi-ai";
import { minCachedTokens } from "../../../policy/index.ts";
import type { PriceModel } from "./replay-report.ts";

/** A widely used coding model with listed cache prices (input $3, cache read $0.30, cache write $3.75 per million). */
export const DEFAULT_PRICE_MODEL = "anthropic/claude-sonnet-4-5";

/** The registry's model for `provider/model` (the model id may itself contain slashes, as on OpenRouter); undefined when unknown. */
export function resolveRegistryModel(key: string): Model<Api> | undefined {
	const slash = key.indexOf("/");
	if (slash <= 0 || slash === key.length - 1) return undefined;
	const provider = key.slice(0, slash);
	const id = key.slice(slash + 1);
	if (!(getProviders() as string[]).includes(provider)) return undefined;
	return getModels(provider as KnownProvider).find((m) => m.id === id);
}

/** The prompt prices and minimum cacheable prompt of `provider/model`; undefined when unknown. */
export function resolvePriceModel(key: string): PriceModel | undefined {
	const model = resolveRegistryModel(key);
	if (model === undefined) return undefined;
	return {
		key: `${model.provider}/${model.id}`,
		name: model.name,
		prices: { input: model.cost.input, cacheRead: model.cost.cacheRead, cacheWrite: model.cost.cacheWrite },
		minTokens: minCachedTokens(model),
	};
}
