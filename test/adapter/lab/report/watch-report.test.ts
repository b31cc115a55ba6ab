/**
 * The replay report's watch figures (src/adapter/lab/report/watch-report.ts) and their text section
 * (text-watch.ts): a session's from its reviews, the whole report's summed, the share null when the
 * executor's tokens price to nothing, and the section within 100 columns, every review behind --wide.
 */

import { describe, expect, it } from "vitest";
import { DEFAULT_WATCH_CONFIG } from "../../../../src/adapter/extension/config/watch.ts";
import type { ReplayReport, SessionReport } from "../../../../src/adapter/lab/report/replay-report.ts";
import { plain } from "../../../../src/adapter/lab/report/text-format.ts";
import { watchLines } from "../../../../src/adapter/lab/report/text-watch.ts";
import {
	type ExecutorSpend,
	emptySkips,
	reuseStats,
	sessionWatch,
	type WatchReviewReport,
	watchTotals,
} from "../../../../src/adapter/lab/report/watch-report.ts";

const review = (card: string, signal: WatchReviewReport["signal"], usd: number, reuse?: number): WatchReviewReport => ({
	atEntryId: `e-${card}`,
	card,
	signal,
	reason: `why ${card} ${"and more words ".repeat(8)}`,
	tokens: 5000,
	usd: { tokenPrefix: usd, breakpoint: usd + 0.002 },
	...(reuse === undefined ? {} : { reuse }),
});

const spend = (usd: number): ExecutorSpend => ({
	input: 10,
	output: 20,
	cacheRead: 30,
	cacheWrite: 40,
	usd,
	recordedUsd: 0,
});

describe("the watch's figures", () => {
	const a = sessionWatch(
		[review("2", "failure-streak", 0.04), review("9", "long-run", 0.03, 0.95), review("k", "long-run", 0.05, 0.5)],
		{ ...emptySkips(), cooldown: 1 },
		spend(2),
	);
	const b = sessionWatch([review("4", "untested-edits", 0.01)], { ...emptySkips(), overShare: 2 }, spend(0));

	it("a session's: reviews by signal, dollars at the dearer cache model, the share, reuse over consecutive reviews", () => {
		expect(a.reviews).toBe(3);
		expect(a.bySignal).toEqual({ "failure-streak": 1, "long-run": 2, "untested-edits": 0 });
		expect(a.usd).toBeCloseTo(0.042 + 0.032 + 0.052, 6);
		expect(a.byCacheModel).toEqual({ tokenPrefix: 0.12, breakpoint: 0.126 });
		expect(a.share).toBe(0.063);
		expect(a.reuse).toEqual({ pairs: 2, p50: 0.725, mean: 0.725, min: 0.5 });
	});

	it("no executor spend: no share (never a division by nothing)", () => {
		expect(b.share).toBeNull();
		expect(b.reuse).toEqual({ pairs: 0, p50: null, mean: null, min: null });
	});

	it("the whole report's: every session's summed, the settings and the allowance it ran with", () => {
		const t = watchTotals([a, b], { ...DEFAULT_WATCH_CONFIG, enabled: true }, 2000);
		expect(t.reviews).toBe(4);
		expect(t.bySignal).toEqual({ "failure-streak": 1, "long-run": 2, "untested-edits": 1 });
		expect(t.skipped).toEqual({ cooldown: 1, promptCap: 0, overShare: 2 });
		expect(t.executor).toMatchObject({ input: 20, output: 40, usd: 2 });
		expect(t.share).toBe(0.069);
		expect(t.reuse.pairs).toBe(2);
		expect(t).toMatchObject({ outputTokens: 2000, settings: { enabled: true, longRunRounds: 50 } });
	});

	it("reuse statistics: median of an even count is the mean of the middle two", () => {
		expect(reuseStats([0.9, 0.1, 0.95, 0.97])).toEqual({ pairs: 4, p50: 0.925, mean: 0.73, min: 0.1 });
	});

	describe("the text section", () => {
		const session = (file: string, watch: SessionReport["watch"]) => ({ file, leafId: null, watch }) as SessionReport;
		const report = {
			sessions: [
				session("samples/long/a-very-long-session-file-name-that-needs-cutting.jsonl", a),
				session("samples/b.jsonl", b),
			],
			options: { every: 10, allLeaves: false, inputs: [] },
			watch: watchTotals([a, b], { ...DEFAULT_WATCH_CONFIG, enabled: true }, 2000),
		} as unknown as ReplayReport;

		it("nothing without --watch", () => {
			expect(watchLines({ ...report, watch: undefined }, plain, { wide: false })).toEqual([]);
		});

		it("a row per session and the total, within 100 columns; every review only with --wide", () => {
			const lines = watchLines(report, plain, { wide: false });
			for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100);
			const total = lines.find((l) => l.startsWith("total"))!;
			expect(total.split(/\s+/)).toEqual(["total", "4", "1", "1", "2", "3", "$0.1380", "$2.00", "0.0690", "0.72"]);
			expect(lines.join("\n")).toContain("--wide lists every review");
			expect(lines.join("\n")).not.toContain("#9 long-run");
			const wide = watchLines(report, plain, { wide: true }).join("\n");
			expect(wide).toContain("samples/long/a-very-long-session-file-name-that-needs-cutting.jsonl #9 long-run");
			expect(wide).toContain("samples/b.jsonl #4 untested-edits");
		});
	});
});
