// The replay is linear because every point resumes from the previous one: a running baseline, a
// resumed point scan, a render memo that keeps the open segment, and — with --all-leaves — the
// point states of the branch before. Each shortcut is checked against the whole computation it
// replaces, over generated sessions (compactions, tree navigation, parallel calls, consultations).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { baselineRequest } from "../../../../src/adapter/extension/baseline/baseline-reuse.ts";
import {
	baselineMessages,
	inventoryMessage,
	prepareBaseline,
} from "../../../../src/adapter/extension/baseline/messages.ts";
import {
	advanceBaseline,
	cursorMessages,
	emptyBaseline,
	pointMessages,
} from "../../../../src/adapter/extension/baseline/track.ts";
import { createReplayShared, replayBranch } from "../../../../src/adapter/lab/replay/branch-replay.ts";
import { type ReplayOptions, replayText } from "../../../../src/adapter/lab/replay/engine.ts";
import { depthFirstLeaves } from "../../../../src/adapter/lab/replay/file-branches.ts";
import { resumeLengths } from "../../../../src/adapter/lab/replay/point-resume.ts";
import { scanPoints } from "../../../../src/adapter/lab/replay/points.ts";
import { calledToolNames, sessionTools } from "../../../../src/adapter/lab/replay/tool-set.ts";
import { emptyDiagnostics } from "../../../../src/adapter/lab/report/diagnostics.ts";
import {
	type EntryRecord,
	type LedgerEvent,
	listLeaves,
	migrateEntries,
	normalizeBranch,
	parseSessionText,
	readSession,
	selectBranch,
} from "../../../../src/events/index.ts";
import { ledgerOf } from "../../../../src/reducers/index.ts";
import {
	buildContext,
	createRenderMemo,
	DEFAULT_LEDGER_CONFIG,
	type RenderOptions,
	renderRequest,
} from "../../../../src/render/index.ts";
import { fractionArb, pickIndex } from "../../../support/properties.ts";
import { sessionArb } from "../../../support/session-gen.ts";

const RUNS = Math.min(80, Number(process.env.FC_RUNS ?? 80));

type Fork = { at: number; kind: "user" | "call" | "advisor" | "result" | "compaction" | "round"; pick: number };

const forkArb: fc.Arbitrary<Fork> = fc.record({
	at: fractionArb,
	kind: fc.constantFrom("user", "call", "advisor", "result", "compaction", "round"),
	pick: fractionArb,
});

/**
 * A generated session with short branches forked off its path anywhere — also in the middle of a
 * tool round, with results of the trunk's calls, advisor calls and compactions on the branches:
 * where a replay of many leaves resumes the state the branches share.
 */
