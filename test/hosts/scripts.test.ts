/**
 * The package's scripts for working on it (docs/architecture.md, "Testing"): `test:quick` is the
 * core's tests and the repository's own checks, after the same lint and typecheck as `npm test`; `pi16`
 * starts the second host as `npm run hosts` installed it, or says in one line that it is not.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { piHosts, REPO_ROOT } from "../support/hosts.ts";
import { testTempDir } from "../support/temp.ts";

const scripts = (
	JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;

/** What test:quick runs: the pure core's tests (unit and property) and the purity, README and docs checks. */
const QUICK = [
	"test/events",
	"test/reducers",
	"test/render",
	"test/policy",
	"test/purity.test.ts",
	"test/readme.test.ts",
	"test/docs.pointers.test.ts",
];

describe("test:quick", () => {
	it("lint and typecheck as npm test does, then vitest over the core's tests and the repository's checks", () => {
		expect(scripts["test:quick"]).toBe(`npm run lint && npm run typecheck && vitest run ${QUICK.join(" ")}`);
		expect(scripts.test!.startsWith("npm run lint && npm run typecheck && ")).toBe(true);
	});

	it("runs no host, no e2e test and no bench: vitest's own list of what it would run", () => {
		const listed = execFileSync(
			process.execPath,
			[join(REPO_ROOT, "node_modules/vitest/vitest.mjs"), "list", "--filesOnly", ...QUICK],
			{ cwd: REPO_ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
		)
			.split("\n")
			.filter((line) => line.endsWith(".test.ts"));
		expect(listed.length).toBeGreaterThan(50);
		expect(
			listed.filter((f) => f.includes("test/hosts/") || f.endsWith(".e2e.test.ts") || f.startsWith("bench/")),
		).toEqual([]);
		expect(listed).toContain("test/purity.test.ts");
	});
});

describe("pi16", () => {
	it("runs scripts/pi16.mjs", () => {
		expect(scripts.pi16).toBe("node scripts/pi16.mjs");
	});

	it("without the installed host: one line saying to run npm run hosts, exit 1", () => {
		// A copy of the script in a folder without .cache/hosts: the repository's own may hold the host.
		const root = testTempDir("pi16-");
		mkdirSync(join(root, "scripts"));
		cpSync(join(REPO_ROOT, "scripts/pi16.mjs"), join(root, "scripts/pi16.mjs"));
		const run = spawnSync(process.execPath, [join(root, "scripts/pi16.mjs"), "--version"], { encoding: "utf8" });
		expect(run.status).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toBe("pi16: Pi 1.6.0 is not installed here: run `npm run hosts` first\n");
	});

	it("with the host installed: Pi 1.6.0 under its Node 22", (ctx) => {
		// piHosts(): Pi 0.73.1, then the host `npm run hosts` installs.
		const slot = piHosts()[1]!;
		if (!slot.available) ctx.skip(slot.reason);
		const run = spawnSync("npm", ["run", "-s", "pi16", "--", "--version"], { cwd: REPO_ROOT, encoding: "utf8" });
		expect(run.status).toBe(0);
		expect(run.stdout.trim()).toBe("1.6.0");
	});
});
