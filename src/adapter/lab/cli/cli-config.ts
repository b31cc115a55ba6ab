/**
 * The advisor.json `render` and `replay` read (docs/cli.md), so what they show is what the
 * extension would send: the same loader and the same per-key validation. Without `--config` the
 * user's own file (a missing one is the defaults, silently; a broken one is a warning and the
 * defaults, as in Pi); with `--config FILE` that file, and one that cannot be read ends the command.
 */

import { isAbsolute, resolve } from "node:path";
import { assertNever, type PrivacyOptions } from "../../../events/index.ts";
import { readJsonObject } from "../../extension/config/file.ts";
import { type AdvisorConfig, configWarnings, loadConfig, parseConfig } from "../../extension/config/load.ts";
import { visibleLine } from "./escape.ts";
import type { Io } from "./io.ts";

export type CliConfig = { ok: true; config: AdvisorConfig } | { ok: false; line: string };

/**
 * @param named `--config FILE`, relative to the working directory; undefined = the user's file.
 * Warnings go to stderr, one line each, prefixed with the command.
 */
export function cliConfig(command: string, named: string | undefined, io: Io): CliConfig {
	const warn = (line: string) => io.stderr(`advisor-ledger ${command}: ${visibleLine(line)}\n`);
	if (named === undefined) {
		const home = io.env.HOME;
		const loaded = loadConfig({ env: io.env, ...(home !== undefined && home !== "" ? { home } : {}) });
		for (const warning of loaded.warnings) warn(warning);
		return { ok: true, config: loaded.config };
	}
	const path = isAbsolute(named) ? named : resolve(io.cwd, named);
	const read = readJsonObject(path);
	switch (read.kind) {
		case "missing":
			return { ok: false, line: `--config ${named}: no such file` };
		case "unusable":
			return { ok: false, line: `--config ${named}: ${read.reason}` };
		case "ok": {
			const parsed = parseConfig(read.raw);
			for (const warning of configWarnings(named, read.raw, parsed)) warn(warning);
			return { ok: true, config: parsed.config };
		}
		default:
			return assertNever(read, "advisor.json read");
	}
}

/** What normalisation takes from the config: redaction and the deny list. */
export function privacyOf(config: AdvisorConfig): PrivacyOptions {
	return { privacy: config.privacy, denyPatterns: config.tools.denyPatterns };
}
