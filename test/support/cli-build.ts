/**
 * Shared by the CLI tests: build the CLI the way `npm run build` does — the one bundled file the
 * package ships as its bin (scripts/build-cli.mjs) — into a private folder under .tmp/, so a
 * concurrent run never reads half-written files; spawn it, and make damaged copies of the sample
 * sessions.
 */

import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const samplesDir = path.join(repoRoot, "samples");
export const sharedSessionsDir = path.resolve(repoRoot, "../shared/sessions");

export interface Built {
	main: string;
	dispose(): void;
}

/** scripts/build-cli.mjs into advisor-ledger.js in a fresh .tmp/cli-build-… folder: the file the package's bin is. */
export function buildCli(): Built {
	mkdirSync(path.join(repoRoot, ".tmp"), { recursive: true });
	const outDir = mkdtempSync(path.join(repoRoot, ".tmp", "cli-build-"));
	const main = path.join(outDir, "advisor-ledger.js");
	execFileSync(process.execPath, [path.join(repoRoot, "scripts/build-cli.mjs"), "--out", main], {
		cwd: repoRoot,
		stdio: "pipe",
	});
	return { main, dispose: () => rmSync(outDir, { recursive: true, force: true }) };
}

export interface RunResult {
	code: number;
	stdout: string;
	stderr: string;
}

/** Spawns the built CLI with a HOME that has no Pi sessions unless `env` says otherwise. */
export function runBuilt(
	main: string,
	args: readonly string[],
	env: NodeJS.ProcessEnv = {},
	cwd: string = repoRoot,
): Promise<RunResult> {
	return new Promise((resolve) => {
		execFile(
			process.execPath,
			[main, ...args],
			{
				cwd,
				env: { PATH: process.env.PATH, HOME: env.HOME ?? path.join(repoRoot, ".tmp", "no-home"), ...env },
				maxBuffer: 64 * 1024 * 1024,
				encoding: "utf8",
			},
			(error, stdout, stderr) => {
				const code = error === null ? 0 : typeof error.code === "number" ? error.code : 99;
				resolve({ code, stdout, stderr });
			},
		);
	});
}

export function sampleText(name: string): string {
	return readFileSync(path.join(samplesDir, name), "utf8");
}

export type Line = Record<string, unknown> & { type: string; id?: string; parentId?: string | null };

export function lines(text: string): Line[] {
	return text
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l) as Line);
}

export function toJsonl(entries: readonly unknown[]): string {
	return `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`;
}
