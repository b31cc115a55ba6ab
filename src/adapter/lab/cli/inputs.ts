/**
 * What `replay` reads: files named on the command line, `*.jsonl` under named folders, or by
 * default Pi's session folder (falling back to the bundled samples, so a fresh clone has
 * something to replay).
 */

import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { assertNever, type ParsedSession, sessionLineParser } from "../../../events/index.ts";
import { errnoReason, readRegularFile, readRegularLines } from "../../extension/pi/regular-file.ts";

/** An input path that could not be read, and why. */
export interface UnreadableInput {
	path: string;
	error: string;
}

const PACKAGE_NAME = "pi-advisor-ledger";

/**
 * The package root: the nearest folder above this module whose package.json is ours (src/…,
 * dist/… or any other build folder), else three levels up, where src/ and dist/ put it.
 */
export function packageRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
	for (let dir = from; ; dir = dirname(dir)) {
		try {
			const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown };
			if (pkg.name === PACKAGE_NAME) return dir;
		} catch {
			// no package.json here, or not JSON: keep walking
		}
		if (dirname(dir) === dir) return resolve(from, "../../..");
	}
}

/** The version in our package.json ("unknown" if it cannot be read: --version must still answer). */
export function packageVersion(root: string = packageRoot()): string {
	try {
		const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown };
		return typeof pkg.version === "string" ? pkg.version : "unknown";
	} catch {
		return "unknown";
	}
}

/** The sample sessions shipped with the package: the default input when Pi's folder is absent. */
export const BUNDLED_SAMPLES = join(packageRoot(), "samples");

/** The real path, or the path as given when it cannot be resolved. */
function realOrGiven(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/** A file under the bundled samples (also by a link): the report says its damage is expected (samples/README.md). */
export function isBundledSample(file: string, samples: string = BUNDLED_SAMPLES): boolean {
	const inside = relative(realOrGiven(samples), realOrGiven(file));
	return inside !== "" && !inside.startsWith("..") && !isAbsolute(inside);
}

/** Pi's session folder: `$PI_CODING_AGENT_DIR/sessions`, else `~/.pi/agent/sessions`. */
export function piSessionsDir(env: NodeJS.ProcessEnv = process.env): string {
	const agentDir = env.PI_CODING_AGENT_DIR;
	if (agentDir !== undefined && agentDir !== "") return join(resolve(agentDir), "sessions");
	return join(homedir(), ".pi", "agent", "sessions");
}

/**
 * A session file larger than this is refused rather than read: far above any real session (a
 * 10,000-entry one is about 22 MB) and well below the longest string Node can hold.
 */
export const MAX_SESSION_BYTES = 256 * 1024 * 1024;

export interface CollectedInputs {
	/** Absolute paths, in the order found (folders sorted by name), without duplicates. */
	files: string[];
	unreadable: UnreadableInput[];
}

export function collectInputs(paths: readonly string[]): CollectedInputs {
	const files: string[] = [];
	const seen = new Set<string>();
	const unreadable: UnreadableInput[] = [];
	const add = (file: string) => {
		if (!seen.has(file)) {
			seen.add(file);
			files.push(file);
		}
	};
	const walk = (dir: string) => {
		let names: import("node:fs").Dirent[];
		try {
			names = readdirSync(dir, { withFileTypes: true });
		} catch (error) {
			unreadable.push({ path: dir, error: errnoReason(error) });
			return;
		}
		names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
		for (const entry of names) {
			const full = join(dir, entry.name);
			// Symlinked folders are not followed: no loops, no walking out of the tree. A *.jsonl that is
			// not a regular file (a FIFO, a link to a device) is listed, so reading it reports why it is refused.
			if (entry.isDirectory()) walk(full);
			else if (entry.name.endsWith(".jsonl")) add(full);
		}
	};
	for (const raw of paths) {
		const path = resolve(raw);
		try {
			const stat = statSync(path);
			if (stat.isDirectory()) walk(path);
			else add(path);
		} catch (error) {
			unreadable.push({ path: raw, error: errnoReason(error) });
		}
	}
	return { files, unreadable };
}

export type ReadResult = { ok: true; text: string } | { ok: false; error: string };

/** Why a file could not be read, in the words every command prints. */
function unreadable(read: { kind: "missing" } | { kind: "refused"; reason: string }): { ok: false; error: string } {
	return { ok: false, error: read.kind === "missing" ? "no such file or directory" : read.reason };
}

/** Only a regular file, at most `maxBytes`: a FIFO, a device or a huge file is an error at once, never a hang. */
export function readInput(file: string, maxBytes: number = MAX_SESSION_BYTES): ReadResult {
	const read = readRegularFile(file, maxBytes);
	switch (read.kind) {
		case "ok":
			return { ok: true, text: read.text };
		case "missing":
		case "refused":
			return unreadable(read);
		default:
			return assertNever(read, "file read");
	}
}

/**
 * A session file read and parsed as it is read, line by line: the text is never held whole —
 * `replay` and `render` hold the parsed entries, not the file as well (docs/decisions.md, "A
 * replay's memory follows the branch"). The same checks as `readInput`.
 */
export function readParsedInput(
	file: string,
	maxBytes: number = MAX_SESSION_BYTES,
): { ok: true; parsed: ParsedSession } | { ok: false; error: string } {
	const parser = sessionLineParser();
	const read = readRegularLines(file, maxBytes, parser.line);
	switch (read.kind) {
		case "ok":
			return { ok: true, parsed: parser.end(read.endsWithNewline) };
		case "missing":
		case "refused":
			return unreadable(read);
		default:
			return assertNever(read, "file read");
	}
}

/** How a file is named in reports: relative to the working folder when inside it. */
export function displayPath(file: string, cwd: string = process.cwd()): string {
	const rel = relative(cwd, file);
	return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}
