/**
 * docs/architecture.md invariants 1–6 (v2 layout: every block rendered once, a volatile appendix) as fast-check properties over realistic generated Pi sessions, read
 * through the project's own reader (so the properties cover the whole pure pipeline).
 * Runs per property: 200, or FC_RUNS.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readSession } from "../../src/events/index.ts";
import { trimCandidates } from "../../src/policy/budget/trim.ts";
import {
	type Block,
	foldLedger,
	type LedgerState,
	ledgerOf,
	type RenderTrim,
	type Round,
	shellCommand,
	unansweredRound,
} from "../../src/reducers/index.ts";
import { userBody } from "../../src/render/blocks.ts";
import { cardLine } from "../../src/render/card.ts";
import { cardPath, commandText } from "../../src/render/card-argument.ts";
import { DEFAULT_LEDGER_CONFIG, type LedgerConfig } from "../../src/render/ledger-section.ts";
import { logCut } from "../../src/render/log-cut.ts";
import type { LogCut } from "../../src/render/log-items.ts";
import {
	APPENDIX_HEADER,
	CONSULT_INSTRUCTION,
	LOG_CLOSE,
	LOG_OPEN,
	REVIEW_INSTRUCTION,
	SAME_PATH,
} from "../../src/render/model-text.ts";
import { neutralise } from "../../src/render/neutralise.ts";
import { displayId, ordinalId } from "../../src/render/ordinal.ts";
import { createRenderMemo } from "../../src/render/render-memo.ts";
import { type RenderOptions, renderRequest } from "../../src/render/request-assembly.ts";
import { buildContext, type LedgerRequest } from "../../src/render/request-units.ts";
import {
	eventsOf,
	expectExtendsOrCutMoved,
	expectStableUnitsInPlace,
	fractionArb,
	isBoundary,
	leftOut,
	pickIndex,
	prefixCutArb,
} from "../support/properties.ts";
import { RUNS, sessionArb } from "../support/session-gen.ts";

const CATALOGUE = [
	{ name: "read", description: "Read a file." },
	{ name: "bash", description: "Run a command. Output is truncated." },
	{ name: "advisor", description: "Ask the advisor." },
];
const TOOLS = [
	{ name: "advisor_expand", description: "Expand ids.", parameters: { type: "object", properties: {} } as never },
];

const configArb: fc.Arbitrary<LedgerConfig> = fc.record({
	tailToolCalls: fc.integer({ min: 0, max: 4 }),
	tailMaxChars: fc.constantFrom(200, 1000, 8000),
	tailResultMaxChars: fc.constantFrom(50, 2000, 8000),
	userMessageMaxChars: fc.constantFrom(100, 20000),
	customPreviewChars: fc.constantFrom(50, 500),
	proseMaxChars: fc.constantFrom(0, 40, 300, 8000),
	instructionsMaxChars: fc.constantFrom(0, 100, 4000),
	// 0 keeps every entry; a small target makes generated branches cut their log (render/log-cut.ts).
	logTargetTokens: fc.constantFrom(0, 150, 600, 10000),
});

const modeArb = fc.constantFrom("consult", "review") as fc.Arbitrary<"consult" | "review">;

function options(config: LedgerConfig = DEFAULT_LEDGER_CONFIG, extra: Partial<RenderOptions> = {}): RenderOptions {
	return { config, catalogue: CATALOGUE, tools: TOOLS, toolsMode: "repo", mode: "consult", ...extra };
}

describe("invariant 1: prefix", () => {
	it("(a) for any branch P and extension B of it, render(B) starts with render(P) minus its appendix, question and instruction — compactions between them included; only the log's own cut moving forward makes an exception", () => {
		let extended = 0;
		let compacted = 0;
		fc.assert(
			fc.property(prefixCutArb(), configArb, modeArb, ({ events, prefix }, config, mode) => {
				const stateP = ledgerOf(prefix);
				const stateB = ledgerOf(events);
				const p = renderRequest(stateP, options(config, { mode }));
				const b = renderRequest(stateB, options(config));
				const same = expectExtendsOrCutMoved(
					{ state: stateP, request: p },
					{ state: stateB, request: b },
					options(config),
				);
				if (!same) return;
				extended++;
				if (events.slice(prefix.length).some((e) => e.kind === "compaction")) compacted++;
				// Only the appendix (and question, instruction) are left out: every log block of P kept is there.
				const cut = logCut(stateP, options(config));
				const kept =
					cut === undefined || cut.firstSegment < stateP.closed.length
						? stateP.open.length
						: stateP.open.length - cut.firstBlock;
				const lead = cut !== undefined && cut.firstSegment >= stateP.closed.length ? 1 : 0;
				expect(p.stable.partCount).toBe(1 + lead + kept);
			}),
			{ numRuns: RUNS },
		);
		// Not vacuous: most pairs share their cut, and some of those have a compaction between them.
		expect(extended).toBeGreaterThan(RUNS / 2);
		expect(compacted).toBeGreaterThan(0);
	});

	it("(b) a consultation's stable parts stay whole and in place in every later request that holds its result and the same cut", () => {
		fc.assert(
			fc.property(sessionArb({ minSteps: 4 }), configArb, (session, config) => {
				const read = readSession(session.jsonl);
				const events = read.events;
				const index = new Map(events.map((e, i) => [e.id, i]));
				for (const c of session.consultations) {
					const resultAt = index.get(c.resultEntryId);
					if (resultAt === undefined) continue; // consultation on an abandoned branch
					const stateD = ledgerOf(events.slice(0, resultAt));
					const dispatch = renderRequest(stateD, options(config, { inFlightCallId: c.callId }));
					let end = events.length;
					for (let i = resultAt + 1; i < events.length; i++) {
						if (isBoundary(events[i]!)) {
							end = i;
							break;
						}
					}
					for (const upTo of new Set([resultAt + 1, Math.floor((resultAt + 1 + end) / 2), end])) {
						const stateL = ledgerOf(events.slice(0, upTo));
						// The log's own cut moving forward is the one step that rewrites the prefix.
						if (leftOut(stateL, options(config)) !== leftOut(stateD, options(config))) continue;
						expectStableUnitsInPlace(dispatch, renderRequest(stateL, options(config)));
					}
				}
			}),
			{ numRuns: RUNS },
		);
	});
});

/** A fixed trim anchor chosen on `state` (as chooseTrim would: a stable item), with an optional tail cap. */
function fixedTrim(
	state: LedgerState,
	config: LedgerConfig,
	at: number,
	caps: number | undefined,
): RenderTrim | undefined {
	const candidates = trimCandidates(state, { config });
	if (candidates.length === 0) return undefined;
	const trim: RenderTrim = { anchorEntryId: candidates[pickIndex(at, candidates.length)]! };
	if (caps !== undefined) trim.tailCaps = caps;
	return trim;
}

