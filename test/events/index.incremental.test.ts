/** eventsFromBranch({from}) — the extension's incremental read — equals the tail of a full read. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eventsFromBranch, readSession } from "../../src/events/index.ts";
import { RUNS, sessionArb } from "../support/session-gen.ts";

describe("incremental branch reads", () => {
	it("normalising only branch[from…] gives exactly the tail of normalising the whole branch", () => {
		fc.assert(
			fc.property(sessionArb(), fc.double({ min: 0, max: 1, noNaN: true }), (session, at) => {
				const read = readSession(session.jsonl);
				const branch = read.path.map((r) => r.entry);
				const all = read.entries.map((r) => r.entry);
				const from = Math.floor(at * (branch.length + 1));
				const full = eventsFromBranch(branch, all);
				const tail = eventsFromBranch(branch, all, { from });
				expect(tail.events).toEqual(full.events.slice(from));
				expect(full.events).toEqual(read.events);
				expect(tail.diagnostics).toEqual([]);
			}),
			{ numRuns: RUNS },
		);
	});
});
