/**
 * The audit along a branch (adapter/lab/audit/branch-audit.ts) on hand-made branches: the moves the property
 * test meets only now and then, each checked against the audit of every fact.
 */
import { describe, expect, it } from "vitest";
import { auditBranch } from "../../../../src/adapter/lab/audit/branch-audit.ts";
import {
	type AuditUnits,
	auditUnits,
	createAuditMemo,
	type FactCounts,
	unitsOf,
} from "../../../../src/adapter/lab/audit/fact-audit.ts";
import {
	branchFacts,
	emptyFacts,
	type Fact,
	type FactState,
	factsSinceHorizon,
	foldFacts,
	type HorizonFacts,
	lostFacts,
} from "../../../../src/adapter/lab/audit/index.ts";
import { readSession } from "../../../../src/events/index.ts";
import { emptyLedger, foldLedger } from "../../../../src/reducers/index.ts";
import { buildSession, type CallPlan, type Step } from "../../../support/session-gen.ts";

const fact = (category: Fact["category"], text: string): Fact => Object.freeze({ category, text });
const units = (...texts: string[]): AuditUnits =>
	unitsOf(
		texts.map((text) => ({ key: text, text })),
		(u) => u.key,
		(u) => u.text,
	);

describe("a unit volatile at one audit and stable at the next, at the same place", () => {
	const foo = fact("identifier", "foo");
	// `foo` is missing, then only in a volatile unit, then that unit is stable: it is carried there.
	const points: [AuditUnits, number][] = [
		[units("head"), 1],
		[units("head", "about `foo`"), 1],
		[units("head", "about `foo`", "more"), 3],
		[units("head", "about `foo`", "more", "and more"), 4],
	];

	it("is searched as a new unit by the audit of a list", () => {
		const memo = createAuditMemo();
		for (const [us, stable] of points)
			expect(auditUnits(us, stable, [foo], memo, "ledger").counts.identifier).toEqual(
				auditUnits(us, stable, [foo], createAuditMemo(), "ledger").counts.identifier,
			);
	});

	it("and by the audit along a branch", () => {
		const session = buildSession([{ t: "turn", prose: "use `foo`", thinking: "", calls: [], order: [] }]);
		const state = foldFacts(emptyFacts(), readSession(session.jsonl).events);
		expect(branchFacts(state)).toContainEqual(foo);
		const memo = createAuditMemo();
		const carried = points.map(([us, stable]) => auditBranch(us, stable, state, undefined, memo, "ledger").counts);
		expect(carried.map((c) => c.identifier.carried)).toEqual([0, 1, 1, 1]);
	});
});

/** A bash call that fails with `text`. */
const failing = (command: string, text: string): CallPlan => ({
	tool: "bash",
	arg: command,
	text,
	outcome: "error",
	image: false,
});
const turn = (...calls: CallPlan[]): Step => ({
	t: "turn",
	prose: "",
	thinking: "",
	calls,
	order: calls.map((_, i) => i),
});

/** Every point of the branch (one per event), audited along it and from scratch, on Pi's side as written. */
function auditEveryEvent(plan: Step[]): { along: (FactCounts | undefined)[]; lost: ({ total: number } | undefined)[] } {
	const session = buildSession(plan);
	const { events, header } = readSession(session.jsonl);
	const cwd = header?.cwd;
	const memo = createAuditMemo();
	let state = emptyLedger(cwd);
	let facts: FactState = emptyFacts(cwd);
	let since: HorizonFacts | undefined;
	const along: FactCounts[] = [];
	const lost: ({ total: number } | undefined)[] = [];
	for (let upTo = 1; upTo <= events.length; upTo++) {
		const more = events.slice(upTo - 1, upTo);
		state = foldLedger(state, more);
		facts = foldFacts(facts, more);
		since = factsSinceHorizon(since, state.horizon, events, upTo - 1, upTo, cwd);
		// Pi's context: from the horizon on, one unit per event.
		const from = since === undefined ? 0 : since.from - 1;
		const context = unitsOf(
			events.slice(from, upTo),
			(e) => e,
			(e) => JSON.stringify(e),
		);
		const result = auditBranch(context, context.length, facts, since, memo, "written");
		const fresh = auditUnits(
			context,
			context.length,
			branchFacts(facts),
			createAuditMemo(),
			"written",
			lostFacts(since),
		);
		expect(result.counts).toEqual(fresh.counts);
		expect(result.lost).toEqual(since === undefined ? undefined : fresh.lost);
		along.push(result.counts);
		lost.push(result.lost);
	}
	return { along, lost };
}

describe("the facts the executor lost, along a branch", () => {
	it("an open failure lost at the horizon is held again when another command fails with its line after it", () => {
		const { lost } = auditEveryEvent([
			{ t: "user", text: "build it", long: false, images: 0 },
			turn(failing("make a", "boom: the parser")),
			turn(failing("make b", "other")),
			{ t: "compaction", keep: 0.99, summary: "checkpoint" },
			turn(failing("make c", "boom: the parser")),
		]);
		const totals = lost.map((l) => l?.total);
		// Lost after the compaction, held again once `make c` fails the same way.
		expect(totals.some((t) => t !== undefined && t > 0)).toBe(true);
		expect(totals.at(-1)).toBeLessThan(Math.max(...totals.map((t) => t ?? 0)));
	});

	it("a user's words lost at the horizon are held again when the user says them again", () => {
		const { lost } = auditEveryEvent([
			{ t: "user", text: "keep the cache", long: false, images: 0 },
			turn(failing("make a", "boom")),
			{ t: "user", text: "then ship", long: false, images: 0 },
			turn(failing("make b", "bang")),
			{ t: "compaction", keep: 0.99, summary: "checkpoint" },
			{ t: "user", text: "keep the cache", long: false, images: 0 },
		]);
		const totals = lost.map((l) => l?.total ?? 0);
		expect(Math.max(...totals)).toBeGreaterThan(totals.at(-1)!);
	});
});