const capsArb = fc.option(fc.constantFrom(4000, 2000, 1000, 500), { nil: undefined });
const unit = fractionArb;

describe("invariant 1: prefix, under trimming with a fixed anchor", () => {
	it("(a) with the anchor fixed at P, the stable part of render(P) is a byte prefix of render(B)", () => {
		fc.assert(
			fc.property(prefixCutArb(), configArb, unit, capsArb, ({ events, prefix }, config, anchorAt, caps) => {
				const stateP = ledgerOf(prefix);
				const trim = fixedTrim(stateP, config, anchorAt, caps);
				if (trim === undefined) return;
				const stateB = ledgerOf(events);
				const p = renderRequest(stateP, options(config, { trim }));
				const b = renderRequest(stateB, options(config, { trim }));
				expectExtendsOrCutMoved(
					{ state: stateP, request: p },
					{ state: stateB, request: b },
					options(config, { trim }),
				);
			}),
			{ numRuns: RUNS },
		);
	});

	it("(b) a trimmed consultation's stable parts stay whole and in place in every later request with the same anchor", () => {
		fc.assert(
			fc.property(sessionArb({ minSteps: 4 }), configArb, unit, capsArb, (session, config, anchorAt, caps) => {
				const events = readSession(session.jsonl).events;
				const index = new Map(events.map((e, i) => [e.id, i]));
				for (const c of session.consultations) {
					const resultAt = index.get(c.resultEntryId);
					if (resultAt === undefined) continue;
					const stateD = ledgerOf(events.slice(0, resultAt));
					const trim = fixedTrim(stateD, config, anchorAt, caps);
					if (trim === undefined) continue;
					const dispatch = renderRequest(stateD, options(config, { inFlightCallId: c.callId, trim }));
					let end = events.length;
					for (let i = resultAt + 1; i < events.length; i++) {
						if (isBoundary(events[i]!)) {
							end = i;
							break;
						}
					}
					for (const upTo of new Set([resultAt + 1, Math.floor((resultAt + 1 + end) / 2), end])) {
						const stateL = ledgerOf(events.slice(0, upTo));
						if (leftOut(stateL, options(config, { trim })) !== leftOut(stateD, options(config, { trim })))
							continue;
						expectStableUnitsInPlace(dispatch, renderRequest(stateL, options(config, { trim })));
					}
				}
			}),
			{ numRuns: RUNS },
		);
	});
});

