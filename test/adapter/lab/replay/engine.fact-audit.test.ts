/**
 * The fact audit in the replay (docs/request-format.md#the-fact-audit): at every point, the facts
 * the branch holds against the ledger request and against Pi's context at the same point.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generateSession } from "../../../../bench/generate.ts";
import { replayText } from "../../../../src/adapter/lab/replay/engine.ts";

const sample = (name: string) => readFileSync(new URL(`../../../../samples/${name}`, import.meta.url), "utf8");

describe("replay audits the facts at every point", () => {
	it("a compaction: the ledger re-states the user's words, Pi's context keeps the kept span only", () => {
		const [session] = replayText("compaction.jsonl", sample("compaction.jsonl"), {
			every: 10,
			allLeaves: false,
		}).sessions;
		const facts = session!.facts;
		expect(facts.ledger.user).toEqual({ total: 6, carried: 6 });
		expect(facts.baseline.user).toEqual({ total: 6, carried: 2 });
		// The test run before the compaction: the compaction block carries its summary line, Pi's summary does not.
		expect(facts.ledger.test).toEqual({ total: 1, carried: 1 });
		expect(facts.baseline.test).toEqual({ total: 1, carried: 0 });
		expect(facts.ledgerShare).toBeGreaterThan(facts.baselineShare!);
	});

	it("each point's counts add up to the session's, and a fact counts at every point that holds it", () => {
		const { sessions } = replayText("taskq.jsonl", sample("long/taskq.jsonl"), { every: 10, allLeaves: false });
		const session = sessions[0]!;
		let users = 0;
		for (const point of session.points) users += point.facts.ledger.user.total;
		expect(session.facts.ledger.user.total).toBe(users);
		// Facts only accumulate (failures resolve, but user words never leave the branch).
		const perPoint = session.points.map((p) => p.facts.ledger.user.total);
		expect([...perPoint].sort((a, b) => a - b)).toEqual(perPoint);
	});

	it("the incremental audit gives what an audit of each point on its own gives", () => {
		const { jsonl } = generateSession(600, 7);
		const whole = replayText("gen.jsonl", jsonl, { every: 5, allLeaves: false }).sessions[0]!;
		const lines = jsonl.split("\n");
		// Replaying the file cut right after a point audits that point from scratch.
		for (const point of whole.points.slice(0, 6)) {
			const at = lines.findIndex((l) => l.includes(`"id":"${point.atEntryId}"`));
			const cut = `${lines.slice(0, at + 1).join("\n")}\n`;
			const alone = replayText("cut.jsonl", cut, { every: 5, allLeaves: false }).sessions[0]!;
			expect(alone.points.at(-1)!.facts).toEqual(point.facts);
		}
	});
});