const forkedArb = fc
	.tuple(sessionArb({ minSteps: 4, maxSteps: 30 }), fc.array(forkArb, { maxLength: 6 }))
	.map(([session, forks]) => {
		const lines = session.jsonl.trimEnd().split("\n");
		const trunk = lines.slice(1).map((line) => JSON.parse(line) as Record<string, unknown> & { id: string });
		if (trunk.length === 0) return session.jsonl;
		const calls = trunk.flatMap((e) => {
			const message = e.message as { role?: string; content?: unknown } | undefined;
			if (message?.role !== "assistant" || !Array.isArray(message.content)) return [];
			return (message.content as { type: string; id: string; name: string }[]).filter((c) => c.type === "toolCall");
		});
		const extra = forks.flatMap((fork, k): Record<string, unknown>[] => {
			const parent = trunk[pickIndex(fork.at, trunk.length)]!;
			const base = { id: `fork${k}`, parentId: parent.id, timestamp: "2026-01-01T00:00:00.000Z" };
			const assistant = (content: unknown[]) => ({
				role: "assistant",
				content,
				api: "anthropic-messages",
				provider: "anthropic",
				model: "claude-x",
				usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: {} },
				stopReason: "toolUse",
				timestamp: 0,
			});
			const result = (id: string, callId: string, toolName: string, parentId: string) => ({
				type: "message",
				id,
				parentId,
				timestamp: base.timestamp,
				message: {
					role: "toolResult",
					toolCallId: callId,
					toolName,
					content: [{ type: "text", text: "done" }],
					isError: false,
					timestamp: 0,
				},
			});
			switch (fork.kind) {
				case "user":
					return [{ ...base, type: "message", message: { role: "user", content: `fork ${k}`, timestamp: 0 } }];
				case "call":
				case "advisor": {
					const name = fork.kind === "advisor" ? "advisor" : "read";
					const args = fork.kind === "advisor" ? {} : { path: `f${k}.ts` };
					return [
						{
							...base,
							type: "message",
							message: assistant([{ type: "toolCall", id: `fc${k}`, name, arguments: args }]),
						},
					];
				}
				case "round": {
					const name = fork.pick < 0.5 ? "advisor" : "bash";
					const call = {
						...base,
						type: "message",
						message: assistant([{ type: "toolCall", id: `fc${k}`, name, arguments: {} }]),
					};
					return [call, result(`fork${k}r`, `fc${k}`, name, base.id)];
				}
				case "result": {
					const target = calls[pickIndex(fork.pick, calls.length)];
					if (target === undefined) return [];
					return [result(base.id, target.id, target.name, parent.id)];
				}
				case "compaction": {
					const kept = trunk[pickIndex(fork.pick, pickIndex(fork.at, trunk.length) + 1)]!;
					return [
						{ ...base, type: "compaction", summary: `summary ${k}`, firstKeptEntryId: kept.id, tokensBefore: 10 },
					];
				}
			}
			return [];
		});
		return `${[lines[0]!, ...lines.slice(1), ...extra.map((e) => JSON.stringify(e))].join("\n")}\n`;
	});

/** Every branch of a session, normalised on its own (no shared event objects). */
function branchesOf(jsonl: string) {
	const parsed = parseSessionText(jsonl);
	const entries = migrateEntries(parsed);
	const leaves = listLeaves(entries).map((e) => e.id);
	return {
		parsed,
		entries,
		branches: leaves.map((leaf) => {
			const path = selectBranch(entries, leaf).path;
			return { leaf, path, events: normalizeBranch(path, entries) };
		}),
	};
}

/** B's events with A's event objects where their paths start alike (what the replay of many leaves hands on). */
function sharingWith(
	a: { path: readonly EntryRecord[]; events: readonly LedgerEvent[] },
	b: { path: readonly EntryRecord[]; events: readonly LedgerEvent[] },
): LedgerEvent[] {
	let common = 0;
	while (common < Math.min(a.path.length, b.path.length) && a.path[common] === b.path[common]) common++;
	return b.events.map((e, i) => (i < common ? a.events[i]! : e));
}

/** A report without what depends on the clock or on which branch a scratch sample fell. */
function withoutTimings(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(withoutTimings);
	if (value !== null && typeof value === "object") {
		const out: Record<string, unknown> = {};
		for (const [k, v] of Object.entries(value)) if (!/Ms$|^timing$/.test(k)) out[k] = withoutTimings(v);
		return out;
	}
	return value;
}

