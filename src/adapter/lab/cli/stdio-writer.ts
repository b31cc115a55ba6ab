/**
 * How the CLI writes to stdout and stderr, and what it does when the reader goes away
 * (docs/cli.md, "When the reader goes away"): `advisor-ledger render … | head -1`, or `less` quit
 * early. Each write is synchronous on a blocking descriptor, so a closed pipe is known at the write
 * that finds it (EPIPE), not later from a stream's 'error' event while the work goes on. On stdout
 * the run then ends at once, quietly, with exit 0, as git and ripgrep do; the CLI writes its files
 * whole before it prints anything, so no file is left half-written. A closed stderr only drops the
 * diagnostics: the results still go to stdout.
 *
 * Blocking writes also bound memory: Node queues what a non-blocking pipe cannot take yet, so a
 * long `render` into a slow reader would be held twice; here the command waits for its reader.
 */

import { writeSync } from "node:fs";

type Write = (text: string) => void;

/** The stream's handle, where Node exposes one (a pipe or a socket); a file or a TTY has none to change. */
interface Blockable {
	_handle?: { setBlocking?: (blocking: boolean) => number };
}

/** The write failed because nobody reads the other end any more. */
export function isReaderGone(error: unknown): boolean {
	return (error as { code?: unknown } | null)?.code === "EPIPE";
}

/**
 * Clears the O_NONBLOCK flag libuv sets on a pipe when Node opens stdout or stderr, so that
 * `writeSync` waits for the reader instead of failing with EAGAIN. Node does the same for a TTY.
 */
function makeBlocking(stream: NodeJS.WriteStream): void {
	(stream as unknown as Blockable)._handle?.setBlocking?.(true);
}

/**
 * Writes `text` to `fd` whole: a pipe may take part of it (its reader left in the middle), and the
 * next write then fails with EPIPE. When the reader is gone, `onReaderGone` decides; any other
 * error is thrown.
 */
export function fdWriter(fd: number, onReaderGone: () => void): Write {
	let gone = false;
	return (text) => {
		if (gone) return;
		const bytes = Buffer.from(text, "utf8");
		try {
			for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
		} catch (error) {
			if (!isReaderGone(error)) throw error;
			gone = true;
			onReaderGone();
		}
	};
}

/** stdout and stderr of this process, as the commands write them. */
export function processWriters(): { stdout: Write; stderr: Write } {
	makeBlocking(process.stdout);
	makeBlocking(process.stderr);
	return {
		// Nothing else is waiting to be written: the run ends here, whatever it was doing.
		stdout: fdWriter(1, () => process.exit(0)),
		stderr: fdWriter(2, () => {}),
	};
}
