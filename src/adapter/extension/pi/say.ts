/**
 * Telling the user something. With a UI it is Pi's notification. Without one (`pi -p`, JSON mode,
 * an SDK session bound without a UI context) Pi's `ctx.ui.notify` does nothing, so warnings and
 * errors go to stderr instead, one line each, where a print run reports what went wrong.
 * Information stays out of a headless run's output: stdout is the answer, stderr is for problems.
 */

import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { escapeControlChars } from "./control-chars.ts";

export type NoticeLevel = "info" | "warning" | "error";

/** Writes one line (the newline is the writer's to add). */
export type LineWriter = (line: string) => void;

export const writeStderrLine: LineWriter = (line) => {
	process.stderr.write(`${line}\n`);
};

/** The message on one terminal line, control characters escaped (a path or a provider's error text may hold them). */
export const terminalLine = escapeControlChars;

export function say(
	ctx: Pick<ExtensionContext, "hasUI" | "ui">,
	message: string,
	level: NoticeLevel,
	stderr: LineWriter = writeStderrLine,
): void {
	if (ctx.hasUI) {
		ctx.ui.notify(message, level);
		return;
	}
	if (level !== "info") stderr(terminalLine(message));
}
