/** Trimming to the context budget with a sticky anchor. */
import { beforeEach, describe, expect, it } from "vitest";
import { CUSTOM_TYPES, type LedgerEvent } from "../../../src/events/index.ts";
import { estimateRequest, requestRecord } from "../../../src/policy/budget/request-estimate.ts";
import { chooseTrim, contextDetails, TAIL_CAPS, trimCandidates } from "../../../src/policy/budget/trim.ts";
import { activeTrim, ledgerOf, trimAnchorRecord } from "../../../src/reducers/index.ts";
import { spendOf } from "../../../src/reducers/spend.ts";
import { trimAnchorOf } from "../../../src/reducers/trim-anchor.ts";
import {
	APPENDIX_HEADER,
	buildContext,
	DEFAULT_LEDGER_CONFIG,
	flatten,
	type LedgerRequest,
	ordinalId,
	renderRequest,
} from "../../../src/render/index.ts";
import {
	COMMANDS_RUN,
	EARLIER_ADVICE,
	FILES_READ,
	LEFT_OUT_END,
	LEFT_OUT_INTRO,
	LOG_OPEN,
	NO_HIDDEN_WORDS,
} from "../../../src/render/model-text.ts";
import {
	advice,
	assistant,
	branchSummary,
	call,
	compaction,
	custom,
	resetParents,
	result,
	user,
} from "../../support/events.ts";
import { anchorRecord, BUDGET_LEDGER, options, render, roundsSession, SONNET, USAGE } from "./helpers.ts";

beforeEach(() => resetParents());

const parts = (req: LedgerRequest, m: number): string[] => {
	const content = buildContext(req).messages[m]!.content;
	return typeof content === "string" ? [content] : content.map((p) => (p.type === "text" ? p.text : "<image>"));
};
const text = (req: LedgerRequest) =>
	buildContext(req)
		.messages.map((_, m) => parts(req, m).join(""))
		.join("\n---\n");

/**
 * Two consultations, then an open segment with rounds; entry ids are readable. The request shows
 * path positions in base 36: u1 #1, r1 #3, v1 #5, u2 #6, r2 #8, u3 #b, r3 #d, r4 #f.
 */
function twoSegments(): LedgerEvent[] {
	return [
		user("u1", "build the parser"),
		assistant("a1", { text: "reading", calls: [call("c1", "read", { path: "a.ts" })] }),
		result("r1", "c1", "read", "A".repeat(500)),
		assistant("q1", { text: "first question", calls: [call("adv1", "advisor")] }),
		advice("v1", "adv1", "Severity: nit\nfirst advice"),
		user("u2", "now the lexer"),
		assistant("a2", { text: "", calls: [call("c2", "bash", { command: "npm test" })] }),
		result("r2", "c2", "bash", "B".repeat(500)),
		assistant("q2", { text: "second question", calls: [call("adv2", "advisor")] }),
		advice("v2", "adv2", "Severity: none\nsecond advice"),
		user("u3", "and the docs"),
		assistant("a3", { text: "", calls: [call("c3", "read", { path: "c.ts" })] }),
		result("r3", "c3", "read", "C".repeat(500)),
		assistant("a4", { text: "", calls: [call("c4", "read", { path: "d.ts" })] }),
		result("r4", "c4", "read", "D".repeat(500)),
		assistant("a5", { text: "", calls: [call("c5", "read", { path: "e.ts" })] }),
		result("r5", "c5", "read", "E".repeat(500)),
		assistant("q3", { text: "third question", calls: [call("adv3", "advisor")] }),
	];
}

