/**
 * What `replay` reads: files named on the command line, `*.jsonl` under named folders, or by
 * default Pi's session folder (falling back to the bundled samples, so a fresh clone has
 * something to replay).
 */

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { UnreadableInput } from "./report.ts";

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

/** The sample sessions shipped with the package: the default input when Pi's folder is absent. */
export const BUNDLED_SAMPLES = join(packageRoot(), "samples");

/** Pi's session folder: `$PI_CODING_AGENT_DIR/sessions`, else `~/.pi/agent/sessions`. */
export function piSessionsDir(env: NodeJS.ProcessEnv = process.env): string {
	const agentDir = env.PI_CODING_AGENT_DIR;
	if (agentDir !== undefined && agentDir !== "") return join(resolve(agentDir), "sessions");
	return join(homedir(), ".pi", "agent", "sessions");
}

export function defaultInputs(env: NodeJS.ProcessEnv = process.env): { paths: string[]; source: "pi" | "samples" } {
	const pi = piSessionsDir(env);
	if (existsSync(pi)) return { paths: [pi], source: "pi" };
	return { paths: [BUNDLED_SAMPLES], source: "samples" };
}

function errorText(error: unknown): string {
	if (error instanceof Error) {
		const code = (error as NodeJS.ErrnoException).code;
		return code === undefined ? error.message : `${code}: ${error.message}`;
	}
	return String(error);
}

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
			unreadable.push({ path: dir, error: errorText(error) });
			return;
		}
		names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
		for (const entry of names) {
			const full = join(dir, entry.name);
			// Symlinked folders are not followed: no loops, no walking out of the tree.
			if (entry.isDirectory()) walk(full);
			else if ((entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(".jsonl")) add(full);
		}
	};
	for (const raw of paths) {
		const path = resolve(raw);
		try {
			const stat = statSync(path);
			if (stat.isDirectory()) walk(path);
			else add(path);
		} catch (error) {
			unreadable.push({ path: raw, error: errorText(error) });
		}
	}
	return { files, unreadable };
}

export type ReadResult = { ok: true; text: string } | { ok: false; error: string };

export function readInput(file: string): ReadResult {
	try {
		return { ok: true, text: readFileSync(file, "utf8") };
	} catch (error) {
		return { ok: false, error: errorText(error) };
	}
}

/** How a file is named in reports: relative to the working folder when inside it. */
export function displayPath(file: string, cwd: string = process.cwd()): string {
	const rel = relative(cwd, file);
	return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}
