/**
 * Retention (docs/request-format.md): what every request must still carry, however long the branch and
 * whatever a compaction or a trim hid — as properties over generated sessions (200 runs, or FC_RUNS)
 * and as conformance on the recorded sessions in ../shared/sessions (skipped, visibly, when absent).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pathCarried } from "../../src/adapter/lab/audit/fact-audit.ts";
import { ADVISOR_TOOL_NAME, type LedgerEvent, readSession } from "../../src/events/index.ts";
import { trimCandidates } from "../../src/policy/budget/trim.ts";
import { failureLine } from "../../src/reducers/error-line.ts";
import { changedPaths, runKey } from "../../src/reducers/hidden-work.ts";
import { foldLedger, type LedgerState, ledgerOf, partsText } from "../../src/reducers/index.ts";
import { userBody } from "../../src/render/blocks.ts";
import { relativePath } from "../../src/render/card-argument.ts";
import { DEFAULT_LEDGER_CONFIG, type LedgerConfig } from "../../src/render/ledger-section.ts";
import { neutralise } from "../../src/render/neutralise.ts";
import { ordinalId } from "../../src/render/ordinal.ts";
import { type RenderOptions, renderRequest } from "../../src/render/request-assembly.ts";
import { flatten } from "../../src/render/request-units.ts";
import { oneLine } from "../../src/render/text-shape.ts";
import { eventsOf, fractionArb, pickIndex } from "../support/properties.ts";
import { RUNS, sessionArb } from "../support/session-gen.ts";

const CATALOGUE = [{ name: "read", description: "Read a file." }];
const options = (config: LedgerConfig, extra: Partial<RenderOptions> = {}): RenderOptions => ({
	config,
	catalogue: CATALOGUE,
	tools: [],
	toolsMode: "repo",
	mode: "consult",
	...extra,
});

interface Expectation {
	what: string;
	text: string;
	/** A path, which a compaction or trim may list in its folder's braces. */
	path?: boolean;
}

/** Everything retention promises for the branch `events`, rendered from `state`. */
function expectations(events: readonly LedgerEvent[], state: LedgerState, config: LedgerConfig): Expectation[] {
	const out: Expectation[] = [];
	const lastUserAt = events.findLastIndex((e) => e.kind === "user");
	const lastUser = events[lastUserAt];
	if (lastUser?.kind === "user") {
		// Shown by its path position.
		out.push({
			what: `last user message #${lastUser.id}`,
			text: `[user #${ordinalId(lastUserAt + 1)}]\n${userBody(lastUser.parts, config)}\n`,
		});
	}
	// The newest executor prose the ledger holds (a block, or the prose beside an advisor call).
	let newest: { at: number; text: string } | undefined;
	const index = new Map(events.map((e, i) => [e.id, i]));
	const consider = (id: string, text: string) => {
		const at = index.get(id) ?? -1;
		if (text.trim().length > 0 && (newest === undefined || at >= newest.at)) newest = { at, text };
	};
	for (const segment of [...state.closed.map((s) => s.blocks), state.open.toArray()])
		for (const block of segment) if (block.kind === "prose") consider(block.id, block.text);
	for (const segment of state.closed)
		if (segment.closedBy === "consultation") consider(segment.closingId, segment.question);
	for (const pending of state.pendingConsultations) consider(pending.callEntryId, pending.question);
	const shown = newest === undefined ? "" : neutralise(newest.text.trim());
	if (newest !== undefined && shown.length <= config.tailMaxChars)
		out.push({ what: "newest executor prose", text: shown });

	// Paths written or edited, and the newest failure no later success of the same run resolved.
	const calls = new Map<string, { name: string; arguments: Record<string, unknown>; id: string }>();
	let failing: { id: string; key: string; text: string } | undefined;
	for (const e of events) {
		if (e.kind === "assistant") for (const c of e.calls) calls.set(c.id, c);
		if (e.kind !== "toolResult" || e.toolName === ADVISOR_TOOL_NAME) continue;
		const call = calls.get(e.callId) ?? { id: e.callId, name: e.toolName, arguments: {} };
		if (!e.isError) {
			for (const p of changedPaths(call))
				out.push({ what: `changed path ${p}`, text: oneLine(neutralise(relativePath(p, state.cwd))), path: true });
			if (failing?.key === runKey(call)) failing = undefined;
		} else failing = { id: e.id, key: runKey(call), text: partsText(e.parts) };
	}
	// The card's ✗ stands for a bare `Error:` label: the line's message is what must be there.
	const line = failing === undefined ? "" : oneLine(neutralise(failureLine(failing.text)));
	if (line.length > 0) out.push({ what: `error line of #${failing!.id}`, text: line.slice(0, 60) });
	return out;
}

