/**
 * Runs a program for an investigation tool: execFile, never a shell, with a deadline, the
 * call's abort signal and a cap on collected output. Every outcome is a value, so callers
 * turn each into a tool result instead of letting anything throw past them.
 */

import { execFile, spawn } from "node:child_process";
import { createInterface } from "node:readline";

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

export type StreamOutcome =
	/** The process ended; `stopped` when onLine asked to stop and the process was killed for it. */
	| { kind: "done"; code: number | null; stderr: string; stopped: boolean }
	| { kind: "timeout" }
	| { kind: "aborted" }
	| { kind: "spawn-error"; message: string };

/** stderr kept from a streamed process: enough for an error excerpt. */
const STREAM_STDERR_MAX_CHARS = 64 * 1024;

/**
 * Runs a program and hands its stdout to `onLine` one line at a time, as it arrives; `onLine`
 * returns false to stop the process (a result limit was reached). Same rules as runFile: no
 * shell, a deadline, the abort signal.
 */
export function streamLines(
	file: string,
	args: readonly string[],
	options: Omit<RunOptions, "maxBytes">,
	onLine: (line: string) => boolean,
): Promise<StreamOutcome> {
	return new Promise((resolve) => {
		if (options.signal?.aborted) {
			resolve({ kind: "aborted" });
			return;
		}
		const child = spawn(file, args, {
			cwd: options.cwd,
			env: options.env ?? process.env,
			stdio: ["ignore", "pipe", "pipe"],
			windowsHide: true,
			shell: false,
		});
		let stderr = "";
		let stopped = false;
		let timedOut = false;
		let aborted = false;
		const kill = () => {
			if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
		};
		const timer = setTimeout(() => {
			timedOut = true;
			kill();
		}, options.timeoutMs);
		const onAbort = () => {
			aborted = true;
			kill();
		};
		options.signal?.addEventListener("abort", onAbort, { once: true });
		const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
		lines.on("line", (line) => {
			if (stopped) return;
			if (!onLine(line)) {
				stopped = true;
				lines.close();
				kill();
			}
		});
		child.stderr.on("data", (chunk: Buffer) => {
			if (stderr.length < STREAM_STDERR_MAX_CHARS) stderr += chunk.toString("utf8");
		});
		let settled = false;
		const finish = (outcome: StreamOutcome) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			options.signal?.removeEventListener("abort", onAbort);
			resolve(outcome);
		};
		child.on("error", (e: NodeJS.ErrnoException) => finish({ kind: "spawn-error", message: e.message }));
		child.on("close", (code) => {
			if (aborted || options.signal?.aborted) finish({ kind: "aborted" });
			else if (timedOut) finish({ kind: "timeout" });
			else finish({ kind: "done", code, stderr, stopped });
		});
	});
}
