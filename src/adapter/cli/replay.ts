/**
 * The replay engine: one session file → one report per replayed branch.
 *
 * Points are replayed in branch order with one folded state and one render memo per branch, so
 * each point folds only the events since the previous one (what the extension does live). At a
 * sample of points the same request is also built from scratch (foldAll + a fresh memo): the
 * timing report compares the two, and the bytes must agree.
 */

import type { EntryRecord, LedgerEvent, ToolResultEvent } from "../../events/index.ts";
import { listLeaves, migrateEntries, normalizeBranch, parseSessionText, selectBranch } from "../../events/index.ts";
import { cacheShares } from "../../policy/index.ts";
import { emptyLedger, foldAll, foldEvents } from "../../reducers/index.ts";
import {
	createRenderMemo,
	DEFAULT_LEDGER_CONFIG,
	displayId,
	flatten,
	type LedgerConfig,
	type LedgerRequest,
	type RenderOptions,
	renderRequest,
	userBody,
} from "../../render/index.ts";
import { baselineMessages, prepareBaseline } from "./baseline.ts";
import { type BaselineRequest, baselineRequest, baselineShares } from "./baseline-cache.ts";
import { countDiagnostics, mergeDiagnostics } from "./diagnostics.ts";
import { type ConsultationPoint, consultationPoints } from "./points.ts";

export { DEFAULT_EVERY } from "./points.ts";

import {
	type Billed,
	type Diagnostics,
	emptyDiagnostics,
	type FileDiagnostics,
	type MissingUserMessage,
	type PointReport,
	round,
	type SessionReport,
	sessionTotals,
} from "./report.ts";
import { calledToolNames, sessionTools } from "./tool-set.ts";

export interface ReplayOptions {
	/** Simulated points: one every this many tool rounds. */
	every: number;
	allLeaves: boolean;
	config?: LedgerConfig;
	/**
	 * Points per branch also built from scratch for the timing comparison: evenly spread over the
	 * second to the last point (at the first one both ways fold the whole prefix).
	 */
	scratchSamples?: number;
	/** Milliseconds; injectable so tests can make timings deterministic. */
	now?: () => number;
}

export const DEFAULT_SCRATCH_SAMPLES = 20;

