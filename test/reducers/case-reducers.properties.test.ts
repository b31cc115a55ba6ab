/**
 * No fold changes its input. For each fold of the core — the ledger, the spend, the trim anchor, the
 * watch facts, the lab's facts, and the branch fold composing the core's — the same events folded twice from the same
 * state give equal states, and the state is as it was: deep-equal to a copy taken before. The
 * sessions are generated ones with context edits, trim anchors, usage records and system prompts
 * put in among their entries, so every case reducer gets its turn.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyFacts, foldFacts } from "../../src/adapter/lab/audit/facts.ts";
import { CUSTOM_TYPES, type LedgerEvent } from "../../src/events/index.ts";
import {
	branchReducer,
	type Reducer,
	spendReducer,
	trimAnchorReducer,
	watchReducer,
} from "../../src/reducers/branch-fold.ts";
import { foldLedger } from "../../src/reducers/ledger-fold.ts";
import { emptyLedger } from "../../src/reducers/ledger-state.ts";
import { eventsOf, fractionArb, pickIndex } from "../support/properties.ts";
import { RUNS, sessionArb } from "../support/session-gen.ts";

type Extra =
	| { t: "edit"; target: number; replacement: "omit" | "text" | "calls"; text: string }
	| { t: "anchor"; target: number; tailCaps: number | undefined }
	| { t: "usage"; kind: "review" | "warming" | "watch"; output: number; cost: number }
	| { t: "system"; content: string; section: string | null };

const extraArb: fc.Arbitrary<Extra> = fc.oneof(
	fc.record({
		t: fc.constant("edit" as const),
		target: fractionArb,
		replacement: fc.constantFrom("omit" as const, "text" as const, "calls" as const),
		text: fc.string({ maxLength: 40 }),
	}),
	fc.record({
		t: fc.constant("anchor" as const),
		target: fractionArb,
		tailCaps: fc.option(fc.integer({ min: 1, max: 4000 }), { nil: undefined }),
	}),
	fc.record({
		t: fc.constant("usage" as const),
		kind: fc.constantFrom("review" as const, "warming" as const, "watch" as const),
		output: fc.nat(3000),
		cost: fc.double({ min: 0, max: 2, noNaN: true }),
	}),
	fc.record({
		t: fc.constant("system" as const),
		content: fc.string({ maxLength: 60 }),
		section: fc.option(fc.string({ maxLength: 30 }), { nil: null }),
	}),
);

/** The entry `extra` stands for, made against the events before it (`before`, never empty for a target). */
function extraEvent(extra: Extra, id: string, before: readonly LedgerEvent[]): LedgerEvent | undefined {
	const base = { id, parentId: before.at(-1)?.id ?? null };
	switch (extra.t) {
		case "edit": {
			if (before.length === 0) return undefined;
			const target = before[pickIndex(extra.target, before.length)]!;
			if (extra.replacement === "omit")
				return { ...base, kind: "contextEdit", targetId: target.id, replacement: null };
			// An assistant message keeps its first call (arguments replaced), as a pruning editor would.
			const calls =
				extra.replacement === "calls" && target.kind === "assistant"
					? target.calls.slice(0, 1).map((c) => ({ ...c, arguments: { edited: extra.text } }))
					: [];
			const parts = [{ type: "text" as const, text: extra.text }];
			return { ...base, kind: "contextEdit", targetId: target.id, replacement: { parts, thinking: "", calls } };
		}
		case "anchor": {
			const anchor = before.length === 0 ? undefined : before[pickIndex(extra.target, before.length)]!.id;
			const data = {
				summaryBoundaryId: null,
				...(anchor === undefined ? {} : { anchorEntryId: anchor }),
				...(extra.tailCaps === undefined ? {} : { tailCaps: extra.tailCaps }),
			};
			return { ...base, kind: "custom", customType: CUSTOM_TYPES.trimAnchor, data };
		}
		case "usage": {
			const usage = { input: 100, output: extra.output, cacheRead: 50, cacheWrite: 0, cost: { total: extra.cost } };
			const watch = extra.kind === "watch" ? { watchKey: `k${extra.output % 3}`, outcome: "advice" } : {};
			const data = { kind: extra.kind, model: "anthropic:opus", usage, timestampMs: 0, ...watch };
			return { ...base, kind: "custom", customType: CUSTOM_TYPES.usage, data };
		}
		case "system": {
			const sections = { agents: extra.section };
			return { ...base, kind: "system", content: extra.content, sections };
		}
		default:
			throw new Error("extra");
	}
}

/** A generated session with the extras put in among its events, and a cut: the state is folded up to it. */
const caseArb = fc
	.tuple(sessionArb(), fc.array(fc.tuple(fractionArb, extraArb), { maxLength: 8 }), fractionArb)
	.map(([session, extras, cut]) => {
		const events = eventsOf(session.jsonl);
		const at = extras.map(([where, extra]) => ({ where: Math.floor(where * (events.length + 1)), extra }));
		const out: LedgerEvent[] = [];
		for (let i = 0; i <= events.length; i++) {
			for (const [k, x] of at.entries()) {
				if (x.where !== i) continue;
				const event = extraEvent(x.extra, `extra-${k}`, out);
				if (event !== undefined) out.push(event);
			}
			if (i < events.length) out.push(events[i]!);
		}
		return { events: out, cut: Math.floor(cut * (out.length + 1)) };
	});

/** Registers the property for one fold. */
function foldsTwiceAlike<S>(name: string, reducer: Reducer<S>): void {
	it(`${name}: gives equal states and leaves the state as it was`, () => {
		let changed = 0;
		fc.assert(
			fc.property(caseArb, ({ events, cut }) => {
				const state = reducer.fold(reducer.initial(), events.slice(0, cut));
				const before = structuredClone(state);
				const rest = events.slice(cut);
				const a = reducer.fold(state, rest);
				const b = reducer.fold(state, rest);
				expect(a).toEqual(b);
				expect(structuredClone(state)).toEqual(before);
				if (a !== state) changed++;
			}),
			{ numRuns: RUNS },
		);
		// Not vacuous: in a good share of the runs the fold had something to change (the spend and the
		// anchor only on their own records, which not every session holds after its cut).
		expect(changed).toBeGreaterThan(RUNS / 10);
	});
}

describe("folding twice from the same state", () => {
	foldsTwiceAlike("ledger", { initial: () => emptyLedger("/w/proj"), fold: foldLedger });
	foldsTwiceAlike("spend", spendReducer);
	foldsTwiceAlike("trim anchor", trimAnchorReducer);
	foldsTwiceAlike("facts", { initial: () => emptyFacts("/w/proj"), fold: foldFacts });
	foldsTwiceAlike("watch facts", watchReducer);
	foldsTwiceAlike("branch", branchReducer);
});
