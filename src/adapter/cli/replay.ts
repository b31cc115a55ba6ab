/**
 * The replay engine: one session file → one report per replayed branch.
 *
 * Everything a point costs is paid once per prefix, so a replay is linear in the branch length
 * and `--all-leaves` pays for a shared trunk once:
 * - the events, Pi's running context size (the baseline) and, where the tree forks, the folded
 *   ledger state are kept per entry, for every branch through it;
 * - points are folded incrementally (only the events since the previous state) and rendered with
 *   one render memo per file, so only new blocks are rendered; a point a second branch shares
 *   (same prefix, same in-flight call) is not built again;
 * - the user-message check scans each part of a request once, however many requests reuse it.
 * At a sample of points the same request is also built from scratch (foldAll + a fresh memo): the
 * timing report compares the two, and the bytes must agree.
 */

import { listLeaves, selectBranches } from "../../events/branch.ts";
import type { EntryRecord } from "../../events/entries.ts";
import { parseSessionText } from "../../events/jsonl.ts";
import { migrateEntries } from "../../events/migrate.ts";
import { normalizeBranch } from "../../events/normalize.ts";
import type { LedgerEvent, ToolResultEvent, UserEvent } from "../../events/types.ts";
import { emptyLedger, foldAll, foldEvents, type LedgerState } from "../../reducers/index.ts";
import { displayId, userBody } from "../../render/blocks.ts";
import { cacheShares } from "../../render/cache.ts";
import { DEFAULT_LEDGER_CONFIG, type LedgerConfig } from "../../render/config.ts";
import { ADVISOR_TOOL_NAME } from "../../render/constants.ts";
import {
	createRenderMemo,
	type LedgerRequest,
	type RenderMemo,
	type RenderOptions,
	type RequestUnit,
	renderRequest,
} from "../../render/request.ts";
import { type BaselineStep, baselineStep, baselineTokensAt, inventoryTokens } from "./baseline.ts";
import { countDiagnostics, mergeDiagnostics } from "./diagnostics.ts";
import {
	type Cons,
	type ConsultationPoint,
	consToArray,
	type PointTrack,
	trackedPoints,
	trackPoints,
} from "./points.ts";

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
import { calledToolNames, type SessionTools, sessionTools } from "./tool-set.ts";

export interface ReplayOptions {
	/** Simulated points: one every this many tool rounds. */
	every: number;
	allLeaves: boolean;
	config?: LedgerConfig;
	/**
	 * Points also built from scratch for the timing comparison: evenly spread over a branch's second
	 * to last point (at the first one both ways fold the whole prefix), at most this many per file.
	 * Each costs a fold of its whole prefix, so a few are enough for the ratio.
	 */
	scratchSamples?: number;
	/** Milliseconds; injectable so tests can make timings deterministic. */
	now?: () => number;
}

export const DEFAULT_SCRATCH_SAMPLES = 5;

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

/** What replaying a file cost: each figure grows with the distinct prefixes replayed, not with the branches. */
export interface ReplayWork {
	/** Events folded on the incremental path (each entry of the file's replayed tree at most once). */
	eventsFolded: number;
	/** Requests rendered on the incremental path (each distinct point once). */
	requestsRendered: number;
	/** Requests also built from scratch for the timing comparison (at most `scratchSamples` per file). */
	scratchBuilt: number;
}

export interface FileReplay {
	sessions: SessionReport[];
	diagnostics: FileDiagnostics;
	work: ReplayWork;
}

/** A point's request and what was measured on it; shared by every branch with the same prefix and call. */
interface BuiltPoint {
	request: LedgerRequest;
	baseline: number;
	incrementalMs: number;
	scratchMs: number | undefined;
	/** The from-scratch request differed (must never happen). */
	mismatch: boolean;
	/** User messages of the prefix whose block the request lacks. */
	missingUsers: string[];
	/** Cache shares from an earlier point's request, by that point. */
	sharesFrom: WeakMap<BuiltPoint, { tokenPrefix: number; breakpoint: number }>;
}

/** What is known about the prefix of a branch that ends at one entry. */
interface Prefix {
	event: LedgerEvent;
	baseline: BaselineStep;
	/** Where the points of a branch through here lie, as far as this prefix tells. */
	track: PointTrack;
	/** The prefix's user messages, newest first, and how many. */
	users: Cons<UserEvent> | undefined;
	userCount: number;
	/** The ledger folded up to and including this entry; kept where the tree forks (and at points), for the branches that go on from here. */
	state?: LedgerState;
	/** Points dispatched right after this entry, by in-flight call id ("" for none). */
	points?: Map<string, BuiltPoint>;
}

