/**
 * A replay's memory follows the branch, not the number of points (docs/decisions.md): once a point
 * is measured only its figures stay — no request, folded state or baseline — except at the
 * points later branches of an --all-leaves replay resume from. Structural checks, not sizes or
 * timings (the audit's text cache: test/adapter/lab/audit/fact-audit.test.ts).
 */

import { describe, expect, it } from "vitest";
import { generateSession, generateTree } from "../../../../bench/generate.ts";
import {
	createReplayShared,
	type ReplayOptions,
	type ReplayShared,
	replayBranch,
} from "../../../../src/adapter/lab/replay/branch-replay.ts";
import {
	depthFirstLeaves,
	fileBranches,
	type PlannedBranch,
} from "../../../../src/adapter/lab/replay/file-branches.ts";
import { resumeLengths } from "../../../../src/adapter/lab/replay/point-resume.ts";
import { listLeaves, migrateEntries, parseSessionText } from "../../../../src/events/index.ts";

const options: ReplayOptions = { every: 2, allLeaves: true, scratchSamples: 0 };

/** The branches of a session as replayText replays them: in its order, each with its input and where later ones resume. */
function branchesOf(jsonl: string): { entries: ReturnType<typeof migrateEntries>; branches: PlannedBranch[] } {
	const parsed = parseSessionText(jsonl);
	return { entries: migrateEntries(parsed), branches: [...fileBranches("s.jsonl", parsed, options).branches] };
}

/** Every object reachable from `value`, each once (the trail's figures are small: a walk is cheap). */
function reachable(value: unknown, seen = new Set<object>()): Set<object> {
	if (typeof value !== "object" || value === null || seen.has(value)) return seen;
	seen.add(value);
	for (const child of Object.values(value)) reachable(child, seen);
	return seen;
}

/** An object that is a request, a folded ledger, a baseline request or cursor. */
function isHeavy(object: object): boolean {
	return (
		("units" in object && "stable" in object) ||
		("open" in object && "closed" in object) ||
		("view" in object && "tokens" in object) ||
		("list" in object && "length" in object && "chars" in object)
	);
}

function kept(shared: ReplayShared): number {
	return shared.last.trail.filter((step) => "resume" in step).length;
}

describe("what a replay keeps of its points", () => {
	it("keeps figures only: no point of a single branch holds a request, a state or a baseline", () => {
		const [branch] = branchesOf(generateSession(1500, 11, { consultations: false, textScale: 0.05 }).jsonl).branches;
		const shared = createReplayShared(0);
		const report = replayBranch(branch!.input, options, shared);
		expect(report.points.length).toBeGreaterThan(40);
		expect(shared.last.trail).toHaveLength(report.points.length);
		expect(kept(shared)).toBe(0);
		const heavy = [...reachable(shared.last.trail)].filter(isHeavy);
		expect(heavy).toEqual([]);
		expect([...reachable(report)].filter(isHeavy)).toEqual([]);
	});

	it("keeps the state of the points later branches resume from, and no other; they resume there", () => {
		const { entries, branches: order } = branchesOf(generateTree(600, 6, 5).jsonl);
		// The order replayText takes: depth first, so every branch shares the longest trunk with the one before.
		expect(order.map((b) => b.leaf)).toEqual(
			depthFirstLeaves(
				entries,
				listLeaves(entries).map((e) => e.id),
			),
		);
		expect(order.map((b) => b.keep)).toEqual(resumeLengths(order.map((b) => b.input.path)));
		const shared = createReplayShared(0);
		let resumes = 0;
		order.forEach((branch, i) => {
			const before = [...shared.last.trail];
			replayBranch(branch.input, options, shared, branch.keep);
			const lastAtOrBefore = (length: number) =>
				shared.last.trail.filter((step) => step.point.upTo <= length).at(-1);
			const expected = new Set(branch.keep.map(lastAtOrBefore).filter((step) => step !== undefined));
			expect(new Set(shared.last.trail.filter((step) => "resume" in step))).toEqual(expected);
			expect(expected.size).toBeLessThanOrEqual(new Set(branch.keep).size);
			if (i === 0) return;
			// Resumed, not replayed: where the branch parts from the one before, at a point both have (the
			// same kind: a branch without advisor calls simulates its points), it holds that branch's own step.
			const previousKeep = order[i - 1]!.keep;
			const parting = previousKeep[previousKeep.length - 1]!;
			const resumedAt = lastAtOrBefore(parting);
			const same = before.find(
				(step) => step.point.upTo === resumedAt?.point.upTo && step.point.kind === resumedAt.point.kind,
			);
			if (same !== undefined) expect(resumedAt).toBe(same);
			resumes += same === undefined ? 0 : 1;
		});
		expect(resumes).toBeGreaterThan(2);
	});
});
