/**
 * The fact audit as an oracle (docs/request-format.md#the-fact-audit): of the facts the raw branch
 * holds, the renderer promises four categories at every point — every user message, every edited
 * path, every failure not fixed since and the newest prose — with or without a trim. Wires the facts
 * fold, the ledger fold, the renderer and the audit.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { auditRequest, createAuditMemo } from "../../../../src/adapter/lab/audit/fact-audit.ts";
import { branchFacts, emptyFacts, type FactCategory, foldFacts } from "../../../../src/adapter/lab/audit/index.ts";
import { readSession } from "../../../../src/events/index.ts";
import { trimCandidates } from "../../../../src/policy/budget/trim.ts";
import { ledgerOf } from "../../../../src/reducers/index.ts";
import type { LedgerConfig } from "../../../../src/render/ledger-section.ts";
import { type RenderOptions, renderRequest } from "../../../../src/render/request-assembly.ts";
import type { LedgerRequest } from "../../../../src/render/request-units.ts";
import { eventsOf, fractionArb, pickIndex } from "../../../support/properties.ts";
import { RUNS, sessionArb } from "../../../support/session-gen.ts";

const PROMISED: readonly FactCategory[] = ["user", "edited", "failure", "prose"];

const options = (config: LedgerConfig, extra: Partial<RenderOptions> = {}): RenderOptions => ({
	config,
	catalogue: [{ name: "read", description: "Read a file." }],
	tools: [],
	toolsMode: "repo",
	mode: "consult",
	...extra,
});

const configArb: fc.Arbitrary<LedgerConfig> = fc.record({
	tailToolCalls: fc.integer({ min: 0, max: 3 }),
	tailMaxChars: fc.constant(8000),
	tailResultMaxChars: fc.constantFrom(50, 2000),
	userMessageMaxChars: fc.constant(20000),
	customPreviewChars: fc.constant(500),
	proseMaxChars: fc.constantFrom(0, 40, 300),
	instructionsMaxChars: fc.constantFrom(0, 100, 4000),
	// 0 keeps every entry; a small target makes generated branches cut their log (render/log-cut.ts).
	logTargetTokens: fc.constantFrom(0, 150, 600, 10000),
});

function missingPromised(request: LedgerRequest, facts: ReturnType<typeof branchFacts>): string[] {
	const { missing } = auditRequest(request, facts, createAuditMemo());
	return missing.filter((f) => PROMISED.includes(f.category)).map((f) => `${f.category}: ${f.text.slice(0, 120)}`);
}

describe("the renderer keeps the promised facts at every point", () => {
	it("user words, edited paths, open failures and the newest prose, at any cut of a generated branch", () => {
		fc.assert(
			fc.property(
				sessionArb(),
				configArb,
				fc.array(fractionArb, { minLength: 1, maxLength: 3 }),
				(session, config, cuts) => {
					const events = eventsOf(session.jsonl);
					const cwd = readSession(session.jsonl).header?.cwd;
					for (const at of [...cuts, 1]) {
						const upTo = Math.round(at * events.length);
						const branch = events.slice(0, upTo);
						const facts = branchFacts(foldFacts(emptyFacts(cwd), branch));
						const request = renderRequest(ledgerOf(branch, cwd), options(config));
						expect(missingPromised(request, facts)).toEqual([]);
					}
				},
			),
			{ numRuns: RUNS },
		);
	});

	it("…and under any trim the budget could choose", () => {
		fc.assert(
			fc.property(sessionArb(), configArb, fractionArb, (session, config, at) => {
				const events = eventsOf(session.jsonl);
				const cwd = readSession(session.jsonl).header?.cwd;
				const state = ledgerOf(events, cwd);
				const candidates = trimCandidates(state, { config });
				if (candidates.length === 0) return;
				const trim = { anchorEntryId: candidates[pickIndex(at, candidates.length)]! };
				const facts = branchFacts(foldFacts(emptyFacts(cwd), events));
				expect(missingPromised(renderRequest(state, options(config, { trim })), facts)).toEqual([]);
			}),
			{ numRuns: RUNS },
		);
	});
});
