/**
 * Where `eval` finds the pi-ai it calls models through (src/adapter/lab/cli/host-pi-ai.ts): beside the
 * program, else under the `pi` on PATH — on the real Pi 0.73.1 of node_modules and the Pi 1.6.0 host
 * when it is installed, and on made-up folders for what a real install cannot show.
 */

import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { completeSimple } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import {
	exportedFile,
	findHostPiAi,
	NO_PI_AI,
	packageDir,
	piAiOfCli,
	piOnPath,
} from "../../../../src/adapter/lab/cli/host-pi-ai.ts";
import { describeEachHost, REPO_ROOT } from "../../../support/hosts.ts";
import { testTempDir } from "../../../support/temp.ts";

const OWN_PI_AI = join(REPO_ROOT, "node_modules/@mariozechner/pi-ai");
const OWN_PI_CLI = join(REPO_ROOT, "node_modules/@mariozechner/pi-coding-agent/dist/cli.js");

function writePackage(dir: string, manifest: Record<string, unknown>, files: Record<string, string> = {}): string {
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "package.json"), JSON.stringify(manifest));
	for (const [name, text] of Object.entries(files)) {
		mkdirSync(join(dir, name, ".."), { recursive: true });
		writeFileSync(join(dir, name), text);
	}
	return dir;
}

/** A folder holding only a `pi` link to `target`: a PATH entry. */
function binWithPi(target: string): string {
	const bin = join(testTempDir("advisor-pi-bin-"), "bin");
	mkdirSync(bin);
	symlinkSync(target, join(bin, "pi"));
	return bin;
}

describe("finding a package and its entry points", () => {
	it("finds a package in node_modules up the tree, and nothing above the root", () => {
		const root = testTempDir("advisor-pkgdir-");
		const pkg = writePackage(join(root, "node_modules/@scope/thing"), { name: "@scope/thing" });
		mkdirSync(join(root, "a/b/c"), { recursive: true });
		expect(packageDir(join(root, "a/b/c"), "@scope/thing")).toBe(pkg);
		expect(packageDir(join(root, "a"), "@scope/other")).toBeUndefined();
		expect(packageDir(REPO_ROOT, "@mariozechner/pi-ai")).toBe(OWN_PI_AI);
	});

	it("reads an export as a string, by its import or default condition, or the main file without exports", () => {
		const root = testTempDir("advisor-exports-");
		const conditions = writePackage(join(root, "c"), {
			exports: { ".": { types: "./x.d.ts", import: "./x.js" }, "./compat": { default: "./compat.js" } },
		});
		expect(exportedFile(conditions, ".")).toBe(join(conditions, "x.js"));
		expect(exportedFile(conditions, "./compat")).toBe(join(conditions, "compat.js"));
		const plain = writePackage(join(root, "p"), { exports: { ".": "./main.js" } });
		expect(exportedFile(plain, ".")).toBe(join(plain, "main.js"));
		expect(exportedFile(plain, "./compat")).toBeUndefined();
		const old = writePackage(join(root, "o"), { main: "lib/index.js" });
		expect(exportedFile(old, ".")).toBe(join(old, "lib/index.js"));
		// pi-ai 0.73.1: the root only; /compat came with 0.80.1.
		expect(exportedFile(OWN_PI_AI, ".")).toBe(join(OWN_PI_AI, "dist/index.js"));
		expect(exportedFile(OWN_PI_AI, "./compat")).toBeUndefined();
	});

	it("takes the first pi on PATH that is a file, through its links", () => {
		const root = testTempDir("advisor-path-");
		mkdirSync(join(root, "empty"));
		mkdirSync(join(root, "dir/pi"), { recursive: true });
		const bin = binWithPi(OWN_PI_CLI);
		expect(piOnPath({ PATH: [join(root, "empty"), join(root, "dir"), "", bin].join(delimiter) })).toBe(OWN_PI_CLI);
		expect(piOnPath({ PATH: join(root, "empty") })).toBeUndefined();
		expect(piOnPath({})).toBeUndefined();
	});

	it("finds the pi-ai of Pi's CLI script, and none for another package's script", () => {
		expect(piAiOfCli(OWN_PI_CLI)).toBe(OWN_PI_AI);
		const other = writePackage(testTempDir("advisor-other-"), { name: "not-pi" }, { "bin/pi.js": "" });
		expect(piAiOfCli(join(other, "bin/pi.js"))).toBeUndefined();
	});
});

describe("findHostPiAi", () => {
	it("beside the program (a checkout): the pi-ai of node_modules", async () => {
		const found = await findHostPiAi({ PATH: "" }, join(REPO_ROOT, "dist"));
		expect(found.ok && found.complete).toBe(completeSimple);
	});

	it("nothing beside the program and no pi on PATH: one line saying what to install", async () => {
		const found = await findHostPiAi({ PATH: "" }, testTempDir("advisor-alone-"));
		expect(found).toEqual({ ok: false, error: NO_PI_AI });
		// A `pi` that is not Pi's coding agent does not count.
		const other = writePackage(testTempDir("advisor-other-"), { name: "not-pi" }, { "pi.js": "" });
		expect(await findHostPiAi({ PATH: binWithPi(join(other, "pi.js")) }, testTempDir("advisor-alone-"))).toEqual({
			ok: false,
			error: NO_PI_AI,
		});
	});

	it("a pi-ai that fails to load is one line with its reason, not a stack", async () => {
		const root = testTempDir("advisor-broken-");
		writePackage(
			join(root, "node_modules/@mariozechner/pi-ai"),
			{ name: "@mariozechner/pi-ai", type: "module", exports: { ".": { import: "./index.js" } } },
			{ "index.js": 'throw new Error("pi-ai is broken\\nsecond line");\n' },
		);
		expect(await findHostPiAi({ PATH: "" }, root)).toEqual({
			ok: false,
			error: "cannot load pi-ai: pi-ai is broken",
		});
	});
});

describeEachHost("findHostPiAi, nothing beside the program: the pi-ai of the pi on PATH", (host) => {
	it("loads its completeSimple", async () => {
		const found = await findHostPiAi({ PATH: binWithPi(host.cli) }, testTempDir("advisor-alone-"));
		expect(found.ok).toBe(true);
		expect(found.ok && found.complete.name).toBe("completeSimple");
	});
});
