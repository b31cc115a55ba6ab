// The replay builds everything incrementally (running baseline sums, point tracks, folds from the
// nearest kept state, one render memo per file, points shared between leaves). These properties
// hold it equal to building every point from scratch the slow way, and its work counters to the
// distinct prefixes it had to cover: linear in the tree, not in the sum of the branch lengths.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	type BaselineStep,
	baselineStep,
	baselineTokens,
	baselineTokensAt,
	inventoryTokens,
	prepareBaseline,
} from "../../src/adapter/cli/baseline.ts";
import { consultationPoints, type PointTrack, trackedPoints, trackPoints } from "../../src/adapter/cli/points.ts";
import { createUserCheck, replayText } from "../../src/adapter/cli/replay.ts";
import { round } from "../../src/adapter/cli/report.ts";
import { calledToolNames, sessionTools } from "../../src/adapter/cli/tool-set.ts";
import type { EntryRecord } from "../../src/events/entries.ts";
import { listLeaves, readSession, selectBranch } from "../../src/events/index.ts";
import { normalizeBranch } from "../../src/events/normalize.ts";
import type { LedgerEvent, UserEvent } from "../../src/events/types.ts";
import { foldAll, foldEvents } from "../../src/reducers/index.ts";
import { displayId, userBody } from "../../src/render/blocks.ts";
import { cacheShares } from "../../src/render/cache.ts";
import { DEFAULT_LEDGER_CONFIG } from "../../src/render/config.ts";
import { ADVISOR_TOOL_NAME } from "../../src/render/constants.ts";
import { createRenderMemo, type LedgerRequest, renderRequest } from "../../src/render/request.ts";
import { treeSessionArb } from "../events/helpers.ts";
import { buildSession, type Step, sessionArb } from "../support/session-gen.ts";

const RUNS = Math.min(40, Number(process.env.FC_RUNS ?? 40));
const TIMEOUT = 240_000;

/** Session texts: realistic ones (consultations, compactions, branch summaries) and random trees. */
const textArb = fc.oneof(
	sessionArb({ maxSteps: 25 }).map((s) => s.jsonl),
	treeSessionArb(3).map((s) => s.text),
);

function branches(text: string) {
	const read = readSession(text);
	return {
		read,
		paths: listLeaves(read.entries).map((leaf) => selectBranch(read.entries, leaf.id).path),
	};
}

function advisorIds(entries: readonly EntryRecord[]): Set<string> {
	const ids = new Set<string>();
	for (const e of entries) {
		if (e.kind !== "known" || e.entry.type !== "message" || e.entry.message.role !== "assistant") continue;
		for (const p of e.entry.message.content) if (p.type === "toolCall" && p.name === ADVISOR_TOOL_NAME) ids.add(p.id);
	}
	return ids;
}

describe("the running baseline equals Pi's context rebuilt at every prefix", () => {
	it(
		"every prefix of every branch, with and without each in-flight advisor call stripped",
		() => {
			fc.assert(
				fc.property(textArb, (text) => {
					const { read, paths } = branches(text);
					const tools = sessionTools("/tmp", calledToolNames(read.entries));
					const head = inventoryTokens(tools.inventory);
					for (const path of paths) {
						const prepared = prepareBaseline(path, tools.inventory);
						const steps: BaselineStep[] = [];
						const indexOf = (id: string) => {
							const i = path.findIndex((r) => r.id === id);
							return i === -1 ? undefined : i;
						};
						path.forEach((_, i) => {
							steps.push(baselineStep(path, i, steps[i - 1], (k) => steps[k]!, indexOf));
						});
						const events = normalizeBranch(path, read.entries);
						const calls = events.flatMap((e, index) =>
							e.kind === "assistant" ? e.calls.map((c) => ({ id: c.id, index })) : [],
						);
						for (let upTo = 0; upTo <= path.length; upTo++) {
							expect(baselineTokensAt(path, (k) => steps[k]!, head, upTo)).toBe(baselineTokens(prepared, upTo));
							for (const callId of new Set(calls.map((c) => c.id))) {
								const callEntries = [...new Set(calls.filter((c) => c.id === callId).map((c) => c.index))];
								expect(baselineTokensAt(path, (k) => steps[k]!, head, upTo, { callId, callEntries })).toBe(
									baselineTokens(prepared, upTo, callId),
								);
							}
						}
					}
				}),
				{ numRuns: RUNS },
			);
		},
		TIMEOUT,
	);
});

