/**
 * Our reader + migration + branch against Pi's own parseSessionEntries,
 * migrateSessionEntries and buildSessionContext. Pi's v1 ids are random, so entries are
 * compared after mapping Pi's ids onto ours by position.
 *
 * Never SessionManager.open here: it rewrites the file it opens.
 */

import { readFileSync } from "node:fs";
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
import {
	FC_RUNS,
	PROPERTY_TIMEOUT,
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

describe("conformance with Pi on the recorded sessions in ../shared/sessions", () => {
	if (sharedSessionFiles.length === 0) {
		console.warn(`[conformance] skipped the recorded-session checks: no *.jsonl in ${sharedSessionsDir}`);
		it.skipIf(true)(`needs recorded sessions (*.jsonl) in ${sharedSessionsDir}`, () => {});
		return;
	}
	it.each(sharedSessionFiles.map((file) => [path.basename(file), file]))("%s", (_, file) => {
		const text = readFileSync(file, "utf8");
		const ours = readSession(text);
		const { piPath, piContext } = expectConformance(text, ours);
		const kinds: Record<string, number> = {};
		for (const event of ours.events) kinds[event.kind] = (kinds[event.kind] ?? 0) + 1;
		console.info(
			`[conformance] ${path.basename(file)}: v${ours.sourceVersion}, ${ours.entries.length} entries, ` +
				`path ${ours.path.length} (Pi ${piPath.length}), Pi context ${piContext.messages.length} messages, ` +
				`diagnostics ${ours.diagnostics.length}, events ${JSON.stringify(kinds)}, stats ${JSON.stringify(ours.stats)}`,
		);
		expect(ours.diagnostics).toEqual([]);
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
