/**
 * The models an eval calls and their credentials, found where Pi finds them — the same as the
 * extension (docs/eval.md): Pi's model registry (pi-ai's built-in models plus `models.json` in the
 * agent dir, `$PI_CODING_AGENT_DIR` else `~/.pi/agent`; ../pi-registry.ts opens it) and its auth
 * storage (`auth.json` there), then the provider's environment variable.
 */

import { join } from "node:path";
import type { Api, Model } from "@mariozechner/pi-ai";
import * as piAi from "@mariozechner/pi-ai";
import { formatModelKey, parseModelKey } from "../../extension/pi/model-key.ts";
import type { Registry } from "../cli/pi-registry.ts";

export interface ResolvedModel {
	/** `provider/modelId`, as the user wrote it canonically. */
	key: string;
	model: Model<Api>;
	auth: { apiKey?: string; headers?: Record<string, string> };
}

export type ModelLookup = { ok: true; model: ResolvedModel } | { ok: false; error: string };

type EnvGetter = (provider: string) => string | undefined;

/** pi-ai's env-key lookup, read through the namespace as the extension does (older pi-ai lacks it). */
function envApiKey(provider: string): string | undefined {
	const get = (piAi as unknown as { getEnvApiKey?: EnvGetter }).getEnvApiKey;
	return typeof get === "function" ? get(provider) : undefined;
}

/** A `provider/model` key to a registry model with its credentials, or the one line that says why not. */
export async function resolveModel(opened: Registry, raw: string): Promise<ModelLookup> {
	const key = parseModelKey(raw);
	if (key === undefined) return { ok: false, error: `${JSON.stringify(raw)} is not provider/model` };
	const model = opened.registry.find(key.provider, key.modelId);
	if (model === undefined) {
		return {
			ok: false,
			error: `no model ${formatModelKey(key)} in Pi's registry (pi-ai's models and ${join(opened.dir, "models.json")})`,
		};
	}
	const auth = await opened.registry.getApiKeyAndHeaders(model);
	if (!auth.ok) return { ok: false, error: `${formatModelKey(key)}: ${auth.error}` };
	if (!auth.apiKey && envApiKey(model.provider) === undefined) {
		return {
			ok: false,
			error: `no API key for ${model.provider} (auth.json or models.json in ${opened.dir}, or the provider's environment variable)`,
		};
	}
	const resolved: ResolvedModel = { key: formatModelKey(key), model, auth: {} };
	if (auth.apiKey) resolved.auth.apiKey = auth.apiKey;
	if (auth.headers) resolved.auth.headers = auth.headers;
	return { ok: true, model: resolved };
}
