/**
 * Where `eval` finds pi-ai's `completeSimple`, the one thing of Pi the CLI does not carry: the built
 * CLI holds pi-ai's model list and prices but not its providers and their SDKs, which would make the
 * package megabytes larger (docs/decisions.md, "The package"). A model call goes through the pi-ai
 * of an installed Pi instead, looked for
 * 1. beside the program (a checkout's node_modules, or a package installed with its peers), then
 * 2. in the Pi that `pi` on PATH runs: `@mariozechner/pi-coding-agent` (0.73) or
 *    `@earendil-works/pi-coding-agent` (1.x), and the pi-ai it resolves.
 * Both are found as Node finds a package (node_modules up the tree) and imported by file, and asked
 * through pi/compat.ts, so a pi-ai ≥ 0.80.1 is asked at `/compat` first.
 */

import { readFileSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { UNSUPPORTED_PI_AI } from "../../../render/index.ts";
import {
	type CompleteSimple,
	type ModuleImporter,
	PI_AI_COMPAT,
	PI_AI_ROOT,
	resolveCompleteSimple,
} from "../../extension/pi/compat.ts";

/** Pi's coding-agent packages, each with the pi-ai it runs on. */
const PI_AI_OF: Readonly<Record<string, string>> = {
	"@mariozechner/pi-coding-agent": "@mariozechner/pi-ai",
	"@earendil-works/pi-coding-agent": "@earendil-works/pi-ai",
};

export const NO_PI_AI =
	"calling models needs the pi-ai of an installed Pi, and none was found (beside advisor-ledger, or under the pi on PATH): install Pi (npm install -g @mariozechner/pi-coding-agent) and run it again";

export type HostPiAi = { ok: true; complete: CompleteSimple } | { ok: false; error: string };

function readJson(file: string): Record<string, unknown> | undefined {
	try {
		const value: unknown = JSON.parse(readFileSync(file, "utf8"));
		return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
	} catch {
		return undefined;
	}
}

function isFile(path: string): boolean {
	try {
		return statSync(path).isFile();
	} catch {
		return false;
	}
}

/** The real path of the first `pi` on PATH, as a shell would run it. */
export function piOnPath(env: NodeJS.ProcessEnv): string | undefined {
	for (const dir of (env.PATH ?? "").split(delimiter)) {
		if (dir === "" || !isFile(join(dir, "pi"))) continue;
		return realpathSync(join(dir, "pi"));
	}
	return undefined;
}

/** The folder of package `name` as Node would find it from `from` (node_modules up the tree). */
export function packageDir(from: string, name: string): string | undefined {
	for (let dir = resolve(from); ; dir = dirname(dir)) {
		const candidate = join(dir, "node_modules", name);
		if (isFile(join(candidate, "package.json"))) return candidate;
		if (dirname(dir) === dir) return undefined;
	}
}

/** The pi-ai folder of the Pi whose CLI script is `cli`: its package is the first package.json above the script. */
export function piAiOfCli(cli: string): string | undefined {
	for (let dir = dirname(cli); ; dir = dirname(dir)) {
		const manifest = readJson(join(dir, "package.json"));
		if (manifest !== undefined) {
			const piAi = typeof manifest.name === "string" ? PI_AI_OF[manifest.name] : undefined;
			return piAi === undefined ? undefined : packageDir(dir, piAi);
		}
		if (dirname(dir) === dir) return undefined;
	}
}

/** The ESM file a package exports at `subpath` (`.` or `./compat`), or undefined when it exports none. */
export function exportedFile(dir: string, subpath: string): string | undefined {
	const manifest = readJson(join(dir, "package.json")) ?? {};
	const exports = manifest.exports;
	const entry =
		typeof exports === "object" && exports !== null ? (exports as Record<string, unknown>)[subpath] : undefined;
	let target = typeof entry === "string" ? entry : undefined;
	if (typeof entry === "object" && entry !== null) {
		const conditions = entry as Record<string, unknown>;
		const chosen = conditions.import ?? conditions.default;
		target = typeof chosen === "string" ? chosen : undefined;
	}
	if (exports === undefined && subpath === "." && typeof manifest.main === "string") target = manifest.main;
	return target === undefined ? undefined : join(dir, target);
}

/** Imports pi-ai's two entry points from the folder `dir`, failing on an absent one as Node does. */
export function folderImporter(dir: string): ModuleImporter {
	return (specifier) => {
		const subpath = specifier === PI_AI_COMPAT ? "./compat" : specifier === PI_AI_ROOT ? "." : undefined;
		const file = subpath === undefined ? undefined : exportedFile(dir, subpath);
		if (file === undefined) {
			const error = new Error(`${dir} exports no ${subpath ?? specifier}`);
			return Promise.reject(Object.assign(error, { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" }));
		}
		return import(pathToFileURL(file).href);
	};
}

/** `completeSimple` from `importer`, undefined when neither entry point resolves there. */
async function tryImporter(importer: ModuleImporter): Promise<CompleteSimple | undefined> {
	try {
		return await resolveCompleteSimple(importer);
	} catch (error) {
		// Neither entry point resolved, or neither has the function; anything else is a real failure.
		if (error instanceof Error && error.message === UNSUPPORTED_PI_AI) return undefined;
		throw error;
	}
}

/** `completeSimple` of the pi-ai in `dir`, undefined when there is none. */
async function fromFolder(dir: string | undefined): Promise<CompleteSimple | undefined> {
	return dir === undefined ? undefined : tryImporter(folderImporter(dir));
}

/** The pi-ai `eval` calls models through: beside the program (`here`) first, then the Pi on PATH. */
export async function findHostPiAi(
	env: NodeJS.ProcessEnv,
	here: string = dirname(fileURLToPath(import.meta.url)),
): Promise<HostPiAi> {
	try {
		const own = await fromFolder(packageDir(here, PI_AI_ROOT));
		if (own !== undefined) return { ok: true, complete: own };
		const cli = piOnPath(env);
		const found = await fromFolder(cli === undefined ? undefined : piAiOfCli(cli));
		return found === undefined ? { ok: false, error: NO_PI_AI } : { ok: true, complete: found };
	} catch (error) {
		const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
		return { ok: false, error: `cannot load pi-ai: ${reason}` };
	}
}
