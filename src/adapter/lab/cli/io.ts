/** What the commands may touch of the process: injected, so the commands can run in-process in tests. */

import { processWriters } from "./stdio-writer.ts";
import { type Style, styleFor } from "./style.ts";

export interface Io {
	stdout(text: string): void;
	stderr(text: string): void;
	env: NodeJS.ProcessEnv;
	cwd: string;
	/** stderr is a terminal: progress lines are shown. */
	stderrIsTTY: boolean;
	/** Colours for stdout (none unless stdout is a terminal and NO_COLOR is unset). */
	style: Style;
	/** Milliseconds, for fold/render timing. */
	now(): number;
}

export function processIo(): Io {
	const { stdout, stderr } = processWriters();
	return {
		stdout,
		stderr,
		env: process.env,
		cwd: process.cwd(),
		stderrIsTTY: process.stderr.isTTY === true,
		style: styleFor(process.stdout.isTTY, process.env),
		now: () => performance.now(),
	};
}