describe("the tracked points equal the points found by scanning the branch", () => {
	it(
		"real and simulated, any --every",
		() => {
			fc.assert(
				fc.property(textArb, fc.integer({ min: 1, max: 5 }), (text, every) => {
					const { read, paths } = branches(text);
					const ids = advisorIds(read.entries);
					for (const path of paths) {
						const events = normalizeBranch(path, read.entries);
						let track: PointTrack | undefined;
						events.forEach((event, i) => {
							track = trackPoints(track, event, i, every, ids);
						});
						expect(trackedPoints(track, events.length, (i) => events[i]!)).toEqual(
							consultationPoints(events, every),
						);
					}
				}),
				{ numRuns: RUNS },
			);
		},
		TIMEOUT,
	);
});

function userBlock(event: LedgerEvent & { kind: "user" }): string {
	return `[user #${displayId(event.id)}]\n${userBody(event.id, event.parts, DEFAULT_LEDGER_CONFIG)}\n`;
}

describe("the render memo never changes a request", () => {
	it(
		"one memo over requests in any order (forwards, backwards, trimmed, other configs, review mode) ≡ a fresh memo each",
		() => {
			const configArb = fc.constantFrom(DEFAULT_LEDGER_CONFIG, {
				...DEFAULT_LEDGER_CONFIG,
				tailToolCalls: 1,
				tailMaxChars: 300,
			});
			const stepArb = fc.record({
				at: fc.nat(),
				config: configArb,
				trim: fc.option(fc.record({ anchor: fc.nat(), tailCaps: fc.option(fc.integer({ min: 1, max: 500 })) })),
				review: fc.boolean(),
			});
			fc.assert(
				fc.property(textArb, fc.array(stepArb, { minLength: 1, maxLength: 16 }), (text, steps) => {
					const events = readSession(text).events;
					if (events.length === 0) return;
					// States of every prefix folded one from the other, so they share their blocks as the replay's do.
					const states = [foldAll([])];
					for (const event of events) states.push(foldEvents(states.at(-1)!, [event]));
					const memo = createRenderMemo();
					for (const step of steps) {
						const upTo = 1 + (step.at % events.length);
						const state = states[upTo]!;
						const trim =
							step.trim === null
								? undefined
								: {
										anchorEntryId: events[step.trim.anchor % upTo]!.id,
										...(step.trim.tailCaps === null ? {} : { tailCaps: step.trim.tailCaps }),
									};
						const options = {
							config: step.config,
							catalogue: [{ name: "read", description: "Read a file" }],
							tools: [],
							toolsMode: "repo" as const,
							mode: step.review ? ("review" as const) : ("consult" as const),
							...(trim === undefined ? {} : { trim }),
						};
						const got = renderRequest(state, options, memo);
						const fresh = renderRequest(state, options, createRenderMemo());
						expect(got.hash).toBe(fresh.hash);
						expect(got.tokens).toBe(fresh.tokens);
						expect(got.stable).toEqual(fresh.stable);
						expect(got.units.map((u) => [u.text, u.prefixChars, u.prefixHash])).toEqual(
							fresh.units.map((u) => [u.text, u.prefixChars, u.prefixHash]),
						);
						expect(got.context).toEqual(fresh.context);
					}
				}),
				{ numRuns: RUNS },
			);
		},
		TIMEOUT,
	);
});

