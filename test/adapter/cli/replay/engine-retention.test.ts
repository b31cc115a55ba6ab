/**
 * A replay's memory follows the branch, not the number of points (docs/decisions.md): once a point
 * is measured only its figures stay — no request, folded state or baseline — except at the one
 * point the next branch of an --all-leaves replay resumes from. Structural checks, not sizes or
 * timings (the audit's text cache: test/render/fact-audit.test.ts).
 */

import { describe, expect, it } from "vitest";
import { generateSession, generateTree } from "../../../../bench/generate.ts";
import {
	createReplayShared,
	type ReplayOptions,
	type ReplayShared,
	replayBranch,
} from "../../../../src/adapter/cli/replay/engine.ts";
import { calledToolNames, sessionTools } from "../../../../src/adapter/cli/replay/tool-set.ts";
import { emptyDiagnostics } from "../../../../src/adapter/cli/report/report.ts";
import {
	type EntryRecord,
	listLeaves,
	migrateEntries,
	normalizeBranch,
	parseSessionText,
	selectBranch,
} from "../../../../src/events/index.ts";

const options: ReplayOptions = { every: 2, allLeaves: true, scratchSamples: 0 };

function branchesOf(jsonl: string) {
	const parsed = parseSessionText(jsonl);
	const entries = migrateEntries(parsed);
	const tools = sessionTools(parsed.header?.cwd ?? process.cwd(), calledToolNames(entries));
	const leaves = listLeaves(entries).map((e) => e.id);
	return leaves.map((leaf) => {
		const { path } = selectBranch(entries, leaf);
		return {
			leaf,
			path,
			input: {
				file: "s.jsonl",
				sessionId: null,
				leafId: leaf,
				cwd: parsed.header?.cwd,
				path,
				events: normalizeBranch(path, entries),
				tools,
				branchDiagnostics: emptyDiagnostics(),
				readerDiagnostics: emptyDiagnostics(),
			},
		};
	});
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
	return shared.trail.filter((step) => "resume" in step).length;
}

describe("what a replay keeps of its points", () => {
	it("keeps figures only: no point of a single branch holds a request, a state or a baseline", () => {
		const [branch] = branchesOf(generateSession(1500, 11, { consultations: false, textScale: 0.05 }).jsonl);
		const shared = createReplayShared(0);
		const report = replayBranch(branch!.input, options, shared);
		expect(report.points.length).toBeGreaterThan(40);
		expect(shared.trail).toHaveLength(report.points.length);
		expect(kept(shared)).toBe(0);
		const heavy = [...reachable(shared.trail)].filter(isHeavy);
		expect(heavy).toEqual([]);
		expect([...reachable(report)].filter(isHeavy)).toEqual([]);
	});

	it("keeps the state of the one point the next branch resumes from, and no other", () => {
		const branches = branchesOf(generateTree(600, 6, 5).jsonl);
		const shared = createReplayShared(0);
		branches.forEach((branch, i) => {
			const next: readonly EntryRecord[] = branches[i + 1]?.path ?? [];
			replayBranch(branch.input, options, shared, next);
			let common = 0;
			while (common < next.length && next[common] === branch.path[common]) common++;
			const resumable = shared.trail.filter((step) => step.point.upTo <= common);
			expect(kept(shared)).toBe(resumable.length > 0 ? 1 : 0);
			if (resumable.length > 0) expect(resumable.at(-1)!.resume).toBeDefined();
		});
	});
});
