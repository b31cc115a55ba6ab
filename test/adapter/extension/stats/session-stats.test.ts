// `/advisor stats` and `advisor-ledger stats`: every figure is the sum of the session's own records
// (checked against the raw entries on generated trees), and the full-context figure is the replay's
// own baseline at the same consultations.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inventoryMessage } from "../../../../src/adapter/extension/baseline/messages.ts";
import { costLine } from "../../../../src/adapter/extension/pi/notices.ts";
import { sessionStats, sumScopes } from "../../../../src/adapter/extension/stats/session-stats.ts";
import { statsLines } from "../../../../src/adapter/extension/stats/stats-text.ts";
import { replayText } from "../../../../src/adapter/lab/replay/engine.ts";
import { statsOfText } from "../../../../src/adapter/lab/stats-command.ts";
import { readSession } from "../../../../src/events/index.ts";

/** Sonnet 4.5 as pi-ai lists it: the CLI prices the full-context figure with it. */
const MODEL = "anthropic:claude-sonnet-4-5";
const TS = "2026-01-01T00:00:00.000Z";

interface Usage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	totalTokens: number;
	cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

const usage = (input: number, output: number, cacheRead: number, cacheWrite: number): Usage => {
	const cost = {
		input: (input * 3) / 1e6,
		output: (output * 15) / 1e6,
		cacheRead: (cacheRead * 0.3) / 1e6,
		cacheWrite: (cacheWrite * 3.75) / 1e6,
		total: 0,
	};
	cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
	return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
};

