/**
 * The watch's failure streaks (src/reducers/watch-facts.ts): followed by run and by error line. An
 * error line joins different runs only when it says what went wrong; a placeholder a host left where
 * the output was (GJC's "[Compacted history content evicted …]") is the same for any failure.
 */

import { describe, expect, it } from "vitest";
import type { LedgerEvent } from "../../src/events/index.ts";
import { watchFactsOf } from "../../src/reducers/index.ts";
import { assistant, call, resetParents, result, user } from "../support/events.ts";

/** One failed shell run per command, each with this output. */
function failures(commands: readonly string[], output: string): LedgerEvent[] {
	resetParents();
	const events: LedgerEvent[] = [user("u", "Go.")];
	commands.forEach((command, i) => {
		events.push(assistant(`a${i}`, { calls: [call(`c${i}`, "bash", { command })] }));
		events.push(result(`r${i}`, `c${i}`, "bash", output, { isError: true }));
	});
	return events;
}

const COMMANDS = ["node -e 'x'", "python3 probe.py", "npx astro check"];

describe("failure streaks by error line", () => {
	it("the same error from different runs is one streak", () => {
		const facts = watchFactsOf(failures(COMMANDS, "TypeError: x is not a function"));
		const byError = facts.streaks.get("error\u0000TypeError: x is not a function");
		expect(byError?.count).toBe(3);
		expect(byError?.subjects).toHaveLength(3);
	});

	it("a placeholder where the output was joins nothing: each run keeps its own streak of one", () => {
		const facts = watchFactsOf(failures(COMMANDS, "[Compacted history content evicted to durable cold storage]"));
		expect([...facts.streaks.keys()].filter((k) => k.startsWith("error\u0000"))).toEqual([]);
		expect([...facts.streaks.values()].map((s) => s.count)).toEqual([1, 1, 1]);
	});

	it("the same run failing with a placeholder is still a streak of that run", () => {
		const facts = watchFactsOf(
			failures(["npx astro check", "npx astro check", "npx astro check"], "[output evicted]"),
		);
		expect([...facts.streaks.values()].map((s) => [s.label, s.count])).toEqual([["check", 3]]);
	});
});
