#!/usr/bin/env node
/**
 * Starts the second Pi host, Pi 1.6.0, that `npm run hosts` installs into `.cache/hosts/`: its CLI
 * under the Node 22 installed beside it (Pi 1.x needs Node ≥ 22.19, so `.cache/hosts/…/.bin/pi`
 * under the system's Node crashes). Every argument goes to Pi: `npm run pi16 -- -e
 * src/adapter/extension/pi-advisor-ledger.ts`. Exits with Pi's exit code; one line when the host is
 * not installed.
 */

import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MANIFEST = join(REPO_ROOT, ".cache", "hosts", "hosts.json");

function host() {
	if (!existsSync(MANIFEST)) return undefined;
	try {
		const entry = JSON.parse(readFileSync(MANIFEST, "utf8")).hosts?.["pi-1.6.0"];
		if (entry?.available !== true) return undefined;
		const node = resolve(REPO_ROOT, entry.node);
		const cli = resolve(REPO_ROOT, entry.cli);
		return existsSync(node) && existsSync(cli) ? { node, cli } : undefined;
	} catch {
		return undefined;
	}
}

const found = host();
if (found === undefined) {
	process.stderr.write("pi16: Pi 1.6.0 is not installed here: run `npm run hosts` first\n");
	process.exit(1);
}
const child = spawn(found.node, [found.cli, ...process.argv.slice(2)], { stdio: "inherit" });
// The terminal's signals reach Pi itself (same process group); this process only waits for it.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => {});
child.on("exit", (code, signal) => {
	process.exit(signal !== null ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1));
});