/** Prefixes one branch added, stored once: `prefixes[0]` is at path index `start`, after `parent`'s up to there. */
interface PrefixRun {
	prefixes: Prefix[];
	start: number;
	parent: PrefixRun | undefined;
}

/** Per file: what the branches of one session share. */
interface FileWork {
	file: string;
	entries: readonly EntryRecord[];
	config: LedgerConfig;
	renderOptions: RenderOptions;
	memo: RenderMemo;
	checkUsers: UserCheck;
	inventoryTokens: number;
	/** Prefix facts by branch root, then by entry: a prefix is fixed by its root and its last entry. */
	prefixes: Map<EntryRecord, Map<EntryRecord, { run: PrefixRun; index: number }>>;
	/** Entries other entries name as parent, with how many do: states are kept where this is above 1. */
	children: Map<string, number>;
	/** More than one branch is replayed: keep fork and point states for the others. */
	share: boolean;
	every: number;
	/** Ids of every advisor call in the file, for the point tracks. */
	advisorCallIds: ReadonlySet<string>;
	scratchLeft: number;
	now: () => number;
	work: ReplayWork;
}

const userTexts = new WeakMap<UserEvent, string>();

/** The user block the request must carry, exactly as the ledger renders it. */
function userBlockText(event: UserEvent, config: LedgerConfig): string {
	let text = userTexts.get(event);
	if (text === undefined) {
		text = `[user #${displayId(event.id)}]\n${userBody(event.id, event.parts, config)}\n`;
		userTexts.set(event, text);
	}
	return text;
}

const USER_HEADER = "[user #";
const DISPLAY_ID_CHAR = /[A-Za-z0-9_.:-]/;

/** Where each user block header in a text starts, by the id it shows. */
function userHeaders(text: string): Map<string, number[]> | undefined {
	let positions: Map<string, number[]> | undefined;
	for (let at = text.indexOf(USER_HEADER); at !== -1; at = text.indexOf(USER_HEADER, at + 1)) {
		let end = at + USER_HEADER.length;
		while (end < text.length && DISPLAY_ID_CHAR.test(text[end]!)) end++;
		if (text[end] !== "]") continue;
		const id = text.slice(at + USER_HEADER.length, end);
		positions ??= new Map();
		const list = positions.get(id);
		if (list === undefined) positions.set(id, [at]);
		else list.push(at);
	}
	return positions;
}

/** Units are reused by consecutive requests (render/request.ts `measure`): each is scanned once. */
const headersByUnit = new WeakMap<RequestUnit, Map<string, number[]>>();
const NO_HEADERS: Map<string, number[]> = new Map();

function headersOf(unit: RequestUnit): Map<string, number[]> {
	let headers = headersByUnit.get(unit);
	if (headers === undefined) {
		headers = userHeaders(unit.text) ?? NO_HEADERS;
		headersByUnit.set(unit, headers);
	}
	return headers;
}

/** User messages of the prefix whose block no part of the request holds. */
export type UserCheck = (request: LedgerRequest, users: readonly UserEvent[]) => string[];

/**
 * Every block is rendered inside one part, so a user message is carried when one part holds its
 * block. Consecutive requests share their leading parts (the same unit objects), so the check
 * keeps an index of block headers by part and, per request, only drops the parts that changed
 * and indexes the new ones; a user found in an unchanged part is not looked for again.
 */
