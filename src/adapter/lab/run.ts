/** The CLI as a function of argv and the process surface, so tests can run it in-process. */

import { assertNever } from "../../events/index.ts";
import { EXIT, errorPrefix, parseArgs, UsageError } from "./cli/args.ts";
import type { Io } from "./cli/io.ts";
import { npmKeptFlagsLine } from "./cli/npm-flags.ts";

/** Signals that must end a command-line run at once, whatever it is doing. */
const ENDING_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

/**
 * Loads a command's module without the signal handlers its imports install. Pi's lock-file
 * dependency (signal-exit) adds JavaScript handlers for SIGTERM, SIGINT and SIGHUP when it is
 * imported; a JavaScript handler only runs when the event loop is free, which a long synchronous
 * replay never lets happen, so the signal was held until the end (or forever). The CLI takes no
 * lock, so those handlers go and the default disposition ends the process like any CLI.
 */
async function loadCommand<T>(load: () => Promise<T>): Promise<T> {
	const before = new Map(ENDING_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
	const loaded = await load();
	for (const signal of ENDING_SIGNALS) {
		for (const listener of process.listeners(signal)) {
			if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
		}
	}
	return loaded;
}

/** Commands are loaded on demand: `--help` and usage errors answer without loading Pi. */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
	// Before parsing: what npm kept can leave a value behind as a path (`--every 3`).
	const npmKept = npmKeptFlagsLine(argv, io.env);
	if (npmKept !== undefined) {
		io.stderr(`${errorPrefix(argv[0])}${npmKept}\n`);
		return EXIT.usage;
	}
	let args: ReturnType<typeof parseArgs>;
	try {
		args = parseArgs(argv);
	} catch (error) {
		if (error instanceof UsageError) {
			const help = error.command === undefined ? "advisor-ledger --help" : `advisor-ledger ${error.command} --help`;
			io.stderr(`${errorPrefix(error.command)}${error.message}\nRun \`${help}\` for usage.\n`);
			return EXIT.usage;
		}
		throw error;
	}
	switch (args.command) {
		case "help":
			io.stdout(args.text);
			return EXIT.ok;
		case "version":
			io.stdout(`advisor-ledger ${(await import("./cli/inputs.ts")).packageVersion()}\n`);
			return EXIT.ok;
		case "replay":
			return (await loadCommand(() => import("./replay-command.ts"))).runReplay(args, io);
		case "render":
			return (await loadCommand(() => import("./render-command.ts"))).runRender(args, io);
		case "stats":
			return (await loadCommand(() => import("./stats-command.ts"))).runStats(args, io);
		case "eval":
			return (await loadCommand(() => import("./eval-command.ts"))).runEval(args, io);
		default:
			return assertNever(args, "command");
	}
}
