import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { completeSimple as rootCompleteSimple } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import {
	createCompleteSimpleLoader,
	isModuleResolutionError,
	type ModuleImporter,
	PI_AI_COMPAT,
	PI_AI_ROOT,
	resolveCompleteSimple,
} from "../../../../src/adapter/extension/pi/compat.ts";
import { UNSUPPORTED_PI_AI } from "../../../../src/render/index.ts";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
const compatFn = async () => "compat";
const rootFn = async () => "root";

/** Scripted importer: each specifier either resolves to a module or rejects. */
function importer(script: Record<string, { module: unknown } | { error: unknown }>): ModuleImporter & {
	calls: string[];
} {
	const calls: string[] = [];
	const fn = async (specifier: string) => {
		calls.push(specifier);
		const step = script[specifier];
		if (!step) throw coded("ERR_MODULE_NOT_FOUND");
		if ("error" in step) throw step.error;
		return step.module;
	};
	return Object.assign(fn, { calls });
}

describe("/compat first", () => {
	it("uses /compat when it has completeSimple and never loads the root", async () => {
		const imp = importer({ [PI_AI_COMPAT]: { module: { completeSimple: compatFn } }, [PI_AI_ROOT]: { module: {} } });
		expect(await resolveCompleteSimple(imp)).toBe(compatFn);
		expect(imp.calls).toEqual([PI_AI_COMPAT]);
	});

	it("accepts a module whose exports sit under default (CommonJS interop)", async () => {
		const imp = importer({ [PI_AI_COMPAT]: { module: { default: { completeSimple: compatFn } } } });
		expect(await resolveCompleteSimple(imp)).toBe(compatFn);
	});
});

describe("falls back to the root only on a module-resolution failure", () => {
	it.each(["ERR_PACKAGE_PATH_NOT_EXPORTED", "ERR_MODULE_NOT_FOUND", "MODULE_NOT_FOUND"])("%s", async (code) => {
		const imp = importer({
			[PI_AI_COMPAT]: { error: coded(code) },
			[PI_AI_ROOT]: { module: { completeSimple: rootFn } },
		});
		expect(await resolveCompleteSimple(imp)).toBe(rootFn);
		expect(imp.calls).toEqual([PI_AI_COMPAT, PI_AI_ROOT]);
	});

	it("a resolution code anywhere in the cause chain", async () => {
		const wrapped = new Error("loader failed", {
			cause: new Error("while resolving", { cause: coded("ERR_PACKAGE_PATH_NOT_EXPORTED") }),
		});
		const imp = importer({
			[PI_AI_COMPAT]: { error: wrapped },
			[PI_AI_ROOT]: { module: { completeSimple: rootFn } },
		});
		expect(await resolveCompleteSimple(imp)).toBe(rootFn);
	});

	it("a /compat module without the function counts as absent", async () => {
		const imp = importer({
			[PI_AI_COMPAT]: { module: { somethingElse: 1 } },
			[PI_AI_ROOT]: { module: { completeSimple: rootFn } },
		});
		expect(await resolveCompleteSimple(imp)).toBe(rootFn);
	});
});

describe("anything else is rethrown", () => {
	it.each([
		["a syntax error in /compat", new SyntaxError("Unexpected token")],
		["a failure with another code", coded("ERR_INVALID_ARG_TYPE")],
		["a failure whose cause is not about resolution", new Error("top", { cause: coded("EACCES") })],
		["a thrown non-error", "boom"],
	])("%s: the same error, and the root is never tried", async (_name, error) => {
		const imp = importer({ [PI_AI_COMPAT]: { error }, [PI_AI_ROOT]: { module: { completeSimple: rootFn } } });
		await expect(resolveCompleteSimple(imp)).rejects.toBe(error);
		expect(imp.calls).toEqual([PI_AI_COMPAT]);
	});

	it("an error from the root itself", async () => {
		const error = new TypeError("root exploded");
		const imp = importer({
			[PI_AI_COMPAT]: { error: coded("ERR_PACKAGE_PATH_NOT_EXPORTED") },
			[PI_AI_ROOT]: { error },
		});
		await expect(resolveCompleteSimple(imp)).rejects.toBe(error);
	});

	it("a cyclic cause chain ends (and is not a resolution failure)", () => {
		const a: Error & { cause?: unknown } = new Error("a");
		const b = new Error("b", { cause: a });
		a.cause = b;
		expect(isModuleResolutionError(a)).toBe(false);
	});
});

