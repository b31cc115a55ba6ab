// Properties of the replay report, in-process over generated sessions (the same generator as the
// ledger invariants): totals are sums over points, lists agree with the points, and the
// incremental replay builds the same bytes as folding from scratch.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replayText } from "../../../../src/adapter/lab/replay/engine.ts";
import { advisorPoints, simulatedPoints } from "../../../../src/adapter/lab/replay/points.ts";
import { DEFAULT_PRICE_MODEL, resolvePriceModel } from "../../../../src/adapter/lab/report/price-lookup.ts";
import type { ReplayReport } from "../../../../src/adapter/lab/report/replay-report.ts";
import { buildReport, percentile } from "../../../../src/adapter/lab/report/report-totals.ts";
import { readSession } from "../../../../src/events/index.ts";
import { sessionArb } from "../../../support/session-gen.ts";

const RUNS = Math.min(60, Number(process.env.FC_RUNS ?? 60));

function report(files: { name: string; jsonl: string }[], every: number, allLeaves: boolean): ReplayReport {
	const replays = files.map((f) => replayText(f.name, f.jsonl, { every, allLeaves, scratchSamples: 2 }));
	return buildReport(
		replays.flatMap((r) => r.sessions),
		replays.map((r) => r.diagnostics),
		[],
		{ every, allLeaves, inputs: files.map((f) => f.name) },
		resolvePriceModel(DEFAULT_PRICE_MODEL),
	);
}

const filesArb = fc
	.array(sessionArb({ maxSteps: 25 }), { minLength: 1, maxLength: 3 })
	.map((sessions) => sessions.map((s, i) => ({ name: `gen-${i}.jsonl`, jsonl: s.jsonl })));

describe("the JSON report", () => {
	it("ledger and baseline totals equal the sums over its points, per session and overall", () => {
		fc.assert(
			fc.property(filesArb, fc.integer({ min: 1, max: 6 }), fc.boolean(), (files, every, allLeaves) => {
				const r = JSON.parse(JSON.stringify(report(files, every, allLeaves))) as ReplayReport;
				const points = r.sessions.flatMap((s) => s.points);
				expect(r.points).toBe(points.length);
				expect(r.tokens.ledger.total).toBe(points.reduce((n, p) => n + p.ledger, 0));
				expect(r.tokens.baseline.total).toBe(points.reduce((n, p) => n + p.baseline, 0));
				for (const s of r.sessions) {
					expect(s.tokens.ledger.total).toBe(s.points.reduce((n, p) => n + p.ledger, 0));
					expect(s.tokens.baseline.total).toBe(s.points.reduce((n, p) => n + p.baseline, 0));
					expect(s.largerThanBaseline.length).toBe(s.points.filter((p) => p.ledger > p.baseline).length);
					expect(s.timing.mismatches).toBe(0);
				}
				expect(r.tokens.ledger.max).toBe(points.reduce((m, p) => Math.max(m, p.ledger), 0));
				expect(r.tokens.ledger.p50).toBe(
					percentile(
						points.map((p) => p.ledger),
						50,
					),
				);
				expect(r.largerThanBaseline.length).toBe(points.filter((p) => p.ledger > p.baseline).length);
				expect(r.billed.prompt).toBe(points.reduce((n, p) => n + (p.billed?.prompt ?? 0), 0));
				expect(r.userMessages.missing).toBe(0);
			}),
			{ numRuns: RUNS },
		);
	});
});

describe("the prompt-cache tally", () => {
	it("splits every side's prompts exactly, shares stay in 0…1, totals are sums over sessions", () => {
		fc.assert(
			fc.property(filesArb, fc.integer({ min: 1, max: 6 }), fc.boolean(), (files, every, allLeaves) => {
				const r = JSON.parse(JSON.stringify(report(files, every, allLeaves))) as ReplayReport;
				const sides = ["baseline", "ledger"] as const;
				const models = ["tokenPrefix", "breakpoint"] as const;
				for (const unit of [r, ...r.sessions]) {
					for (const side of sides) {
						for (const model of models) {
							const split = unit.cache[side][model];
							expect(split.read + split.write + split.uncached).toBe(split.prompt);
							expect(split.prompt).toBe(unit.tokens[side].total);
						}
						expect(unit.cache[side].tokenPrefix.write).toBe(0);
						// Breakpoints write everything they do not read, except prompts too small to cache at all.
						const points = "sessions" in unit ? unit.sessions.flatMap((x) => x.points) : unit.points;
						const small = points.map((p) => p[side]).filter((n) => n < r.cacheRule.minTokens);
						expect(unit.cache[side].breakpoint.uncached).toBe(small.reduce((a, b) => a + b, 0));
						expect(unit.cache[side].effective).toBeLessThanOrEqual(unit.tokens[side].total);
					}
				}
				for (const side of sides) {
					for (const model of models) {
						expect(r.cache[side][model].read).toBe(r.sessions.reduce((n, s) => n + s.cache[side][model].read, 0));
					}
				}
				for (const s of r.sessions) {
					s.points.forEach((p, i) => {
						// A session's first consultation has nothing to repeat; every later one has both shares.
						expect(p.baselineCacheShare === undefined).toBe(i === 0);
						expect(p.cacheShare === undefined).toBe(i === 0);
						for (const share of [p.baselineCacheShare, p.cacheShare]) {
							if (share === undefined) continue;
							for (const v of [share.tokenPrefix, share.breakpoint]) {
								expect(v).toBeGreaterThanOrEqual(0);
								expect(v).toBeLessThanOrEqual(1);
							}
						}
						// The baseline's breakpoints sit at the inventory and the end: never more than the prefix.
						if (p.baselineCacheShare !== undefined)
							expect(p.baselineCacheShare.breakpoint).toBeLessThanOrEqual(p.baselineCacheShare.tokenPrefix);
					});
				}
				expect(r.price?.model).toBe("anthropic/claude-sonnet-4-5");
			}),
			{ numRuns: RUNS },
		);
	});
});

describe("consultation points", () => {
	it("real points are the advisor calls on the path; simulated ones never split a batch and end at the leaf", () => {
		fc.assert(
			fc.property(sessionArb({ maxSteps: 30 }), fc.integer({ min: 1, max: 5 }), (session, every) => {
				const events = readSession(session.jsonl).events;
				const real = advisorPoints(events);
				const calls = events.flatMap((e) =>
					e.kind === "assistant" ? e.calls.filter((c) => c.name === "advisor").map((c) => c.id) : [],
				);
				expect(real.map((p) => p.callId).sort()).toEqual([...calls].sort());
				for (const p of real) {
					const next = events[p.upTo];
					if (next !== undefined) expect(next.kind === "toolResult" && next.callId === p.callId).toBe(true);
				}
				const simulated = simulatedPoints(events, every);
				if (events.length > 0) expect(simulated.at(-1)!.upTo).toBe(events.length);
				for (const p of simulated) {
					// The entry after a point is never a result of the batch the point closed.
					const last = events[p.upTo - 1]!;
					const next = events[p.upTo];
					if (last.kind === "toolResult" && next?.kind === "toolResult") {
						const owner = events.findLast((e, i) => i < p.upTo && e.kind === "assistant");
						const ids = owner?.kind === "assistant" ? owner.calls.map((c) => c.id) : [];
						expect(ids).not.toContain(next.callId);
					}
				}
				expect(new Set(simulated.map((p) => p.upTo)).size).toBe(simulated.length);
			}),
			{ numRuns: RUNS },
		);
	});
});
