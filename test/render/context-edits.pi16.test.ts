/**
 * Context edits on a session the real Pi 1.6 CLI wrote (test/fixtures/pi-1.6/context-edit.jsonl,
 * recorded by scripts/record-pi16-fixture.ts): a context editor replaced the result of a read of
 * config.txt and took a whole turn (the read of notes.txt) out of the executor's context, then the
 * executor consulted. Reader → fold → request and advisor_expand: the replacement and the omission
 * are shown, the original never; the cards made before the edits keep their bytes.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type LedgerEvent, readSession } from "../../src/events/index.ts";
import { ledgerOf } from "../../src/reducers/index.ts";
import { expandEntry } from "../../src/render/expand-source.ts";
import { createRenderMemo, DEFAULT_LEDGER_CONFIG, flatten, renderRequest } from "../../src/render/index.ts";
import { CONTEXT_OMITTED } from "../../src/render/model-text.ts";
import { CE_QUESTION, CONFIG_TEXT, NOTES_TEXT } from "../support/context-edit-scenario.ts";
import { PRUNED_CONFIG } from "../support/context-editor.ts";
import { REPO_ROOT } from "../support/hosts.ts";
import { expectStablePrefix } from "../support/properties.ts";

const text = readFileSync(join(REPO_ROOT, "test/fixtures/pi-1.6/context-edit.jsonl"), "utf8");
const read = readSession(text);
const events = read.events;
const indexOf = (pred: (e: LedgerEvent) => boolean) => events.findIndex(pred);
const configResult = indexOf((e) => e.kind === "toolResult" && e.callId === "call_read_config");
const notesCall = indexOf((e) => e.kind === "assistant" && e.calls.some((c) => c.id === "call_read_notes"));
const notesResult = indexOf((e) => e.kind === "toolResult" && e.callId === "call_read_notes");
const advisorCall = indexOf((e) => e.kind === "assistant" && e.calls.some((c) => c.name === "advisor"));
const ORIGINALS = ["ORIGINAL_CONFIG_MARKER", "ORIGINAL_NOTES_MARKER", "the migration runs"];

const options = (inFlightCallId?: string) => ({
	// Two verbatim rounds: the edited results show in the appendix (the default is one).
	config: { ...DEFAULT_LEDGER_CONFIG, tailToolCalls: 2 },
	catalogue: [],
	tools: [],
	toolsMode: "none" as const,
	mode: "consult" as const,
	...(inFlightCallId !== undefined ? { inFlightCallId } : {}),
});

describe("the reader knows Pi 1.6's context_edit entries", () => {
	it("no unknown-entry-type diagnostic; three edits as events, in the shapes the events use", () => {
		expect(read.diagnostics.filter((d) => d.reason === "unknown-entry-type")).toEqual([]);
		expect(read.diagnostics.filter((d) => /context_edit/.test(d.message))).toEqual([]);
		const edits = events.filter((e) => e.kind === "contextEdit");
		expect(edits).toEqual([
			expect.objectContaining({
				targetId: events[configResult]!.id,
				replacement: { parts: [{ type: "text", text: PRUNED_CONFIG }], thinking: "", calls: [] },
			}),
			expect.objectContaining({ targetId: events[notesCall]!.id, replacement: null }),
			expect.objectContaining({ targetId: events[notesResult]!.id, replacement: null }),
		]);
		// The originals are still in the file: the events keep them, the ledger decides what is shown.
		expect(JSON.stringify(events[configResult])).toContain("ORIGINAL_CONFIG_MARKER");
		expect(CONFIG_TEXT).toContain("ORIGINAL_CONFIG_MARKER");
		expect(NOTES_TEXT).toContain("ORIGINAL_NOTES_MARKER");
	});
});

describe("the request at the consultation", () => {
	const state = ledgerOf(events.slice(0, advisorCall + 1), read.header?.cwd);
	const callId = "call_adv_ce";
	const request = renderRequest(state, options(callId), createRenderMemo());
	const all = flatten(request);

	it("shows the replacement and says the omission, never an original", () => {
		for (const original of ORIGINALS) expect(all).not.toContain(original);
		expect(all).toContain(`result:\n${PRUNED_CONFIG}\n`);
		expect(all).toContain(`result:\n${CONTEXT_OMITTED}\n`);
		expect(all).toContain(`<question>\n${CE_QUESTION}\n</question>`);
	});

	it("the cards made before the edits keep their bytes: path and size of what was read", () => {
		const position = (i: number) => (i + 1).toString(36);
		expect(all).toContain(`#${position(configResult)} read config.txt · ${CONFIG_TEXT.length}\n`);
		expect(all).toContain(`#${position(notesResult)} read notes.txt · ${NOTES_TEXT.length}\n`);
	});

	it("the prefix property holds across the edits: the request before them is the head of the one after", () => {
		const before = renderRequest(
			ledgerOf(events.slice(0, notesResult + 1), read.header?.cwd),
			options(),
			createRenderMemo(),
		);
		const after = renderRequest(
			ledgerOf(events.slice(0, advisorCall), read.header?.cwd),
			options(),
			createRenderMemo(),
		);
		expectStablePrefix(before, after);
		// Before the edits the appendix showed the original; it is volatile, and after them it does not.
		expect(flatten(before)).toContain("ORIGINAL_NOTES_MARKER");
		for (const original of ORIGINALS) expect(flatten(after)).not.toContain(original);
	});
});

describe("advisor_expand", () => {
	const state = ledgerOf(events, read.header?.cwd);
	it("answers the replacement for the replaced result and the omission for the omitted turn", () => {
		expect(expandEntry(state, events[configResult]!.id)).toEqual({
			kind: "ok",
			text: `read: {"path":"config.txt"}\n${PRUNED_CONFIG}`,
		});
		expect(expandEntry(state, events[notesResult]!.id)).toEqual({ kind: "ok", text: CONTEXT_OMITTED });
		expect(expandEntry(state, events[notesCall]!.id)).toEqual({ kind: "ok", text: CONTEXT_OMITTED });
		for (const e of events) {
			const answer = expandEntry(state, e.id);
			if (answer.kind === "ok") for (const original of ORIGINALS) expect(answer.text).not.toContain(original);
		}
	});
});
