/**
 * The audit along a branch (adapter/lab/audit/branch-audit.ts) is the audit of every fact, counted on: at every
 * point of a generated branch — log cuts, compactions (the executor's horizon moving, Pi's context
 * starting over), branch summaries — its counts and its split of the facts the executor lost equal
 * those of `auditUnits` over `branchFacts` with a fresh memo. Also when the memo last audited another
 * state: an earlier point (a branch resumed where it parts from the one before, as `--all-leaves`
 * replays), the same events folded again, or an audit of a list in between. Wires the facts fold, the
 * ledger fold, the renderer and the audit.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { auditBranch } from "../../../../src/adapter/lab/audit/branch-audit.ts";
import {
	type AuditMemo,
	auditUnits,
	createAuditMemo,
	requestUnits,
	unitsOf,
} from "../../../../src/adapter/lab/audit/fact-audit.ts";
import {
	branchFacts,
	emptyFacts,
	type FactState,
	factsSinceHorizon,
	foldFacts,
	type HorizonFacts,
	lostFacts,
} from "../../../../src/adapter/lab/audit/index.ts";
import { type LedgerEvent, readSession } from "../../../../src/events/index.ts";
import { emptyLedger, foldLedger } from "../../../../src/reducers/index.ts";
import type { LedgerConfig } from "../../../../src/render/ledger-section.ts";
import { createRenderMemo } from "../../../../src/render/render-memo.ts";
import { type RenderOptions, renderRequest } from "../../../../src/render/request-assembly.ts";
import type { LedgerRequest } from "../../../../src/render/request-units.ts";
import { eventsOf, fractionArb, pickIndex } from "../../../support/properties.ts";
import { buildSession, type CallPlan, planArb, RUNS, type Step, sessionArb } from "../../../support/session-gen.ts";

/**
 * Texts that come back: paths read and edited again, the same commands and names, the same error
 * line from another command, a user repeating words — so that facts lost at a horizon turn up again,
 * and a missing fact in a new unit.
 */
const POOL = [
	"a",
	"fix the parser",
	"npm test",
	"Error: boom in `parseExpr`",
	"Tests 1 failed | 2 passed (3)",
	"see `foo` and src/a.ts",
	"`bar` again",
	"Error: boom in `parseExpr`\nTests 1 failed | 2 passed (3)",
];

/** The plan with its texts drawn from POOL in the order `picks` gives. */
function pooled(plan: readonly Step[], picks: readonly number[]): Step[] {
	let n = 0;
	const pick = () => POOL[picks[n++ % picks.length]! % POOL.length]!;
	const call = (c: CallPlan): CallPlan => ({ ...c, arg: pick(), text: pick() });
	return plan.map((step): Step => {
		switch (step.t) {
			case "user":
			case "custom":
				return { ...step, text: pick() };
			case "turn":
				return { ...step, prose: pick(), thinking: pick(), calls: step.calls.map(call) };
			case "consult":
				return {
					...step,
					prose: pick(),
					advice: `Severity: concern\n${pick()}`,
					sibling: step.sibling === null ? null : call(step.sibling),
				};
			case "review":
				return { ...step, advice: `Severity: nit\n${pick()}` };
			case "compaction":
			case "branch":
				return { ...step, summary: pick() };
			case "bash":
				return { ...step, command: pick(), output: pick() };
			default:
				return step;
		}
	});
}

/** Generated sessions as they come, and with their texts drawn from a small pool. */
const branchArb = fc.oneof(
	{ weight: 1, arbitrary: sessionArb({ minSteps: 10, maxSteps: 60 }) },
	{
		weight: 3,
		arbitrary: fc
			.tuple(
				planArb({ minSteps: 10, maxSteps: 60 }),
				fc.array(fc.nat(POOL.length - 1), { minLength: 1, maxLength: 12 }),
				// Compactions added: the horizon moves often, and what came before it comes back.
				fc.array(fc.tuple(fractionArb, fractionArb), { maxLength: 3 }),
			)
			.map(([plan, picks, compactions]) => {
				const steps = pooled(plan, picks);
				for (const [at, keep] of compactions)
					steps.splice(Math.floor(at * steps.length), 0, { t: "compaction", keep, summary: POOL[1]! });
				return buildSession(steps);
			}),
	},
);

const configArb: fc.Arbitrary<LedgerConfig> = fc.record({
	tailToolCalls: fc.integer({ min: 0, max: 2 }),
	tailMaxChars: fc.constant(8000),
	tailResultMaxChars: fc.constantFrom(50, 2000),
	userMessageMaxChars: fc.constant(20000),
	customPreviewChars: fc.constant(500),
	proseMaxChars: fc.constantFrom(0, 40, 300),
	instructionsMaxChars: fc.constantFrom(0, 4000),
	// A small target cuts the log of a generated branch again and again (render/log-cut.ts).
	logTargetTokens: fc.constantFrom(0, 100, 300, 10000),
});