describe("the user-message check", () => {
	/** The requests at every point of a session, rendered incrementally (consecutive ones share parts), and its users. */
	function requestsOf(text: string, every: number) {
		const events = readSession(text).events;
		const memo = createRenderMemo();
		const options = {
			config: DEFAULT_LEDGER_CONFIG,
			catalogue: [],
			tools: [],
			toolsMode: "repo" as const,
			mode: "consult" as const,
		};
		let state = foldAll([]);
		let folded = 0;
		const requests: LedgerRequest[] = [];
		for (const point of consultationPoints(events, every)) {
			state = foldEvents(state, events.slice(folded, point.upTo));
			folded = point.upTo;
			requests.push(renderRequest(state, { ...options, inFlightCallId: point.callId }, memo));
		}
		return { requests, users: events.filter((e): e is UserEvent => e.kind === "user") };
	}

	it(
		"finds exactly the users whose block one part holds, over requests that share parts, drop them or come from elsewhere",
		() => {
			fc.assert(
				fc.property(
					textArb,
					textArb,
					fc.integer({ min: 1, max: 4 }),
					fc.array(fc.boolean()),
					(a, b, every, picks) => {
						const one = requestsOf(a, every);
						const two = requestsOf(b, every);
						// Impostors: same ids, other words; their blocks are in no request.
						const impostors = one.users.map(
							(u): UserEvent => ({ ...u, parts: [{ type: "text", text: `not ${u.id}` }] }),
						);
						const asked = [...one.users, ...two.users, ...impostors];
						// Interleave the two runs as a replay of two branches would (the check is shared per file).
						const order: LedgerRequest[] = [];
						let i = 0;
						let j = 0;
						for (const pick of picks) {
							if (pick && i < one.requests.length) order.push(one.requests[i++]!);
							else if (j < two.requests.length) order.push(two.requests[j++]!);
						}
						order.push(...one.requests.slice(i), ...two.requests.slice(j));
						const check = createUserCheck(DEFAULT_LEDGER_CONFIG);
						for (const request of order) {
							const parts = request.units.map((u) => u.text);
							const expected = asked
								.filter((u) => !parts.some((p) => p.includes(userBlock(u))))
								.map((u) => u.id);
							expect(check(request, asked)).toEqual(expected);
						}
					},
				),
				{ numRuns: RUNS },
			);
		},
		TIMEOUT,
	);
});

