/**
 * The estimate eval shows before it sends anything says why it holds fewer points than --points
 * asked (docs/eval.md): the sessions hold fewer, or some are too large for the advisor's window.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { estimateRun, planRun } from "../../../../src/adapter/lab/eval/eval-plan.ts";
import { loadSession } from "../../../../src/adapter/lab/eval/eval-points.ts";
import { fewerPointsLine, renderEstimate } from "../../../../src/adapter/lab/eval/report-text.ts";
import { DEFAULT_PRIVACY } from "../../../../src/events/index.ts";
import { samplesDir } from "../../../support/cli-build.ts";

/** Prices and a window of 0 (unknown: every point fits), all the plan and the estimate read of a model. */
const model = { contextWindow: 0, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } };

describe("the estimate's point count", () => {
	it("--points 20 on a sample with fewer points: one line saying how many were asked, estimated and why", () => {
		const session = loadSession("tools.jsonl", readFileSync(join(samplesDir, "tools.jsonl"), "utf8"));
		const plan = planRun(
			[session],
			{ count: 20, arms: ["ledger", "full"], seed: "1", privacy: DEFAULT_PRIVACY },
			model,
		);
		const found = session.points.length;
		expect(found).toBeLessThan(20);
		expect(plan.points).toHaveLength(found);
		const text = renderEstimate(
			estimateRun(plan.points, model, model, () => false),
			{ points: plan.points.length, asked: 20, available: plan.available, tooLarge: plan.tooLarge },
			3,
		);
		const lines = text.split("\n");
		expect(lines[0]).toBe(`Estimate for ${found} points (prompt estimated, output at its cap, no cache):`);
		expect(lines[1]).toBe(
			`  ${found} of the 20 points asked (--points 20): the sessions read hold ${found} consultation points.`,
		);
	});

	it("names the points too large for the advisor's window, and says nothing when every point asked was drawn", () => {
		expect(fewerPointsLine({ points: 5, asked: 12, available: 9, tooLarge: 4 })).toBe(
			"  5 of the 12 points asked (--points 12): the sessions read hold 9 consultation points, 4 of them skipped as too large for the advisor's context window.",
		);
		expect(fewerPointsLine({ points: 1, asked: 3, available: 1, tooLarge: 0 })).toBe(
			"  1 of the 3 points asked (--points 3): the sessions read hold 1 consultation point.",
		);
		expect(fewerPointsLine({ points: 12, asked: 12, available: 40, tooLarge: 0 })).toBeUndefined();
	});
});