/** Finished rounds of the open segment in log order, then the calls still running; `id` is the id shown. */
function openRounds(state: LedgerState): { round: Round; id: string; pending: boolean }[] {
	const finished = state.open
		.toArray()
		.flatMap((b) => (b.kind === "round" ? [{ round: b.round, id: ordinalId(b.pos), pending: false }] : []));
	const pending = state.pendingCalls.toArray().map((p) => ({
		round: unansweredRound(p),
		id: ordinalId(p.callPos),
		pending: true,
	}));
	return [...finished, ...pending];
}

/**
 * The blocks the log keeps after `cut`, in order; `afterCut`: nothing but prose lies between the block
 * and the cut, so a card there cannot point at the card above it, which is left out.
 */
function keptBlocks(state: LedgerState, cut: LogCut | undefined): { block: Block; afterCut: boolean }[] {
	const out: { block: Block; afterCut: boolean }[] = [];
	const segments = [...state.closed.map((s) => s.blocks), state.open.toArray()];
	segments.forEach((blocks, s) => {
		if (cut !== undefined && s < cut.firstSegment) return;
		const from = cut !== undefined && s === cut.firstSegment ? cut.firstBlock : 0;
		let afterCut = from > 0;
		for (const block of blocks.slice(from)) {
			out.push({ block, afterCut });
			if (block.kind !== "prose") afterCut = false;
		}
	});
	return out;
}

/** `#id tool[ argument][ · size][ · ✗ error | · no result | · running]` (render/card.ts cardLine). */
const CARD_RE =
	/^#[A-Za-z0-9_.:-]+ \S+( [^\n]*?)?( · (\d+(\.\d)?[kM]?( \+ \d+ images?)?|\d+ images?))?( · (✗( .+)?|no result|running))?$/;

