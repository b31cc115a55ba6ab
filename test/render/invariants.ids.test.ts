/**
 * The ids the request shows (docs/request-format.md, "Ids"): an entry's 1-based position on the branch
 * path in base 36. Every id shown must name the entry it stands for, and advisor_expand must return
 * that entry for it: an ordinal k names the event at index k − 1.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LedgerEvent, readSession } from "../../src/events/index.ts";
import { trimCandidates } from "../../src/policy/budget/trim.ts";
import { foldLedger, type LedgerState, ledgerOf } from "../../src/reducers/index.ts";
import { expandEntry } from "../../src/render/expand-source.ts";
import type { LedgerConfig } from "../../src/render/ledger-section.ts";
import { displayId, ordinalPosition } from "../../src/render/ordinal.ts";
import { type RenderOptions, renderRequest } from "../../src/render/request-assembly.ts";
import { buildContext, type LedgerRequest } from "../../src/render/request-units.ts";
import { eventsOf, fractionArb, pickIndex } from "../support/properties.ts";
import { RUNS, sessionArb } from "../support/session-gen.ts";

const options = (config: LedgerConfig, extra: Partial<RenderOptions> = {}): RenderOptions => ({
	config,
	catalogue: [{ name: "read", description: "Read a file." }],
	tools: [],
	toolsMode: "repo",
	mode: "consult",
	...extra,
});

/** Small caps, so gaps (which name an entry) and capped prose (`»#id`) are common. */
const configArb: fc.Arbitrary<LedgerConfig> = fc.record({
	tailToolCalls: fc.integer({ min: 0, max: 3 }),
	tailMaxChars: fc.constantFrom(60, 200, 8000),
	tailResultMaxChars: fc.constantFrom(50, 2000),
	userMessageMaxChars: fc.constantFrom(60, 20000),
	customPreviewChars: fc.constantFrom(50, 500),
	proseMaxChars: fc.constantFrom(0, 40, 300),
	instructionsMaxChars: fc.constantFrom(0, 100, 4000),
	// 0 keeps every entry; a small target makes generated branches cut their log (render/log-cut.ts).
	logTargetTokens: fc.constantFrom(0, 150, 600, 10000),
});

type Kind = LedgerEvent["kind"];

