// What the replay reports a consultation cost: billed (replay/point-bill.ts, from the recorded attempts) and
// estimated (replay/point-estimate.ts, the extension's own estimate), on the bundled samples and on
// generated sessions with recorded attempts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replayText } from "../../../../src/adapter/lab/replay/engine.ts";
import { DEFAULT_PRICE_MODEL, resolvePriceModel } from "../../../../src/adapter/lab/report/price-lookup.ts";
import type { PointReport, ReplayReport, UsageSplit } from "../../../../src/adapter/lab/report/replay-report.ts";
import { buildReport } from "../../../../src/adapter/lab/report/report-totals.ts";
import { PRIOR } from "../../../../src/policy/index.ts";
import { sampleText } from "../../../support/cli-build.ts";
import { type Entry, sessionArb } from "../../../support/session-gen.ts";

const RUNS = Math.min(40, Number(process.env.FC_RUNS ?? 40));

function replay(files: { name: string; jsonl: string }[]): ReplayReport {
	const replays = files.map((f) => replayText(f.name, f.jsonl, { every: 3, allLeaves: false, scratchSamples: 0 }));
	return buildReport(
		replays.flatMap((r) => r.sessions),
		replays.map((r) => r.diagnostics),
		[],
		{ every: 3, allLeaves: false, inputs: files.map((f) => f.name) },
		resolvePriceModel(DEFAULT_PRICE_MODEL),
	);
}

const advisorPoints = (r: ReplayReport): PointReport[] =>
	r.sessions.flatMap((s) => s.points).filter((p) => p.kind === "advisor");

describe("billed, on the bundled samples", () => {
	it("tools.jsonl: each request of a consultation as recorded, the first apart from the follow-ups; a skip bills nothing", () => {
		const points = advisorPoints(replay([{ name: "tools.jsonl", jsonl: sampleText("tools.jsonl") }]));
		expect(points.map((p) => p.callId)).toEqual(["call_tools_08", "call_tools_19", "call_tools_22"]);
		const [first, skipped, last] = points;
		expect(first!.billed).toEqual({
			prompt: 7466,
			input: 3238,
			cacheRead: 989,
			cacheWrite: 3239,
			output: 60,
			// At claude-sonnet-4-5: $3 input, $0.30 read, $3.75 write, $15 output per million.
			usd: 0.023057,
			model: "faux:faux-advisor",
			sentTokens: 2040,
			requests: 2,
			first: { prompt: 4098, input: 2049, cacheRead: 0, cacheWrite: 2049, output: 26 },
			followUps: { prompt: 3368, input: 1189, cacheRead: 989, cacheWrite: 1190, output: 34 },
			firstUsd: 0.014221,
		});
		expect(skipped!.billed).toBeUndefined();
		expect(last!.billed).toMatchObject({ requests: 2, first: { prompt: 4682 }, followUps: { prompt: 4007 } });
	});

	it("taskq.jsonl: the estimate learns the number of follow-ups from the consultations recorded before each point", () => {
		const points = advisorPoints(replay([{ name: "taskq.jsonl", jsonl: sampleText("long/taskq.jsonl") }]));
		const requests = points.map((p) => p.billed!.requests!);
		expect(requests).toEqual([2, 1, 2, 2, 1, 2]);
		expect(points.map((p) => p.estimate!.basis)).toEqual(["prior", ...Array(5).fill("history")]);
		// Before the first: the prior. Then the mean number of follow-ups of the (up to five) consultations before.
		expect(points[0]!.estimate!.followUps).toBe(PRIOR.rounds);
		for (let i = 1; i < points.length; i++) {
			const before = requests.slice(Math.max(0, i - 5), i);
			const mean = before.reduce((n, r) => n + r - 1, 0) / before.length;
			expect(points[i]!.estimate!.followUps).toBeCloseTo(mean, 4);
		}
		for (const p of points) {
			const e = p.estimate!;
			expect(e.model).toBe("faux:faux-advisor");
			expect(e.usd).toBeGreaterThanOrEqual(e.first.usd);
			expect(e.atMostUsd).toBeGreaterThan(e.usd);
		}
	});

	it("a session without advisor calls: every simulated point estimated from the prior", () => {
		const r = replay([
			{ name: "gjc.jsonl", jsonl: sampleText("long/gjc-inline-agent-design.jsonl") },
			{ name: "compaction.jsonl", jsonl: sampleText("compaction.jsonl") },
		]);
		const points = r.sessions.flatMap((s) => s.points);
		expect(points.length).toBeGreaterThan(2);
		for (const p of points) {
			expect(p.kind).toBe("simulated");
			expect(p.billed).toBeUndefined();
			expect(p.estimate).toMatchObject({ basis: "prior", followUps: PRIOR.rounds });
			expect(p.estimate!.usd).toBeGreaterThan(p.estimate!.first.usd);
		}
		expect(r.estimate.simulated).toMatchObject({ points: points.length, history: 0, followUps: 2 * points.length });
		expect(r.estimate.advisor.points).toBe(0);
		expect(r.billed.points).toBe(0);
	});
});