describe("the running baseline", () => {
	it("is Pi's own context build at every entry of every branch, with the same token and char sums", () => {
		fc.assert(
			fc.property(forkedArb, (jsonl) => {
				for (const { path } of branchesOf(jsonl).branches) {
					const reference = prepareBaseline(path, []);
					let cursor = emptyBaseline;
					for (let i = 0; i < path.length; i++) {
						cursor = advanceBaseline(cursor, path, i, i + 1);
						const expected = baselineMessages(reference, i + 1).slice(1);
						expect(JSON.stringify(cursorMessages(cursor))).toBe(JSON.stringify(expected));
						const sums = baselineRequest(expected);
						expect([cursor.tokens, cursor.chars]).toEqual([sums.tokens, sums.chars]);
					}
				}
			}),
			{ numRuns: RUNS },
		);
	});

	it("strips the in-flight advisor call as the whole build does, at every consultation", () => {
		fc.assert(
			fc.property(sessionArb({ maxSteps: 30 }), (session) => {
				const read = readSession(session.jsonl);
				const tools = sessionTools("/tmp", calledToolNames(read.entries));
				const inventory = inventoryMessage(tools.inventory);
				const reference = prepareBaseline(read.path, tools.inventory);
				for (const consultation of session.consultations) {
					const at = read.path.findIndex((e) => e.id === consultation.resultEntryId);
					const upTo = at < 0 ? read.path.length : at;
					const cursor = advanceBaseline(emptyBaseline, read.path, 0, upTo);
					const sent = pointMessages(cursor, inventory, consultation.callId);
					const expected = baselineMessages(reference, upTo, consultation.callId);
					expect(JSON.stringify(sent.messages)).toBe(JSON.stringify(expected));
					const sums = baselineRequest(expected);
					expect([sent.tokens, sent.chars]).toEqual([sums.tokens, sums.chars]);
				}
			}),
			{ numRuns: RUNS },
		);
	});

	it("a cursor is never changed by advancing another one from the same state", () => {
		fc.assert(
			fc.property(sessionArb({ maxSteps: 30 }), fractionArb, (session, fraction) => {
				const read = readSession(session.jsonl);
				const cut = pickIndex(fraction, read.path.length + 1);
				const base = advanceBaseline(emptyBaseline, read.path, 0, cut);
				const before = JSON.stringify(cursorMessages(base));
				const longer = advanceBaseline(base, read.path, cut, read.path.length);
				// A second line of growth from the same cursor: its own copy, the first line intact.
				const again = advanceBaseline(base, read.path, cut, read.path.length);
				expect(JSON.stringify(cursorMessages(base))).toBe(before);
				expect(JSON.stringify(cursorMessages(again))).toBe(JSON.stringify(cursorMessages(longer)));
			}),
			{ numRuns: RUNS },
		);
	});
});

describe("the point scan", () => {
	it("resumed from any other branch's scan, it finds what a fresh scan of the branch finds", () => {
		fc.assert(
			fc.property(forkedArb, fractionArb, fractionArb, (jsonl, fa, fb) => {
				const { branches } = branchesOf(jsonl);
				if (branches.length === 0) return;
				const a = branches[pickIndex(fa, branches.length)]!;
				const b = branches[pickIndex(fb, branches.length)]!;
				const events = sharingWith(a, b);
				const fresh = scanPoints(events);
				const resumed = scanPoints(events, scanPoints(a.events));
				expect({ calls: resumed.calls, ends: resumed.ends }).toEqual({ calls: fresh.calls, ends: fresh.ends });
				// A prefix of the branch itself (the common case: the same branch, replayed further).
				const prefix = events.slice(0, pickIndex(fa, events.length + 1));
				const grown = scanPoints(events, scanPoints(prefix));
				expect({ calls: grown.calls, ends: grown.ends }).toEqual({ calls: fresh.calls, ends: fresh.ends });
			}),
			{ numRuns: RUNS },
		);
	});
});

describe("the render memo across branches", () => {
	it("a memo that last rendered another state renders the same bytes as a fresh one", () => {
		fc.assert(
			fc.property(forkedArb, fractionArb, fractionArb, fractionArb, (jsonl, fa, fb, cut) => {
				const { branches } = branchesOf(jsonl);
				if (branches.length === 0) return;
				const a = branches[pickIndex(fa, branches.length)]!;
				const b = branches[pickIndex(fb, branches.length)]!;
				const options: RenderOptions = {
					config: DEFAULT_LEDGER_CONFIG,
					catalogue: [],
					tools: [],
					toolsMode: "repo",
					mode: "consult",
				};
				const memo = createRenderMemo();
				renderRequest(ledgerOf(a.events), options, memo);
				const state = ledgerOf(sharingWith(a, b).slice(0, pickIndex(cut, b.events.length + 1)));
				const reused = renderRequest(state, options, memo);
				const fresh = renderRequest(state, options, createRenderMemo());
				expect(reused.hash).toBe(fresh.hash);
				expect(JSON.stringify(buildContext(reused))).toBe(JSON.stringify(buildContext(fresh)));
			}),
			{ numRuns: RUNS },
		);
	});
});

