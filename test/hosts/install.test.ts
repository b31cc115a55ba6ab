/**
 * The install path a user has today: `pi install <checkout>` (the package is not on npm), then
 * plain `pi`, no `-e`. On both hosts a local path is not copied or npm-installed: it is written,
 * relative to the agent dir, into settings.json `packages`, and its `pi.extensions` manifest is
 * loaded from the checkout, whose own node_modules must hold the runtime dependencies.
 */

import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
	consultationRoute,
	createSandbox,
	describeEachHost,
	expectOneConsultation,
	FINAL,
	type PiHost,
	PROMPT,
	type ProcessResult,
	printArgs,
	REPO_ROOT,
	runNode,
	runPi,
	type Sandbox,
} from "../support/hosts.ts";
import { type MockServer, startMockOpenAI } from "../support/mock-openai.ts";

// Pi 1.x's list of packages it maps for extensions (its resource loader), legacy names included.
const HOST_PROVIDED = new Set([
	"@earendil-works/pi-agent-core",
	"@earendil-works/pi-ai",
	"@earendil-works/pi-coding-agent",
	"@earendil-works/pi-tui",
	"@mariozechner/pi-agent-core",
	"@mariozechner/pi-ai",
	"@mariozechner/pi-coding-agent",
	"@mariozechner/pi-tui",
	"@sinclair/typebox",
	"typebox",
]);

/**
 * What a host prints on stderr when it loads the package: Pi 1.x warns, on every start, when the
 * manifest lists host-provided packages under `dependencies` (a warning, not a failure: the
 * extension's imports of them are still mapped to the host's copies). 0.73 says nothing.
 */
function expectedLoadWarnings(host: PiHost): string {
	const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
	const listed = Object.keys(manifest.dependencies ?? {})
		.filter((name) => HOST_PROVIDED.has(name))
		.sort();
	if (host.id === "pi-0.73.1" || listed.length === 0) return "";
	return `Warning: Extension package "${join(REPO_ROOT, "package.json")}": Host-provided extension packages must be declared in peerDependencies with a "*" range, not dependencies: ${listed.join(", ")}. Installed copies can bypass the extension loader and create duplicate runtime modules.\n`;
}

function settingsPackages(sandbox: Sandbox): unknown {
	return JSON.parse(readFileSync(join(sandbox.agentDir, "settings.json"), "utf8")).packages;
}

describeEachHost("pi install <checkout>, then pi without -e", (host) => {
	let server: MockServer;
	let sandbox: Sandbox;
	let install: ProcessResult;
	let run: ProcessResult;
	let agentDirAfterInstall: string[];

	beforeAll(async () => {
		server = await startMockOpenAI(consultationRoute);
		sandbox = createSandbox(server.baseUrl);
		// As a user would: from inside the checkout, `pi install .`.
		install = await runNode(host.node, [host.cli, "install", "."], { cwd: REPO_ROOT, env: sandbox.env });
		agentDirAfterInstall = readdirSync(sandbox.agentDir).sort();
		run = await runPi(host, printArgs(sandbox, PROMPT), sandbox);
	}, 120_000);

	afterAll(async () => {
		await server?.close();
		sandbox?.dispose();
	});

	it("records the checkout in settings.json, relative to the agent dir, and copies nothing", () => {
		expect(install.stderr).toBe("");
		expect(install.code).toBe(0);
		expect(install.stdout).toBe("Installing ....\nInstalled .\n");
		const packages = settingsPackages(sandbox);
		expect(packages).toEqual([relative(sandbox.agentDir, REPO_ROOT)]);
		expect(resolve(sandbox.agentDir, (packages as string[])[0]!)).toBe(REPO_ROOT);
		expect(agentDirAfterInstall).toEqual(["models.json", "settings.json"]);
	});

	it("loads the extension from the package manifest and consults", () => {
		expect(run.stderr).toBe(expectedLoadWarnings(host));
		expect(run.code).toBe(0);
		expect(run.stdout.trim()).toBe(FINAL);
		const files = sandbox.sessionFiles();
		expect(files).toHaveLength(1);
		expectOneConsultation(server.requests, files[0]!);
	});
});

describeEachHost("pi install <checkout without npm install>", (host) => {
	let sandbox: Sandbox;
	let checkout: string;
	let install: ProcessResult;
	let run: ProcessResult;

	beforeAll(async () => {
		// No model is reached: the run stops at loading the extension.
		sandbox = createSandbox("http://127.0.0.1:9/v1");
		checkout = mkdtempSync(join(tmpdir(), "advisor-checkout-"));
		cpSync(join(REPO_ROOT, "package.json"), join(checkout, "package.json"));
		cpSync(join(REPO_ROOT, "src"), join(checkout, "src"), { recursive: true });
		install = await runNode(host.node, [host.cli, "install", checkout], { cwd: sandbox.project, env: sandbox.env });
		run = await runPi(host, printArgs(sandbox, PROMPT), sandbox);
	}, 120_000);

	afterAll(() => {
		sandbox?.dispose();
		if (checkout) rmSync(checkout, { recursive: true, force: true });
	});

	it("installs (the path exists), and the first run fails loudly on the missing dependency", () => {
		expect(install.code).toBe(0);
		expect(settingsPackages(sandbox)).toEqual([relative(sandbox.agentDir, checkout)]);
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain(
			`Error: Failed to load extension "${join(checkout, "src/adapter/extension/pi-advisor-ledger.ts")}": Failed to load extension: Cannot find module 'immer'`,
		);
	});
});