export function createUserCheck(config: LedgerConfig): UserCheck {
	let units: readonly RequestUnit[] = [];
	/** Display id → indices of the units (ascending) with a header for it. */
	const holders = new Map<string, number[]>();
	/** A unit of `units` that holds the user's block. */
	const foundAt = new Map<UserEvent, number>();
	const holdsMemo = new WeakMap<RequestUnit, Map<UserEvent, boolean>>();
	const holds = (unit: RequestUnit, user: UserEvent, id: string): boolean => {
		let memo = holdsMemo.get(unit);
		if (memo === undefined) {
			memo = new Map();
			holdsMemo.set(unit, memo);
		}
		let result = memo.get(user);
		if (result === undefined) {
			const expected = userBlockText(user, config);
			result =
				headersOf(unit)
					.get(id)
					?.some((at) => unit.text.startsWith(expected, at)) ?? false;
			memo.set(user, result);
		}
		return result;
	};
	return (request, users) => {
		const next = request.units;
		const n = Math.min(units.length, next.length);
		let shared = 0;
		while (shared < n && units[shared] === next[shared]) shared++;
		for (let i = units.length - 1; i >= shared; i--)
			for (const id of headersOf(units[i]!).keys()) holders.get(id)!.pop();
		for (let i = shared; i < next.length; i++) {
			for (const id of headersOf(next[i]!).keys()) {
				const list = holders.get(id);
				if (list === undefined) holders.set(id, [i]);
				else list.push(i);
			}
		}
		units = next;
		const missing: string[] = [];
		for (const user of users) {
			const known = foundAt.get(user);
			if (known !== undefined && known < shared) continue;
			const id = displayId(user.id);
			const at = holders.get(id)?.find((i) => holds(next[i]!, user, id));
			if (at === undefined) {
				foundAt.delete(user);
				missing.push(user.id);
			} else foundAt.set(user, at);
		}
		return missing;
	};
}