describe("--all-leaves", () => {
	const options: ReplayOptions = { every: 2, allLeaves: true, scratchSamples: 2 };

	it("reports every leaf exactly as a replay of that leaf alone does", () => {
		fc.assert(
			fc.property(forkedArb, (jsonl) => {
				const all = replayText("s.jsonl", jsonl, options);
				const { parsed, entries, branches } = branchesOf(jsonl);
				const tools = sessionTools(parsed.header?.cwd ?? process.cwd(), calledToolNames(entries));
				const alone = branches.map((b) =>
					replayBranch(
						{
							file: "s.jsonl",
							sessionId: parsed.header?.id ?? null,
							leafId: b.leaf,
							cwd: parsed.header?.cwd,
							path: b.path,
							events: b.events,
							tools,
							branchDiagnostics: emptyDiagnostics(),
							readerDiagnostics: emptyDiagnostics(),
						},
						options,
						createReplayShared(2),
					),
				);
				expect(all.sessions.map((s) => s.leafId)).toEqual(branches.map((b) => b.leaf));
				all.sessions.forEach((s, i) => {
					const { diagnostics: _a, ...shared } = s;
					const { diagnostics: _b, ...single } = alone[i]!;
					expect(withoutTimings(shared)).toEqual(withoutTimings(single));
				});
			}),
			{ numRuns: Math.min(40, RUNS) },
		);
	});

	it("branches replayed one after another in any order, sharing what they can, each report as if alone", () => {
		fc.assert(
			fc.property(forkedArb, fc.integer({ min: 1, max: 4 }), fc.nat(), (jsonl, every, seed) => {
				const { parsed, entries, branches } = branchesOf(jsonl);
				const tools = sessionTools(parsed.header?.cwd ?? process.cwd(), calledToolNames(entries));
				const order = branches
					.map((b, i) => ({ b, key: (i * 7919 + seed) % 104729 }))
					.sort((x, y) => x.key - y.key);
				const replay = (
					b: (typeof branches)[number],
					events: LedgerEvent[],
					shared: ReturnType<typeof createReplayShared>,
					keep: readonly number[] = [],
				) =>
					replayBranch(
						{
							file: "s.jsonl",
							sessionId: null,
							leafId: b.leaf,
							cwd: parsed.header?.cwd,
							path: b.path,
							events,
							tools,
							branchDiagnostics: emptyDiagnostics(),
							readerDiagnostics: emptyDiagnostics(),
						},
						{ every, allLeaves: true, scratchSamples: 1 },
						shared,
						keep,
					);
				const shared = createReplayShared(1);
				let previous = { path: [] as readonly EntryRecord[], events: [] as readonly LedgerEvent[] };
				// Told where the later branches resume, a branch keeps the states of those points.
				const keep = resumeLengths(order.map(({ b }) => b.path));
				order.forEach(({ b }, i) => {
					const events = sharingWith(previous, b);
					previous = { path: b.path, events };
					const together = replay(b, events, shared, keep[i]);
					const alone = replay(b, b.events, createReplayShared(1));
					expect(withoutTimings(together)).toEqual(withoutTimings(alone));
				});
			}),
			{ numRuns: Math.min(40, RUNS) },
		);
	});

	it("walks the leaves depth first: every leaf once, siblings after the whole subtree before them", () => {
		fc.assert(
			fc.property(forkedArb, (jsonl) => {
				const { entries } = branchesOf(jsonl);
				const leaves = listLeaves(entries).map((e) => e.id);
				const order = depthFirstLeaves(entries, leaves);
				expect([...order].sort()).toEqual([...leaves].sort());
				// Depth first: once a walk leaves a subtree it never comes back, so the fork depth of
				// consecutive leaves never rises above a depth the walk already left.
				const paths = order.map((leaf) => selectBranch(entries, leaf).path);
				const seenRoots = new Set<string>();
				paths.forEach((path, i) => {
					if (i === 0 || path.length === 0) return;
					const previous = paths[i - 1]!;
					if (previous[0] !== path[0]) {
						expect(seenRoots.has(path[0]!.id)).toBe(false);
						seenRoots.add(previous[0]!.id);
					}
				});
			}),
			{ numRuns: RUNS },
		);
	});
});
