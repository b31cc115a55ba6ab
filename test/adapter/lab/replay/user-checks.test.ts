/**
 * The replay's user check looks again only at what a point can have changed (user-checks.ts
 * `UserWatch`): at every point of a branch it finds what checking every user from scratch finds —
 * through cuts of the log that move thousands of users at once, and with users missing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateSession } from "../../../../bench/generate.ts";
import {
	branchUsers,
	checkUsers,
	createUserWatch,
	type FoundUsers,
	usersBefore,
} from "../../../../src/adapter/lab/replay/user-checks.ts";
import { type LedgerEvent, readSession } from "../../../../src/events/index.ts";
import { emptyLedger, emptyList, foldLedger } from "../../../../src/reducers/index.ts";
import {
	createRenderMemo,
	DEFAULT_LEDGER_CONFIG,
	type LedgerConfig,
	type LedgerRequest,
	renderRequest,
	unitAt,
} from "../../../../src/render/index.ts";
import { RUNS, sessionArb } from "../../../support/session-gen.ts";

const options = (config: LedgerConfig) => ({
	config,
	catalogue: [{ name: "read", description: "Read a file." }],
	tools: [],
	toolsMode: "repo" as const,
	mode: "consult" as const,
});

/**
 * Checks the users at every `every` events: along the branch with one watch, and from scratch. With
 * `ahead`, each request is also checked for the users of the next point too, a few of them missing.
 */
function checkAlong(events: readonly LedgerEvent[], config: LedgerConfig, every: number, ahead: boolean): number {
	const users = branchUsers(events, [], 0, config, new WeakMap());
	const memo = createRenderMemo();
	const watch = createUserWatch();
	let found: FoundUsers = emptyList();
	let state = emptyLedger();
	let count = 0;
	let missingSeen = 0;
	for (let upTo = Math.min(every, events.length); ; upTo = Math.min(upTo + every, events.length)) {
		state = foldLedger(state, events.slice(Math.max(0, upTo - every), upTo));
		const request: LedgerRequest = renderRequest(state, options(config), memo);
		const next = Math.min(upTo + every, events.length);
		count = ahead ? usersBefore(users, next, count) : usersBefore(users, upTo, count);
		const along = checkUsers(request, users.checks, count, found, watch);
		const fresh = checkUsers(request, users.checks, count, emptyList(), createUserWatch());
		expect(along.missing).toEqual(fresh.missing);
		// Where the watch found a user, that unit of this request holds it.
		for (let k = 0; k < count; k++) {
			const at = along.found.at(k);
			if (at === undefined) continue;
			const unit = unitAt(request, at.unit);
			expect(unit?.prefixHash).toBe(at.hash);
			expect(unit?.text.includes(users.checks[k]!.expected)).toBe(true);
		}
		found = along.found;
		missingSeen += along.missing.length;
		if (upTo === events.length) break;
	}
	return missingSeen;
}

describe("the user check along a branch", () => {
	it("a chain with a user message every third step and a short log: cuts move thousands of users at once", () => {
		const { jsonl } = generateSession(3000, 11, { consultations: false, textScale: 0.05, userEvery: 3 });
		const { events } = readSession(jsonl);
		const config = { ...DEFAULT_LEDGER_CONFIG, logTargetTokens: 600 };
		const missing = checkAlong(events, config, 25, false);
		// Checked against the previous point's request, the users since are missing.
		expect(checkAlong(events, config, 25, true)).toBeGreaterThan(missing);
	});

	it("property: finds what a check from scratch finds at every point of generated branches", () => {
		fc.assert(
			fc.property(
				sessionArb({ minSteps: 5, maxSteps: 60 }),
				fc.constantFrom(0, 100, 300, 10000),
				fc.integer({ min: 1, max: 6 }),
				fc.boolean(),
				(session, logTargetTokens, every, ahead) => {
					const { events } = readSession(session.jsonl);
					if (events.length === 0) return;
					checkAlong(events, { ...DEFAULT_LEDGER_CONFIG, logTargetTokens }, every, ahead);
				},
			),
			{ numRuns: Math.ceil(RUNS / 4) },
		);
	});
});
