/**
 * The fold and context edits (Pi 1.x): an edit changes nothing already made; what is made after it
 * — a card of a call given up on, the blocks a compaction re-makes, the words it re-states, the
 * prose the appendix repeats — is made from the edited entry, and an omitted entry makes nothing.
 */

import { describe, expect, it } from "vitest";
import { contextEditsOf, editedEvent, editedRound } from "../../src/reducers/context-edits.ts";
import { foldLedger, ledgerOf, spendOf } from "../../src/reducers/index.ts";
import {
	advice,
	assistant,
	call,
	compaction,
	contextEdit,
	resetParents,
	result,
	usageEntry,
	user,
} from "../support/events.ts";

const OMIT = "(omitted)";

describe("editedEvent", () => {
	it("applies the newest edit of the entry; omitted is undefined; other entries pass", () => {
		resetParents();
		const u = user("u1", "original words");
		const a = assistant("a1", { text: "old prose", thinking: "old", calls: [call("c1", "read", { path: "a" })] });
		const r = result("r1", "c1", "read", "old text");
		const edits = contextEditsOf({
			u1: { parts: [{ type: "text" as const, text: "new words" }], thinking: "", calls: [] },
			a1: {
				parts: [
					{ type: "text" as const, text: "p1" },
					{ type: "text" as const, text: "p2" },
				],
				thinking: "new",
				calls: [],
			},
			r1: null,
		});
		expect(editedEvent(u, edits)).toMatchObject({ kind: "user", parts: [{ text: "new words" }] });
		expect(editedEvent(a, edits)).toMatchObject({ text: "p1\n\np2", thinking: "new", calls: [] });
		expect(editedEvent(r, edits)).toBeUndefined();
		expect(editedEvent(user("u2", "x"), edits)).toMatchObject({ parts: [{ text: "x" }] });
	});

	it("editedRound: a replaced result, a replaced call message, an omitted one", () => {
		resetParents();
		const state = ledgerOf([
			assistant("a1", { thinking: "why", calls: [call("c1", "read", { path: "a.ts" })] }),
			result("r1", "c1", "read", "ORIGINAL"),
		]);
		const block = state.open.last!;
		if (block.kind !== "round") throw new Error("expected a round");
		const round = block.round;
		expect(editedRound(round, contextEditsOf({}), OMIT)).toBe(round);
		expect(
			editedRound(
				round,
				contextEditsOf({ r1: { parts: [{ type: "text", text: "NEW" }], thinking: "", calls: [] } }),
				OMIT,
			),
		).toMatchObject({ resultParts: [{ text: "NEW" }], call: { arguments: { path: "a.ts" } }, reasoning: "why" });
		expect(
			editedRound(
				round,
				contextEditsOf({ a1: { parts: [], thinking: "edited", calls: [call("c1", "read", { path: "b.ts" })] } }),
				OMIT,
			),
		).toMatchObject({
			call: { arguments: { path: "b.ts" } },
			reasoning: "edited",
			resultParts: [{ text: "ORIGINAL" }],
		});
		expect(editedRound(round, contextEditsOf({ a1: null }), OMIT)).toMatchObject({
			call: { arguments: {} },
			reasoning: "",
			resultParts: [{ text: OMIT }],
		});
	});
});