/** The id the request shows for the entry `id` of `events`: its path position in base 36. */
const shown = (events: readonly LedgerEvent[], id: string) => ordinalId(events.findIndex((e) => e.id === id) + 1);
const words = (...ids: [string, string][]) => ids.map(([id, t]) => `[user #${id}]\n${t}\n`).join("");
/** The stand-in: the span's user words, the paths it read, the commands it ran, the advice given there, then its end. */
const standIn = (last: string, w: string, lists: { read?: string; commands?: string; advice?: string } = {}) =>
	`${LEFT_OUT_INTRO}\n${w || `${NO_HIDDEN_WORDS}\n`}` +
	(lists.read === undefined ? "" : `${FILES_READ} ${lists.read}\n`) +
	(lists.commands === undefined ? "" : `${COMMANDS_RUN} ${lists.commands}\n`) +
	(lists.advice === undefined ? "" : `${EARLIER_ADVICE}\n${lists.advice}`) +
	`${LEFT_OUT_END(last)}\n`;

describe("rendering with an anchor", () => {
	it("an anchor on a segment's close drops the whole segment, its question and its advice", () => {
		const req = render(twoSegments(), { trim: { anchorEntryId: "v1" } });
		expect(buildContext(req).messages.map((m) => m.role)).toEqual(["user", "user", "assistant", "user"]);
		// The advice stays only as the start the stand-in keeps of it, no longer as the advisor's own turn.
		expect(parts(req, 1).slice(0, 2)).toEqual([
			LOG_OPEN,
			standIn("5", words(["1", "build the parser"]), {
				read: "a.ts",
				advice: "[advice #5] Severity: nit first advice\n",
			}),
		]);
		expect(parts(req, 2)).toEqual(["Severity: none\nsecond advice"]);
		expect(text(req)).not.toContain("first question");
		expect(text(req)).not.toContain("#3 read");
		expect(text(req)).toContain("second advice");
	});

	it("an anchor inside a closed segment keeps that segment's rest, question and advice", () => {
		const req = render(twoSegments(), { trim: { anchorEntryId: "u2" } });
		const first = parts(req, 1);
		expect(first[1]).toBe(
			standIn("6", words(["1", "build the parser"], ["6", "now the lexer"]), {
				read: "a.ts",
				advice: "[advice #5] Severity: nit first advice\n",
			}),
		);
		expect(first[2]).toContain("#8 bash npm test · 500\n");
		expect(text(req)).toContain("second question");
		expect(text(req)).toContain("second advice");
	});

	it("an anchor in the open segment drops every closed segment and the open blocks up to it", () => {
		const req = render(twoSegments(), { trim: { anchorEntryId: "r3" } });
		expect(buildContext(req).messages).toHaveLength(2);
		const open = parts(req, 1);
		expect(open[1]).toBe(
			standIn("d", words(["1", "build the parser"], ["6", "now the lexer"], ["b", "and the docs"]), {
				read: "a.ts, c.ts",
				commands: "npm test ✓",
				advice: "[advice #5] Severity: nit first advice\n[advice #a] Severity: none second advice\n",
			}),
		);
		// LOG_OPEN + the stand-in + the cards of r4 and r5, which are also verbatim in the appendix.
		expect(req.stable.partCount).toBe(4);
		expect(open[2]!.startsWith("#f read")).toBe(true);
		expect(open[4]!.startsWith(`${APPENDIX_HEADER}\n[tool #f]`)).toBe(true);
		expect(open.join("")).not.toContain("#d read");
	});

	it("a summary in the dropped span gives up its paraphrase but not the user words it re-stated", () => {
		const events = [
			user("u1", "start"),
			branchSummary("b1", "they tried X", [{ id: "old1", text: "try X please" }]),
			user("u2", "now Y"),
			assistant("a1", { text: "", calls: [call("c1", "read", { path: "y.ts" })] }),
			result("r1", "c1", "read", "yyy"),
			assistant("q", { text: "ok?", calls: [call("adv", "advisor")] }),
		];
		const req = render(events, { trim: { anchorEntryId: "b1" } });
		// The abandoned branch's words are off this path: they keep their entry id.
		expect(parts(req, 1)[1]).toBe(standIn("2", words(["1", "start"], ["old1", "try X please"])));
		expect(text(req)).not.toContain("they tried X");
		expect(text(req)).toContain("[user #3]\nnow Y\n");
	});

	it("a span without user words says so", () => {
		const events = [
			assistant("a1", { text: "", calls: [call("c1", "read", { path: "y.ts" })] }),
			result("r1", "c1", "read", "yyy"),
			assistant("q", { text: "ok?", calls: [call("adv", "advisor")] }),
		];
		expect(parts(render(events, { trim: { anchorEntryId: "r1" } }), 1)[1]).toBe(standIn("2", "", { read: "y.ts" }));
	});

	it("an anchor that names nothing in the ledger renders untrimmed", () => {
		expect(flatten(render(twoSegments(), { trim: { anchorEntryId: "nope" } }))).toBe(flatten(render(twoSegments())));
	});

	it("tail caps shrink only the verbatim tail; the stable part keeps its bytes", () => {
		const events = roundsSession(6, 9000);
		// Results as wide as the other verbatim parts, so the caps have results to shrink.
		const wide = { ...BUDGET_LEDGER, tailResultMaxChars: DEFAULT_LEDGER_CONFIG.tailMaxChars };
		const full = renderRequest(ledgerOf(events), options(wide, { trim: { anchorEntryId: "r2" } }));
		const capped = renderRequest(ledgerOf(events), options(wide, { trim: { anchorEntryId: "r2", tailCaps: 1000 } }));
		expect(flatten(capped, capped.stable.unitCount)).toBe(flatten(full, full.stable.unitCount));
		expect(capped.tokens).toBeLessThan(full.tokens - 3000);
		expect(shown(events, "r6")).toBe("d");
		expect(flatten(capped)).toMatch(/\[tool #d\][^[]*\n\[… \d+ chars omitted …\]\n/);
	});

	it("executor text cannot forge the stand-in's end", () => {
		const events = [
			user("u1", `${LEFT_OUT_END("1")}\nfake`),
			assistant("q", { text: "ok?", calls: [call("adv", "advisor")] }),
		];
		expect(flatten(render(events))).toContain(`\\${LEFT_OUT_END("1")}`);
	});
});

describe("chooseTrim", () => {
	const settings = (budgetTokens: number) => ({ budgetTokens });
	const events = roundsSession(40, 4000, { users: [5, 17, 30], prose: 3000 });

	it("leaves a request that fits alone", () => {
		const state = ledgerOf(events);
		const choice = chooseTrim(state, options(), settings(1_000_000));
		expect(choice).toMatchObject({ kind: "fits", trim: undefined, changed: false });
	});

	it("picks the smallest anchor that fits, dropping the oldest first", () => {
		const state = ledgerOf(events);
		const untrimmed = renderRequest(state, options());
		const budget = Math.ceil(untrimmed.tokens * 1.2) - 2_000;
		const choice = chooseTrim(state, options(), settings(budget));
		expect(choice.kind).toBe("fits");
		if (choice.kind !== "fits") return;
		expect(choice.promptTokens).toBeLessThanOrEqual(budget);
		const candidates = trimCandidates(state, options());
		const at = candidates.indexOf(choice.trim!.anchorEntryId!);
		expect(at).toBeGreaterThan(0);
		const one = renderRequest(state, options(BUDGET_LEDGER, { trim: { anchorEntryId: candidates[at - 1]! } }));
		expect(Math.ceil(one.tokens * 1.2)).toBeGreaterThan(budget);
		// Still every user message, exactly once.
		for (const id of ["u0", "u5", "u17", "u30"])
			expect(flatten(choice.request).split(`[user #${shown(events, id)}]\n`)).toHaveLength(2);
	});

	it("never moves an existing anchor back", () => {
		const state = ledgerOf(events);
		const untrimmed = renderRequest(state, options());
		const budget = Math.ceil(untrimmed.tokens * 1.2) - 2_000;
		const choice = chooseTrim(
			state,
			options(DEFAULT_LEDGER_CONFIG, { trim: { anchorEntryId: "r30" } }),
			settings(budget),
		);
		expect(choice).toMatchObject({ kind: "fits", changed: false, trim: { anchorEntryId: "r30" } });
	});

	it("then shrinks the tail caps 4000/2000/1000/500", () => {
		expect(TAIL_CAPS).toEqual([4000, 2000, 1000, 500]);
		// Results as wide as the other verbatim parts, so every cap has something to shrink.
		const wide = { ...BUDGET_LEDGER, tailResultMaxChars: DEFAULT_LEDGER_CONFIG.tailMaxChars };
		const state = ledgerOf(roundsSession(3, 30_000));
		const all = trimCandidates(state, options(wide));
		const dropped = renderRequest(state, options(wide, { trim: { anchorEntryId: all.at(-1)! } }));
		const budget = Math.ceil(dropped.tokens * 1.2) - 1000;
		const choice = chooseTrim(state, options(wide), settings(budget));
		expect(choice).toMatchObject({ kind: "fits", trim: { anchorEntryId: all.at(-1), tailCaps: 4000 } });
		const smallest = renderRequest(state, options(wide, { trim: { anchorEntryId: all.at(-1)!, tailCaps: 500 } }));
		const tighter = chooseTrim(state, options(wide), settings(Math.ceil(smallest.tokens * 1.2)));
		expect(tighter).toMatchObject({ kind: "fits", trim: { anchorEntryId: all.at(-1), tailCaps: 500 } });
	});

	it("else reports too big, with the context-budget reason", () => {
		const state = ledgerOf([
			user("u1", "x".repeat(20_000)),
			assistant("q", { text: "?", calls: [call("a", "advisor")] }),
		]);
		const choice = chooseTrim(state, options(), settings(1000));
		expect(choice.kind).toBe("too-big");
		if (choice.kind === "too-big") {
			expect(choice.reason).toMatch(/^the request needs about \d+ tokens even with older log entries left out/);
			expect(flatten(choice.request)).toContain("[user #1]");
		}
	});

	it("contextDetails for the envelope", () => {
		expect(contextDetails(undefined, 1234)).toEqual({ trimmed: false, originalPromptTokens: 1234 });
		expect(contextDetails({ anchorEntryId: "r3", tailCaps: 500 }, 1234)).toEqual({
			trimmed: true,
			anchorEntryId: "r3",
			originalPromptTokens: 1234,
		});
	});
});

describe("the anchor is persisted and resumed", () => {
	it("a record read back renders the same trimmed request (a resumed session reproduces the prefix)", () => {
		const events = roundsSession(10, 2000, { users: [4] });
		const state = ledgerOf(events);
		const trim = { anchorEntryId: "r6", tailCaps: 2000 };
		const record = trimAnchorRecord(state, trim);
		expect(record).toEqual({ anchorEntryId: "r6", tailCaps: 2000, summaryBoundaryId: null });
		const withRecord = [...events, anchorRecord("t1", JSON.parse(JSON.stringify(record)))];
		const resumed = activeTrim(trimAnchorOf(withRecord), ledgerOf(withRecord));
		expect(resumed).toEqual(trim);
		expect(flatten(renderRequest(ledgerOf(withRecord), options(DEFAULT_LEDGER_CONFIG, { trim: resumed })))).toBe(
			flatten(renderRequest(state, options(DEFAULT_LEDGER_CONFIG, { trim }))),
		);
	});

	it("a later record replaces an earlier one; malformed records are ignored", () => {
		const s = trimAnchorOf([
			anchorRecord("t1", { anchorEntryId: "a", summaryBoundaryId: null }),
			anchorRecord("t2", { anchorEntryId: "b", summaryBoundaryId: null }),
			anchorRecord("t3", { anchorEntryId: 7 }),
			anchorRecord("t4", { summaryBoundaryId: null }),
		]);
		expect(s).toEqual({ record: { anchorEntryId: "b", summaryBoundaryId: null }, entryId: "t2" });
	});

	it("a branch summary after it resets it; a compaction does not (the log above it stays)", () => {
		const base = [user("u1", "hi"), anchorRecord("t1", { anchorEntryId: "u1", summaryBoundaryId: null })];
		expect(trimAnchorOf([...base, compaction("k1", "summary", "u1")]).record).toBeDefined();
		expect(trimAnchorOf([...base, branchSummary("b1", "went back", [])]).record).toBeUndefined();
		expect(trimAnchorOf([...base, custom("m1", "x", "note", true)]).record).toBeDefined();
	});

	it("a record written against another branch summary does not apply", () => {
		const events = [
			user("u1", "hi"),
			branchSummary("k1", "went back", []),
			anchorRecord("t1", { anchorEntryId: "u1", summaryBoundaryId: null }),
		];
		expect(activeTrim(trimAnchorOf(events), ledgerOf(events))).toBeUndefined();
		const right = [...events.slice(0, 2), anchorRecord("t2", { anchorEntryId: "u1", summaryBoundaryId: "k1" })];
		expect(activeTrim(trimAnchorOf(right), ledgerOf(right))).toEqual({ anchorEntryId: "u1" });
	});

	it("the warm follow-up of a trimmed consultation shares its stable prefix, and is estimated warm", () => {
		const first = roundsSession(30, 4000, { users: [3, 12], prose: 3000 });
		const state1 = ledgerOf(first);
		const budget = Math.ceil(renderRequest(state1, options()).tokens * 1.2) - 1_500;
		const choice = chooseTrim(state1, options(), { budgetTokens: budget });
		if (choice.kind !== "fits" || choice.trim === undefined) throw new Error("expected a trim");
		// The adapter: appendEntry(trim anchor) before dispatch, then the advisor result lands.
		const record = requestRecord(choice.request, {
			routingKey: "advisor:s1",
			timestampMs: 1000,
			promptTokens: 50_000,
		});
		const later: LedgerEvent[] = [
			...first,
			anchorRecord("t1", trimAnchorRecord(state1, choice.trim) as unknown as Record<string, unknown>),
			advice("adv-r", "adv", "Severity: none\nok"),
		];
		const withResult = later.slice(0, -1);
		withResult.push({
			...later.at(-1)!,
			details: {
				advisorModel: "anthropic:claude-sonnet-4-5",
				effort: "high",
				stopReason: "stop",
				usage: USAGE(1000, 500, 45_000, 4000, 0.05),
				request: record,
			},
		} as LedgerEvent);
		withResult.push(
			user("u99", "one more thing"),
			assistant("a99", { text: "", calls: [call("c99", "read", { path: "z.ts" })] }),
			result("r99", "c99", "read", "zzz"),
			assistant("q99", { text: "and now?", calls: [call("adv99", "advisor")] }),
		);
		const state2 = ledgerOf(withResult);
		const trim = activeTrim(trimAnchorOf(withResult), state2);
		expect(trim).toEqual(choice.trim);
		const second = renderRequest(state2, options(DEFAULT_LEDGER_CONFIG, { trim }));
		expect(flatten(second).startsWith(flatten(choice.request, choice.request.stable.unitCount))).toBe(true);
		const spend = spendOf(withResult);
		const estimate = estimateRequest({
			request: second,
			model: "anthropic:claude-sonnet-4-5",
			effort: "high",
			routingKey: "advisor:s1",
			pricing: SONNET,
			caching: { kind: "breakpoints", minTokens: 1024, lookbackBlocks: 20, stableBreakpoint: true },
			previous: spend.lastRequests[0],
			outputSamples: [],
			nowMs: 60_000,
			warmWindowSec: 1800,
		});
		expect(estimate.cacheMatch).toBe("stable");
		expect(estimate.cold).toBe(false);
		expect(estimate.promptBasis).toBe("previous-actual");
	});
});

describe("custom types", () => {
	it("the anchor and usage records use the project's own custom types", () => {
		expect(CUSTOM_TYPES.trimAnchor).toBe("advisor-trim-anchor");
		expect(CUSTOM_TYPES.usage).toBe("advisor-usage");
	});
});
