/**
 * The CLI never writes over what it reads (docs/cli.md): an output path named on the command line
 * is refused when it is one of the inputs, ends in `.jsonl` (a session file by its name, most
 * likely an input given where the output was expected: `replay --svg samples/tools.jsonl`), or is
 * an existing file that is not an SVG. `--force` overrides the last two, never the first: an input is
 * never written over. An empty file holds nothing to lose and a path that does not exist yet is what
 * an output usually is: both are written.
 */

import { closeSync, constants, fstatSync, openSync, readSync, statSync } from "node:fs";
import { resolve } from "node:path";

/** Enough to see past a byte-order mark and leading blank lines to the first tag. */
const HEAD_BYTES = 512;

export type OutputRefusal = "input" | "session-name" | "not-svg";

/** One line naming the flag, the path and why; the command prefixes its name. */
export function refusalLine(flag: string, shown: string, why: OutputRefusal): string {
	const reason =
		why === "input"
			? "is one of the inputs"
			: why === "session-name"
				? "ends in .jsonl, like a session file"
				: "is an existing file that is not an SVG";
	const override = forceOverrides(why) ? " (--force writes anyway)" : " (whatever --force says)";
	return `${flag} ${shown}: ${reason} — refusing to write over it${override}`;
}

/** `--force` may write over a `.jsonl` name or a file that is not an SVG; never over an input. */
export function forceOverrides(why: OutputRefusal): boolean {
	return why !== "input";
}

function identity(path: string): string | undefined {
	try {
		const stats = statSync(path);
		return `${stats.dev}:${stats.ino}`;
	} catch {
		return undefined;
	}
}

/**
 * Why `output` must not be written, or undefined when it may. `inputs` are the files the command
 * reads (absolute, or relative to `cwd`); a link or a second name of one of them counts as it.
 */
export function svgOutputRefusal(output: string, inputs: readonly string[], cwd: string): OutputRefusal | undefined {
	const target = resolve(cwd, output);
	const id = identity(target);
	for (const input of inputs) {
		const path = resolve(cwd, input);
		if (path === target || (id !== undefined && identity(path) === id)) return "input";
	}
	if (/\.jsonl$/i.test(target)) return "session-name";
	if (id === undefined) return undefined;
	return looksLikeSvg(target) ? undefined : "not-svg";
}

/** An existing path holds an SVG (or nothing): a regular file, empty or starting with `<svg` / `<?xml`. */
function looksLikeSvg(path: string): boolean {
	let fd: number | undefined;
	try {
		// Non-blocking: a FIFO without a writer must not hang the command; it is refused below.
		fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
		if (!fstatSync(fd).isFile()) return false;
		const buffer = Buffer.alloc(HEAD_BYTES);
		const read = readSync(fd, buffer, 0, HEAD_BYTES, 0);
		if (read === 0) return true;
		const head = buffer
			.subarray(0, read)
			.toString("utf8")
			.replace(/^\uFEFF/, "")
			.trimStart();
		return head.startsWith("<svg") || head.startsWith("<?xml");
	} catch {
		return false;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}
