/**
 * The `--out` folder of an eval (docs/eval.md):
 *
 *   eval.json          what the run is: its inputs (with a hash of each file), models, arms, points, seed
 *   points/NN.json     one record per point (record.ts), rewritten as the point goes on
 *   points/NN.md       the same point for a person: the question and the answers side by side
 *   report.md          the final report, as printed (report.json with --json)
 *
 * A new run wants an empty or absent folder; `--resume` wants the folder of a run with the same
 * inputs, arguments and seed, and refuses anything else, saying what differs. Files are written
 * whole (to a temporary name, then renamed), so a run stopped mid-write leaves the previous record.
 */

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { errnoReason } from "../../extension/pi/regular-file.ts";
import type { ArmName } from "./arms.ts";
import { type PointRecord, RECORD_VERSION } from "./record.ts";

export const MANIFEST_VERSION = 1;

/** Everything that decides which requests a run sends: a resumed run must have the same. */
export interface Fingerprint {
	inputs: { file: string; sha256: string }[];
	advisor: string;
	judge: string;
	points: number;
	arms: ArmName[];
	seed: string;
}

interface Manifest {
	version: typeof MANIFEST_VERSION;
	fingerprint: Fingerprint;
}

export function sha256(text: string): string {
	return createHash("sha256").update(text).digest("hex");
}

export interface Store {
	dir: string;
	/** Records found in the folder (a resumed run), by point key. */
	records: ReadonlyMap<string, PointRecord>;
	/** Creates the folder and writes eval.json (a new run): called once the user has confirmed. */
	begin(): void;
	save(record: PointRecord, markdown: string): void;
	writeReport(name: string, text: string): void;
}

export type OpenedStore = { ok: true; store: Store } | { ok: false; error: string };

function writeWhole(path: string, text: string): void {
	const temporary = `${path}.partial`;
	writeFileSync(temporary, text);
	renameSync(temporary, path);
}

/** Which part of the fingerprint differs, for the one line `--resume` refuses with. */
export function fingerprintDifference(was: Fingerprint, now: Fingerprint): string | undefined {
	const fields: [keyof Fingerprint, string][] = [
		["inputs", "the input files (their list or their content)"],
		["advisor", "--advisor"],
		["judge", "--judge"],
		["arms", "--arms"],
		["points", "--points"],
		["seed", "--seed"],
	];
	for (const [field, name] of fields) {
		if (JSON.stringify(was[field]) !== JSON.stringify(now[field])) return name;
	}
	return undefined;
}

function pointFile(index: number): string {
	return String(index).padStart(2, "0");
}

function readRecords(dir: string): Map<string, PointRecord> {
	const records = new Map<string, PointRecord>();
	const folder = join(dir, "points");
	if (!existsSync(folder)) return records;
	for (const name of readdirSync(folder).sort()) {
		if (!name.endsWith(".json")) continue;
		try {
			const record = JSON.parse(readFileSync(join(folder, name), "utf8")) as PointRecord;
			if (record.version === RECORD_VERSION && typeof record.key === "string") records.set(record.key, record);
		} catch {
			// A record that cannot be read is a point to send again: nothing of it is trusted.
		}
	}
	return records;
}

function readManifest(dir: string): Manifest | string {
	const path = join(dir, "eval.json");
	if (!existsSync(path)) return `${dir} holds no eval run to resume (no eval.json)`;
	try {
		const manifest = JSON.parse(readFileSync(path, "utf8")) as Manifest;
		if (manifest.version !== MANIFEST_VERSION) return `${path}: written by another version of the eval`;
		return manifest;
	} catch (error) {
		return `${path}: cannot be read (${errnoReason(error)})`;
	}
}

function store(dir: string, records: Map<string, PointRecord>, manifest: Manifest | undefined): Store {
	return {
		dir,
		records,
		begin() {
			mkdirSync(join(dir, "points"), { recursive: true });
			if (manifest !== undefined) writeWhole(join(dir, "eval.json"), `${JSON.stringify(manifest, null, 2)}\n`);
		},
		save(record, markdown) {
			const name = pointFile(record.index);
			writeWhole(join(dir, "points", `${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
			writeWhole(join(dir, "points", `${name}.md`), markdown);
		},
		writeReport(name, text) {
			writeWhole(join(dir, name), text);
		},
	};
}

/**
 * Checks `--out` for a new run (absent or empty) or for `--resume` (same fingerprint) and reads a
 * resumed run's records. Nothing is written before `begin()`: a run the user declines leaves no trace.
 */
export function openStore(dir: string, fingerprint: Fingerprint, resume: boolean): OpenedStore {
	try {
		if (resume) {
			const manifest = readManifest(dir);
			if (typeof manifest === "string") return { ok: false, error: manifest };
			const differs = fingerprintDifference(manifest.fingerprint, fingerprint);
			if (differs !== undefined) {
				return { ok: false, error: `cannot resume the run in ${dir}: ${differs} differ from that run's` };
			}
			return { ok: true, store: store(dir, readRecords(dir), undefined) };
		}
		if (existsSync(dir) && readdirSync(dir).length > 0) {
			return {
				ok: false,
				error: `${dir} is not empty (--resume continues the run in it; or name another --out folder)`,
			};
		}
		return { ok: true, store: store(dir, new Map(), { version: MANIFEST_VERSION, fingerprint }) };
	} catch (error) {
		return { ok: false, error: `${dir}: ${errnoReason(error)}` };
	}
}