interface BranchInput {
	file: string;
	sessionId: string | null;
	leafId: string | undefined;
	path: EntryRecord[];
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

function createFileWork(
	file: string,
	entries: readonly EntryRecord[],
	tools: SessionTools,
	options: ReplayOptions,
	share: boolean,
): FileWork {
	const config = options.config ?? DEFAULT_LEDGER_CONFIG;
	const children = new Map<string, number>();
	const advisorCallIds = new Set<string>();
	for (const entry of entries) {
		if (entry.parentId !== null) children.set(entry.parentId, (children.get(entry.parentId) ?? 0) + 1);
		if (entry.kind !== "known" || entry.entry.type !== "message" || entry.entry.message.role !== "assistant")
			continue;
		for (const part of entry.entry.message.content) {
			if (part.type === "toolCall" && part.name === ADVISOR_TOOL_NAME) advisorCallIds.add(part.id);
		}
	}
	return {
		file,
		entries,
		config,
		renderOptions: {
			config,
			catalogue: tools.catalogue,
			tools: tools.declarations,
			toolsMode: "repo",
			mode: "consult",
		},
		memo: createRenderMemo(),
		checkUsers: createUserCheck(config),
		inventoryTokens: inventoryTokens(tools.inventory),
		prefixes: new Map(),
		children,
		share,
		every: options.every,
		advisorCallIds,
		scratchLeft: options.scratchSamples ?? DEFAULT_SCRATCH_SAMPLES,
		now: options.now ?? (() => performance.now()),
		work: { eventsFolded: 0, requestsRendered: 0, scratchBuilt: 0 },
	};
}

/** The prefixes root → path[index], from the runs: one copy per run crossed. */
function prefixesTo(run: PrefixRun, index: number): Prefix[] {
	const pieces: Prefix[][] = [];
	let end = index + 1;
	// A parent run may go past the fork: only its prefixes before the child's start are on this path.
	for (let r: PrefixRun | undefined = run; r !== undefined; r = r.parent) {
		pieces.push(r.prefixes.slice(0, end - r.start));
		end = r.start;
	}
	const out: Prefix[] = [];
	for (let i = pieces.length - 1; i >= 0; i--) for (const prefix of pieces[i]!) out.push(prefix);
	return out;
}

/**
 * The branch's prefix facts, root → leaf. Entries another branch already went through reuse what
 * it found; only the new tail is normalised and measured.
 */
function branchPrefixes(work: FileWork, path: readonly EntryRecord[]): Prefix[] {
	if (path.length === 0) return [];
	let byEntry = work.prefixes.get(path[0]!);
	if (byEntry === undefined) {
		byEntry = new Map();
		work.prefixes.set(path[0]!, byEntry);
	}
	// The entries known from earlier branches form a prefix of this path (a branch records all of its own).
	let known = path.length;
	while (known > 0 && !byEntry.has(path[known - 1]!)) known--;
	const base = known === 0 ? undefined : byEntry.get(path[known - 1]!)!;
	const prefixes: Prefix[] = base === undefined ? [] : prefixesTo(base.run, base.index);
	if (known === path.length) return prefixes;

	const tail = path.slice(known);
	// Only a branch summary looks at the entries before the tail; listing them costs the path length.
	const needsBefore = tail.some((r) => r.kind === "known" && r.entry.type === "branch_summary");
	const events = normalizeBranch(
		tail,
		work.entries,
		needsBefore ? { pathBefore: path.slice(0, known).map((r) => r.id) } : {},
	);
	let positions: Map<string, number> | undefined;
	const indexOf = (id: string): number | undefined => {
		if (positions === undefined) {
			positions = new Map();
			path.forEach((r, i) => {
				if (!positions!.has(r.id)) positions!.set(r.id, i);
			});
		}
		return positions.get(id);
	};
	const stepAt = (i: number) => prefixes[i]!.baseline;
	const run: PrefixRun = { prefixes: [], start: known, parent: base?.run };
	for (let i = known; i < path.length; i++) {
		const previous = prefixes[i - 1];
		const event = events[i - known]!;
		const users = event.kind === "user" ? { head: event, tail: previous?.users } : previous?.users;
		const prefix: Prefix = {
			event,
			baseline: baselineStep(path, i, previous?.baseline, stepAt, indexOf),
			track: trackPoints(previous?.track, event, i, work.every, work.advisorCallIds),
			users,
			userCount: (previous?.userCount ?? 0) + (event.kind === "user" ? 1 : 0),
		};
		prefixes.push(prefix);
		run.prefixes.push(prefix);
		byEntry.set(path[i]!, { run, index: i });
	}
	return prefixes;
}

/** Indices of the assistant messages holding each advisor call, for the baseline's strip. */
function advisorCallEntries(track: PointTrack | undefined): Map<string, number[]> {
	const out = new Map<string, number[]>();
	for (const call of consToArray(track?.advisorCalls)) {
		const list = out.get(call.id);
		if (list === undefined) out.set(call.id, [call.index]);
		else if (list.at(-1) !== call.index) list.push(call.index);
	}
	return out;
}

interface Cursor {
	state: LedgerState;
	/** Events of the branch folded into `state`. */
	folded: number;
}

/**
 * The ledger at events[0..upTo): from the newest state known at or below upTo (this branch's own,
 * or one kept where another branch passed), folding only what follows. States are kept at the
 * forks folded through, so a later branch starts where it leaves the shared trunk.
 */
function stateAt(
	work: FileWork,
	path: readonly EntryRecord[],
	prefixes: readonly Prefix[],
	cursor: Cursor,
	upTo: number,
): LedgerState {
	let from = cursor.folded <= upTo ? cursor.folded : 0;
	let state = cursor.folded <= upTo ? cursor.state : emptyLedger();
	for (let j = upTo; j > from; j--) {
		const kept = prefixes[j - 1]!.state;
		if (kept !== undefined) {
			from = j;
			state = kept;
			break;
		}
	}
	let start = from;
	for (let i = from; i < upTo; i++) {
		const forks = work.share && (work.children.get(path[i]!.id) ?? 0) > 1 && prefixes[i]!.state === undefined;
		if (!forks && i < upTo - 1) continue;
		state = foldEvents(state, eventsOf(prefixes, start, i + 1));
		work.work.eventsFolded += i + 1 - start;
		start = i + 1;
		if (forks) prefixes[i]!.state = state;
	}
	cursor.state = state;
	cursor.folded = upTo;
	return state;
}

function eventsOf(prefixes: readonly Prefix[], from: number, to: number): LedgerEvent[] {
	const events: LedgerEvent[] = [];
	for (let i = from; i < to; i++) events.push(prefixes[i]!.event);
	return events;
}

function replayBranch(work: FileWork, input: BranchInput, options: ReplayOptions): SessionReport {
	const { file, path } = input;
	const { memo, now } = work;
	const prefixes = branchPrefixes(work, path);
	const last = prefixes.at(-1)?.track;
	const points: ConsultationPoint[] = trackedPoints(last, path.length, (i) => prefixes[i]!.event);
	const callEntries = advisorCallEntries(last);
	const stepAt = (i: number) => prefixes[i]!.baseline;
	// A branch's first point folds everything either way, so it is not a comparison: sampled from the second on.
	const sampled = new Set(
		[...scratchIndices(Math.max(0, points.length - 1), options.scratchSamples ?? DEFAULT_SCRATCH_SAMPLES)].map(
			(i) => i + 1,
		),
	);
	const leafId = input.leafId ?? null;

	if (points.length > 0 && !warmedUp) warmUp(eventsOf(prefixes, 0, points[0]!.upTo), work.renderOptions);
	const cursor: Cursor = { state: emptyLedger(), folded: 0 };
	const missing = new Map<string, MissingUserMessage>();
	const reports: PointReport[] = [];
	let mismatches = 0;
	let previous: BuiltPoint | undefined;

	points.forEach((point, index) => {
		const at = prefixes[point.upTo - 1]!;
		const key = point.callId ?? "";
		let built = at.points?.get(key);
		if (built === undefined) {
			const renderOptions: RenderOptions = { ...work.renderOptions, inFlightCallId: point.callId };
			const t0 = now();
			const state = stateAt(work, path, prefixes, cursor, point.upTo);
			const request = renderRequest(state, renderOptions, memo);
			const incrementalMs = now() - t0;
			work.work.requestsRendered++;

			let scratchMs: number | undefined;
			let mismatch = false;
			if (sampled.has(index) && work.scratchLeft > 0) {
				work.scratchLeft--;
				work.work.scratchBuilt++;
				const t1 = now();
				const scratch = renderRequest(
					foldAll(eventsOf(prefixes, 0, point.upTo)),
					renderOptions,
					createRenderMemo(),
				);
				scratchMs = now() - t1;
				// Incremental ≡ batch fold is an invariant; a difference is a bug worth seeing, not a crash.
				mismatch = scratch.hash !== request.hash;
			}
			const inFlight =
				point.callId === undefined
					? undefined
					: { callId: point.callId, callEntries: callEntries.get(point.callId) ?? [] };
			built = {
				request,
				baseline: baselineTokensAt(path, stepAt, work.inventoryTokens, point.upTo, inFlight),
				incrementalMs,
				scratchMs,
				mismatch,
				missingUsers: work.checkUsers(request, consToArray(at.users)),
				sharesFrom: new WeakMap(),
			};
			// Another branch through this entry finds it; a leaf's own point is nobody else's.
			if (work.share && (work.children.get(path[point.upTo - 1]!.id) ?? 0) > 0) {
				at.points ??= new Map();
				at.points.set(key, built);
				at.state ??= cursor.state;
			}
		}
		if (built.mismatch) mismatches++;

		const atEntryId = at.event.id;
		for (const id of built.missingUsers) {
			if (!missing.has(id)) missing.set(id, { file, leafId, entryId: id, atEntryId });
		}

		const report: PointReport = {
			atEntryId,
			kind: point.kind,
			baseline: built.baseline,
			ledger: built.request.tokens,
			ledgerStable: built.request.stable.tokens,
			incrementalMs: round(built.incrementalMs, 3),
		};
		if (point.callId !== undefined) report.callId = point.callId;
		if (previous !== undefined) {
			let shares = built.sharesFrom.get(previous);
			if (shares === undefined) {
				shares = cacheShares(previous.request, built.request);
				built.sharesFrom.set(previous, shares);
			}
			report.cacheShare = { tokenPrefix: round(shares.tokenPrefix), breakpoint: round(shares.breakpoint) };
		}
		const billed = billedUsage(point.result);
		if (billed !== undefined) report.billed = billed;
		if (built.scratchMs !== undefined) report.scratchMs = round(built.scratchMs, 3);
		reports.push(report);
		previous = built;
	});

	const missingMessages = [...missing.values()];
	const totals = sessionTotals(reports);
	totals.timing.mismatches = mismatches;
	return {
		file,
		sessionId: input.sessionId,
		leafId,
		pathEntries: path.length,
		pointKind: points.length === 0 ? "none" : points[0]!.kind,
		points: reports,
		...totals,
		largerThanBaseline: reports
			.filter((p) => p.ledger > p.baseline)
			.map((p) => ({ file, leafId, atEntryId: p.atEntryId, kind: p.kind, baseline: p.baseline, ledger: p.ledger })),
		// The user messages the points' requests had to carry: those up to the last point.
		userMessages: {
			total: points.length === 0 ? 0 : prefixes[points.at(-1)!.upTo - 1]!.userCount,
			missing: missingMessages.length,
			missingMessages,
		},
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
	const work = createFileWork(file, entries, tools, options, leaves.length > 1);

	const branches = emptyDiagnostics();
	const sessions: SessionReport[] = [];
	for (const branch of selectBranches(entries, leaves)) {
		const branchDiagnostics = countDiagnostics(file, branch.diagnostics);
		const merged = mergeDiagnostics(branches, branchDiagnostics);
		Object.assign(branches, merged);
		sessions.push(
			replayBranch(
				work,
				{
					file,
					sessionId: parsed.header?.id ?? null,
					leafId: branch.leafId,
					path: branch.path,
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
		work: work.work,
	};
}