const options = (config: LedgerConfig): RenderOptions => ({
	config,
	catalogue: [{ name: "read", description: "Read a file." }],
	tools: [],
	toolsMode: "repo",
	mode: "consult",
});

/** A point of the branch, as the replay has it. */
interface Point {
	upTo: number;
	facts: FactState;
	since: HorizonFacts | undefined;
	request: LedgerRequest;
}

/** How the context's units end: its newest events still volatile, and earlier events shown again. */
interface Volatile {
	newest: number;
	shown: number;
}

/**
 * Something like Pi's context at a point: from the executor's horizon on, one unit per event (the same
 * object while the event is), its text as written. Its newest events are volatile (stable at the next
 * point, at the same place with the same key), and after them units that show earlier events again,
 * another one at each point, from before the horizon when there is one: facts the executor lost that
 * only they carry, for a while.
 */
function contextUnits(events: readonly LedgerEvent[], point: Point, volatile: Volatile) {
	const from = point.since === undefined ? 0 : point.since.from - 1;
	const items: { key: unknown; text: string }[] = events
		.slice(from, point.upTo)
		.map((event) => ({ key: event, text: JSON.stringify(event) }));
	const stable = Math.max(0, items.length - volatile.newest);
	const before = Math.max(1, from);
	for (let k = 0; k < volatile.shown; k++) {
		const event = events[((point.upTo * 7919 + k * 104729) % 1000003) % before]!;
		items.push({ key: { point: point.upTo, k }, text: JSON.stringify(event) });
	}
	return {
		units: unitsOf(
			items,
			(u) => u.key,
			(u) => u.text,
		),
		stable,
	};
}

/** Both sides audited along the branch and from scratch: the same figures. */
function expectSameAudit(
	events: readonly LedgerEvent[],
	point: Point,
	memos: Record<"ledger" | "written", AuditMemo>,
	volatile: Volatile,
) {
	const facts = branchFacts(point.facts);
	const lost = lostFacts(point.since);
	const sides = [
		{ as: "ledger" as const, units: requestUnits(point.request), stable: point.request.stable.unitCount },
		{ as: "written" as const, ...contextUnits(events, point, volatile) },
	];
	for (const side of sides) {
		const along = auditBranch(side.units, side.stable, point.facts, point.since, memos[side.as], side.as);
		const fresh = auditUnits(side.units, side.stable, facts, createAuditMemo(), side.as, lost);
		expect(along.counts).toEqual(fresh.counts);
		expect(along.lost).toEqual(point.since === undefined ? undefined : fresh.lost);
	}
}

const stepArb = fc.record({
	/** Events folded before the next point. */
	events: fc.integer({ min: 1, max: 4 }),
	/** What the memo audits in between: nothing, an earlier point, the same events folded anew, a list. */
	detour: fc.oneof(
		{ weight: 12, arbitrary: fc.constant("none") },
		{ weight: 1, arbitrary: fc.constantFrom("earlier", "refolded", "list") },
	),
	back: fractionArb,
});

describe("property: the audit along a branch equals the audit of every fact at every point", () => {
	it("through cuts of the log, compactions, branch summaries and detours to other states", () => {
		fc.assert(
			fc.property(
				branchArb,
				configArb,
				fc.array(stepArb, { minLength: 10, maxLength: 60 }),
				fc.record({ newest: fc.integer({ min: 0, max: 2 }), shown: fc.integer({ min: 0, max: 2 }) }),
				(session, config, steps, volatile) => {
					const events = eventsOf(session.jsonl);
					const cwd = readSession(session.jsonl).header?.cwd;
					const render = createRenderMemo();
					const memos = { ledger: createAuditMemo(), written: createAuditMemo() };
					let state = emptyLedger(cwd);
					let point: Point | undefined;
					const points: Point[] = [];
					for (const step of steps) {
						const folded = point?.upTo ?? 0;
						const upTo = Math.min(events.length, folded + step.events);
						if (upTo === folded) break;
						const more = events.slice(folded, upTo);
						state = foldLedger(state, more);
						point = {
							upTo,
							facts: foldFacts(point?.facts ?? emptyFacts(cwd), more),
							since: factsSinceHorizon(point?.since, state.horizon, events, folded, upTo, cwd),
							request: renderRequest(state, options(config), render),
						};
						points.push(point);
						expectSameAudit(events, point, memos, volatile);
						if (step.detour === "earlier") {
							expectSameAudit(events, points[pickIndex(step.back, points.length)]!, memos, volatile);
						} else if (step.detour === "refolded") {
							const facts = foldFacts(emptyFacts(cwd), events.slice(0, upTo));
							expectSameAudit(events, { ...point, facts }, memos, volatile);
						} else if (step.detour === "list") {
							auditUnits(requestUnits(point.request), 0, branchFacts(point.facts), memos.ledger, "ledger");
						}
					}
				},
			),
			{ numRuns: RUNS },
		);
	});
});
