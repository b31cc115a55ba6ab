/**
 * Which Pi the demo starts (docs/demo.md): Pi 0.73.1, the checkout's devDependency, under the Node
 * running the demo; or, with `--host 1.6`, Pi 1.6.0 under Node 22 as `npm run hosts` installed them
 * into .cache/hosts/ (scripts/install-hosts.mjs writes hosts.json, which names both binaries).
 */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface DemoHost {
	label: string;
	node: string;
	cli: string;
}

export const HOST_USAGE = "usage: npm run demo [-- --host 0.73|1.6]";

/**
 * The Pi to start, or why it cannot be (one line for the user). `env` is the demo's environment: npm
 * keeps a `--host` given before `--` for itself, as `npm_config_host`.
 */
export function demoHost(
	root: string,
	args: readonly string[],
	env: Readonly<Record<string, string | undefined>> = {},
): DemoHost | { error: string } {
	if (env.npm_config_host !== undefined)
		return { error: "npm took --host for itself; put it after --: npm run demo -- --host 1.6" };
	const at = args.indexOf("--host");
	const wanted = at === -1 ? "0.73" : args[at + 1];
	const rest = at === -1 ? args : [...args.slice(0, at), ...args.slice(at + 2)];
	if (rest.length > 0 || (wanted !== "0.73" && wanted !== "1.6")) return { error: HOST_USAGE };
	if (wanted === "0.73") {
		const cli = join(root, "node_modules/@mariozechner/pi-coding-agent/dist/cli.js");
		if (!existsSync(cli)) return { error: `${cli} is missing: run npm install first` };
		return { label: "Pi 0.73.1", node: process.execPath, cli };
	}
	const missing = { error: "Pi 1.6.0 is not installed: run `npm run hosts` first" };
	const manifest = join(root, ".cache/hosts/hosts.json");
	if (!existsSync(manifest)) return missing;
	const entry = JSON.parse(readFileSync(manifest, "utf8")).hosts?.["pi-1.6.0"];
	if (entry?.available !== true || typeof entry.node !== "string" || typeof entry.cli !== "string") return missing;
	const node = join(root, entry.node);
	const cli = join(root, entry.cli);
	return existsSync(node) && existsSync(cli) ? { label: `Pi ${entry.piVersion}`, node, cli } : missing;
}
