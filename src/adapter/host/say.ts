/**
 * Telling the user something. With a UI it is Pi's notification. Without one (`pi -p`, JSON mode,
 * an SDK session bound without a UI context) Pi's `ctx.ui.notify` does nothing, so warnings and
 * errors go to stderr instead, one line each, where a print run reports what went wrong.
 * Information stays out of a headless run's output: stdout is the answer, stderr is for problems.
 */

import type { ExtensionContext } from "@mariozechner/pi-coding-agent";

export type NoticeLevel = "info" | "warning" | "error";

/** Writes one line (the newline is the writer's to add). */
export type LineWriter = (line: string) => void;

export const writeStderrLine: LineWriter = (line) => {
	process.stderr.write(`${line}\n`);
};

// C0 controls but tab, DEL and C1: a terminal would act on them (the message may quote a path or
// a provider's error text).
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

/** The message on one terminal line, control characters written as `\u00XX`. */
export function terminalLine(message: string): string {
	return message.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

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
