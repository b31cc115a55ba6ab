/**
 * The real Pi TUI in a detached tmux session, for tests of what the user sees: a private tmux
 * server (its own socket, killed at the end, never the user's), keys sent as typed, and the
 * visible screen read back as plain text. Waits poll the screen; nothing is timed.
 */

import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";

export interface TmuxSession {
	/** Types literal text (no key names interpreted). */
	type(text: string): void;
	/** Sends tmux key names: "Enter", "Escape", "BSpace", "C-c", … */
	keys(...names: string[]): void;
	/** The visible screen, one string per row, trailing blanks trimmed. */
	screen(): string[];
	/** Polls the screen until `check` holds; the last screen is in the error when it never does. */
	until(check: (screen: string[]) => boolean, what: string, timeoutMs?: number): Promise<string[]>;
	kill(): void;
}

function quote(arg: string): string {
	return `'${arg.replaceAll("'", `'\\''`)}'`;
}

export function startTmux(options: {
	command: string[];
	env: Readonly<Record<string, string | undefined>>;
	cwd: string;
	width?: number;
	height?: number;
}): TmuxSession {
	const socket = `advisor-test-${randomBytes(6).toString("hex")}`;
	const tmux = (...args: string[]) =>
		execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
	// `env -i` so the pane sees exactly the test's environment, not the tmux server's.
	const vars = Object.entries({ TERM: "xterm-256color", ...options.env })
		.filter((entry): entry is [string, string] => entry[1] !== undefined)
		.map(([k, v]) => `${k}=${v}`);
	const shell = ["env", "-i", ...vars, ...options.command].map(quote).join(" ");
	tmux(
		"new-session",
		"-d",
		"-s",
		"main",
		"-x",
		String(options.width ?? 160),
		"-y",
		String(options.height ?? 50),
		"-c",
		options.cwd,
		shell,
	);
	const screen = () =>
		tmux("capture-pane", "-p", "-t", "main")
			.split("\n")
			.map((row) => row.trimEnd());
	let last: string[] = [];
	return {
		type: (text) => {
			tmux("send-keys", "-t", "main", "-l", text);
		},
		keys: (...names) => {
			tmux("send-keys", "-t", "main", ...names);
		},
		screen,
		async until(check, what, timeoutMs = 30_000) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				last = screen();
				if (check(last)) return last;
				if (Date.now() > deadline)
					throw new Error(`timed out waiting for ${what}\n--- screen ---\n${last.join("\n")}`);
				await new Promise((resolve) => setTimeout(resolve, 100));
			}
		},
		kill: () => {
			try {
				tmux("kill-server");
			} catch {
				// Already gone (the program exited and took its session with it).
			}
		},
	};
}
