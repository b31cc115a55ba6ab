#!/usr/bin/env node
/**
 * Builds the `advisor-ledger` CLI into one file, `dist/advisor-ledger.js` (the package's bin), with
 * esbuild: the lab, the core and the parts of Pi the CLI uses, so the installed package runs without
 * a copy of Pi; beside it, THIRD_PARTY_LICENSES.txt, the licences of the packages it holds code of.
 * What is left out, and why (docs/decisions.md, "The package"):
 *
 * - Pi's start-up: Pi's own modules are marked free of side effects, so only what the CLI calls is
 *   kept (its session context builder, tool definitions, model registry), not its TUI or jiti;
 * - pi-ai's provider SDKs: `eval`, the one command that calls models, loads pi-ai from an installed
 *   Pi (src/adapter/lab/cli/host-pi-ai.ts); the bundled copy only lists models and prices;
 * - syntax highlighting (cli-highlight, highlight.js): only Pi's TUI draws with it;
 * - TypeBox 0.34: `@sinclair/typebox` resolves to TypeBox 1.x, as Pi maps it for extensions.
 *
 * node scripts/build-cli.mjs [--out FILE]   build (default dist/advisor-ledger.js)
 * node scripts/build-cli.mjs --prepare      npm's `prepare`: build in a checkout; in an unpacked
 *                                           package (built already, no source) do nothing; in a git
 *                                           install without dev dependencies say so in one line and
 *                                           succeed, so the extension still installs
 */

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const ENTRY = join(ROOT, "src/adapter/lab/advisor-ledger.ts");
export const DEFAULT_OUT = join(ROOT, "dist/advisor-ledger.js");

/** Pi's own packages: the CLI takes functions from them, never their start-up. */
const PI_MODULES = /\/node_modules\/@mariozechner\/pi-(coding-agent|tui)\//;
/** pi-ai's lazily imported providers (each pulls in a vendor SDK). */
const PROVIDER_LOADER = /\/node_modules\/@mariozechner\/pi-ai\/dist\/providers\/register-builtins\.js$/;

const STUBS = {
	"cli-highlight": "export const highlight = (code) => code;\nexport const supportsLanguage = () => false;\n",
	provider:
		'throw new Error("advisor-ledger calls models only through the pi-ai of an installed Pi (advisor-ledger eval)");\n',
};

/** @type {import("esbuild").Plugin} */
const slim = {
	name: "advisor-ledger-slim",
	setup(build) {
		build.onResolve({ filter: /^@sinclair\/typebox(\/.*)?$/ }, (args) =>
			build.resolve(args.path.replace("@sinclair/typebox", "typebox"), {
				kind: args.kind,
				resolveDir: args.resolveDir,
				importer: args.importer,
			}),
		);
		build.onResolve({ filter: /^cli-highlight$/ }, () => ({ path: "cli-highlight", namespace: "stub" }));
		build.onResolve({ filter: /^\.\/[\w-]+\.js$/ }, (args) =>
			args.kind === "dynamic-import" && PROVIDER_LOADER.test(args.importer)
				? { path: "provider", namespace: "stub" }
				: undefined,
		);
		build.onResolve({ filter: /.*/ }, async (args) => {
			if (args.pluginData === slim.name || args.namespace !== "file") return undefined;
			if (!args.path.startsWith("@mariozechner/") && !PI_MODULES.test(args.importer)) return undefined;
			const resolved = await build.resolve(args.path, {
				kind: args.kind,
				resolveDir: args.resolveDir,
				importer: args.importer,
				pluginData: slim.name,
			});
			if (resolved.errors.length > 0) return { errors: resolved.errors };
			return PI_MODULES.test(resolved.path) ? { ...resolved, sideEffects: false } : resolved;
		});
		build.onLoad({ filter: /.*/, namespace: "stub" }, (args) => ({ contents: STUBS[args.path], loader: "js" }));
	},
};

/** Builds the CLI into `out`; the file is written whole (renamed into place), so a reader never sees half of it. */
export async function buildCli(out = DEFAULT_OUT) {
	const { build } = await import("esbuild");
	const result = await build({
		entryPoints: [ENTRY],
		absWorkingDir: ROOT,
		bundle: true,
		platform: "node",
		format: "esm",
		target: "node20.6",
		minify: true,
		write: false,
		metafile: true,
		logLevel: "warning",
		plugins: [slim],
		// Some of Pi's dependencies are CommonJS and call require() on Node's modules.
		banner: {
			js: 'import { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);',
		},
	});
	const [file] = result.outputFiles;
	mkdirSync(dirname(out), { recursive: true });
	writeWhole(out, file.contents, 0o755);
	writeWhole(join(dirname(out), NOTICES), thirdPartyNotices(result.metafile));
	return { out, bytes: file.contents.length };
}

function writeWhole(path, contents, mode = 0o644) {
	const partial = `${path}.${process.pid}.partial`;
	writeFileSync(partial, contents, { mode });
	renameSync(partial, path);
}

/** Beside the CLI: the licence of every package the bundle holds code of, as their licences ask. */
export const NOTICES = "THIRD_PARTY_LICENSES.txt";

const MIT = `Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction, including
without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the
following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial
portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT
LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO
EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN
AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE
OR OTHER DEALINGS IN THE SOFTWARE.`;

/** A package's licence text: its licence file; for an MIT package without one (Pi's), the MIT text with its author. */
function licenceText(dir, pkg) {
	const file = readdirSync(dir).find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name));
	if (file !== undefined) return readFileSync(join(dir, file), "utf8").trim();
	const author = typeof pkg.author === "string" ? pkg.author : pkg.author?.name;
	if (pkg.license === "MIT" && author !== undefined) return `MIT License\n\nCopyright (c) ${author}\n\n${MIT}`;
	throw new Error(`${pkg.name}: no licence file and no MIT author to name; add its licence by hand`);
}

function thirdPartyNotices(metafile) {
	const dirs = new Set();
	for (const output of Object.values(metafile.outputs)) {
		for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
			const at = input.lastIndexOf("node_modules/");
			const name = at < 0 ? undefined : /^(@[^/]+\/)?[^/]+/.exec(input.slice(at + "node_modules/".length))?.[0];
			if (bytesInOutput > 0 && name !== undefined) dirs.add(join(ROOT, input.slice(0, at), "node_modules", name));
		}
	}
	const sections = [...dirs].sort().map((dir) => {
		const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
		return `== ${pkg.name}@${pkg.version} (${pkg.license}) ==\n\n${licenceText(dir, pkg)}\n`;
	});
	return `advisor-ledger.js holds code of the packages below; each one's licence follows.\n\n${sections.join("\n")}`;
}

async function esbuildInstalled() {
	try {
		await import("esbuild");
		return true;
	} catch {
		return false;
	}
}

async function main(argv) {
	if (argv[0] === "--prepare") {
		// An unpacked package ships the CLI built and not the lab's source: nothing to build.
		if (!existsSync(ENTRY)) return;
		if (!(await esbuildInstalled())) {
			process.stdout.write(
				"pi-advisor-ledger: the advisor-ledger CLI is not built (esbuild, a dev dependency, is not installed); the Pi extension does not need it\n",
			);
			return;
		}
	}
	const at = argv.indexOf("--out");
	const { out, bytes } = await buildCli(at >= 0 ? resolve(argv[at + 1]) : DEFAULT_OUT);
	if (at < 0) process.stdout.write(`built ${out} (${bytes} bytes)\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	await main(process.argv.slice(2));
}