describe("neither exposes completeSimple", () => {
	it.each([
		[
			"root lacks it",
			{ [PI_AI_COMPAT]: { error: coded("ERR_PACKAGE_PATH_NOT_EXPORTED") }, [PI_AI_ROOT]: { module: {} } },
		],
		["both unresolvable", {}],
		[
			"both lack it",
			{ [PI_AI_COMPAT]: { module: {} }, [PI_AI_ROOT]: { module: { completeSimple: "not a function" } } },
		],
	])("%s → the documented error", async (_name, script) => {
		await expect(resolveCompleteSimple(importer(script))).rejects.toThrow(
			new Error(
				"pi-ai does not expose completeSimple on /compat or the package root — unsupported host pi-ai version",
			),
		);
		expect(UNSUPPORTED_PI_AI).toBe(
			"pi-ai does not expose completeSimple on /compat or the package root — unsupported host pi-ai version",
		);
	});
});

describe("caching", () => {
	it("resolves once", async () => {
		const imp = importer({ [PI_AI_COMPAT]: { module: { completeSimple: compatFn } } });
		const load = createCompleteSimpleLoader(imp);
		expect(await load()).toBe(compatFn);
		expect(await load()).toBe(compatFn);
		expect(imp.calls).toEqual([PI_AI_COMPAT]);
	});

	it("does not cache a failure", async () => {
		let broken = true;
		const imp: ModuleImporter = async (specifier) => {
			if (broken) throw new Error("transient");
			return specifier === PI_AI_COMPAT ? { completeSimple: compatFn } : {};
		};
		const load = createCompleteSimpleLoader(imp);
		await expect(load()).rejects.toThrow("transient");
		broken = false;
		expect(await load()).toBe(compatFn);
	});
});

describe("the real loader on this 0.73.1 install (no /compat)", () => {
	it("under plain Node it returns the package root's completeSimple", () => {
		const script = `
			import { completeSimple } from "@mariozechner/pi-ai";
			import { loadCompleteSimple } from "./src/adapter/extension/pi/compat.ts";
			let compatError;
			try { await import("@mariozechner/pi-ai/compat"); } catch (err) { compatError = err.code; }
			const loaded = await loadCompleteSimple();
			console.log(JSON.stringify({ compatError, same: loaded === completeSimple, again: (await loadCompleteSimple()) === loaded }));
		`;
		const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
			cwd: REPO_ROOT,
			encoding: "utf8",
		});
		expect(JSON.parse(out.trim().split("\n").at(-1)!)).toEqual({
			compatError: "ERR_PACKAGE_PATH_NOT_EXPORTED",
			same: true,
			again: true,
		});
	});

	it("inside Pi's own extension loader (jiti + aliases) it returns the root's completeSimple", async () => {
		const { discoverAndLoadExtensions } = await import("@mariozechner/pi-coding-agent");
		const dir = mkdtempSync(join(tmpdir(), "advisor-compat-"));
		try {
			const extension = join(dir, "probe-ext.ts");
			writeFileSync(
				extension,
				[
					`import { completeSimple } from "@mariozechner/pi-ai";`,
					`import { loadCompleteSimple } from ${JSON.stringify(join(REPO_ROOT, "src/adapter/extension/pi/compat.ts"))};`,
					"export default async function () {",
					"\tconst loaded = await loadCompleteSimple();",
					"\t(globalThis as Record<string, unknown>).__advisorCompatProbe = { loaded, root: completeSimple };",
					"}",
				].join("\n"),
			);
			const result = await discoverAndLoadExtensions([extension], dir, join(dir, "agent"));
			expect(result.errors).toEqual([]);
			const probe = (globalThis as Record<string, unknown>).__advisorCompatProbe as {
				loaded: unknown;
				root: unknown;
			};
			expect(typeof probe.loaded).toBe("function");
			expect(probe.loaded).toBe(probe.root);
			expect(probe.loaded).toBe(rootCompleteSimple);
		} finally {
			delete (globalThis as Record<string, unknown>).__advisorCompatProbe;
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
