/**
 * Where advisor.json lives and how it is read (docs/configuration.md): `$XDG_CONFIG_HOME` or
 * `~/.config`, ours first, rpiv-advisor's as the fallback; only a regular file of bounded size,
 * parsed as one JSON object.
 */

import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { isRecord } from "../../../events/index.ts";
import { errorText } from "../pi/error-text.ts";
import { readRegularFile } from "../pi/regular-file.ts";

/** Injectable so tests never touch the real home directory. */
export interface ConfigLocation {
	env?: Readonly<Record<string, string | undefined>>;
	home?: string;
}

export const CONFIG_FOLDER = "pi-advisor-ledger";
/** rpiv-advisor's folder, read when ours is absent so users can switch without re-configuring. */
export const RPIV_CONFIG_FOLDER = "rpiv-advisor";
export const CONFIG_FILE = "advisor.json";

function configRoot(opts: ConfigLocation): string {
	const xdg = (opts.env ?? process.env).XDG_CONFIG_HOME;
	// The XDG spec says a relative value is invalid and must be ignored.
	if (xdg && isAbsolute(xdg)) return xdg;
	return join(opts.home ?? homedir(), ".config");
}

export function configPaths(opts: ConfigLocation = {}): { ledger: string; rpiv: string } {
	const root = configRoot(opts);
	return { ledger: join(root, CONFIG_FOLDER, CONFIG_FILE), rpiv: join(root, RPIV_CONFIG_FOLDER, CONFIG_FILE) };
}

export type JsonObject = Record<string, unknown>;

export type FileRead = { kind: "missing" } | { kind: "ok"; raw: JsonObject } | { kind: "unusable"; reason: string };

/** advisor.json is a few hundred bytes; anything past this is not a config worth waiting for. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Read when Pi starts: a FIFO, a device (a link to /dev/zero) or a huge file must neither block
 * the start nor fill the memory, so only a regular file of bounded size is read.
 */
export function readJsonObject(path: string): FileRead {
	const read = readRegularFile(path, MAX_CONFIG_BYTES);
	if (read.kind === "missing") return { kind: "missing" };
	if (read.kind === "refused") return { kind: "unusable", reason: read.reason };
	const text = read.text;
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (err) {
		return { kind: "unusable", reason: `not valid JSON: ${errorText(err)}` };
	}
	return isRecord(value) ? { kind: "ok", raw: value } : { kind: "unusable", reason: "not a JSON object" };
}