export interface FileReplay {
	sessions: SessionReport[];
	diagnostics: FileDiagnostics;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function count(value: unknown): number {
	return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** The billed usage an advisor result recorded, if any. */
export function billedUsage(result: ToolResultEvent | undefined): Billed | undefined {
	if (result === undefined || !isRecord(result.details)) return undefined;
	const usage = result.details.usage;
	if (!isRecord(usage)) return undefined;
	const input = count(usage.input);
	const cacheRead = count(usage.cacheRead);
	const cacheWrite = count(usage.cacheWrite);
	const output = count(usage.output);
	if (input + cacheRead + cacheWrite + output === 0) return undefined;
	return { prompt: input + cacheRead + cacheWrite, input, cacheRead, cacheWrite, output };
}

/** Which point indices are also built from scratch: evenly spread, the last one always. */
export function scratchIndices(points: number, samples: number): Set<number> {
	const out = new Set<number>();
	if (points === 0 || samples <= 0) return out;
	if (points <= samples) {
		for (let i = 0; i < points; i++) out.add(i);
		return out;
	}
	if (samples === 1) return new Set([points - 1]);
	for (let i = 0; i < samples; i++) out.add(Math.round((i * (points - 1)) / (samples - 1)));
	return out;
}

interface UserCheck {
	id: string;
	expected: string;
}

function userBlockText(event: LedgerEvent & { kind: "user" }, config: LedgerConfig): string {
	return `[user #${displayId(event.id)}]\n${userBody(event.parts, config)}\n`;
}

interface BranchInput {
	file: string;
	sessionId: string | null;
	leafId: string | undefined;
	/** The session header's cwd: cards show paths relative to it. */
	cwd: string | undefined;
	path: EntryRecord[];
	events: LedgerEvent[];
	tools: ReturnType<typeof sessionTools>;
	branchDiagnostics: Diagnostics;
	readerDiagnostics: Diagnostics;
}

/** The first fold+render of a process runs cold (JIT); it is done once, untimed, before any measurement. */
let warmedUp = false;

function warmUp(events: readonly LedgerEvent[], options: RenderOptions): void {
	if (warmedUp || events.length === 0) return;
	warmedUp = true;
	const state = foldAll(events);
	renderRequest(
		foldEvents(foldAll(events.slice(0, events.length >> 1)), events.slice(events.length >> 1)),
		options,
		createRenderMemo(),
	);
	renderRequest(state, options, createRenderMemo());
}

export function replayBranch(input: BranchInput, options: ReplayOptions): SessionReport {
	const config = options.config ?? DEFAULT_LEDGER_CONFIG;
	const now = options.now ?? (() => performance.now());
	const { events, file } = input;
	const points: ConsultationPoint[] = consultationPoints(events, options.every);
	const baseline = prepareBaseline(input.path, input.tools.inventory);
	const renderOptions: RenderOptions = {
		config,
		catalogue: input.tools.catalogue,
		tools: input.tools.declarations,
		toolsMode: "repo",
		mode: "consult",
	};
	// A branch's first point folds everything either way, so it is not a comparison: sampled from the second on.
	const sampled = new Set(
		[...scratchIndices(Math.max(0, points.length - 1), options.scratchSamples ?? DEFAULT_SCRATCH_SAMPLES)].map(
			(i) => i + 1,
		),
	);
	const leafId = input.leafId ?? null;

	if (points.length > 0) warmUp(events.slice(0, points[0]!.upTo), renderOptions);
	const memo = createRenderMemo();
	let state = emptyLedger(input.cwd);
	let folded = 0;
	let previous: LedgerRequest | undefined;
	let previousBaseline: BaselineRequest | undefined;
	const users: UserCheck[] = [];
	const missing = new Map<string, MissingUserMessage>();
	const reports: PointReport[] = [];
	let mismatches = 0;

	points.forEach((point, index) => {
		const options: RenderOptions = { ...renderOptions, inFlightCallId: point.callId };
		const t0 = now();
		state = foldEvents(state, events.slice(folded, point.upTo));
		const request = renderRequest(state, options, memo);
		const incrementalMs = now() - t0;

		let scratchMs: number | undefined;
		if (sampled.has(index)) {
			const t1 = now();
			const scratch = renderRequest(foldAll(events.slice(0, point.upTo), input.cwd), options, createRenderMemo());
			scratchMs = now() - t1;
			// Incremental ≡ batch fold is an invariant; a difference is a bug worth seeing, not a crash.
			if (scratch.hash !== request.hash) mismatches++;
		}

		for (let i = folded; i < point.upTo; i++) {
			const event = events[i]!;
			if (event.kind === "user") users.push({ id: event.id, expected: userBlockText(event, config) });
		}
		folded = point.upTo;

		const atEntryId = events[point.upTo - 1]!.id;
		const flat = flatten(request);
		for (const user of users) {
			if (!missing.has(user.id) && !flat.includes(user.expected)) {
				missing.set(user.id, { file, leafId, entryId: user.id, atEntryId });
			}
		}

		const baselineNow = baselineRequest(baselineMessages(baseline, point.upTo, point.callId));
		const report: PointReport = {
			atEntryId,
			kind: point.kind,
			baseline: baselineNow.tokens,
			ledger: request.tokens,
			ledgerStable: request.stable.tokens,
			incrementalMs: round(incrementalMs, 3),
		};
		if (point.callId !== undefined) report.callId = point.callId;
		if (previous !== undefined) {
			const shares = cacheShares(previous, request);
			report.cacheShare = { tokenPrefix: round(shares.tokenPrefix), breakpoint: round(shares.breakpoint) };
		}
		if (previousBaseline !== undefined) {
			const shares = baselineShares(previousBaseline, baselineNow);
			report.baselineCacheShare = { tokenPrefix: round(shares.tokenPrefix), breakpoint: round(shares.breakpoint) };
		}
		previousBaseline = baselineNow;
		const billed = billedUsage(point.result);
		if (billed !== undefined) report.billed = billed;
		if (scratchMs !== undefined) report.scratchMs = round(scratchMs, 3);
		reports.push(report);
		previous = request;
	});

	const missingMessages = [...missing.values()];
	const totals = sessionTotals(reports);
	totals.timing.mismatches = mismatches;
	return {
		file,
		sessionId: input.sessionId,
		leafId,
		pathEntries: input.path.length,
		pointKind: points.length === 0 ? "none" : points[0]!.kind,
		points: reports,
		...totals,
		largerThanBaseline: reports
			.filter((p) => p.ledger > p.baseline)
			.map((p) => ({ file, leafId, atEntryId: p.atEntryId, kind: p.kind, baseline: p.baseline, ledger: p.ledger })),
		userMessages: { total: users.length, missing: missingMessages.length, missingMessages },
		diagnostics: mergeDiagnostics(input.readerDiagnostics, input.branchDiagnostics),
	};
}

/** Replays one session file's text. Never throws on content. */
export function replayText(file: string, text: string, options: ReplayOptions): FileReplay {
	const parsed = parseSessionText(text);
	const entries = migrateEntries(parsed);
	const readerDiagnostics = countDiagnostics(file, parsed.diagnostics, parsed);
	const cwd = parsed.header?.cwd ?? process.cwd();
	const tools = sessionTools(cwd, calledToolNames(entries));
	const leaves: (string | undefined)[] = options.allLeaves ? listLeaves(entries).map((e) => e.id) : [undefined];
	if (leaves.length === 0) leaves.push(undefined);

	const branches = emptyDiagnostics();
	const sessions: SessionReport[] = [];
	for (const leaf of leaves) {
		const branch = selectBranch(entries, leaf);
		const branchDiagnostics = countDiagnostics(file, branch.diagnostics);
		const merged = mergeDiagnostics(branches, branchDiagnostics);
		Object.assign(branches, merged);
		sessions.push(
			replayBranch(
				{
					file,
					sessionId: parsed.header?.id ?? null,
					leafId: branch.leafId,
					cwd: parsed.header?.cwd,
					path: branch.path,
					events: normalizeBranch(branch.path, entries),
					tools,
					branchDiagnostics,
					readerDiagnostics,
				},
				options,
			),
		);
	}
	return {
		sessions,
		diagnostics: {
			file,
			reader: readerDiagnostics,
			branches,
			hasPoints: sessions.some((s) => s.points.length > 0),
		},
	};
}
