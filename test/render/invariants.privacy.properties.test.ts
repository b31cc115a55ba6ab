/**
 * Privacy as an invariant (docs/privacy.md), over generated sessions with credentials of every
 * kind planted in every text a session carries (test/support/session-gen.ts `plantInPlan`,
 * test/events/redact/credentials.ts): no credential reaches any request — at any point of the
 * branch, in either mode, trimmed or not — nor any advisor_expand answer, and every look-alike
 * planted beside them comes through the reader as it was written. Events → reducers → render.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LedgerEvent, readSession } from "../../src/events/index.ts";
import { trimCandidates } from "../../src/policy/budget/trim.ts";
import { foldLedger, ledgerOf } from "../../src/reducers/index.ts";
import { expandEntry } from "../../src/render/expand-source.ts";
import type { LedgerConfig } from "../../src/render/ledger-section.ts";
import { type RenderOptions, renderRequest } from "../../src/render/request-assembly.ts";
import { flatten } from "../../src/render/request-units.ts";
import { type Plant, plantArb } from "../events/redact/credentials.ts";
import { LOOKALIKES } from "../events/redact/lookalikes.ts";
import { fractionArb, pickIndex } from "../support/properties.ts";
import { buildSession, planArb, plantInPlan, RUNS } from "../support/session-gen.ts";

const OFF = { redact: false, patterns: [], allow: [] } as const;

const configArb: fc.Arbitrary<LedgerConfig> = fc.record({
	tailToolCalls: fc.integer({ min: 0, max: 4 }),
	tailMaxChars: fc.constantFrom(200, 8000),
	tailResultMaxChars: fc.constantFrom(50, 8000),
	userMessageMaxChars: fc.constantFrom(100, 20000),
	customPreviewChars: fc.constantFrom(50, 500),
	proseMaxChars: fc.constantFrom(0, 300, 8000),
	instructionsMaxChars: fc.constantFrom(0, 4000),
	// 0 keeps every entry; a small target makes generated branches cut their log (render/log-cut.ts).
	logTargetTokens: fc.constantFrom(0, 150, 600, 10000),
});

const options = (config: LedgerConfig, extra: Partial<RenderOptions> = {}): RenderOptions => ({
	config,
	catalogue: [{ name: "read", description: "Read a file." }],
	tools: [],
	toolsMode: "repo",
	mode: "consult",
	...extra,
});

/** A session with credentials, and look-alikes between them, in every text it carries. */
const plantedArb = fc
	.tuple(
		planArb({ minSteps: 4, maxSteps: 24 }),
		fc.array(plantArb, { minLength: 1, maxLength: 12 }),
		fc.array(fc.constantFrom(...LOOKALIKES), { minLength: 1, maxLength: 6 }),
	)
	.map(([plan, plants, lookalikes]) => {
		// Credentials and look-alikes alternate, so each kind of text gets some of both.
		const texts: string[] = [];
		for (let i = 0; i < Math.max(plants.length, lookalikes.length); i++) {
			if (i < plants.length) texts.push(plants[i]!.text);
			if (i < lookalikes.length) texts.push(lookalikes[i]!);
		}
		return { session: buildSession(plantInPlan(plan, texts)), plants, lookalikes };
	});

function expectNoSecret(where: string, text: string, plants: readonly Plant[]): void {
	for (const plant of plants) {
		for (const secret of plant.secrets) {
			if (text.includes(secret))
				expect.fail(`${where} carries a ${plant.kind} credential: ${JSON.stringify(secret)}`);
		}
	}
}

/** The points a consultation could be dispatched at: a few cuts along the branch, and its end. */
function cuts(events: readonly LedgerEvent[], fractions: readonly number[]): number[] {
	return [...new Set([...fractions.map((f) => Math.round(f * events.length)), events.length])].sort((a, b) => a - b);
}

describe("privacy: planted credentials never reach the advisor", () => {
	it("no request at any point carries one, in either mode, trimmed or not", () => {
		fc.assert(
			fc.property(
				plantedArb,
				configArb,
				fc.array(fractionArb, { minLength: 2, maxLength: 5 }),
				fractionArb,
				({ session, plants }, config, fractions, trimAt) => {
					const read = readSession(session.jsonl);
					const events = read.events;
					let state = ledgerOf([], read.header?.cwd);
					let folded = 0;
					for (const cut of cuts(events, fractions)) {
						state = foldLedger(state, events.slice(folded, cut));
						folded = cut;
						for (const mode of ["consult", "review"] as const)
							expectNoSecret(
								`request at ${cut} (${mode})`,
								flatten(renderRequest(state, options(config, { mode }))),
								plants,
							);
						const candidates = trimCandidates(state, { config });
						if (candidates.length === 0) continue;
						const trim = { anchorEntryId: candidates[pickIndex(trimAt, candidates.length)]!, tailCaps: 200 };
						expectNoSecret(
							`trimmed request at ${cut}`,
							flatten(renderRequest(state, options(config, { trim }))),
							plants,
						);
					}
				},
			),
			{ numRuns: RUNS },
		);
	});

	it("no advisor_expand answer carries one, whatever id is asked", () => {
		fc.assert(
			fc.property(plantedArb, ({ session, plants }) => {
				const read = readSession(session.jsonl);
				const state = ledgerOf(read.events, read.header?.cwd);
				read.events.forEach((event, i) => {
					for (const id of [event.id, `#${(i + 1).toString(36)}`]) {
						const answer = expandEntry(state, id);
						if (answer.kind === "ok") expectNoSecret(`advisor_expand ${id}`, answer.text, plants);
					}
				});
			}),
			{ numRuns: RUNS },
		);
	});

	it("every look-alike comes through the reader as written, and the planted credentials are really there", () => {
		let carrying = 0;
		fc.assert(
			fc.property(plantedArb, ({ session, plants, lookalikes }) => {
				const plain = JSON.stringify(readSession(session.jsonl, { privacy: OFF }).events);
				const redacted = JSON.stringify(readSession(session.jsonl).events);
				for (const lookalike of lookalikes) {
					const written = JSON.stringify(lookalike).slice(1, -1);
					if (plain.includes(written)) expect(redacted, lookalike).toContain(written);
				}
				const secrets = plants.flatMap((p) => p.secrets);
				if (secrets.some((s) => plain.includes(JSON.stringify(s).slice(1, -1)))) carrying++;
			}),
			{ numRuns: RUNS },
		);
		// The properties above are not empty: most branches, read as written, do carry credentials.
		expect(carrying).toBeGreaterThan(RUNS / 2);
	});
});
