/** The CLI as a function of argv and the process surface, so tests can run it in-process. */

import { EXIT, parseArgs, UsageError } from "./args.ts";
import type { Io } from "./io.ts";

/** Commands are loaded on demand: `--help` and usage errors answer without loading Pi. */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
	let args: ReturnType<typeof parseArgs>;
	try {
		args = parseArgs(argv);
	} catch (error) {
		if (error instanceof UsageError) {
			io.stderr(`advisor-ledger: ${error.message}\nRun \`advisor-ledger --help\` for usage.\n`);
			return EXIT.usage;
		}
		throw error;
	}
	switch (args.command) {
		case "help":
			io.stdout(args.text);
			return EXIT.ok;
		case "version":
			io.stdout(`advisor-ledger ${(await import("./inputs.ts")).packageVersion()}\n`);
			return EXIT.ok;
		case "replay":
			return (await import("./replay-command.ts")).runReplay(args, io);
		case "render":
			return (await import("./render-command.ts")).runRender(args, io);
		default: {
			const never: never = args;
			return never;
		}
	}
}