describe("invariant 2: card/tail split", () => {
	it("every round is exactly one single-line card part of the log; the newest tailToolCalls are also verbatim in the appendix", () => {
		fc.assert(
			fc.property(sessionArb(), configArb, (session, config) => {
				const state = ledgerOf(eventsOf(session.jsonl));
				const req = renderRequest(state, options(config));
				const parts = framing(req);
				const rounds = keptBlocks(state, logCut(state, options(config))).flatMap(({ block, afterCut }) =>
					block.kind === "round"
						? [{ id: ordinalId(block.pos), round: block.round, previous: afterCut ? undefined : block.previous }]
						: [],
				);
				// Each round block the log keeps is its own part: one line, its card, in log order — tail rounds included.
				const cardParts = parts.filter((p) => /^#\S+ \S/.test(p));
				expect(cardParts).toEqual(rounds.map((r) => cardLine(r.id, r.round, r.round.status, r.previous)));
				// A card says SAME_PATH only in place of the path, or the command, of the card right above it in the log.
				rounds.forEach((r, i) => {
					const card = cardParts[i]!;
					if (!card.includes(` ${SAME_PATH}`)) return;
					expect(r.previous).toBe(rounds[i - 1]?.round);
					const path = cardPath(r.round.call, r.round.cwd);
					if (path === undefined) {
						const command = shellCommand(r.round.call);
						const above = shellCommand(r.previous!.call);
						expect(command).toBeDefined();
						expect(above).toBeDefined();
						expect(commandText(above!, r.previous!.cwd)).toBe(commandText(command!, r.round.cwd));
						return;
					}
					expect(cardPath(r.previous!.call, r.previous!.cwd)).toBe(path);
					expect(card.replace(` ${SAME_PATH}`, ` ${path}`)).toBe(cardLine(r.id, r.round));
				});
				for (const card of cardParts) {
					expect(card.indexOf("\n")).toBe(card.length - 1);
					expect(card.slice(0, -1)).toMatch(CARD_RE);
				}
				// The appendix: at most one part, in the open message right after its last log block.
				const appendixAt = parts.flatMap((p, i) => (p.startsWith(`${APPENDIX_HEADER}\n`) ? [i] : []));
				expect(appendixAt.length).toBeLessThanOrEqual(1);
				const last = buildContext(req).messages.at(-1)!.content as { text: string }[];
				const appendix = appendixAt.length === 1 ? parts[appendixAt[0]!]! : "";
				if (appendixAt.length === 1) {
					expect(last[req.stable.partCount]!.text).toBe(appendix);
					expect(last[req.stable.partCount + 1]!.text.startsWith(LOG_CLOSE)).toBe(true);
				}
				const open = openRounds(state);
				const tail = open.slice(Math.max(0, open.length - config.tailToolCalls));
				const verbatim = parts
					.join("")
					.split("\n")
					.filter((l) => l.startsWith("[tool #"));
				expect(verbatim.length).toBe(tail.length);
				tail.forEach((r, i) => {
					expect(verbatim[i]!.startsWith(`[tool #${displayId(r.id)}] `)).toBe(true);
				});
				const tailText = appendix.split("\n").filter((l) => l.startsWith("[tool #"));
				expect(tailText).toEqual(verbatim);
				// Calls still running that are older than the tail are running cards, in the appendix only.
				const olderPending = open.slice(0, open.length - tail.length).filter((r) => r.pending);
				for (const r of olderPending) expect(appendix).toContain(cardLine(r.id, r.round, "running"));
			}),
			{ numRuns: RUNS },
		);
	});
});

describe("invariant 3: user words", () => {
	it("every user message on the branch appears verbatim (or head + tail around a gap) exactly once", () => {
		fc.assert(
			fc.property(sessionArb(), configArb, (session, config) => {
				const events = eventsOf(session.jsonl);
				const text = messageText(renderRequest(ledgerOf(events), options(config)));
				for (const [i, e] of events.entries()) {
					if (e.kind !== "user") continue;
					// The header names the message's path position.
					const header = `[user #${ordinalId(i + 1)}]\n`;
					// As a line of its own: a forged copy inside executor text is escaped (`\[user #…`).
					expect(`\n${text}`.split(`\n${header}`).length - 1).toBe(1);
					expect(text).toContain(`${header}${userBody(e.parts, config)}\n`);
				}
			}),
			{ numRuns: RUNS },
		);
	});
});

describe("invariant 4: roles", () => {
	it("executor content only in user messages, past advice only as assistant turns, ending on the instruction", () => {
		fc.assert(
			fc.property(
				sessionArb(),
				fc.constantFrom("consult", "review") as fc.Arbitrary<"consult" | "review">,
				(session, mode) => {
					const state = ledgerOf(eventsOf(session.jsonl));
					const req = renderRequest(state, options(DEFAULT_LEDGER_CONFIG, { mode }));
					const messages = buildContext(req).messages;
					const assistants = messages.filter((m) => m.role === "assistant");
					const firstKept = logCut(state, options(DEFAULT_LEDGER_CONFIG, { mode }))?.firstSegment ?? 0;
					expect(assistants.length).toBe(state.closed.length - firstKept);
					expect(messages.every((m) => m.role === "user" || m.role === "assistant")).toBe(true);
					const last = messages.at(-1)!;
					expect(last.role).toBe("user");
					const parts = last.content as { type: string; text: string }[];
					expect(parts.at(-1)!.text).toBe(mode === "consult" ? CONSULT_INSTRUCTION : REVIEW_INSTRUCTION);
					// Closed segment k kept is user message 1 + 2k, its advice 2 + 2k.
					state.closed.slice(firstKept).forEach((segment, k) => {
						expect(messages[1 + 2 * k]!.role).toBe("user");
						expect(messages[2 + 2 * k]!.role).toBe("assistant");
						const advice = (messages[2 + 2 * k]!.content as { text: string }[])[0]!.text;
						expect(neutralise(segment.advice).startsWith(advice.split("\n[… ")[0]!)).toBe(true);
					});
				},
			),
			{ numRuns: RUNS },
		);
	});
});

describe("invariant 5: purity", () => {
	it("folding in any split gives the same state and the same bytes; folding never mutates its input", () => {
		fc.assert(
			fc.property(
				sessionArb(),
				fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
				(session, cuts) => {
					const events = eventsOf(session.jsonl);
					const batch = ledgerOf(events);
					const points = [...new Set(cuts.map((c) => Math.floor(c * events.length)))].sort((a, b) => a - b);
					let state = ledgerOf([]);
					let from = 0;
					for (const p of [...points, events.length]) {
						const before = JSON.stringify(state);
						const next = foldLedger(state, events.slice(from, p));
						expect(JSON.stringify(state)).toBe(before);
						state = next;
						from = p;
					}
					expect(state).toEqual(batch);
					const a = renderRequest(batch, options(), createRenderMemo());
					const b = renderRequest(state, options(), createRenderMemo());
					expect(JSON.stringify(buildContext(b))).toBe(JSON.stringify(buildContext(a)));
					expect(b.hash).toBe(a.hash);
				},
			),
			{ numRuns: RUNS },
		);
	});

	it("the same session text always renders the same bytes (ids, order and hashes included)", () => {
		fc.assert(
			fc.property(sessionArb(), (session) => {
				const one = renderRequest(ledgerOf(eventsOf(session.jsonl)), options(), createRenderMemo());
				const two = renderRequest(ledgerOf(eventsOf(session.jsonl)), options(), createRenderMemo());
				expect(JSON.stringify(two)).toBe(JSON.stringify(one));
			}),
			{ numRuns: RUNS },
		);
	});
});

/** The text of every message part, in order (no role markers, no system prompt). */
function messageText(req: LedgerRequest): string {
	return framing(req).join("");
}

function count(haystack: string, needle: string): number {
	return haystack.split(needle).length - 1;
}

function framing(req: LedgerRequest) {
	const parts = buildContext(req).messages.flatMap((m) =>
		typeof m.content === "string" ? [m.content] : m.content.map((p) => (p.type === "text" ? p.text : "")),
	);
	return parts;
}

describe("invariant 6: no embedded images, no forged framing", () => {
	it("the request holds no image and executor text can neither close nor open the log or a section", () => {
		fc.assert(
			fc.property(sessionArb(), (session) => {
				const state = ledgerOf(eventsOf(session.jsonl));
				const req = renderRequest(state, options());
				const json = JSON.stringify(buildContext(req));
				expect(json).not.toContain('"type":"image"');
				expect(json).not.toContain("iVBORw0KGgo");
				const text = messageText(req);
				// One log per segment the request keeps (the log's own size may leave out the oldest).
				const kept = state.closed.slice(logCut(state, options())?.firstSegment ?? 0);
				const logs = kept.length + 1;
				expect(count(text.toLowerCase(), "<executor_log>")).toBe(logs);
				expect(count(text.toLowerCase(), "</executor_log>")).toBe(logs);
				const consultations = kept.filter((s) => s.closedBy === "consultation").length + 1;
				expect(count(text, "<question>")).toBe(consultations);
				expect(count(text, "</question>")).toBe(consultations);
				// The framing parts are exactly where the layout puts them.
				const parts = framing(req);
				expect(parts.filter((p) => p === LOG_OPEN).length).toBe(logs);
				expect(parts.filter((p) => p.startsWith(LOG_CLOSE)).length).toBe(logs);
				// Every block header line names a position on the branch (or an abandoned branch's user message,
				// by entry id: it is off the path).
				const known = new Set<string>();
				for (let i = 1; i <= state.events.length; i++) known.add(ordinalId(i));
				const onPath = new Set(state.events.toArray().map((e) => e.id));
				for (const e of readSession(session.jsonl).entries) if (!onPath.has(e.id)) known.add(displayId(e.id));
				for (const line of text.split("\n")) {
					const m = /^\[(user|executor|tool|reasoning|compaction|branch summary|note|shell) #([^\]\s]+)\]/.exec(
						line,
					);
					if (m) expect(known.has(m[2]!)).toBe(true);
					// A capped prose block's mark names its entry too.
					const prose = /^»#(\S+) /.exec(line);
					if (prose) expect(known.has(prose[1]!)).toBe(true);
				}
				// Only the request's own appendix opens a line with its header.
				expect(text.split("\n").filter((line) => line.startsWith("[appendix]")).length).toBeLessThanOrEqual(1);
			}),
			{ numRuns: RUNS },
		);
	});
});