describe("replay ≡ every point built from scratch", () => {
	it(
		"tokens, stable tokens, baseline, cache shares and missing user messages, per leaf, with --all-leaves or not",
		() => {
			fc.assert(
				fc.property(textArb, fc.integer({ min: 1, max: 4 }), fc.boolean(), (text, every, allLeaves) => {
					const replay = replayText("f.jsonl", text, { every, allLeaves, scratchSamples: 3 });
					const read = readSession(text);
					const tools = sessionTools(read.header?.cwd ?? process.cwd(), calledToolNames(read.entries));
					const options = {
						config: DEFAULT_LEDGER_CONFIG,
						catalogue: tools.catalogue,
						tools: tools.declarations,
						toolsMode: "repo" as const,
						mode: "consult" as const,
					};
					let distinctEntries = new Set<EntryRecord>();
					const distinctPoints = new Set<string>();
					for (const session of replay.sessions) {
						const path = selectBranch(read.entries, session.leafId ?? undefined).path;
						for (const r of path) distinctEntries.add(r);
						const events = normalizeBranch(path, read.entries);
						const points = consultationPoints(events, every);
						const prepared = prepareBaseline(path, tools.inventory);
						expect(session.points.map((p) => p.atEntryId)).toEqual(points.map((p) => events[p.upTo - 1]!.id));
						let previous: LedgerRequest | undefined;
						const missing = new Map<string, string>();
						points.forEach((point, i) => {
							distinctPoints.add(`${point.upTo}:${events[point.upTo - 1]!.id}:${point.callId ?? ""}`);
							const scratch = renderRequest(
								foldAll(events.slice(0, point.upTo)),
								{ ...options, inFlightCallId: point.callId },
								createRenderMemo(),
							);
							const got = session.points[i]!;
							expect(got.ledger).toBe(scratch.tokens);
							expect(got.ledgerStable).toBe(scratch.stable.tokens);
							expect(got.baseline).toBe(baselineTokens(prepared, point.upTo, point.callId));
							if (previous === undefined) expect(got.cacheShare).toBeUndefined();
							else {
								const shares = cacheShares(previous, scratch);
								expect(got.cacheShare).toEqual({
									tokenPrefix: round(shares.tokenPrefix),
									breakpoint: round(shares.breakpoint),
								});
							}
							const parts = scratch.context.messages.flatMap((m) =>
								typeof m.content === "string"
									? [m.content]
									: m.content.map((p) => (p.type === "text" ? p.text : "")),
							);
							for (const e of events.slice(0, point.upTo)) {
								if (e.kind !== "user" || missing.has(e.id)) continue;
								if (!parts.some((p) => p.includes(userBlock(e)))) missing.set(e.id, events[point.upTo - 1]!.id);
							}
							previous = scratch;
						});
						expect(session.userMessages.missingMessages.map((m) => [m.entryId, m.atEntryId]).sort()).toEqual(
							[...missing].sort(),
						);
						expect(session.timing.mismatches).toBe(0);
					}
					// Each entry is folded at most once, each distinct point rendered once.
					expect(replay.work.eventsFolded).toBeLessThanOrEqual(distinctEntries.size);
					expect(replay.work.requestsRendered).toBeLessThanOrEqual(distinctPoints.size);
					distinctEntries = new Set();
				}),
				{ numRuns: RUNS },
			);
		},
		TIMEOUT,
	);
});

describe("--all-leaves shares the trunk", () => {
	it("60 leaves off a long trunk: the trunk is folded and its points rendered once, not once per leaf", () => {
		const plan: Step[] = [];
		for (let i = 0; i < 120; i++) {
			plan.push(
				i % 10 === 0
					? { t: "user", text: `step ${i}`, long: false, images: 0 }
					: {
							t: "turn",
							prose: `turn ${i}`,
							thinking: "",
							calls: [{ tool: "read", arg: `f${i}`, text: "x".repeat(200), outcome: "ok", image: false }],
							order: [0],
						},
			);
		}
		const trunk = buildSession(plan);
		const lines = trunk.jsonl.trimEnd().split("\n");
		const entries = trunk.entries;
		const leaves = Array.from({ length: 60 }, (_, k) =>
			JSON.stringify({
				type: "message",
				id: `leaf${k}`,
				parentId: entries[Math.floor(((k + 1) * entries.length) / 61)]!.id,
				timestamp: "2026-01-01T00:00:00.000Z",
				message: { role: "user", content: `branch ${k}`, timestamp: 1 },
			}),
		);
		const text = `${[lines[0], ...lines.slice(1, -1), ...leaves, lines.at(-1)].join("\n")}\n`;
		const replay = replayText("tree.jsonl", text, { every: 3, allLeaves: true, scratchSamples: 0 });
		expect(replay.sessions).toHaveLength(61);
		const branchLengths = replay.sessions.reduce((n, s) => n + s.pathEntries, 0);
		const pointsReported = replay.sessions.reduce((n, s) => n + s.points.length, 0);
		// Every entry of the file is folded at most once; without sharing it would be the sum of the paths.
		expect(replay.work.eventsFolded).toBeLessThanOrEqual(entries.length + leaves.length);
		expect(branchLengths).toBeGreaterThan(20 * (entries.length + leaves.length));
		// Trunk points are rendered once; each leaf adds its own last point (and the ones its fork moved).
		expect(replay.work.requestsRendered).toBeLessThan(pointsReported / 10);
	});
});