// ---------------------------------------------------------------------------------------------
// Property: the report's billed figures are the records' sums
// ---------------------------------------------------------------------------------------------

const usageArb = fc
	.record({ input: fc.nat(6000), output: fc.nat(800), cacheRead: fc.nat(6000), cacheWrite: fc.nat(6000) })
	.map((u) => ({
		...u,
		totalTokens: u.input + u.output + u.cacheRead + u.cacheWrite,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	}));

type RawUsage = { input: number; output: number; cacheRead: number; cacheWrite: number };

/** The call ids of the tool results on the leaf path (the file's last entry up to its root). */
function leafPathResults(entries: readonly Entry[]): Set<string> {
	const byId = new Map(entries.map((e) => [e.id, e]));
	const out = new Set<string>();
	for (let e = entries.at(-1); e !== undefined; e = e.parentId === null ? undefined : byId.get(e.parentId)) {
		const message = e.message as { role?: string; toolCallId?: string } | undefined;
		if (message?.role === "toolResult" && message.toolCallId !== undefined) out.add(message.toolCallId);
	}
	return out;
}

/** A generated session whose advisor results record attempts (one usage per request) and their sum. */
const withAttemptsArb = fc
	.tuple(sessionArb({ maxSteps: 25 }), fc.array(fc.array(usageArb, { minLength: 1, maxLength: 4 }), { maxLength: 12 }))
	.map(([session, draws]) => {
		const attempts = new Map<string, RawUsage[]>();
		session.consultations.forEach((c, i) => {
			const drawn = draws[i];
			if (c.outcome === "skipped" || drawn === undefined) return;
			attempts.set(c.callId, drawn);
		});
		const entries = session.entries.map((e) => {
			const message = e.message as { role?: string; toolCallId?: string; details?: Record<string, unknown> };
			const drawn = message?.role === "toolResult" ? attempts.get(message.toolCallId ?? "") : undefined;
			if (drawn === undefined) return e;
			const usage = drawn.reduce(
				(a, u) => ({
					input: a.input + u.input,
					output: a.output + u.output,
					cacheRead: a.cacheRead + u.cacheRead,
					cacheWrite: a.cacheWrite + u.cacheWrite,
				}),
				{ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
			);
			const details = { ...message.details, usage, attempts: drawn.map((u) => ({ usage: u, stopReason: "stop" })) };
			return { ...e, message: { ...message, details } };
		});
		const jsonl = `${[session.header, ...entries].map((e) => JSON.stringify(e)).join("\n")}\n`;
		return { attempts, jsonl, onPath: leafPathResults(entries) };
	});

const split = (u: RawUsage): UsageSplit => ({
	prompt: u.input + u.cacheRead + u.cacheWrite,
	input: u.input,
	cacheRead: u.cacheRead,
	cacheWrite: u.cacheWrite,
	output: u.output,
});

const add = (a: UsageSplit, b: UsageSplit): UsageSplit => ({
	prompt: a.prompt + b.prompt,
	input: a.input + b.input,
	cacheRead: a.cacheRead + b.cacheRead,
	cacheWrite: a.cacheWrite + b.cacheWrite,
	output: a.output + b.output,
});

const ZERO: UsageSplit = { prompt: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };

describe("billed on generated sessions", () => {
	it("each point's first request and follow-ups are its recorded attempts; the totals are the points' sums", () => {
		let splitRuns = 0;
		fc.assert(
			fc.property(fc.array(withAttemptsArb, { minLength: 1, maxLength: 2 }), (generated) => {
				const r = JSON.parse(
					JSON.stringify(replay(generated.map((g, i) => ({ name: `gen-${i}.jsonl`, jsonl: g.jsonl })))),
				) as ReplayReport;
				let first = ZERO;
				let followUps = ZERO;
				let whole = ZERO;
				let billedPoints = 0;
				let requests = 0;
				r.sessions.forEach((s, i) => {
					const { attempts, onPath } = generated[i]!;
					for (const p of s.points) {
						expect(p.estimate).toBeDefined();
						// A call whose result is not on the path (an abandoned branch) was in flight: nothing billed yet.
						const drawn = p.callId === undefined || !onPath.has(p.callId) ? undefined : attempts.get(p.callId);
						const sum = drawn?.map(split).reduce(add, ZERO);
						if (drawn === undefined || sum === undefined || sum.prompt + sum.output === 0) {
							// Generated results without drawn attempts record the generator's fixed usage, as one total.
							if (p.billed !== undefined) {
								expect(p.callId !== undefined && onPath.has(p.callId)).toBe(true);
								expect(p.billed.requests).toBeUndefined();
								whole = add(whole, p.billed);
								billedPoints++;
							}
							continue;
						}
						billedPoints++;
						const {
							usd,
							model,
							sentTokens,
							requests: n,
							first: f,
							followUps: rest,
							firstUsd,
							...total
						} = p.billed!;
						expect(total).toEqual(sum);
						expect(n).toBe(drawn.length);
						expect(f).toEqual(split(drawn[0]!));
						expect(rest).toEqual(drawn.slice(1).map(split).reduce(add, ZERO));
						expect(firstUsd!).toBeLessThanOrEqual(usd + 1e-9);
						first = add(first, f!);
						followUps = add(followUps, rest!);
						whole = add(whole, sum);
						requests += n!;
					}
				});
				const { byRequest } = r.billed;
				const tokens = ({ prompt, input, cacheRead, cacheWrite, output }: UsageSplit) => ({
					prompt,
					input,
					cacheRead,
					cacheWrite,
					output,
				});
				expect(tokens(byRequest.first)).toEqual(first);
				expect(tokens(byRequest.followUps)).toEqual(followUps);
				expect(byRequest.requests).toBe(requests);
				if (byRequest.points > 0) splitRuns++;
				expect(tokens(r.billed)).toEqual(whole);
				expect(r.billed.points).toBe(billedPoints);
				for (const s of r.sessions) {
					const points = s.points.filter((p) => p.billed !== undefined);
					expect(s.billed.points).toBe(points.length);
					expect(s.billed.prompt).toBe(points.reduce((n, p) => n + p.billed!.prompt, 0));
				}
			}),
			{ numRuns: RUNS },
		);
		// Not vacuous: runs do replay a consultation whose result recorded its requests. About 37% of
		// runs do (many generated sessions hold no consultation); over 300 seeds of 40 runs the lowest
		// count was 6 and the median 15, so the former "over 10" failed one seed in twenty. At least 3
		// fails about once in a million.
		expect(splitRuns).toBeGreaterThanOrEqual(Math.min(3, RUNS));
	});
});