function expectRetained(events: readonly LedgerEvent[], state: LedgerState, flat: string, config: LedgerConfig) {
	for (const e of expectations(events, state, config)) {
		const carried = e.path === true ? pathCarried(flat, e.text) : flat.includes(e.text);
		if (!carried) expect.fail(`${e.what} is missing: ${JSON.stringify(e.text.slice(0, 200))}`);
	}
}

const configArb: fc.Arbitrary<LedgerConfig> = fc.record({
	tailToolCalls: fc.integer({ min: 0, max: 3 }),
	tailMaxChars: fc.constant(8000),
	tailResultMaxChars: fc.constantFrom(50, 2000),
	userMessageMaxChars: fc.constant(20000),
	customPreviewChars: fc.constant(500),
	proseMaxChars: fc.constantFrom(0, 40, 300),
	instructionsMaxChars: fc.constant(4000),
	// 0 keeps every entry; a small target makes generated branches cut their log (render/log-cut.ts).
	logTargetTokens: fc.constantFrom(0, 150, 600, 10000),
});

describe("retention on generated sessions", () => {
	it("the last user message, the newest prose, every changed path and the newest open error line are in the request", () => {
		fc.assert(
			fc.property(sessionArb(), configArb, (session, config) => {
				const events = eventsOf(session.jsonl);
				const state = ledgerOf(events, readSession(session.jsonl).header?.cwd);
				expectRetained(events, state, flatten(renderRequest(state, options(config))), config);
			}),
			{ numRuns: RUNS },
		);
	});

	it("…and still under any trim the budget could choose", () => {
		fc.assert(
			fc.property(sessionArb(), configArb, fractionArb, (session, config, at) => {
				const events = eventsOf(session.jsonl);
				const state = ledgerOf(events);
				const candidates = trimCandidates(state, { config });
				if (candidates.length === 0) return;
				const trim = { anchorEntryId: candidates[pickIndex(at, candidates.length)]! };
				expectRetained(events, state, flatten(renderRequest(state, options(config, { trim }))), config);
			}),
			{ numRuns: RUNS },
		);
	});
});

const sharedDir = path.resolve(import.meta.dirname, "../../../shared/sessions");
const sharedFiles = existsSync(sharedDir) ? readdirSync(sharedDir).filter((n) => n.endsWith(".jsonl")) : [];

describe("retention on the recorded sessions in ../shared/sessions", () => {
	it(`every 25 tool rounds and at the end (${sharedFiles.length} session${sharedFiles.length === 1 ? "" : "s"})`, (ctx) => {
		ctx.skip(sharedFiles.length === 0, `no sessions in ${sharedDir}`);
		for (const name of sharedFiles) {
			const read = readSession(readFileSync(path.join(sharedDir, name), "utf8"));
			const events = read.events;
			const points: number[] = [];
			let rounds = 0;
			events.forEach((e, i) => {
				if (e.kind === "toolResult" && ++rounds % 25 === 0) points.push(i + 1);
			});
			points.push(events.length);
			let state = ledgerOf([], read.header?.cwd);
			let folded = 0;
			for (const upTo of points) {
				state = foldLedger(state, events.slice(folded, upTo));
				folded = upTo;
				const flat = flatten(renderRequest(state, options(DEFAULT_LEDGER_CONFIG)));
				expectRetained(events.slice(0, upTo), state, flat, DEFAULT_LEDGER_CONFIG);
			}
		}
	}, 120_000);
});