describe("the fold", () => {
	it("an edit changes no block already made", () => {
		resetParents();
		const before = ledgerOf([user("u1", "ORIGINAL"), assistant("a1", { text: "ORIGINAL prose" })]);
		const after = foldLedger(before, [contextEdit("e1", "u1", "new"), contextEdit("e2", "a1", null)]);
		expect(after.open).toEqual(before.open);
		expect(after.open.toArray()[0]).toBe(before.open.toArray()[0]);
		expect(after.contextEdits).toEqual(
			contextEditsOf({
				u1: { parts: [{ type: "text", text: "new" }], thinking: "", calls: [] },
				a1: null,
			}),
		);
		// The newest prose the appendix may repeat is gone with its message.
		expect(before.lastProse?.text).toBe("ORIGINAL prose");
		expect(after.lastProse).toBeUndefined();
	});

	it("a call given up on after its message was omitted leaves no card; after it was replaced, the replacement's call", () => {
		resetParents();
		const omitted = ledgerOf([
			assistant("a1", { calls: [call("c1", "bash", { command: "rm -rf ORIGINAL" })] }),
			contextEdit("e1", "a1", null),
			assistant("a2", { text: "next" }),
		]);
		expect(omitted.open.toArray().filter((b) => b.kind === "round")).toEqual([]);
		resetParents();
		const replaced = ledgerOf([
			assistant("a1", {
				calls: [call("c1", "bash", { command: "echo ORIGINAL" }), call("c2", "bash", { command: "ls" })],
			}),
			contextEdit("e1", "a1", { thinking: "t", calls: [call("c1", "bash", { command: "echo replaced" })] }),
			assistant("a2", { text: "next" }),
		]);
		const rounds = replaced.open.toArray().flatMap((b) => (b.kind === "round" ? [b.round] : []));
		expect(rounds.map((r) => [r.call.id, r.call.arguments, r.status, r.reasoning])).toEqual([
			["c1", { command: "echo replaced" }, "no-result", "t"],
		]);
	});

	it("a compaction re-makes its kept span as edited and re-states the user's words as edited", () => {
		resetParents();
		const state = ledgerOf([
			user("u1", "ORIGINAL request"),
			user("u2", "second request"),
			assistant("a1", { calls: [call("c1", "read", { path: "x" })] }),
			result("r1", "c1", "read", "ORIGINAL content"),
			user("u3", "ORIGINAL kept words"),
			contextEdit("e1", "u1", "edited request"),
			contextEdit("e2", "u2", null),
			contextEdit("e3", "r1", "pruned"),
			contextEdit("e4", "u3", null),
			compaction("k1", "summary", "a1"),
		]);
		const json = JSON.stringify(state.open);
		expect(json).not.toContain("ORIGINAL");
		const summary = state.open.toArray()[0]!;
		expect(summary.kind === "summary" && summary.words.map((w) => [w.id, w.parts])).toEqual([
			["u1", [{ type: "text", text: "edited request" }]],
		]);
		const round = state.open.toArray().find((b) => b.kind === "round");
		expect(round?.kind === "round" && round.round.resultParts).toEqual([{ type: "text", text: "pruned" }]);
		expect(state.open.toArray().some((b) => b.kind === "user")).toBe(false);
	});

	it("folding in pieces equals folding at once", () => {
		resetParents();
		const events = [
			user("u1", "hi"),
			assistant("a1", { calls: [call("c1", "read", { path: "x" })] }),
			result("r1", "c1", "read", "content"),
			contextEdit("e1", "r1", "pruned"),
			contextEdit("e2", "a1", null),
			compaction("k1", "s", "a1"),
			user("u2", "more"),
		];
		const whole = ledgerOf(events);
		for (let cut = 0; cut <= events.length; cut++) {
			expect(foldLedger(ledgerOf(events.slice(0, cut)), events.slice(cut))).toEqual(whole);
		}
	});
});

describe("Pi's usage entries", () => {
	it("change neither the ledger nor the advisor's spend", () => {
		resetParents();
		const base = [
			user("u1", "x"),
			assistant("a1", { text: "q", calls: [call("adv", "advisor")] }),
			advice("r1", "adv", "Severity: none\nok"),
		];
		const withUsage = [
			...base,
			usageEntry("w1", {
				input: 1000,
				output: 1,
				cacheRead: 5000,
				cacheWrite: 0,
				totalTokens: 6001,
				cost: { input: 1, output: 1, cacheRead: 1, cacheWrite: 0, total: 3 },
			}),
		];
		resetParents();
		expect(spendOf(withUsage)).toEqual(spendOf(base));
		const a = ledgerOf(base);
		const b = ledgerOf(withUsage);
		expect(b.closed).toEqual(a.closed);
		expect(b.open).toEqual(a.open);
	});
});
