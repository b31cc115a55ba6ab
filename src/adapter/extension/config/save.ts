/**
 * Saving what /advisor changes (docs/configuration.md): the selection (`modelKey` and `effort`) and
 * `watch.enabled`, each rewritten in place through a temporary file and a rename, so hand edits
 * survive, no other key is touched, and a failed save changes nothing.
 */

import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { ModelThinkingLevel, ThinkingLevel } from "@mariozechner/pi-ai";
import { assertNever } from "../../../events/index.ts";
import { errorText } from "../pi/error-text.ts";
import { canonicalModelKey } from "../pi/model-key.ts";
import { type ConfigLocation, configPaths, type JsonObject, readJsonObject } from "./file.ts";

/** What /advisor picked. No modelKey = "No advisor"; no effort (or off) = no reasoning sent. */
export interface Selection {
	modelKey?: string;
	effort?: ModelThinkingLevel;
}

export type SaveResult = { ok: true; path: string; raw: JsonObject } | { ok: false; path: string; message: string };

function removeQuietly(path: string): void {
	try {
		rmSync(path, { force: true });
	} catch {
		// The save already failed; a leftover temp file is not worth a second error.
	}
}

/** Replaces modelKey/effort in place, adds them at the top when new, and drops them when unset. */
function withSelection(base: JsonObject, modelKey: string | undefined, effort: ThinkingLevel | undefined): JsonObject {
	const wanted: JsonObject = {};
	if (modelKey !== undefined) wanted.modelKey = modelKey;
	if (effort !== undefined) wanted.effort = effort;
	const entries: [string, unknown][] = [];
	for (const key of ["modelKey", "effort"]) if (key in wanted && !(key in base)) entries.push([key, wanted[key]]);
	for (const [key, value] of Object.entries(base)) {
		if (key === "modelKey" || key === "effort") {
			if (key in wanted) entries.push([key, wanted[key]]);
		} else entries.push([key, value]);
	}
	// fromEntries defines own properties, so a hand-written "__proto__" key stays a plain key.
	return Object.fromEntries(entries);
}

/** The file as it is now, or rpiv-advisor's keys when ours does not exist yet; a reason when it cannot be used. */
type Base = { ok: true; raw: JsonObject; exists: boolean } | { ok: false; message: string };

function readBase(paths: { ledger: string; rpiv: string }): Base {
	const current = readJsonObject(paths.ledger);
	switch (current.kind) {
		case "ok":
			return { ok: true, raw: current.raw, exists: true };
		case "unusable":
			// Overwriting would destroy the user's hand edits along with the syntax error.
			return { ok: false, message: `${paths.ledger}: ${current.reason}` };
		case "missing": {
			const rpiv = readJsonObject(paths.rpiv);
			return { ok: true, raw: rpiv.kind === "ok" ? rpiv.raw : {}, exists: false };
		}
		default:
			return assertNever(current, "advisor.json read");
	}
}

/** Pretty JSON with a trailing newline, mode 0600, through a temp file and a rename (through a symlinked file). */
function writeConfig(path: string, raw: JsonObject, exists: boolean): SaveResult {
	let temp: string | undefined;
	try {
		// Inside the try: a hand-written key nested deeper than JSON.stringify can recurse must fail the save, not throw.
		const text = `${JSON.stringify(raw, null, 2)}\n`;
		mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
		// Write through a symlinked advisor.json (dotfile managers) instead of replacing the link.
		const target = exists ? realpathSync(path) : path;
		// A temp file + rename never leaves a half-written config behind.
		temp = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
		writeFileSync(temp, text, { mode: 0o600 });
		chmodSync(temp, 0o600);
		renameSync(temp, target);
		temp = undefined;
		return { ok: true, path, raw };
	} catch (err) {
		return { ok: false, path, message: errorText(err) };
	} finally {
		if (temp !== undefined) removeQuietly(temp);
	}
}

/**
 * Writes only modelKey and effort. The file is re-read first so hand edits made while Pi was
 * running survive; when ours does not exist yet, rpiv-advisor's keys are carried over once so
 * switching loses nothing. Never throws: the caller reports a failed save and changes nothing.
 */
export function saveSelection(opts: ConfigLocation, selection: Selection): SaveResult {
	const paths = configPaths(opts);
	const path = paths.ledger;
	const fail = (message: string): SaveResult => ({ ok: false, path, message });

	let modelKey: string | undefined;
	if (selection.modelKey !== undefined) {
		modelKey = canonicalModelKey(selection.modelKey);
		if (modelKey === undefined) return fail(`not a provider/modelId key: ${selection.modelKey}`);
	}
	const effort = modelKey === undefined || selection.effort === "off" ? undefined : selection.effort;
	const base = readBase(paths);
	if (!base.ok) return fail(base.message);
	return writeConfig(path, withSelection(base.raw, modelKey, effort), base.exists);
}

/**
 * `watch.enabled` set in place (`/advisor watch`): the `watch` section keeps its other keys and its
 * place, or is added at the end with that one key. A `watch` that is not an object is the user's to
 * fix: the save is refused rather than replace it. Never throws, like saveSelection.
 */
export function saveWatchEnabled(opts: ConfigLocation, enabled: boolean): SaveResult {
	const paths = configPaths(opts);
	const path = paths.ledger;
	const base = readBase(paths);
	if (!base.ok) return { ok: false, path, message: base.message };
	const section = base.raw.watch;
	if (section !== undefined && (typeof section !== "object" || section === null || Array.isArray(section)))
		return { ok: false, path, message: `${path}: watch is not an object` };
	const entries = Object.entries((section ?? {}) as JsonObject);
	// In place when the key was there, else after the section's other keys.
	const watch = Object.fromEntries(
		entries.some(([key]) => key === "enabled")
			? entries.map(([key, value]) => [key, key === "enabled" ? enabled : value])
			: [...entries, ["enabled", enabled]],
	);
	const raw = Object.fromEntries(
		Object.hasOwn(base.raw, "watch")
			? Object.entries(base.raw).map(([key, value]) => [key, key === "watch" ? watch : value])
			: [...Object.entries(base.raw), ["watch", watch]],
	);
	return writeConfig(path, raw, base.exists);
}
