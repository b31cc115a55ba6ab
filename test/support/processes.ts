/**
 * Whether a process a test started is still running: a tool's deadline is shown by the process it
 * killed being gone, not by a clock (no test asserts a duration).
 */

import { readFileSync } from "node:fs";

/** Whether process `pid` still runs (signal 0 only asks). */
export function running(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** The pid a fake program wrote to `file`, once it is gone or after five seconds (the fakes sleep ten). */
export async function settledPid(file: string): Promise<number> {
	const pid = Number(readFileSync(file, "utf8"));
	for (let i = 0; i < 50 && running(pid); i++) await new Promise((r) => setTimeout(r, 100));
	return pid;
}
