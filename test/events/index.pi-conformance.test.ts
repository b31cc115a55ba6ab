/**
 * Our reader + migration + branch against Pi's own parseSessionEntries,
 * migrateSessionEntries and buildSessionContext. Pi's v1 ids are random, so entries are
 * compared after mapping Pi's ids onto ours by position.
 *
 * Real files are damaged sometimes (a line broken by a publisher's masking, a fork's variant of an
 * entry): on those we must read what Pi reads, resolve the leaf and path Pi resolves, and say in
 * diagnostics exactly what Pi passes over in silence, nothing more.
 *
 * Never SessionManager.open here: it rewrites the file it opens.
 */

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import {
	buildSessionContext,
	type FileEntry,
	migrateSessionEntries,
	parseSessionEntries,
	type SessionEntry,
} from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readSession, type SessionRead } from "../../src/events/index.ts";
import type { Diagnostic } from "../../src/events/types.ts";
import {
	FC_RUNS,
	PROPERTY_TIMEOUT,
	repoRoot,
	sharedSessionFiles,
	sharedSessionsDir,
	treeSessionArb,
	v1SessionArb,
} from "./helpers.ts";

function piRead(text: string): SessionEntry[] {
	const fileEntries: FileEntry[] = parseSessionEntries(text);
	migrateSessionEntries(fileEntries);
	return fileEntries.filter((entry): entry is SessionEntry => entry.type !== "session");
}

/** Pi's getBranch from the last entry, on a plain array. */
function piBranch(entries: readonly SessionEntry[]): SessionEntry[] {
	const byId = new Map(entries.map((entry) => [entry.id, entry]));
	const path: SessionEntry[] = [];
	let current = entries.at(-1);
	while (current) {
		path.unshift(current);
		current = current.parentId ? byId.get(current.parentId) : undefined;
	}
	return path;
}

function mapIds(entry: SessionEntry, idMap: ReadonlyMap<string, string>): Record<string, unknown> {
	const map = (id: unknown) => (typeof id === "string" ? (idMap.get(id) ?? id) : id);
	const mapped: Record<string, unknown> = { ...entry, id: map(entry.id), parentId: map(entry.parentId) };
	if ("firstKeptEntryId" in entry) mapped.firstKeptEntryId = map(entry.firstKeptEntryId);
	return mapped;
}

/** Asserts ours ≡ Pi's up to the ids; returns what the shared-session report prints. */
function expectConformance(text: string, ours: SessionRead = readSession(text)) {
	const pi = piRead(text);
	expect(ours.entries).toHaveLength(pi.length);
	const idMap = new Map(pi.map((entry, i) => [entry.id, ours.entries[i]!.id]));
	expect(idMap.size).toBe(pi.length);

	// Entries, including compaction firstKeptEntryId and hookMessage → custom.
	expect(ours.entries.map((r) => r.entry)).toEqual(pi.map((entry) => mapIds(entry, idMap)));

	// Branch: same entries in the same order.
	const piPath = piBranch(pi);
	expect(ours.path.map((r) => r.id)).toEqual(piPath.map((entry) => idMap.get(entry.id)));

	// Pi's resolved context, built from our entries, equals the one built from its own.
	const ourEntries = ours.entries.map((r) => r.entry) as unknown as SessionEntry[];
	const ourContext = buildSessionContext(ourEntries);
	const piContext = buildSessionContext(pi);
	expect(ourContext).toEqual(piContext);

	// One event per path entry; every user message of the branch is a user event.
	expect(ours.events).toHaveLength(ours.path.length);
	const userMessages = piPath.filter((entry) => entry.type === "message" && entry.message.role === "user").length;
	expect(ours.events.filter((event) => event.kind === "user")).toHaveLength(userMessages);
	return { pi, piPath, piContext };
}

/** Pi's leaf when it loads a file: the last entry in file order (SessionManager's index). */
function piLeaf(pi: readonly SessionEntry[]): SessionEntry | undefined {
	return pi.at(-1);
}

/** The non-blank lines (1-based) Pi's parseSessionEntries drops: it skips every line JSON.parse rejects. */
function piDroppedLines(text: string): number[] {
	const dropped: number[] = [];
	text.split("\n").forEach((line, i) => {
		if (line.trim() !== "" && parseSessionEntries(line).length === 0) dropped.push(i + 1);
	});
	return dropped;
}

type Finding = Pick<Diagnostic, "reason" | "line" | "entryId">;

const finding = ({ reason, line, entryId }: Diagnostic): Finding => ({
	reason,
	...(line === undefined ? {} : { line }),
	...(entryId === undefined ? {} : { entryId }),
});