function sum(list: readonly Usage[]): Usage {
	return list.reduce(
		(a, b) => {
			const out = usage(
				a.input + b.input,
				a.output + b.output,
				a.cacheRead + b.cacheRead,
				a.cacheWrite + b.cacheWrite,
			);
			out.cost.total = a.cost.total + b.cost.total;
			out.cost.output = a.cost.output + b.cost.output;
			return out;
		},
		{ ...usage(0, 0, 0, 0), cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
	);
}

type Step =
	| { kind: "work"; chars: number }
	| { kind: "consult"; outcome: "ok" | "failed" | "skipped"; attempts: [number, number, number, number][] }
	| { kind: "review"; attempts: [number, number, number, number][] }
	| { kind: "warming"; prompt: number }
	| { kind: "fork"; back: number };

const tokens = fc.tuple(fc.nat(30_000), fc.nat(2_000), fc.nat(60_000), fc.nat(20_000));
const stepArb: fc.Arbitrary<Step> = fc.oneof(
	fc.record({ kind: fc.constant("work" as const), chars: fc.integer({ min: 10, max: 3_000 }) }),
	fc.record({
		kind: fc.constant("consult" as const),
		outcome: fc.constantFrom("ok" as const, "failed" as const, "skipped" as const),
		attempts: fc.array(tokens, { minLength: 0, maxLength: 4 }),
	}),
	fc.record({ kind: fc.constant("review" as const), attempts: fc.array(tokens, { minLength: 0, maxLength: 3 }) }),
	fc.record({ kind: fc.constant("warming" as const), prompt: fc.integer({ min: 1, max: 50_000 }) }),
	fc.record({ kind: fc.constant("fork" as const), back: fc.integer({ min: 1, max: 6 }) }),
);

type Entry = Record<string, unknown> & { id: string; parentId: string | null };

/** A session tree from steps: work, consultations, reviews and refreshes; a fork goes back a few entries. */
function build(steps: readonly Step[]): { jsonl: string; entries: Entry[] } {
	const entries: Entry[] = [];
	let leaf: string | null = null;
	let n = 0;
	const add = (entry: Record<string, unknown>): Entry => {
		const full = { ...entry, id: (++n).toString(16).padStart(8, "0"), parentId: leaf, timestamp: TS } as Entry;
		entries.push(full);
		leaf = full.id;
		return full;
	};
	const message = (m: Record<string, unknown>) => add({ type: "message", message: { ...m, timestamp: 0 } });
	const assistant = (content: unknown[]) =>
		message({
			role: "assistant",
			content,
			api: "x",
			provider: "p",
			model: "m",
			usage: usage(1, 1, 0, 0),
			stopReason: "toolUse",
		});
	message({ role: "user", content: "Build the thing." });
	let call = 0;
	for (const step of steps) {
		switch (step.kind) {
			case "work": {
				const id = `w${++call}`;
				assistant([{ type: "toolCall", id, name: "read", arguments: { path: "src/a.ts" } }]);
				message({
					role: "toolResult",
					toolCallId: id,
					toolName: "read",
					content: [{ type: "text", text: "x".repeat(step.chars) }],
					isError: false,
				});
				break;
			}
			case "consult": {
				const id = `a${++call}`;
				assistant([
					{ type: "text", text: "Right?" },
					{ type: "toolCall", id, name: "advisor", arguments: {} },
				]);
				const attempts = step.outcome === "skipped" ? [] : step.attempts.map((t) => usage(...t));
				const details: Record<string, unknown> = { advisorModel: MODEL };
				if (attempts.length > 0) {
					details.usage = sum(attempts);
					details.attempts = attempts.map((u) => ({ usage: u, stopReason: "stop" }));
				}
				if (step.outcome === "skipped") Object.assign(details, { skipped: true, errorMessage: "over budget" });
				if (step.outcome === "failed") Object.assign(details, { errorMessage: "boom", stopReason: "error" });
				const text = step.outcome === "ok" ? "Severity: none\nFine." : "Advisor call failed";
				message({
					role: "toolResult",
					toolCallId: id,
					toolName: "advisor",
					content: [{ type: "text", text }],
					details,
					isError: false,
				});
				break;
			}
			case "review": {
				const attempts = step.attempts.map((t) => usage(...t));
				const data: Record<string, unknown> = {
					kind: "review",
					model: MODEL,
					usage: sum(attempts),
					timestampMs: 0,
					answerEntryId: leaf,
				};
				if (attempts.length > 0) data.attempts = attempts.map((u) => ({ usage: u, stopReason: "stop" }));
				add({ type: "custom", customType: "advisor-usage", data });
				break;
			}
			case "warming":
				add({
					type: "custom",
					customType: "advisor-usage",
					data: { kind: "warming", model: MODEL, usage: usage(0, 1, step.prompt, 0), timestampMs: 0 },
				});
				break;
			case "fork": {
				const at = Math.max(0, entries.length - 1 - step.back);
				leaf = entries[at]!.id;
				break;
			}
		}
	}
	const header = { type: "session", version: 3, id: "stats-session", timestamp: TS, cwd: "/work/project" };
	return { jsonl: `${[header, ...entries].map((e) => JSON.stringify(e)).join("\n")}\n`, entries };
}

/** What the raw records of some entries add up to, computed here from the JSON alone. */
function expected(entries: readonly Entry[]) {
	const out = {
		consultations: 0,
		ok: 0,
		failed: 0,
		skipped: 0,
		reviews: 0,
		warming: 0,
		requests: 0,
		fresh: 0,
		read: 0,
		write: 0,
		output: 0,
		usd: 0,
	};
	const take = (u: Usage | undefined) => {
		if (u === undefined) return;
		out.fresh += u.input;
		out.read += u.cacheRead;
		out.write += u.cacheWrite;
		out.output += u.output;
		out.usd += u.cost.total;
	};
	for (const e of entries) {
		const m = e.message as { role?: string; toolName?: string; details?: Record<string, unknown> } | undefined;
		if (e.type === "message" && m?.role === "toolResult" && m.toolName === "advisor") {
			const d = m.details!;
			out.consultations++;
			if (d.skipped === true) out.skipped++;
			else if (d.errorMessage !== undefined) out.failed++;
			else out.ok++;
			out.requests += (d.attempts as unknown[] | undefined)?.length ?? 0;
			take(d.usage as Usage | undefined);
		}
		if (e.type === "custom" && e.customType === "advisor-usage") {
			const d = e.data as { kind: string; usage: Usage; attempts?: unknown[] };
			if (d.kind === "review") out.reviews++;
			else out.warming++;
			const billed = d.usage.input + d.usage.cacheRead + d.usage.cacheWrite + d.usage.output > 0;
			out.requests += d.attempts?.length ?? (billed ? 1 : 0);
			take(d.usage);
		}
	}
	return out;
}

function figures(s: ReturnType<typeof sessionStats>["branch"]) {
	const c = s.consultations;
	return {
		consultations: c.total,
		ok: c.ok,
		failed: c.failed,
		skipped: c.skipped,
		reviews: s.reviews,
		warming: s.warming,
		requests: s.requests,
		fresh: s.tokens.fresh,
		read: s.tokens.cacheRead,
		write: s.tokens.cacheWrite,
		output: s.tokens.output,
		usd: s.usd,
	};
}

function onPath(entries: readonly Entry[], leaf: string): Entry[] {
	const byId = new Map(entries.map((e) => [e.id, e]));
	const out: Entry[] = [];
	for (let e = byId.get(leaf); e !== undefined; e = e.parentId === null ? undefined : byId.get(e.parentId))
		out.unshift(e);
	return out;
}

describe("the numbers are the sums of the session's records", () => {
	it("for the branch and for the whole session, on generated trees", () => {
		fc.assert(
			fc.property(fc.array(stepArb, { minLength: 1, maxLength: 30 }), (steps) => {
				const { jsonl, entries } = build(steps);
				const stats = statsOfText(jsonl);
				if (typeof stats === "string") throw new Error(stats);
				const branch = onPath(entries, entries.at(-1)!.id);
				const want = expected(branch);
				const got = figures(stats.stats.branch);
				expect({ ...got, usd: undefined }).toEqual({ ...want, usd: undefined });
				expect(got.usd).toBeCloseTo(want.usd, 10);
				const whole = stats.stats.session ?? stats.stats.branch;
				expect(stats.stats.session === null).toBe(branch.length === entries.length);
				const all = expected(entries);
				expect({ ...figures(whole), usd: undefined }).toEqual({ ...all, usd: undefined });
				expect(figures(whole).usd).toBeCloseTo(all.usd, 10);
				// The cache share is the read tokens over the billed prompt tokens.
				const prompt = want.fresh + want.read + want.write;
				expect(stats.stats.branch.cacheShare).toBe(prompt > 0 ? want.read / prompt : null);
				// The costliest are the most expensive consultations and reviews, in order.
				const costs = stats.stats.branch.biggest.map((b) => b.usd);
				expect(costs).toEqual([...costs].sort((a, b) => b - a));
			}),
			{ numRuns: 60 },
		);
	});
});

describe("the full-context figure is the replay's baseline at the same consultations", () => {
	it("same tokens as the replay reports there, priced at the recorded model's prices; the ledger's side is the first requests as billed", () => {
		const steps: Step[] = [
			{ kind: "work", chars: 2_000 },
			{
				kind: "consult",
				outcome: "ok",
				attempts: [
					[5_000, 100, 0, 5_000],
					[200, 50, 10_000, 300],
				],
			},
			{ kind: "work", chars: 40_000 },
			{ kind: "work", chars: 3_000 },
			{ kind: "consult", outcome: "ok", attempts: [[800, 120, 9_000, 800]] },
			{ kind: "consult", outcome: "skipped", attempts: [] },
			{ kind: "work", chars: 9_000 },
			{ kind: "consult", outcome: "failed", attempts: [[700, 0, 9_500, 700]] },
		];
		const { jsonl, entries } = build(steps);
		const stats = statsOfText(jsonl);
		if (typeof stats === "string") throw new Error(stats);
		const full = stats.stats.branch.fullContext;
		const replay = replayText("s", jsonl, { every: 10, allLeaves: false }).sessions[0]!;
		const billed = replay.points.filter((p) => p.billed !== undefined);
		expect(full.points).toBe(3);
		expect(full.priced).toBe(3);
		expect(full.baselineTokens).toBe(billed.reduce((n, p) => n + p.baseline, 0));
		const firsts = entries
			.map(
				(e) =>
					(e.message as { details?: { attempts?: { usage: Usage }[] } } | undefined)?.details?.attempts?.[0]
						?.usage,
			)
			.filter((u): u is Usage => u !== undefined);
		expect(full.ledgerTokens).toBe(firsts.reduce((n, u) => n + u.input + u.cacheRead + u.cacheWrite, 0));
		expect(full.ledgerUsd).toBeCloseTo(
			firsts.reduce((n, u) => n + u.cost.total - u.cost.output, 0),
			12,
		);
		// Sonnet's prices, breakpoint caching: the first point is all written (3.75/M), later ones read what they share.
		expect(full.baselineUsd).toBeGreaterThan((billed[0]!.baseline * 3.75) / 1e6);
		expect(full.baselineUsd).toBeLessThan((full.baselineTokens * 3.75) / 1e6);
	});

	it("a consultation cancelled before its first request was billed is on neither side", () => {
		const billed: Step[] = [
			{ kind: "work", chars: 2_000 },
			{ kind: "consult", outcome: "ok", attempts: [[5_000, 100, 0, 5_000]] },
			{ kind: "work", chars: 8_000 },
		];
		const cancelled: Step = { kind: "consult", outcome: "failed", attempts: [[0, 0, 0, 0]] };
		const last: Step = { kind: "consult", outcome: "ok", attempts: [[400, 80, 5_000, 900]] };
		const stats = (steps: Step[]) => {
			const s = statsOfText(build(steps).jsonl);
			if (typeof s === "string") throw new Error(s);
			return s.stats.branch;
		};
		const without = stats([...billed, last]);
		const withCancelled = stats([...billed, cancelled, last]);
		// Counted as a failed consultation with one request, billed nothing…
		expect(withCancelled.consultations).toMatchObject({ total: 3, failed: 1 });
		expect(withCancelled.requests).toBe(without.requests + 1);
		// …and left out of the comparison: no $0.000 beside a priced full context, and the last point's full
		// context is cached from the billed point before it, as if the cancelled one had not been there.
		expect(withCancelled.fullContext.points).toBe(2);
		expect(withCancelled.fullContext.priced).toBe(2);
		expect(withCancelled.fullContext.ledgerUsd).toBeCloseTo(without.fullContext.ledgerUsd, 12);
		expect(withCancelled.fullContext.ledgerTokens).toBe(without.fullContext.ledgerTokens);
		// The cancelled call's own toolCall and result add a few tokens to the last point's context.
		expect(withCancelled.fullContext.baselineTokens).toBeGreaterThan(without.fullContext.baselineTokens);
		expect(withCancelled.fullContext.baselineTokens).toBeLessThan(without.fullContext.baselineTokens + 100);
		expect(withCancelled.fullContext.baselineUsd).toBeLessThan(without.fullContext.baselineUsd * 1.02);
	});

	it("a model the registry has no prices for is counted and left out of the sums", () => {
		const { jsonl } = build([{ kind: "consult", outcome: "ok", attempts: [[100, 10, 0, 0]] }]);
		const read = readSession(jsonl);
		const stats = sessionStats({
			entries: read.entries,
			path: read.path,
			inventory: inventoryMessage([]),
			price: () => undefined,
		});
		expect(stats.branch.fullContext).toMatchObject({ points: 1, priced: 0, ledgerUsd: 0, baselineUsd: 0 });
		expect(statsLines(stats)).toContain("  full context: no prices for the advisor model of the 1 consultation");
	});
});

describe("the text", () => {
	it("pins the lines of a small session", () => {
		const { jsonl } = build([
			{
				kind: "consult",
				outcome: "ok",
				attempts: [
					[1_000, 100, 0, 1_000],
					[50, 20, 2_000, 60],
				],
			},
			{ kind: "warming", prompt: 2_000 },
			{ kind: "review", attempts: [[10, 5, 2_000, 10]] },
		]);
		const stats = statsOfText(jsonl);
		if (typeof stats === "string") throw new Error(stats);
		const lines = statsLines(stats.stats);
		expect(lines[0]).toBe("Advisor on this branch");
		expect(lines[1]).toBe("  1 consultation, 1 review, 1 warming refresh");
		expect(lines[2]).toBe(
			"  4 requests: 1,060 fresh + 6,000 cache read + 1,070 cache write prompt tokens, 126 output",
		);
		expect(lines[3]).toMatch(/^ {2}\$0\.\d{3}, 74% of prompt tokens from cache$/);
		expect(lines.at(-1)).toBe("The whole session is this branch.");
		expect(lines).toContain(
			`    ${costLine(stats.stats.branch.biggest[0]!.usd, 2, 2_000 / 4_110)} — consultation at #3`,
		);
	});

	it("the sum of several sessions adds every count and leaves the costliest out", () => {
		const one = statsOfText(build([{ kind: "consult", outcome: "ok", attempts: [[100, 10, 0, 0]] }]).jsonl);
		const two = statsOfText(build([{ kind: "warming", prompt: 500 }]).jsonl);
		if (typeof one === "string" || typeof two === "string") throw new Error("no stats");
		const total = sumScopes([one.stats.branch, two.stats.branch]);
		expect(total.requests).toBe(2);
		expect(total.warming).toBe(1);
		expect(total.consultations.total).toBe(1);
		expect(total.usd).toBeCloseTo(one.stats.branch.usd + two.stats.branch.usd, 12);
		expect(total.biggest).toEqual([]);
		// stats --json writes the sum in this order: the costliest after the full-context figures.
		expect(Object.keys(total)).toEqual([
			"consultations",
			"reviews",
			"warming",
			"requests",
			"tokens",
			"usd",
			"cacheShare",
			"watch",
			"unusable",
			"fullContext",
			"biggest",
		]);
		expect(total.tokens).toEqual({
			fresh: one.stats.branch.tokens.fresh + two.stats.branch.tokens.fresh,
			cacheRead: one.stats.branch.tokens.cacheRead + two.stats.branch.tokens.cacheRead,
			cacheWrite: one.stats.branch.tokens.cacheWrite + two.stats.branch.tokens.cacheWrite,
			output: one.stats.branch.tokens.output + two.stats.branch.tokens.output,
		});
	});
});
