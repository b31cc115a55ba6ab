/**
 * `npm run demo [-- --host 1.6]`: the extension at work with no key (docs/demo.md). Starts the
 * scripted model server (scripts/mock-openai.ts, scripted by scripts/demo/scripted-models.ts) on
 * 127.0.0.1, writes one temporary folder (scripts/demo/workspace.ts), and runs Pi's interactive TUI
 * in this terminal with the extension loaded from the checkout (`-e`) and a short task to work on.
 * When Pi exits — ctrl+c twice, ctrl+d, or a signal to this process, which Pi gets as SIGTERM — the
 * server stops and the folder is removed.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { demoHost } from "./demo/pi-host.ts";
import { promptCache } from "./demo/prompt-cache.ts";
import { EXECUTOR, PROVIDER, scriptedModels, TASK } from "./demo/scripted-models.ts";
import { createWorkspace } from "./demo/workspace.ts";
import { startMockOpenAI } from "./mock-openai.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const EXTENSION = join(ROOT, "src/adapter/extension/pi-advisor-ledger.ts");
/** How long Pi has to shut down after a signal is passed on, before it is killed. */
const SHUTDOWN_GRACE_MS = 10_000;

/** The one line printed before Pi takes the terminal. */
export function introLine(label: string, root: string): string {
	return `Demo: ${label} with pi-advisor-ledger, scripted models, no key (files in ${root}, removed on exit). Try /advisor (the picker) and /advisor stats.`;
}

async function main(): Promise<number> {
	const host = demoHost(ROOT, process.argv.slice(2), process.env);
	if ("error" in host) {
		process.stderr.write(`${host.error}\n`);
		return 1;
	}
	const server = await startMockOpenAI(scriptedModels, { usage: promptCache() });
	const workspace = createWorkspace(server.baseUrl);
	// Last resort (an exception below): the folder goes whatever happens.
	process.on("exit", () => workspace.remove());
	process.stdout.write(`${introLine(host.label, workspace.root)}\n`);
	const args = ["--model", `${PROVIDER}/${EXECUTOR.id}`, "-e", EXTENSION, "--no-context-files"];
	const pi = spawn(host.node, [host.cli, ...args, "--session-dir", workspace.sessions, TASK], {
		cwd: workspace.project,
		env: { ...process.env, ...workspace.env },
		stdio: "inherit",
	});
	for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => stop(pi));
	const code = await new Promise<number>((done) => {
		pi.on("error", (error) => {
			process.stderr.write(`could not start Pi: ${error.message}\n`);
			done(1);
		});
		pi.on("exit", (status, signal) => done(status ?? (signal === null ? 1 : 128 + signalNumber(signal))));
	});
	await server.close();
	workspace.remove();
	return code;
}

/**
 * A signal to the demo goes to Pi as SIGTERM, on which Pi shuts down and gives the terminal back.
 * (ctrl+c in Pi's TUI is a key Pi reads, not a signal: Pi decides, and the demo ends with it.)
 */
function stop(pi: ChildProcess): void {
	if (pi.exitCode !== null || pi.signalCode !== null) return;
	pi.kill("SIGTERM");
	setTimeout(() => pi.kill("SIGKILL"), SHUTDOWN_GRACE_MS).unref();
}

function signalNumber(signal: NodeJS.Signals): number {
	return { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }[signal as string] ?? 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	main().then((code) => process.exit(code));
}
