/**
 * Runs a program for an investigation tool: execFile, never a shell, with a deadline, the
 * call's abort signal and a cap on collected output. Every outcome is a value, so callers
 * turn each into a tool result instead of letting anything throw past them.
 */

import { execFile } from "node:child_process";

export type RunOutcome =
	/** Exited 0. `cut` when stdout hit `maxBytes` and the process was stopped early. */
	| { kind: "ok"; stdout: string; stderr: string; cut: boolean }
	| { kind: "exit"; code: number | string; stdout: string; stderr: string }
	| { kind: "timeout" }
	| { kind: "aborted" }
	| { kind: "spawn-error"; message: string };

export interface RunOptions {
	cwd: string;
	timeoutMs: number;
	maxBytes: number;
	signal?: AbortSignal;
	env?: NodeJS.ProcessEnv;
}

export function runFile(file: string, args: readonly string[], options: RunOptions): Promise<RunOutcome> {
	return new Promise((resolve) => {
		if (options.signal?.aborted) {
			resolve({ kind: "aborted" });
			return;
		}
		execFile(
			file,
			args,
			{
				cwd: options.cwd,
				timeout: options.timeoutMs,
				killSignal: "SIGKILL",
				maxBuffer: options.maxBytes,
				encoding: "buffer",
				windowsHide: true,
				shell: false,
				env: options.env ?? process.env,
				...(options.signal ? { signal: options.signal } : {}),
			},
			(error, stdoutBuf, stderrBuf) => {
				// Lossy UTF-8: a non-UTF-8 file name becomes U+FFFD, it never throws.
				const stdout = Buffer.from(stdoutBuf).toString("utf8");
				const stderr = Buffer.from(stderrBuf).toString("utf8");
				if (!error) {
					resolve({ kind: "ok", stdout, stderr, cut: false });
					return;
				}
				const e = error as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null };
				if (e.name === "AbortError" || options.signal?.aborted) resolve({ kind: "aborted" });
				else if (e.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") resolve({ kind: "ok", stdout, stderr, cut: true });
				else if (e.killed && e.signal === "SIGKILL") resolve({ kind: "timeout" });
				else if (typeof e.code === "number") resolve({ kind: "exit", code: e.code, stdout, stderr });
				else if (e.code === "ENOENT" || e.code === "EACCES") resolve({ kind: "spawn-error", message: e.message });
				else resolve({ kind: "exit", code: e.code ?? e.signal ?? "unknown", stdout, stderr });
			},
		);
	});
}
