/**
 * Which Pi `npm run demo` starts: the checkout's own by default, Pi 1.6.0 with `-- --host 1.6` when
 * `npm run hosts` installed it (its hosts.json names both binaries), and otherwise one line saying
 * what to do — a `--host` npm kept for itself included.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { demoHost, HOST_USAGE } from "../../../scripts/demo/pi-host.ts";
import { testTempDir } from "../../support/temp.ts";

/** A checkout with Pi 0.73.1 in node_modules and, when `manifest` says so, the hosts npm run hosts writes. */
function checkout(manifest?: Record<string, unknown>): string {
	const root = testTempDir("demo-host-");
	const touch = (path: string) => {
		mkdirSync(join(root, path, ".."), { recursive: true });
		writeFileSync(join(root, path), "");
	};
	touch("node_modules/@mariozechner/pi-coding-agent/dist/cli.js");
	if (manifest !== undefined) {
		touch(".cache/hosts/node-22/bin/node");
		touch(".cache/hosts/pi-1.6.0/cli.js");
		mkdirSync(join(root, ".cache/hosts"), { recursive: true });
		writeFileSync(join(root, ".cache/hosts/hosts.json"), JSON.stringify({ hosts: { "pi-1.6.0": manifest } }));
	}
	return root;
}

const INSTALLED = {
	available: true,
	piVersion: "1.6.0",
	node: ".cache/hosts/node-22/bin/node",
	cli: ".cache/hosts/pi-1.6.0/cli.js",
};

describe("demoHost", () => {
	it("starts the checkout's Pi 0.73.1 under the Node running the demo, by default or by name", () => {
		const root = checkout();
		const own = {
			label: "Pi 0.73.1",
			node: process.execPath,
			cli: join(root, "node_modules/@mariozechner/pi-coding-agent/dist/cli.js"),
		};
		expect(demoHost(root, [])).toEqual(own);
		expect(demoHost(root, ["--host", "0.73"])).toEqual(own);
	});

	it("starts Pi 1.6.0 under the Node hosts.json names", () => {
		const root = checkout(INSTALLED);
		expect(demoHost(root, ["--host", "1.6"])).toEqual({
			label: "Pi 1.6.0",
			node: join(root, INSTALLED.node),
			cli: join(root, INSTALLED.cli),
		});
	});

	it("says to run `npm run hosts` when Pi 1.6.0 is not installed, or its install failed", () => {
		const missing = { error: "Pi 1.6.0 is not installed: run `npm run hosts` first" };
		expect(demoHost(checkout(), ["--host", "1.6"])).toEqual(missing);
		expect(demoHost(checkout({ available: false, reason: "no network" }), ["--host", "1.6"])).toEqual(missing);
	});

	it("answers anything else with the usage, and a --host npm kept with where to put it", () => {
		const root = checkout(INSTALLED);
		for (const args of [["1.6"], ["--host"], ["--host", "2"], ["--host", "1.6", "--fast"]])
			expect(demoHost(root, args)).toEqual({ error: HOST_USAGE });
		expect(demoHost(root, [], { npm_config_host: "true" })).toEqual({
			error: "npm took --host for itself; put it after --: npm run demo -- --host 1.6",
		});
	});
});
