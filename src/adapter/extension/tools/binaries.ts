/**
 * Where ripgrep and fd live, found WITHOUT Pi's `ensureTool`: on a miss that one downloads
 * the binary from GitHub, which an advisor tool call must never trigger. The lookup mirrors
 * Pi's `getToolPath` (Pi's own bin folder first, then PATH, `fdfind` as Debian's name for fd),
 * so when we find rg, Pi's grep finds the same one and never reaches its download branch.
 */

import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { getAgentDir } from "@mariozechner/pi-coding-agent";

export type SearchBinary = "rg" | "fd";

const SYSTEM_NAMES: Record<SearchBinary, readonly string[]> = {
	rg: ["rg"],
	fd: ["fd", "fdfind"],
};

/** Absolute path of the binary, or undefined when this machine does not have it. */
export function findBinary(kind: SearchBinary): string | undefined {
	const exe = process.platform === "win32" ? ".exe" : "";
	const local = join(getAgentDir(), "bin", kind + exe);
	if (isExecutableFile(local)) return local;
	for (const dir of (process.env.PATH ?? "").split(delimiter)) {
		if (dir === "") continue;
		for (const name of SYSTEM_NAMES[kind]) {
			const candidate = join(dir, name + exe);
			if (isExecutableFile(candidate)) return candidate;
		}
	}
	return undefined;
}

function isExecutableFile(path: string): boolean {
	try {
		if (!statSync(path).isFile()) return false;
		accessSync(path, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}
