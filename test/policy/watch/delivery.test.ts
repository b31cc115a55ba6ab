/** What a settled watch review becomes, and the record every review leaves. */
import { describe, expect, it } from "vitest";
import { parseUsageRecordData } from "../../../src/events/index.ts";
import {
	deliveredToExecutor,
	RECORDED_ADVICE_CHARS,
	watchDelivery,
	watchUsageRecord,
} from "../../../src/policy/watch/delivery.ts";
import type { WatchFinding } from "../../../src/reducers/index.ts";

const running = { holds: true, runActive: true, wokeThisPrompt: false };
const ended = { holds: true, runActive: false, wokeThisPrompt: false };

describe("watchDelivery: by severity, if what woke the watch still holds", () => {
	it.each([
		["Severity: none\nall good", running, "none"],
		["Severity: nit\nrename x", running, "kept"],
		["no verdict line at all", running, "kept"],
		["Severity: concern\nstop retrying", running, "steered"],
		["Severity: concern\nstop retrying", ended, "queued"],
		["**Severity:** blocker\nrevert", running, "steered"],
		["Severity: blocker\nrevert", ended, "turn"],
		["Severity: blocker\nrevert", { ...ended, wokeThisPrompt: true }, "queued"],
		["Severity: blocker\nrevert", { ...running, holds: false }, "stale"],
		["Severity: concern\nx", { ...ended, holds: false }, "stale"],
		["   ", running, "none"],
	] as const)("%j %j → %s", (advice, state, delivery) => {
		expect(watchDelivery(advice, state).delivery).toBe(delivery);
	});
	it("only steered, queued and turn reach the executor", () => {
		expect(
			(["steered", "turn", "queued", "kept", "stale", "none", "not-reviewed"] as const).filter(deliveredToExecutor),
		).toEqual(["steered", "turn", "queued"]);
	});
});

describe("watchUsageRecord: one record per review, read back by the spend and the watch", () => {
	const finding: WatchFinding = {
		signal: "long-run",
		key: "long-run\u00000\u00001",
		rounds: 40,
		editRounds: 3,
		sinceStart: true,
	};
	it("round-trips through the lenient parser, advice kept only when not delivered, capped", () => {
		const kept = watchUsageRecord({
			model: "anthropic:claude-opus-4-5",
			usage: { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, totalTokens: 10, cost: { total: 0.02 } },
			finding,
			atEntryId: "e1",
			outcome: "advice",
			delivery: "kept",
			severity: "nit",
			advice: `Severity: nit\n${"x".repeat(5000)}`,
			timestampMs: 5,
		});
		expect(kept.advice).toHaveLength(RECORDED_ADVICE_CHARS);
		expect(parseUsageRecordData(JSON.parse(JSON.stringify(kept)))).toEqual(kept);
		const steered = watchUsageRecord({
			...kept,
			finding,
			outcome: "advice",
			delivery: "steered",
			advice: "Severity: concern\nx",
			timestampMs: 5,
			model: "m",
			usage: {},
			atEntryId: "e1",
		});
		expect(steered.advice).toBeUndefined();
		expect(steered).toMatchObject({
			kind: "watch",
			signal: "long-run",
			watchKey: finding.key,
			atEntryId: "e1",
			delivery: "steered",
		});
	});
	it("a review's watch fields are dropped from other kinds when read back", () => {
		const record = {
			kind: "review",
			model: "m",
			usage: {},
			timestampMs: 1,
			signal: "long-run",
			watchKey: "k",
			delivery: "kept",
		};
		expect(parseUsageRecordData(record)).toEqual({ kind: "review", model: "m", usage: {}, timestampMs: 1 });
	});
});
