#!/usr/bin/env node
/**
 * Installs the second Pi host the end-to-end tests run on, into `.cache/hosts/` inside the
 * repository (ignored by git; nothing global): Node 22 from the npm registry package
 * `node-<platform>-<arch>` (the binary ships inside the package) and
 * `@earendil-works/pi-coding-agent` 1.6.0 installed by npm running under that Node, so its
 * dependency tree is the one a Node 22 user gets. The first host, Pi 0.73.1 under the Node that
 * runs the tests, is the project's own devDependency.
 *
 * Idempotent: a part already installed is kept. Each part is installed into a temporary folder
 * and renamed into place only when complete, so an interrupted run never looks installed.
 * The outcome is written to `.cache/hosts/hosts.json`, which test/support/hosts.ts reads: tests
 * of a host that could not be installed are skipped with the reason recorded there.
 *
 * Usage: node scripts/install-hosts.mjs   (exit 0 when the host is ready, 1 when it is not)
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CACHE = join(REPO_ROOT, ".cache", "hosts");
const MANIFEST = join(CACHE, "hosts.json");

const NODE_MIN = [22, 19, 0];
const NODE_PACKAGE = `node-${process.platform}-${process.arch}`;
// Pi 1.x declares engines.node >= 22.19.0; stay on the 22 line the issue names.
const NODE_SPEC = `${NODE_PACKAGE}@>=${NODE_MIN.join(".")} <23`;
const PI_PACKAGE = "@earendil-works/pi-coding-agent";
const PI_VERSION = "1.6.0";

const nodeDir = join(CACHE, "node-22");
const nodeBin = join(nodeDir, "node_modules", NODE_PACKAGE, "bin", "node");
const piDir = join(CACHE, `pi-${PI_VERSION}`);
const piPackageDir = join(piDir, "node_modules", ...PI_PACKAGE.split("/"));
const piCli = join(piPackageDir, "dist", "bundle", "cli.js");

function log(line) {
	process.stdout.write(`[install-hosts] ${line}\n`);
}

function parseVersion(text) {
	const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
	return match ? match.slice(1, 4).map(Number) : undefined;
}

function atLeast(version, minimum) {
	for (let i = 0; i < 3; i++) {
		if (version[i] !== minimum[i]) return version[i] > minimum[i];
	}
	return true;
}

/** The version `node --version` prints, or undefined when the binary is missing or does not run. */
function nodeVersion(bin) {
	if (!existsSync(bin)) return undefined;
	const run = spawnSync(bin, ["--version"], { encoding: "utf8" });
	return run.status === 0 ? run.stdout.trim() : undefined;
}

function installedPiVersion() {
	if (!existsSync(piCli)) return undefined;
	try {
		return JSON.parse(readFileSync(join(piPackageDir, "package.json"), "utf8")).version;
	} catch {
		return undefined;
	}
}

// `npm run` exports its settings and the project it runs for as npm_* variables; a nested npm
// would take those that say where and what to install (the repository as local prefix, global,
// workspaces, omit…) and install somewhere else. Registry, cache and proxy settings are kept.
const NPM_PLACEMENT =
	/^npm_(package_|lifecycle_|config_(local_prefix|prefix|global|location|workspaces?|include_workspace_root|omit|include|production|dry_run|save|ignore_scripts)$)/i;

function cleanEnv(extraPath) {
	const env = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!NPM_PLACEMENT.test(key)) env[key] = value;
	}
	if (extraPath) env.PATH = `${extraPath}${delimiter}${process.env.PATH ?? ""}`;
	return env;
}

const OFFLINE_CODES = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b/;

class InstallError extends Error {}

