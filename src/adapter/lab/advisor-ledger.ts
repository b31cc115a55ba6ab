#!/usr/bin/env node
/**
 * `advisor-ledger` entry point (package bin): run the command, leave the exit code to Node so
 * everything written to stdout is flushed first.
 */

import { visible } from "./cli/escape.ts";
import { boundHeapGrowth } from "./cli/heap.ts";
import { processIo } from "./cli/io.ts";
import { runCli } from "./run.ts";

boundHeapGrowth();
runCli(process.argv.slice(2), processIo()).then(
	(code) => {
		process.exitCode = code;
	},
	(error: unknown) => {
		process.stderr.write(
			`advisor-ledger: internal error: ${visible(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`,
		);
		process.exitCode = 70;
	},
);