/**
 * The diagnostics a real file must get, from what Pi's loader makes of it:
 * - each line Pi drops is one skipped line (`invalid-json`, or `truncated-last-line` for an
 *   unterminated last line);
 * - when the root of Pi's path names a parent Pi never read, that entry is one `missing-parent`
 *   (Pi's walk stops there silently, and so does ours);
 * - an entry Pi keeps, as written, whose body does not fit the entry types Pi writes (a fork's
 *   variant) is kept opaque with one line saying why: its type known (`schema-mismatch`) or not
 *   (`unknown-entry-type`). Pi keeps it too: the entries compared above include it unchanged.
 */
function expectPiFindings(
	text: string,
	ours: SessionRead,
	pi: readonly SessionEntry[],
	piPath: readonly SessionEntry[],
) {
	const lines = text.split("\n");
	const lastLine = text.endsWith("\n") ? lines.length - 1 : lines.length;
	const dropped: Finding[] = piDroppedLines(text).map((line) => ({
		reason: line === lastLine && !text.endsWith("\n") ? "truncated-last-line" : "invalid-json",
		line,
	}));
	const ids = new Set(pi.map((entry) => entry.id));
	const root = piPath[0];
	const cut: Finding[] =
		root !== undefined && root.parentId !== null && !ids.has(root.parentId)
			? [{ reason: "missing-parent", line: ours.path[0]!.line!, entryId: ours.path[0]!.id }]
			: [];
	const opaque: Finding[] = ours.entries.flatMap((record) =>
		record.kind === "opaque" ? [{ reason: record.reason, line: record.line!, entryId: record.id }] : [],
	);
	const byLine = (a: Finding, b: Finding) => (a.line ?? 0) - (b.line ?? 0) || a.reason.localeCompare(b.reason);
	expect(ours.diagnostics.map(finding).sort(byLine)).toEqual([...dropped, ...cut, ...opaque].sort(byLine));
	return { dropped: dropped.length, cut: cut.length, opaque: opaque.length };
}

/**
 * The real sessions: ../shared/sessions, and the ones the project ships in samples/long (the same
 * file counted once), so the damaged one is checked even where ../shared is absent.
 */
const realSessionFiles = (() => {
	const files = [...sharedSessionFiles];
	const longDir = path.join(repoRoot, "samples/long");
	for (const name of readdirSync(longDir).sort()) {
		if (name.endsWith(".jsonl") && !files.some((file) => path.basename(file) === name))
			files.push(path.join(longDir, name));
	}
	return files;
})();

describe("conformance with Pi on real sessions (../shared/sessions and samples/long)", () => {
	if (sharedSessionFiles.length === 0)
		console.warn(`[conformance] ${sharedSessionsDir} is absent: only the sessions in samples/long are checked`);
	it.each(realSessionFiles.map((file) => [path.relative(repoRoot, file), file]))("%s", (_, file) => {
		const text = readFileSync(file, "utf8");
		const ours = readSession(text);
		const { pi, piPath, piContext } = expectConformance(text, ours);
		// The leaf and path Pi resolves when it loads the file.
		expect(ours.leafId).toBe(ours.entries[pi.indexOf(piLeaf(pi)!)]?.id);
		const findings = expectPiFindings(text, ours, pi, piPath);
		const kinds: Record<string, number> = {};
		for (const event of ours.events) kinds[event.kind] = (kinds[event.kind] ?? 0) + 1;
		console.info(
			`[conformance] ${path.basename(file)}: v${ours.sourceVersion}, ${ours.entries.length} entries, ` +
				`path ${ours.path.length} (Pi ${piPath.length}), Pi context ${piContext.messages.length} messages, ` +
				`diagnostics ${ours.diagnostics.length} (lines Pi drops ${findings.dropped}, path cut ${findings.cut}, ` +
				`kept opaque ${findings.opaque}), events ${JSON.stringify(kinds)}, stats ${JSON.stringify(ours.stats)}`,
		);
	});
});

describe("conformance with Pi on generated v1 sessions", () => {
	it(
		"entries, compaction targets, branch and context equal Pi's migration up to the ids",
		() => {
			fc.assert(
				fc.property(v1SessionArb, ({ text }) => {
					expectConformance(text);
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);
});

describe("conformance with Pi on generated v2 sessions", () => {
	it(
		"hookMessage becomes custom, ids are kept, and branch and context equal Pi's",
		() => {
			fc.assert(
				fc.property(treeSessionArb(2), ({ text }) => {
					const ours = readSession(text);
					expectConformance(text, ours);
					// v2 keeps its own ids: nothing to map.
					expect(ours.entries.map((r) => r.id)).toEqual(piRead(text).map((entry) => entry.id));
					expect(JSON.stringify(ours.entries)).not.toContain('"hookMessage"');
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);
});

describe("conformance with Pi on generated v3 sessions", () => {
	it(
		"migration is the identity and everything equals Pi",
		() => {
			fc.assert(
				fc.property(treeSessionArb(3), ({ text }) => {
					expectConformance(text);
				}),
				{ numRuns: FC_RUNS },
			);
		},
		PROPERTY_TIMEOUT,
	);
});
