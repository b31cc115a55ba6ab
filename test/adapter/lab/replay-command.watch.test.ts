/**
 * `replay --watch --json` on a bundled sample (docs/cli.md, "replay --watch"): the report gains a
 * top-level `watch` and one per session, and nothing else changes — without the flag the JSON is
 * byte for byte the report it always was (test/fixtures/replay-report pins that).
 */

import { describe, expect, it } from "vitest";
import type { ReplayReport } from "../../../src/adapter/lab/report/replay-report.ts";
import { replay } from "../../support/replay-fixtures.ts";

const SAMPLE = "samples/long/gjc-raddit-dashboard-pr.jsonl";

describe("replay --watch --json", () => {
	it("adds the watch, per session and in total, and leaves every other figure as it was", async () => {
		const watched = await replay([SAMPLE, "--watch", "--json"]);
		expect(watched.stderr).toBe("");
		expect(watched.code).toBe(0);
		const report = JSON.parse(watched.stdout) as ReplayReport;
		const [session] = report.sessions;
		const w = report.watch!;
		expect(typeof w.reviews).toBe("number");
		expect(w.reviews).toBe(session!.watch!.reviews);
		expect(w.reviews).toBeGreaterThan(0);
		expect(w.share).toBeGreaterThan(0);
		expect(w.share).toBeLessThanOrEqual(w.settings.maxShare);
		expect(w.settings.enabled).toBe(true);
		// The tool that kept failing to reach the server: its third failure woke the watch.
		const streak = session!.watch!.reviewed.find((r) => r.signal === "failure-streak");
		expect(streak).toMatchObject({ card: "73" });
		expect(streak!.reason).toContain("`browser` failed 3 times with no pass between (#6x, #6z, #73)");
		// Each review on a line of its own, as the points are.
		expect(watched.stdout).toMatch(/\n +\{"atEntryId":"[^"]+","card":"73","signal":"failure-streak"/);

		const plain = await replay([SAMPLE, "--json"]);
		expect(plain.stdout).not.toContain('"watch"');
		const { watch: _watch, sessions, ...rest } = report;
		const without = JSON.parse(plain.stdout) as ReplayReport;
		expect(sessions.map(({ watch: _, ...s }) => s)).toEqual(without.sessions);
		const { sessions: _s, ...withoutRest } = without;
		expect(rest).toEqual(withoutRest);
	});
});
