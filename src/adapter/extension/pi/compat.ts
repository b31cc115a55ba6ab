/**
 * Host compatibility (docs/decisions.md): Pi ≥ 0.80.1 exposes completeSimple from `pi-ai/compat`, older
 * hosts from the package root. The subpath is tried first so a new host never gets a root
 * export it has deprecated; anything other than "that subpath does not exist" is a real failure
 * of the module and must not be papered over by silently loading the other one.
 */

import type { completeSimple } from "@mariozechner/pi-ai";
import { assertNever } from "../../../events/index.ts";
import { UNSUPPORTED_PI_AI } from "../../../render/index.ts";

export type CompleteSimple = typeof completeSimple;

/** `(specifier) => import(specifier)`; injectable so tests can script each outcome. */
export type ModuleImporter = (specifier: string) => Promise<unknown>;

export const PI_AI_COMPAT = "@mariozechner/pi-ai/compat";
export const PI_AI_ROOT = "@mariozechner/pi-ai";

const RESOLUTION_CODES: ReadonlySet<string> = new Set([
	// Node ESM: the package exists but its "exports" has no such subpath (0.73.x).
	"ERR_PACKAGE_PATH_NOT_EXPORTED",
	"ERR_MODULE_NOT_FOUND",
	// CommonJS resolution, which Pi's jiti loader uses for extensions.
	"MODULE_NOT_FOUND",
]);

/** True when the error, or any error in its `cause` chain, says the module could not be resolved. */
export function isModuleResolutionError(err: unknown): boolean {
	const seen = new Set<unknown>();
	let current: unknown = err;
	while (typeof current === "object" && current !== null && !seen.has(current)) {
		seen.add(current);
		const { code, cause } = current as { code?: unknown; cause?: unknown };
		if (typeof code === "string" && RESOLUTION_CODES.has(code)) return true;
		current = cause;
	}
	return false;
}

// jiti hands CommonJS-shaped modules back with their exports under `default`.
function completeSimpleOf(mod: unknown): CompleteSimple | undefined {
	if (typeof mod !== "object" || mod === null) return undefined;
	const { completeSimple: direct, default: fallback } = mod as { completeSimple?: unknown; default?: unknown };
	if (typeof direct === "function") return direct as CompleteSimple;
	if (typeof fallback === "object" && fallback !== null) {
		const nested = (fallback as { completeSimple?: unknown }).completeSimple;
		if (typeof nested === "function") return nested as CompleteSimple;
	}
	return undefined;
}

type Attempt = { kind: "found"; fn: CompleteSimple } | { kind: "absent" };

async function attempt(importer: ModuleImporter, specifier: string): Promise<Attempt> {
	try {
		const fn = completeSimpleOf(await importer(specifier));
		return fn ? { kind: "found", fn } : { kind: "absent" };
	} catch (err) {
		if (isModuleResolutionError(err)) return { kind: "absent" };
		throw err;
	}
}

/** Uncached; throws UNSUPPORTED_PI_AI when neither entry point has the function. */
export async function resolveCompleteSimple(importer: ModuleImporter): Promise<CompleteSimple> {
	for (const specifier of [PI_AI_COMPAT, PI_AI_ROOT]) {
		const found = await attempt(importer, specifier);
		switch (found.kind) {
			case "found":
				return found.fn;
			case "absent":
				continue;
			default:
				return assertNever(found, "completeSimple attempt");
		}
	}
	throw new Error(UNSUPPORTED_PI_AI);
}

// A variable specifier keeps tsc from resolving "/compat", which 0.73.x does not have, and
// leaves resolution to whatever loaded us (Node, or Pi's jiti with its aliases).
export const hostImporter: ModuleImporter = (specifier) => import(specifier);

/** Resolves once and hands back the same function after; a failure is not cached, so it can be retried. */
export function createCompleteSimpleLoader(importer: ModuleImporter): () => Promise<CompleteSimple> {
	let cached: Promise<CompleteSimple> | undefined;
	return () => {
		cached ??= resolveCompleteSimple(importer).catch((err: unknown) => {
			cached = undefined;
			throw err;
		});
		return cached;
	};
}

/** The host's completeSimple, resolved once per process. */
export const loadCompleteSimple: () => Promise<CompleteSimple> = createCompleteSimpleLoader(hostImporter);
