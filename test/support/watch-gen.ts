/**
 * Branches for the watch's properties: what its signals follow, drawn from a small vocabulary so
 * runs repeat — the same test, check, build or script failing and passing, edits to a dozen files,
 * reads, answers that are no trouble (`grep` finding nothing, a probe behind `||`), consultations
 * that answer or fail, completion reviews, delivered watch notes, user messages, turns that end in
 * a final answer, calls whose result never came — with the usage each executor message records.
 */

import fc from "fast-check";
import { CUSTOM_TYPES, type LedgerEvent, type ToolCallInfo } from "../../src/events/index.ts";

/** Shell commands by what the watch makes of them: a test, check or build run, a script, a probe. */
const COMMANDS = [
	"npm test",
	"npx vitest run src/a.test.ts",
	"npx vitest run src/b.test.ts",
	"npx tsc --noEmit",
	"npm run build",
	"python3 scrape.py",
	"grep -rn needle src",
	"cat src/missing.ts || true",
] as const;

const FILES = Array.from({ length: 12 }, (_, i) => `src/${String.fromCharCode(97 + i)}.ts`);

const ERRORS = [
	"FAIL src/a.test.ts > adds\nAssertionError: expected 1 to be 2",
	"src/a.ts(3,1): error TS2304: Cannot find name 'y'.",
	"Traceback (most recent call last):\nKeyError: 'k'",
	"Error: Cannot find module 'left-pad'",
	"[Compacted history content evicted to durable cold storage]",
] as const;

export type WatchCall =
	| { tool: "bash"; command: number; fails: boolean; error: number }
	| { tool: "edit" | "write" | "read"; file: number; fails: boolean };

export type WatchStep =
	| { t: "user" }
	| { t: "turn"; calls: WatchCall[]; lost: boolean; usage: number }
	| { t: "answer"; usage: number }
	| { t: "consult"; answered: boolean }
	| { t: "review" }
	| { t: "note" };

const callArb: fc.Arbitrary<WatchCall> = fc.oneof(
	{
		weight: 3,
		arbitrary: fc.record({
			tool: fc.constant("bash" as const),
			command: fc.nat(COMMANDS.length - 1),
			fails: fc.boolean(),
			error: fc.nat(ERRORS.length - 1),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			tool: fc.constantFrom("edit" as const, "write" as const, "read" as const),
			file: fc.nat(FILES.length - 1),
			fails: fc.constantFrom(false, false, false, true),
		}),
	},
);

const stepArb: fc.Arbitrary<WatchStep> = fc.oneof(
	{ weight: 2, arbitrary: fc.constant({ t: "user" as const }) },
	{
		weight: 12,
		arbitrary: fc.record({
			t: fc.constant("turn" as const),
			calls: fc.array(callArb, { minLength: 1, maxLength: 3 }),
			lost: fc.constantFrom(false, false, false, false, false, true),
			usage: fc.nat(5000),
		}),
	},
	{ weight: 1, arbitrary: fc.record({ t: fc.constant("answer" as const), usage: fc.nat(5000) }) },
	{ weight: 1, arbitrary: fc.record({ t: fc.constant("consult" as const), answered: fc.boolean() }) },
	{ weight: 1, arbitrary: fc.constant({ t: "review" as const }) },
	{ weight: 1, arbitrary: fc.constant({ t: "note" as const }) },
);

export const watchStepsArb = fc.array(stepArb, { minLength: 1, maxLength: 120 });

function callInfo(id: string, call: WatchCall): ToolCallInfo {
	if (call.tool === "bash") return { id, name: "bash", arguments: { command: COMMANDS[call.command] } };
	const path = FILES[call.file]!;
	if (call.tool === "read") return { id, name: "read", arguments: { path } };
	if (call.tool === "write") return { id, name: "write", arguments: { path, content: "x" } };
	return { id, name: "edit", arguments: { path, oldText: "a", newText: "b" } };
}

function output(call: WatchCall): string {
	if (!call.fails) return call.tool === "bash" ? "ok\nTests 3 passed" : "Successfully done";
	return call.tool === "bash" ? ERRORS[call.error]! : `Error: could not ${call.tool} the file`;
}

/** An event without its place on the branch (each kind of event's own fields kept apart). */
type EventBody = LedgerEvent extends infer E ? (E extends LedgerEvent ? Omit<E, "id" | "parentId"> : never) : never;

/** The steps as the events of one branch, in order, each the child of the one before. */
export function watchBranch(steps: readonly WatchStep[]): LedgerEvent[] {
	const events: LedgerEvent[] = [];
	let n = 0;
	const push = (event: EventBody): string => {
		const id = `e${++n}`;
		events.push({ ...event, id, parentId: events.at(-1)?.id ?? null } as LedgerEvent);
		return id;
	};
	const text = (t: string) => [{ type: "text" as const, text: t }];
	const assistant = (calls: ToolCallInfo[], usage: number) =>
		push({
			kind: "assistant",
			text: calls.length === 0 ? "Done." : "",
			thinking: "",
			calls,
			stopReason: calls.length === 0 ? "stop" : "toolUse",
			errorMessage: undefined,
			provider: "anthropic",
			model: "claude",
			usage: { input: usage, output: 100, cacheRead: 10 * usage, cacheWrite: 0, cost: { total: usage / 1e5 } },
		});
	for (const step of steps) {
		switch (step.t) {
			case "user":
				push({ kind: "user", parts: text("Carry on.") });
				break;
			case "answer":
				assistant([], step.usage);
				break;
			case "turn": {
				const calls = step.calls.map((c, i) => callInfo(`c${n + 1}-${i}`, c));
				assistant(calls, step.usage);
				// A lost result: the next message gives up on it (the turn never completes).
				const kept = step.lost ? step.calls.slice(0, -1) : step.calls;
				for (const [i, call] of kept.entries())
					push({
						kind: "toolResult",
						callId: calls[i]!.id,
						toolName: calls[i]!.name,
						parts: text(output(call)),
						isError: call.fails,
						details: undefined,
					});
				break;
			}
			case "consult": {
				const id = `c${n + 1}-advisor`;
				assistant([{ id, name: "advisor", arguments: {} }], 0);
				push({
					kind: "toolResult",
					callId: id,
					toolName: "advisor",
					parts: text(step.answered ? "Severity: nit\nLooks fine." : "Advisor call failed: overloaded"),
					isError: false,
					details: step.answered
						? { advisorModel: "anthropic:opus", stopReason: "stop" }
						: { errorMessage: "overloaded", stopReason: "error" },
				});
				break;
			}
			case "review":
				push({
					kind: "customMessage",
					customType: CUSTOM_TYPES.review,
					parts: text("Severity: nit\nFine."),
					display: true,
					details: { advice: "Severity: nit\nFine." },
				});
				break;
			case "note":
				push({
					kind: "customMessage",
					customType: CUSTOM_TYPES.watch,
					parts: text("Advisor note"),
					display: true,
					details: {
						advice: "Severity: concern\nRun the tests.",
						severity: "concern",
						signal: "long-run",
						watchKey: `note-${n}`,
						atEntryId: events.at(-1)?.id ?? "root",
						reason: "a long run",
						triggerTurn: false,
					},
				});
				break;
			default:
				step satisfies never;
		}
	}
	return events;
}
