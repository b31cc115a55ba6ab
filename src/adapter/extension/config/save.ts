/**
 * Saving the /advisor selection (docs/configuration.md): only `modelKey` and `effort` are rewritten,
 * through a temporary file and a rename, so hand edits survive and a failed save changes nothing.
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

	let base: JsonObject = {};
	const current = readJsonObject(path);
	switch (current.kind) {
		case "ok":
			base = current.raw;
			break;
		case "unusable":
			// Overwriting would destroy the user's hand edits along with the syntax error.
			return fail(`${path}: ${current.reason}`);
		case "missing": {
			const rpiv = readJsonObject(paths.rpiv);
			if (rpiv.kind === "ok") base = rpiv.raw;
			break;
		}
		default:
			return assertNever(current, "advisor.json read");
	}

	const raw = withSelection(base, modelKey, effort);
	let temp: string | undefined;
	try {
		// Inside the try: a hand-written key nested deeper than JSON.stringify can recurse must fail the save, not throw.
		const text = `${JSON.stringify(raw, null, 2)}\n`;
		mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
		// Write through a symlinked advisor.json (dotfile managers) instead of replacing the link.
		const target = current.kind === "ok" ? realpathSync(path) : path;
		// A temp file + rename never leaves a half-written config behind.
		temp = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
		writeFileSync(temp, text, { mode: 0o600 });
		chmodSync(temp, 0o600);
		renameSync(temp, target);
		temp = undefined;
		return { ok: true, path, raw };
	} catch (err) {
		return fail(errorText(err));
	} finally {
		if (temp !== undefined) removeQuietly(temp);
	}
}