/** Where the request shows an id, and which kinds of entry each place may name. */
const PLACES: { re: RegExp; kinds: readonly Kind[] | "any" }[] = [
	{ re: /^\[user #([^\]\s]+)\]/, kinds: ["user"] },
	{ re: /^\[tool #([^\]\s]+)\]/, kinds: ["toolResult", "assistant"] },
	{ re: /^\[reasoning #([^\]\s]+)\]/, kinds: ["assistant"] },
	{ re: /^\[compaction #([^\]\s]+)\]/, kinds: ["compaction"] },
	{ re: /^\[branch summary #([^\]\s]+)\]/, kinds: ["branchSummary"] },
	{ re: /^\[note #([^\]\s]+) /, kinds: ["customMessage"] },
	{ re: /^\[shell #([^\]\s]+)\]/, kinds: ["bashRun"] },
	// A stand-in's earlier advice: the advisor result or the review that delivered it.
	{ re: /^\[advice #([^\]\s]+)\]/, kinds: ["toolResult", "customMessage"] },
	// A card: the round's result, or the calling message for a call without one.
	{ re: /^#([0-9a-z]+) /, kinds: ["toolResult", "assistant"] },
	{ re: /^»#([0-9a-z]+) /, kinds: ["assistant"] },
	// A gap in a question names the asking message, in advice the advisor result or the review.
	{ re: /^\[… \d+ chars omitted — advisor_expand #(\S+) returns them …\]$/, kinds: "any" },
];

interface ShownId {
	line: string;
	id: string;
	kinds: readonly Kind[] | "any";
}

function shownIds(request: LedgerRequest): ShownId[] {
	const out: ShownId[] = [];
	for (const message of buildContext(request).messages) {
		const content = typeof message.content === "string" ? [message.content] : message.content;
		for (const part of content) {
			if (typeof part !== "string" && part.type !== "text") continue;
			const text = typeof part === "string" ? part : part.text;
			for (const line of text.split("\n")) {
				for (const place of PLACES) {
					const m = place.re.exec(line);
					if (m) out.push({ line, id: m[1]!, kinds: place.kinds });
				}
			}
		}
	}
	return out;
}

/** Every id shown resolves: an ordinal to the event at its index, of a kind its place allows. */
function expectIdsResolve(state: LedgerState, request: LedgerRequest, offPath: ReadonlySet<string>): number {
	const events = state.events.toArray();
	const shown = shownIds(request);
	for (const { line, id, kinds } of shown) {
		const pos = ordinalPosition(id);
		if (pos === undefined) {
			// Only an abandoned branch's user words, which are off this path, keep an entry id.
			expect(kinds, line).toEqual(["user"]);
			expect(offPath.has(id), line).toBe(true);
			continue;
		}
		expect(pos, line).toBeGreaterThanOrEqual(1);
		expect(pos, line).toBeLessThanOrEqual(events.length);
		const event = events[pos - 1]!;
		if (kinds !== "any") expect(kinds, line).toContain(event.kind);
		const expanded = expandEntry(state, `#${id}`);
		expect(expanded.kind, line).toBe("ok");
		// The same text as asking by the entry's own id.
		expect(expanded).toEqual(expandEntry(state, event.id));
	}
	return shown.length;
}

function offPathIds(jsonl: string, state: LedgerState): Set<string> {
	const onPath = new Set(state.events.toArray().map((e) => e.id));
	const out = new Set<string>();
	for (const e of readSession(jsonl).entries) if (!onPath.has(e.id)) out.add(displayId(e.id));
	return out;
}

describe("shown ids", () => {
	it("every id the request shows resolves through advisor_expand to the entry it names", () => {
		let total = 0;
		fc.assert(
			fc.property(
				sessionArb(),
				configArb,
				fc.constantFrom("consult", "review") as fc.Arbitrary<"consult" | "review">,
				(session, config, mode) => {
					const state = ledgerOf(eventsOf(session.jsonl));
					total += expectIdsResolve(
						state,
						renderRequest(state, options(config, { mode })),
						offPathIds(session.jsonl, state),
					);
				},
			),
			{ numRuns: RUNS },
		);
		// The property saw ids (it cannot pass vacuously).
		expect(total).toBeGreaterThan(RUNS);
	});

	it("…under any trim too (the stand-in re-states words and carried failures by their ids)", () => {
		fc.assert(
			fc.property(sessionArb(), configArb, fractionArb, (session, config, at) => {
				const state = ledgerOf(eventsOf(session.jsonl));
				const candidates = trimCandidates(state, { config });
				if (candidates.length === 0) return;
				const trim = { anchorEntryId: candidates[pickIndex(at, candidates.length)]!, tailCaps: 500 };
				expectIdsResolve(state, renderRequest(state, options(config, { trim })), offPathIds(session.jsonl, state));
			}),
			{ numRuns: RUNS },
		);
	});

	it("a block's id is its path position whether the branch is folded at once or in pieces", () => {
		fc.assert(
			fc.property(sessionArb(), fractionArb, (session, at) => {
				const events = eventsOf(session.jsonl);
				const cut = pickIndex(at, events.length + 1);
				const pieces = foldLedger(ledgerOf(events.slice(0, cut)), events.slice(cut));
				for (const block of [...pieces.closed.flatMap((s) => s.blocks), ...pieces.open.toArray()]) {
					// The block's own entry sits at its position (a round without a result: its call's message).
					expect(events[block.pos - 1]!.id).toBe(block.id);
				}
			}),
			{ numRuns: RUNS },
		);
	});
});