/** `npm install --prefix <dir> <specs>` into a temporary folder renamed to `dir` on success. */
function npmInstall(dir, specs, pathPrefix) {
	const staging = `${dir}.partial`;
	rmSync(staging, { recursive: true, force: true });
	mkdirSync(staging, { recursive: true });
	// A package.json of its own keeps npm from walking up to the repository's.
	writeFileSync(join(staging, "package.json"), `${JSON.stringify({ private: true }, null, "\t")}\n`);
	const run = spawnSync(
		"npm",
		[
			"install",
			"--prefix",
			staging,
			// What npm has cached is used without asking the registry again: a machine that installed
			// once re-installs (a fresh clone in CI) offline, and quickly.
			"--prefer-offline",
			"--fetch-retries=1",
			"--no-audit",
			"--no-fund",
			"--no-update-notifier",
			"--loglevel=error",
			...specs,
		],
		{ cwd: staging, env: cleanEnv(pathPrefix), encoding: "utf8" },
	);
	if (run.error) {
		rmSync(staging, { recursive: true, force: true });
		throw new InstallError(`could not run npm (${run.error.message}); npm must be on PATH`);
	}
	if (run.status !== 0) {
		rmSync(staging, { recursive: true, force: true });
		const output = `${run.stderr ?? ""}\n${run.stdout ?? ""}`;
		const offline = OFFLINE_CODES.exec(output);
		const tail = output.trim().split("\n").slice(-3).join(" | ");
		throw new InstallError(
			offline
				? `the npm registry is unreachable (${offline[1]}) while installing ${specs.join(" ")}; run this again with network access`
				: `npm install ${specs.join(" ")} failed (exit ${run.status}): ${tail}`,
		);
	}
	rmSync(dir, { recursive: true, force: true });
	renameSync(staging, dir);
}

function ensureNode() {
	const present = nodeVersion(nodeBin);
	const parsed = present && parseVersion(present);
	if (parsed && atLeast(parsed, NODE_MIN)) {
		log(`Node ${present} already in ${relative(nodeBin)}`);
		return present;
	}
	log(`installing ${NODE_SPEC} …`);
	npmInstall(nodeDir, [NODE_SPEC]);
	const installed = nodeVersion(nodeBin);
	const version = installed && parseVersion(installed);
	if (!version) throw new InstallError(`${NODE_PACKAGE} installed but ${relative(nodeBin)} does not run`);
	if (!atLeast(version, NODE_MIN)) {
		throw new InstallError(`${NODE_PACKAGE} gave Node ${installed}; Pi ${PI_VERSION} needs ≥ ${NODE_MIN.join(".")}`);
	}
	log(`Node ${installed} installed`);
	return installed;
}

function ensurePi() {
	if (installedPiVersion() === PI_VERSION) {
		log(`${PI_PACKAGE}@${PI_VERSION} already in ${relative(piDir)}`);
		return;
	}
	log(`installing ${PI_PACKAGE}@${PI_VERSION} with Node 22 …`);
	// npm's own `#!/usr/bin/env node` then runs under Node 22, as do any install scripts.
	npmInstall(piDir, [`${PI_PACKAGE}@${PI_VERSION}`], dirname(nodeBin));
	if (installedPiVersion() !== PI_VERSION)
		throw new InstallError(`${PI_PACKAGE}@${PI_VERSION} has no ${relative(piCli)}`);
	log(`${PI_PACKAGE}@${PI_VERSION} installed`);
}

function relative(path) {
	return path.startsWith(`${REPO_ROOT}/`) ? path.slice(REPO_ROOT.length + 1) : path;
}

function writeManifest(host) {
	mkdirSync(CACHE, { recursive: true });
	writeFileSync(MANIFEST, `${JSON.stringify({ hosts: { "pi-1.6.0": host } }, null, "\t")}\n`);
}

const started = Date.now();
try {
	const version = ensureNode();
	ensurePi();
	writeManifest({
		available: true,
		piVersion: PI_VERSION,
		nodeVersion: version,
		// Relative to the repository root, so a moved checkout keeps its cache.
		node: relative(nodeBin),
		cli: relative(piCli),
	});
	log(`Pi ${PI_VERSION} under Node ${version} ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
} catch (err) {
	const reason = err instanceof InstallError ? err.message : String(err?.stack ?? err);
	writeManifest({ available: false, piVersion: PI_VERSION, reason });
	process.stderr.write(`[install-hosts] Pi ${PI_VERSION} under Node 22 NOT installed: ${reason}\n`);
	process.exit(1);
}
