/**
 * The package as a user installs it (docs/decisions.md, "The package"): `npm pack`, once per run,
 * then on each host `pi install npm:pi-advisor-ledger` done by Pi itself — Pi 0.73 runs `npm install
 * -g` (npm's prefix pointed at a temp dir here), Pi 1.x `npm install --prefix <agent dir>/npm` —
 * with one stand-in for the registry, which does not have the package yet: Pi's `npmCommand`
 * setting runs test/hosts/npm-stand-in.mjs, the real npm with the tarball in place of the name and
 * `--omit=dev`. Then plain `pi` consults, the installed `advisor-ledger` runs under the host's
 * Node, and `pi remove` leaves nothing behind.
 */

import { execFileSync } from "node:child_process";
import {
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { NO_PI_AI } from "../../src/adapter/lab/cli/host-pi-ai.ts";
import { judgeLabels, judgeReply, requestKind } from "../support/eval-mock.ts";
import {
	ADVISOR_MODEL,
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
	type Sandbox,
} from "../support/hosts.ts";
import { type MockServer, startMockOpenAI } from "../support/mock-openai.ts";

const NAME = "pi-advisor-ledger";
const SOURCE = `npm:${NAME}`;
const STAND_IN = join(REPO_ROOT, "test/hosts/npm-stand-in.mjs");
/** What a user downloads; the bar was set when 1.8 MB (4.9 MB of it samples/long) could not be installed. */
const MAX_PACKED_BYTES = 1_000_000;

/**
 * npm as the user has it, less their global prefix: their cache, read before the registry (immer,
 * the one dependency, is there after `npm ci`), and their TLS and proxy settings for when it is not.
 */
const NPM_ENV: NodeJS.ProcessEnv = {
	...Object.fromEntries(
		Object.entries(process.env).filter(([name]) => /^(NODE_EXTRA_CA_CERTS|(https?|no)_proxy)$/i.test(name)),
	),
	npm_config_cache: process.env.npm_config_cache ?? join(homedir(), ".npm"),
	npm_config_prefer_offline: "true",
	npm_config_update_notifier: "false",
};

// Each step runs npm or Pi: seconds on a quiet machine, a minute or more on a 2-core one running
// other suites (a measured figure is printed, never asserted).
vi.setConfig({ testTimeout: 240_000, hookTimeout: 300_000 });

let packDir: string;
let tarball: string;
let packedBytes: number;

beforeAll(() => {
	packDir = mkdtempSync(join(tmpdir(), "advisor-pack-"));
	// `npm pack` runs `prepare` first, which builds dist/advisor-ledger.js, as a publish would.
	const out = execFileSync("npm", ["pack", "--json", "--pack-destination", packDir], {
		cwd: REPO_ROOT,
		env: { ...process.env, npm_config_update_notifier: "false" },
		encoding: "utf8",
		stdio: ["ignore", "pipe", "pipe"],
	});
	const [packed] = JSON.parse(out.slice(out.search(/^\[/m))) as { filename: string; size: number }[];
	tarball = join(packDir, packed!.filename);
	packedBytes = statSync(tarball).size;
	console.log(`[package] ${packed!.filename}: ${packedBytes} bytes packed`);
});

afterAll(() => {
	if (packDir) rmSync(packDir, { recursive: true, force: true });
});

it(`packs under ${MAX_PACKED_BYTES / 1e6} MB, with the bundled CLI and without the lab's source or samples/long's other sessions`, () => {
	expect(packedBytes).toBeLessThan(MAX_PACKED_BYTES);
	const listed = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n");
	expect(listed).toContain("package/dist/advisor-ledger.js");
	expect(listed).toContain("package/dist/THIRD_PARTY_LICENSES.txt");
	expect(listed).toContain("package/src/adapter/extension/pi-advisor-ledger.ts");
	expect(listed.filter((f) => f.startsWith("package/src/adapter/lab/"))).toEqual([]);
	expect(listed.filter((f) => f.startsWith("package/samples/long/"))).toEqual([
		"package/samples/long/pi-mono-large-session.jsonl",
	]);
});

it("unpacked, npm install --omit=dev installs immer and builds nothing: the CLI ships built, its source does not", () => {
	const unpacked = mkdtempSync(join(tmpdir(), "advisor-unpacked-"));
	try {
		execFileSync("tar", ["-xzf", tarball, "-C", unpacked]);
		const dir = join(unpacked, "package");
		const bundle = readFileSync(join(dir, "dist/advisor-ledger.js"));
		execFileSync("npm", ["install", "--omit=dev", "--no-audit", "--no-fund"], {
			cwd: dir,
			env: { PATH: process.env.PATH, HOME: unpacked, ...NPM_ENV },
			stdio: "pipe",
		});
		expect(installedPackages(dir)).toEqual(["immer"]);
		expect(readFileSync(join(dir, "dist/advisor-ledger.js")).equals(bundle)).toBe(true);
	} finally {
		rmSync(unpacked, { recursive: true, force: true });
	}
});

/** Every package npm put under `root`'s node_modules, nested ones too, by name. */
function installedPackages(root: string): string[] {
	const names: string[] = [];
	const walk = (modules: string) => {
		if (!existsSync(modules)) return;
		for (const entry of readdirSync(modules)) {
			if (entry.startsWith(".")) continue;
			const dirs = entry.startsWith("@") ? readdirSync(join(modules, entry)).map((n) => `${entry}/${n}`) : [entry];
			for (const name of dirs) {
				names.push(name);
				walk(join(modules, name, "node_modules"));
			}
		}
	};
	walk(join(root, "node_modules"));
	return names.sort();
}

/** Bytes of the files under `path`; a link counts as itself (npm's bin links point into the package). */
function bytesUnder(path: string): number {
	const stat = lstatSync(path);
	if (!stat.isDirectory()) return stat.size;
	return readdirSync(path).reduce((sum, entry) => sum + bytesUnder(join(path, entry)), 0);
}

/** Where each host's `pi install npm:` puts a package, and npm its bin. */
function layout(host: PiHost, sandbox: Sandbox, prefix: string): { root: string; bin: string } {
	switch (host.id) {
		case "pi-0.73.1":
			// `npm install -g`: <prefix>/lib/node_modules, bins in <prefix>/bin.
			return { root: join(prefix, "lib"), bin: join(prefix, "bin", "advisor-ledger") };
		case "pi-1.6.0": {
			// `npm install --prefix <agent dir>/npm`: a project of Pi's own.
			const root = join(sandbox.agentDir, "npm");
			return { root, bin: join(root, "node_modules", ".bin", "advisor-ledger") };
		}
		default:
			throw new Error(`no install layout for ${host.id satisfies never}`);
	}
}

/** The mock both models sit behind: the consultation of hosts.ts, and a judge for `eval`. */
function route(body: any) {
	if (body.model === ADVISOR_MODEL && requestKind(body) === "judge") {
		return { kind: "text" as const, text: judgeReply(judgeLabels(body)) };
	}
	return consultationRoute(body);
}

describeEachHost(
	"pi install npm:pi-advisor-ledger from the packed tarball, then pi, advisor-ledger, pi remove",
	(host) => {
		const version = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string })
			.version;
		let server: MockServer;
		let sandbox: Sandbox;
		let env: NodeJS.ProcessEnv;
		let where: { root: string; bin: string };
		let install: ProcessResult;
		let installMs: number;
		let listed: ProcessResult;
		let packagesAfterInstall: string[];
		let run: ProcessResult;

		const pi = (args: string[]) => runNode(host.node, [host.cli, ...args], { cwd: sandbox.project, env });
		/** The installed CLI under the host's Node, with only `path` as PATH (no Pi there unless put there). */
		const cli = (args: string[], path: string) =>
			runNode(host.node, [where.bin, ...args], {
				cwd: sandbox.project,
				env: { HOME: sandbox.home, PI_CODING_AGENT_DIR: sandbox.agentDir, PATH: path },
			});

		beforeAll(async () => {
			server = await startMockOpenAI(route);
			sandbox = createSandbox(server.baseUrl);
			const prefix = join(sandbox.root, "npm-prefix");
			where = layout(host, sandbox, prefix);
			env = { ...sandbox.env, ...NPM_ENV, ADVISOR_TARBALL: tarball, npm_config_prefix: prefix };
			writeFileSync(join(sandbox.agentDir, "settings.json"), JSON.stringify({ npmCommand: [host.node, STAND_IN] }));
			const started = performance.now();
			install = await pi(["install", SOURCE]);
			installMs = performance.now() - started;
			listed = await pi(["list"]);
			packagesAfterInstall = installedPackages(where.root);
			console.log(
				`[package] ${host.label}: pi install ${SOURCE} in ${(installMs / 1000).toFixed(1)} s, ${(bytesUnder(where.root) / 1e6).toFixed(1)} MB installed`,
			);
			run = await pi(printArgs(sandbox, PROMPT));
		});

		afterAll(async () => {
			await server?.close();
			sandbox?.dispose();
		});

		it("installs the package and immer only: no copy of Pi (its packages are optional peers)", () => {
			expect(install.code, `${install.stdout}${install.stderr}`).toBe(0);
			expect(install.stdout).toContain(`Installed ${SOURCE}`);
			expect(packagesAfterInstall).toEqual(["immer", NAME]);
			expect(JSON.parse(readFileSync(join(sandbox.agentDir, "settings.json"), "utf8")).packages).toEqual([SOURCE]);
			expect(listed.stdout).toContain(`${SOURCE}\n    ${join(where.root, "node_modules", NAME)}\n`);
		});

		it("plain pi loads the extension from the installed package and consults, with nothing on stderr", () => {
			expect(run.stderr).toBe("");
			expect(run.code).toBe(0);
			expect(run.stdout.trim()).toBe(FINAL);
			const files = sandbox.sessionFiles();
			expect(files).toHaveLength(1);
			expectOneConsultation(server.requests, files[0]!);
		});

		it("advisor-ledger --version, and replay of the bundled sample and of the session just recorded", async () => {
			const noPi = join(sandbox.root, "empty-bin");
			mkdirSync(noPi, { recursive: true });
			expect(await cli(["--version"], noPi)).toEqual({ code: 0, stdout: `advisor-ledger ${version}\n`, stderr: "" });

			const sample = await cli(["replay"], noPi);
			expect(sample.stderr).toBe(
				`advisor-ledger replay: no Pi session folder at ${join(sandbox.agentDir, "sessions")}; replaying the bundled samples in ${join(where.root, "node_modules", NAME, "samples", "long")}\n`,
			);
			expect(sample.code).toBe(0);
			expect(sample.stdout).toContain("pi-mono-large-session.jsonl");

			const recorded = await cli(["replay", sandbox.sessions, "--json"], noPi);
			expect(recorded.stderr).toBe("");
			expect(recorded.code).toBe(0);
			const report = JSON.parse(recorded.stdout);
			expect(report.sessions).toHaveLength(1);
			expect(report.sessions[0].points.map((p: { kind: string }) => p.kind)).toEqual(["advisor"]);
		});

		it("advisor-ledger eval calls models through the pi-ai of the pi on PATH, and says in one line when there is none", async () => {
			const args = ["eval", sandbox.sessions, "--advisor", `mock/${ADVISOR_MODEL}`, "--points", "1", "--yes"];
			const out = ["--out", join(sandbox.root, "eval")];
			const before = server.requests.length;
			const none = await cli([...args, ...out], join(sandbox.root, "empty-bin"));
			expect(none).toEqual({ code: 1, stdout: "", stderr: `advisor-ledger eval: ${NO_PI_AI}\n` });
			expect(server.requests).toHaveLength(before);

			const bin = join(sandbox.root, "pi-bin");
			mkdirSync(bin, { recursive: true });
			symlinkSync(host.cli, join(bin, "pi"));
			const evaluated = await cli([...args, ...out], bin);
			console.log(evaluated.stderr, evaluated.stdout);
			expect(evaluated.code).toBe(0);
			// The ledger arm, the full arm and the judge, each one request to the advisor model.
			const kinds = server.requests.slice(before).map((r) => requestKind(r.body));
			expect(kinds.sort()).toEqual(["full", "judge", "ledger"]);
		});

		it("pi remove npm:pi-advisor-ledger leaves no package, no bin, no settings entry", async () => {
			const removed = await pi(["remove", SOURCE]);
			expect(removed.code).toBe(0);
			expect(installedPackages(where.root)).toEqual([]);
			expect(existsSync(where.bin)).toBe(false);
			expect(JSON.parse(readFileSync(join(sandbox.agentDir, "settings.json"), "utf8")).packages).toEqual([]);
			expect((await pi(["list"])).stdout).not.toContain(NAME);
		});

		it("until the package is on npm (README): npm install -g the tarball, pi install its folder; undone by pi remove and npm uninstall -g", async () => {
			// The user's npm, from PATH (runNode spawns any program), with npm's prefix in the sandbox.
			const npm = (args: string[]) => runNode("npm", args, { cwd: sandbox.project, env });
			const global = join(env.npm_config_prefix!, "lib", "node_modules");
			expect((await npm(["install", "-g", tarball, "--no-audit", "--no-fund"])).code).toBe(0);
			const folder = join(global, NAME);
			expect((await pi(["install", folder])).code).toBe(0);
			const before = server.requests.length;
			const again = await pi(printArgs(sandbox, PROMPT));
			expect(again.stderr).toBe("");
			expect(again.stdout.trim()).toBe(FINAL);
			const files = sandbox.sessionFiles();
			expect(files).toHaveLength(2);
			expectOneConsultation(server.requests.slice(before), files[1]!);

			expect((await pi(["remove", folder])).code).toBe(0);
			expect((await npm(["uninstall", "-g", NAME, "--no-audit", "--no-fund"])).code).toBe(0);
			expect(readdirSync(global).filter((name) => !name.startsWith("."))).toEqual([]);
			expect(readdirSync(join(env.npm_config_prefix!, "bin"))).toEqual([]);
			expect(JSON.parse(readFileSync(join(sandbox.agentDir, "settings.json"), "utf8")).packages).toEqual([]);
		});
	},
);
