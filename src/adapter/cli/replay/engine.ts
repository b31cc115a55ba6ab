/**
 * The replay engine: one session file → one report per replayed branch.
 *
 * A replay is linear in the branch length (docs/cli.md): points are replayed in branch order
 * from one folded state, one render memo and one running baseline, so each point folds, renders
 * and measures only what the events since the previous point added (what the extension does
 * live). With `--all-leaves` the leaves are replayed depth first and a branch starts from the
 * last point it shares with the branch before it: the trunk is replayed once. At a sample of
 * points the same request is also built from scratch (ledgerOf + a fresh memo): the timing report
 * compares the two, and the bytes must agree.
 */

import type { UserMessage } from "@mariozechner/pi-ai";
import type { EntryRecord, LedgerEvent, NormalizeOptions, PrivacyOptions } from "../../../events/index.ts";
import {
	listLeaves,
	migrateEntries,
	normalizeBranch,
	type ParsedSession,
	parseSessionText,
	partitionPoint,
	selectBranches,
} from "../../../events/index.ts";
import { cacheShares } from "../../../policy/index.ts";
import {
	branchFacts,
	type ChunkedList,
	emptyFacts,
	emptyLedger,
	emptyList,
	emptySpend,
	type FactState,
	foldFacts,
	foldLedger,
	foldSpend,
	type LedgerState,
	ledgerOf,
	type SpendState,
} from "../../../reducers/index.ts";
import {
	type AuditMemo,
	auditRequest,
	auditUnits,
	createAuditMemo,
	createRenderMemo,
	DEFAULT_LEDGER_CONFIG,
	emptyCounts,
	flatten,
	type LedgerConfig,
	type LedgerRequest,
	ordinalId,
	type RenderMemo,
	type RenderOptions,
	renderRequest,
	unitAt,
	unitCount,
	userWords,
} from "../../../render/index.ts";
import { baselineAuditUnits } from "../../baseline/audit-units.ts";
import { type BaselineRequest, baselineShares } from "../../baseline/cache-share.ts";
import { maskedPointRequest } from "../../baseline/masked.ts";
import { inventoryMessage } from "../../baseline/messages.ts";
import { advanceBaseline, type BaselineCursor, emptyBaseline, pointRequest } from "../../baseline/track.ts";
import type { MessageView } from "../../baseline/view.ts";
import { countDiagnostics, mergeDiagnostics } from "../diagnostics.ts";
import { type ConsultationPoint, type PointScan, pointsOfScan, scanPoints } from "./points.ts";

export { DEFAULT_EVERY } from "./points.ts";

import type { ToolsConfig } from "../../tools/index.ts";
import {
	type Diagnostics,
	emptyDiagnostics,
	type FileDiagnostics,
	type MissingUserMessage,
	type PointReport,
	type PointShares,
	round,
	type SessionReport,
	sessionTotals,
} from "../report/report.ts";
import { billedOf, type CostSetup, defaultCostSetup, estimateAt } from "./consultation-cost.ts";
import { calledToolNames, sessionTools } from "./tool-set.ts";

export interface ReplayOptions {
	/** Simulated points: one every this many tool rounds. */
	every: number;
	allLeaves: boolean;
	/** advisor.json's `ledger` section; default the built-in caps. */
	config?: LedgerConfig;
	/** advisor.json's `privacy` and `tools.denyPatterns`: how the events are redacted; default the built-in ones. */
	privacy?: PrivacyOptions;
	/** advisor.json's `tools` section: the investigation tools the request declares; default mode "repo". */
	tools?: ToolsConfig;
	/**
	 * Points per branch also built from scratch for the timing comparison: evenly spread over the
	 * second to the last point (at the first one both ways fold the whole prefix).
	 */
	scratchSamples?: number;
	/** Milliseconds; injectable so tests can make timings deterministic. */
	now?: () => number;
	/** What the consultations are estimated and priced with; default the built-in config and the default price model. */
	cost?: CostSetup;
}

/** Few: each sample refolds its whole prefix, the one cost of a replay that is not linear. */
export const DEFAULT_SCRATCH_SAMPLES = 3;

export interface FileReplay {
	sessions: SessionReport[];
	diagnostics: FileDiagnostics;
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

/** The user block as the renderer writes it: the header names the message's path position (`index` + 1). */
function userBlockText(event: LedgerEvent & { kind: "user" }, index: number, config: LedgerConfig): string {
	return userWords(ordinalId(index + 1), event.parts, config);
}

/** Where a user's block was last found: the unit and the chained hash that pins every unit up to it. */
interface Found {
	unit: number;
	hash: string;
}

/**
 * Every user message folded so far must be in the request verbatim. A message found in a unit of
 * the previous request is still there when this request has the same chained hash at that unit
 * (the same bytes up to it); the others are looked for unit by unit from the end, where new blocks
 * are, and a message no single unit holds is looked for in the whole flattened request. `found` is
 * by user, in the order of `users` (a chunked list: a point copies what changed, not every user).
 */
function checkUsers(
	request: LedgerRequest,
	users: readonly UserCheck[],
	count: number,
	found: ChunkedList<Found | undefined>,
): { found: ChunkedList<Found | undefined>; missing: string[] } {
	let next = found;
	const missing: string[] = [];
	let flat: string | undefined;
	const record = (k: number, at: Found | undefined) => {
		if (next.at(k) === at) return;
		// Users not found so far have no entry yet: the list is padded up to this one.
		if (k < next.length) next = next.with(k, at);
		else next = next.appended([...new Array<undefined>(k - next.length).fill(undefined), at]);
	};
	for (let k = 0; k < count; k++) {
		const user = users[k]!;
		const at = found.at(k);
		if (at !== undefined && unitAt(request, at.unit)?.prefixHash === at.hash) continue;
		record(k, undefined);
		let unit = -1;
		for (let i = unitCount(request) - 1; i >= 0; i--) {
			if (unitAt(request, i)!.text.includes(user.expected)) {
				unit = i;
				break;
			}
		}
		if (unit >= 0) {
			record(k, { unit, hash: unitAt(request, unit)!.prefixHash });
			continue;
		}
		flat ??= flatten(request);
		if (!flat.includes(user.expected)) missing.push(user.id);
	}
	return { found: next, missing };
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

/**
 * What a point leaves in its branch's report: figures, never the request or the state they were
 * measured on (docs/decisions.md, "A replay's memory follows the branch"). A point's request, baseline
 * and folded state are dropped once the next point is measured, except at the points later branches
 * of an `--all-leaves` replay resume from (resumeLengths).
 */
interface PointStep {
	point: ConsultationPoint;
	/** What the request was rendered with (declarations and catalogue). */
	tools: BranchInput["tools"];
	config: LedgerConfig;
	report: PointReport;
	/** Users missing at this point (ids). */
	missing: string[];
	mismatch: boolean;
	/** Where a later branch sharing this point resumes: kept only at a point one will resume from. */
	resume?: PointResume;
}

/** Everything a point leaves for the next one: what a branch resuming at it continues from. */
interface PointResume {
	state: LedgerState;
	/** What the branch holds for the fact audit, folded to this point. */
	facts: FactState;
	/** The advisor's spend on the branch, folded to this point: what the estimate learns from. */
	spend: SpendState;
	request: LedgerRequest;
	baseline: BaselineCursor;
	baselineRequest: BaselineRequest;
	/** The masked baseline at this point (baseline/masked.ts). */
	maskedRequest: BaselineRequest;
	found: ChunkedList<Found | undefined>;
}

/** What one file's branches share: the render memo, and the points of the branch replayed last. */
export interface ReplayShared {
	memo: RenderMemo;
	/** Points still to be built from scratch for the timing comparison, for the whole file. */
	scratchLeft: number;
	scan: PointScan | undefined;
	/** Event indices of the user messages of the branch replayed last. */
	userIndex: number[];
	userChecks: WeakMap<LedgerEvent, UserCheck>;
	path: readonly EntryRecord[];
	trail: PointStep[];
	/**
	 * The fact audit's memos, one per side, for the whole file: a fact found in a unit is found while
	 * the unit (by its key) is there, on whichever branch (render/fact-audit.ts).
	 */
	audit: { ledger: AuditMemo; baseline: AuditMemo };
}

export function createReplayShared(scratchSamples = DEFAULT_SCRATCH_SAMPLES): ReplayShared {
	return {
		memo: createRenderMemo(),
		scratchLeft: scratchSamples,
		path: [],
		trail: [],
		scan: undefined,
		userIndex: [],
		userChecks: new WeakMap(),
		audit: { ledger: createAuditMemo(), baseline: createAuditMemo() },
	};
}

// One inventory message per tool set: its parts are measured once, not once per branch.
const inventories = new WeakMap<BranchInput["tools"], UserMessage>();

function inventoryOf(tools: BranchInput["tools"]): UserMessage {
	let message = inventories.get(tools);
	if (message === undefined) {
		message = inventoryMessage(tools.inventory);
		inventories.set(tools, message);
	}
	return message;
}

/** The first fold+render of a process runs cold (JIT); it is done once, untimed, before any measurement. */
let warmedUp = false;

function warmUp(events: readonly LedgerEvent[], options: RenderOptions): void {
	if (warmedUp || events.length === 0) return;
	warmedUp = true;
	const state = ledgerOf(events);
	renderRequest(
		foldLedger(ledgerOf(events.slice(0, events.length >> 1)), events.slice(events.length >> 1)),
		options,
		createRenderMemo(),
	);
	renderRequest(state, options, createRenderMemo());
}

function samePoint(a: ConsultationPoint, b: ConsultationPoint): boolean {
	return a.upTo === b.upTo && a.kind === b.kind && a.callId === b.callId && a.result === b.result;
}

/**
 * Replays one branch's points in order. `keep`: lengths of this branch's path that later branches
 * replayed with the same `shared` resume at (resumeLengths): the last point at or before each keeps
 * its state; no other point keeps more than its figures.
 */
export function replayBranch(
	input: BranchInput,
	options: ReplayOptions,
	shared: ReplayShared = createReplayShared(options.scratchSamples),
	keep: readonly number[] = [],
): SessionReport {
	const config = options.config ?? DEFAULT_LEDGER_CONFIG;
	const scan = scanPoints(input.events, shared.scan);
	const points: ConsultationPoint[] = pointsOfScan(scan, options.every);
	const renderOptions: RenderOptions = {
		config,
		catalogue: input.tools.catalogue,
		tools: input.tools.declarations,
		toolsMode: input.tools.mode,
		mode: "consult",
	};
	const { common, reused, trail } = reusedPoints(input, points, shared, config);
	const sampled = sampledPoints(points.length, reused, shared);
	if (points.length > reused) warmUp(input.events.slice(0, points[reused]!.upTo), renderOptions);
	const { userIndex, users } = userChecks(input, shared, common, config);
	const last = trail.at(-1)?.resume;
	const now = options.now ?? (() => performance.now());
	const run: BranchRun = {
		input,
		renderOptions,
		inventory: inventoryOf(input.tools),
		memo: shared.memo,
		now,
		scratch: scratchBuilds(input, points, sampled, renderOptions, now),
		userIndex,
		users,
		state: last?.state ?? emptyLedger(input.cwd),
		facts: last?.facts ?? emptyFacts(input.cwd),
		spend: last?.spend ?? emptySpend(),
		cost: options.cost ?? defaultCostSetup(),
		audit: shared.audit,
		baseline: last?.baseline ?? emptyBaseline,
		folded: reused === 0 ? 0 : trail[reused - 1]!.point.upTo,
		previous: last?.request,
		previousBaseline: last?.baselineRequest,
		previousMasked: last?.maskedRequest,
		found: last?.found ?? emptyList(),
		usersSoFar: 0,
	};
	// A point's state stays only while a later branch will resume from it; its figures always stay.
	const resumed = resumedPoints(points, keep);
	for (let index = 0; index < reused; index++) if (!resumed(index)) releaseResume(trail[index]!);
	for (let index = reused; index < points.length; index++) {
		const step = replayPoint(run, points[index]!, index, config);
		trail.push(step);
		if (!resumed(index)) releaseResume(step);
	}
	shared.path = input.path;
	shared.trail = trail;
	shared.scan = scan;
	shared.userIndex = userIndex;
	return branchReport(input, points, trail, userIndex);
}

/** A point built from scratch: how long it took, and the request's hash. */
interface ScratchBuild {
	ms: number;
	hash: string;
}

/**
 * The sampled points built from scratch (`ledgerOf` of the prefix, a fresh memo), before the
 * incremental replay starts: each folds its whole prefix, and done first its garbage goes with
 * the events' before the replay's own state grows (docs/decisions.md, "A replay's memory follows
 * the branch"). The incremental request of the same point is compared with the hash kept here.
 */
function scratchBuilds(
	input: BranchInput,
	points: readonly ConsultationPoint[],
	sampled: ReadonlySet<number>,
	renderOptions: RenderOptions,
	now: () => number,
): Map<number, ScratchBuild> {
	const builds = new Map<number, ScratchBuild>();
	for (const index of [...sampled].sort((a, b) => a - b)) {
		const point = points[index]!;
		const options: RenderOptions = { ...renderOptions, inFlightCallId: point.callId };
		const t0 = now();
		const request = renderRequest(
			ledgerOf(input.events.slice(0, point.upTo), input.cwd),
			options,
			createRenderMemo(),
		);
		builds.set(index, { ms: now() - t0, hash: request.hash });
	}
	return builds;
}

/** Whether a later branch resumes at point `index`: the last point at or before one of `keep`. */
function resumedPoints(points: readonly ConsultationPoint[], keep: readonly number[]): (index: number) => boolean {
	const lengths = [...keep].sort((a, b) => a - b);
	return (index) => {
		const upTo = points[index]!.upTo;
		const next = points[index + 1]?.upTo ?? Number.POSITIVE_INFINITY;
		// The smallest length at or after this point must come before the next point.
		const low = partitionPoint(lengths.length, (i) => lengths[i]! < upTo);
		return low < lengths.length && lengths[low]! < next;
	};
}

/**
 * For each branch replayed in this order, the path lengths later branches resume at that lie on
 * it: branch j resumes where it parts from branch j − 1, and that point is on every branch between
 * that shares so much with both (a branch's common prefix with a later one is the least of the
 * consecutive ones in between). Each branch's list: the lengths where the next branch parts from it,
 * then those of later branches not longer than every one before them.
 */
export function resumeLengths(paths: readonly (readonly EntryRecord[])[]): number[][] {
	const lengths: number[][] = paths.map(() => []);
	// Kept from the last branch backwards: longest on top, never longer than the one below.
	const stack: number[] = [];
	for (let k = paths.length - 2; k >= 0; k--) {
		const parting = sharedLength(paths[k]!, paths[k + 1]!);
		while (stack.length > 0 && stack.at(-1)! > parting) stack.pop();
		stack.push(parting);
		lengths[k] = [...stack];
	}
	return lengths;
}

/** Leading entries two paths share (the same records). */
function sharedLength(a: readonly EntryRecord[], b: readonly EntryRecord[]): number {
	const limit = Math.min(a.length, b.length);
	let k = 0;
	while (k < limit && a[k] === b[k]) k++;
	return k;
}

/** Drops a point's resume state; its figures stay. */
function releaseResume(step: PointStep): undefined {
	delete step.resume;
	return undefined;
}

/**
 * The points this branch shares with the branch replayed before it: the same point on the same
 * entries (the same objects) gives the same request, baseline and report. `common` is the length
 * of the shared path.
 */
function reusedPoints(
	input: BranchInput,
	points: readonly ConsultationPoint[],
	shared: ReplayShared,
	config: LedgerConfig,
): { common: number; reused: number; trail: PointStep[] } {
	const common = sharedLength(input.path, shared.path);
	let reused = 0;
	while (
		reused < points.length &&
		reused < shared.trail.length &&
		points[reused]!.upTo <= common &&
		samePoint(points[reused]!, shared.trail[reused]!.point) &&
		// The tools are per file, the options per run: a replay with other ones starts over.
		shared.trail[reused]!.tools === input.tools &&
		shared.trail[reused]!.config === config
	)
		reused++;
	// A branch resumes where a point kept its state (the one the previous branch expected this one
	// to share); before it, the previous branch's figures are this branch's too.
	while (reused > 0 && shared.trail[reused - 1]!.resume === undefined) reused--;
	return { common, reused, trail: shared.trail.slice(0, reused) };
}

/**
 * Sampled among the points this branch replays itself, from the file's allowance (a sample refolds
 * its whole prefix: once per file, not once per leaf). A branch's first point folds everything
 * either way, so it is not a comparison: sampled from the second on.
 */
function sampledPoints(points: number, reused: number, shared: ReplayShared): Set<number> {
	const firstSampled = Math.max(1, reused);
	const sampled = new Set(
		[...scratchIndices(Math.max(0, points - firstSampled), shared.scratchLeft)].map((i) => i + firstSampled),
	);
	shared.scratchLeft -= sampled.size;
	return sampled;
}

/** User messages by event index (the ones before the fork are the previous branch's), each with the block it must render as. */
function userChecks(
	input: BranchInput,
	shared: ReplayShared,
	common: number,
	config: LedgerConfig,
): { userIndex: number[]; users: UserCheck[] } {
	const { events } = input;
	const userIndex: number[] = [];
	for (const i of shared.userIndex) {
		if (i >= common) break;
		userIndex.push(i);
	}
	for (let i = Math.min(common, events.length); i < events.length; i++) {
		if (events[i]!.kind === "user") userIndex.push(i);
	}
	const users = userIndex.map((i) => {
		const event = events[i] as LedgerEvent & { kind: "user" };
		// Cached by event: a shared event sits at the same path position on every branch that holds it.
		let check = shared.userChecks.get(event);
		if (check === undefined) {
			check = { id: event.id, expected: userBlockText(event, i, config) };
			shared.userChecks.set(event, check);
		}
		return check;
	});
	return { userIndex, users };
}

/** What the points of one branch read, and what each advances for the next. */
interface BranchRun {
	readonly input: BranchInput;
	readonly renderOptions: RenderOptions;
	readonly inventory: UserMessage;
	readonly memo: RenderMemo;
	readonly now: () => number;
	/** The points also built from scratch (the timing comparison and the bytes check), by index. */
	readonly scratch: ReadonlyMap<number, ScratchBuild>;
	readonly userIndex: readonly number[];
	readonly users: readonly UserCheck[];
	state: LedgerState;
	facts: FactState;
	spend: SpendState;
	readonly cost: CostSetup;
	readonly audit: ReplayShared["audit"];
	baseline: BaselineCursor;
	/** Events folded so far. */
	folded: number;
	previous: LedgerRequest | undefined;
	previousBaseline: BaselineRequest | undefined;
	previousMasked: BaselineRequest | undefined;
	found: ChunkedList<Found | undefined>;
	/** Users before the current point. */
	usersSoFar: number;
}

/** One point: fold what is new, render, measure, and compare with the baseline and the previous point. */
function replayPoint(run: BranchRun, point: ConsultationPoint, index: number, config: LedgerConfig): PointStep {
	const { input, now } = run;
	const { events } = input;
	const options: RenderOptions = { ...run.renderOptions, inFlightCallId: point.callId };
	const t0 = now();
	run.state = foldLedger(run.state, events.slice(run.folded, point.upTo));
	const request = renderRequest(run.state, options, run.memo);
	const incrementalMs = now() - t0;

	const scratch = run.scratch.get(index);
	const scratchMs = scratch?.ms;
	// Incremental ≡ batch fold is an invariant; a difference is a bug worth seeing, not a crash.
	const mismatch = scratch !== undefined && scratch.hash !== request.hash;

	run.facts = foldFacts(run.facts, events.slice(run.folded, point.upTo));
	run.spend = foldSpend(run.spend, events.slice(run.folded, point.upTo));
	run.baseline = advanceBaseline(run.baseline, input.path, run.folded, point.upTo);
	run.folded = point.upTo;
	while (run.usersSoFar < run.users.length && run.userIndex[run.usersSoFar]! < point.upTo) run.usersSoFar++;
	const checked = checkUsers(request, run.users, run.usersSoFar, run.found);
	run.found = checked.found;

	const baselineNow = pointRequest(run.baseline, run.inventory, point.callId);
	const maskedNow = maskedPointRequest(run.baseline, baselineNow);
	const report = pointReport(
		run,
		point,
		request,
		{ baseline: baselineNow, masked: maskedNow },
		incrementalMs,
		scratchMs,
	);
	report.facts = auditPoint(run, request, baselineNow.view);
	run.previous = request;
	run.previousBaseline = baselineNow;
	run.previousMasked = maskedNow;
	return {
		point,
		tools: input.tools,
		config,
		report,
		missing: checked.missing,
		mismatch,
		resume: {
			state: run.state,
			facts: run.facts,
			spend: run.spend,
			request,
			baseline: run.baseline,
			baselineRequest: baselineNow,
			maskedRequest: maskedNow,
			found: run.found,
		},
	};
}

/** The fact audit at a point: the branch's facts against the ledger request and against Pi's context. */
function auditPoint(run: BranchRun, request: LedgerRequest, baseline: MessageView): PointReport["facts"] {
	const facts = branchFacts(run.facts);
	return {
		ledger: auditRequest(request, facts, run.audit.ledger).counts,
		baseline: auditUnits(baselineAuditUnits(baseline), baseline.length, facts, run.audit.baseline, "written").counts,
	};
}

/** Shares rounded as the report keeps them. */
function roundShares(shares: PointShares): PointShares {
	return {
		tokenPrefix: round(shares.tokenPrefix),
		breakpoint: round(shares.breakpoint),
		breakpointNoBridges: round(shares.breakpointNoBridges),
	};
}

/** Shares of the previous baseline request reused by the next. */
function sharesOf(previous: BaselineRequest | undefined, next: BaselineRequest): PointShares | undefined {
	return previous === undefined ? undefined : roundShares(baselineShares(previous, next));
}

function pointReport(
	run: BranchRun,
	point: ConsultationPoint,
	request: LedgerRequest,
	raw: { baseline: BaselineRequest; masked: BaselineRequest },
	incrementalMs: number,
	scratchMs: number | undefined,
): PointReport {
	const report: PointReport = {
		atEntryId: run.input.events[point.upTo - 1]!.id,
		kind: point.kind,
		baseline: raw.baseline.tokens,
		masked: raw.masked.tokens,
		ledger: request.tokens,
		ledgerStable: request.stable.tokens,
		incrementalMs: round(incrementalMs, 3),
		facts: { ledger: emptyCounts(), baseline: emptyCounts() },
	};
	if (point.callId !== undefined) report.callId = point.callId;
	if (run.previous !== undefined) report.cacheShare = roundShares(cacheShares(run.previous, request));
	const baselineShare = sharesOf(run.previousBaseline, raw.baseline);
	if (baselineShare !== undefined) report.baselineCacheShare = baselineShare;
	const maskedShare = sharesOf(run.previousMasked, raw.masked);
	if (maskedShare !== undefined) report.maskedCacheShare = maskedShare;
	const billed = billedOf(point.result, run.cost.price);
	if (billed !== undefined) report.billed = billed;
	report.estimate = estimateAt(
		request,
		run.spend,
		{ result: point.result, sessionId: run.input.sessionId, render: run.renderOptions },
		run.cost,
	);
	if (scratchMs !== undefined) report.scratchMs = round(scratchMs, 3);
	return report;
}

/** The branch's report from its points: totals, the lists, and each user message missing at its first point. */
function branchReport(
	input: BranchInput,
	points: readonly ConsultationPoint[],
	trail: readonly PointStep[],
	userIndex: readonly number[],
): SessionReport {
	const { file } = input;
	const leafId = input.leafId ?? null;
	// A user message counts as missing at the first point where its block is not in the request.
	const missing = new Map<string, MissingUserMessage>();
	for (const step of trail) {
		for (const id of step.missing) {
			if (!missing.has(id)) missing.set(id, { file, leafId, entryId: id, atEntryId: step.report.atEntryId });
		}
	}
	const reports = trail.map((step) => step.report);
	const missingMessages = [...missing.values()];
	const totals = sessionTotals(reports);
	totals.timing.mismatches = trail.filter((step) => step.mismatch).length;
	const checkedUsers = points.length === 0 ? 0 : userIndex.filter((i) => i < points.at(-1)!.upTo).length;
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
		userMessages: { total: checkedUsers, missing: missingMessages.length, missingMessages },
		diagnostics: mergeDiagnostics(input.readerDiagnostics, input.branchDiagnostics),
	};
}

/**
 * Leaves in depth-first order of the entry tree (children in file order), so consecutive leaves
 * share the longest trunk. Leaves no walk from a root reaches (a cycle above them) come last.
 */
export function depthFirstLeaves(entries: readonly EntryRecord[], leaves: readonly string[]): string[] {
	const wanted = new Set(leaves);
	const first = new Map<string, EntryRecord>();
	for (const entry of entries) if (!first.has(entry.id)) first.set(entry.id, entry);
	const children = new Map<string, EntryRecord[]>();
	const roots: EntryRecord[] = [];
	for (const entry of first.values()) {
		const parent = entry.parentId;
		if (parent === null || parent === entry.id || !first.has(parent)) {
			roots.push(entry);
			continue;
		}
		const list = children.get(parent);
		if (list === undefined) children.set(parent, [entry]);
		else list.push(entry);
	}
	const out: string[] = [];
	const seen = new Set<string>();
	const stack: EntryRecord[] = [...roots].reverse();
	while (stack.length > 0) {
		const entry = stack.pop()!;
		if (seen.has(entry.id)) continue;
		seen.add(entry.id);
		if (wanted.has(entry.id)) out.push(entry.id);
		const list = children.get(entry.id);
		if (list !== undefined) for (let i = list.length - 1; i >= 0; i--) stack.push(list[i]!);
	}
	for (const id of leaves) if (!seen.has(id)) out.push(id);
	return out;
}

/**
 * A branch's events, normalised once per entry for the whole file: an event depends on its entry
 * alone, except a branch summary's (it names the user words its branch hid, which depends on the
 * path before it), which is normalised with its path.
 */
function branchEvents(
	path: readonly EntryRecord[],
	entries: readonly EntryRecord[],
	cache: WeakMap<EntryRecord, LedgerEvent> | undefined,
	previous: { path: readonly EntryRecord[]; events: readonly LedgerEvent[] },
	normalize: NormalizeOptions,
): LedgerEvent[] {
	const events: LedgerEvent[] = [];
	let sharing = true;
	for (let i = 0; i < path.length; i++) {
		const record = path[i]!;
		// The same entries up to here as the previous branch: the same path before, the same event.
		sharing &&= previous.path[i] === record && i < previous.events.length;
		if (sharing) {
			events.push(previous.events[i]!);
			continue;
		}
		if (record.kind !== "opaque" && record.entry.type === "branch_summary") {
			events.push(normalizeBranch(path.slice(0, i + 1), entries, normalize).at(-1)!);
			continue;
		}
		let event = cache?.get(record);
		if (event === undefined) {
			// A result's event also depends on its call, above it on every branch that holds it.
			event = normalizeBranch([record], entries, normalize)[0]!;
			cache?.set(record, event);
		}
		events.push(event);
	}
	return events;
}

/** Replays one session file's text. Never throws on content. */
export function replayText(file: string, text: string, options: ReplayOptions): FileReplay {
	return replayParsed(file, parseSessionText(text), options);
}

/** Replays one parsed session file. Never throws on content. */
export function replayParsed(file: string, parsed: ParsedSession, options: ReplayOptions): FileReplay {
	const entries = migrateEntries(parsed);
	const readerDiagnostics = countDiagnostics(file, parsed.diagnostics, parsed);
	const cwd = parsed.header?.cwd ?? process.cwd();
	const tools = sessionTools(cwd, calledToolNames(entries), options.tools);
	const normalize: NormalizeOptions = {
		...options.privacy,
		...(parsed.header?.cwd !== undefined ? { cwd: parsed.header.cwd } : {}),
	};
	const leaves: (string | undefined)[] = options.allLeaves
		? depthFirstLeaves(
				entries,
				listLeaves(entries).map((e) => e.id),
			)
		: [undefined];
	if (leaves.length === 0) leaves.push(undefined);

	const branches = emptyDiagnostics();
	const shared = createReplayShared(options.scratchSamples);
	const byLeaf = new Map<string | undefined, SessionReport>();
	const selected = selectBranches(entries, leaves);
	// Events by entry, for the branches after the first; and the entries normalisation looks calls
	// and abandoned branches up in: a copy, so the index normalisation keeps of it goes once every
	// branch is normalised, not at the end of the replay.
	const eventCache = selected.length > 1 ? new WeakMap<EntryRecord, LedgerEvent>() : undefined;
	let lookup: readonly EntryRecord[] | undefined = entries.slice();
	let previous: { path: readonly EntryRecord[]; events: readonly LedgerEvent[] } = { path: [], events: [] };
	const keep = resumeLengths(selected.map((branch) => branch.path));
	selected.forEach((branch, i) => {
		const events = branchEvents(branch.path, lookup!, eventCache, previous, normalize);
		if (i === selected.length - 1) lookup = undefined;
		previous = { path: branch.path, events };
		const branchDiagnostics = countDiagnostics(file, branch.diagnostics);
		const merged = mergeDiagnostics(branches, branchDiagnostics);
		Object.assign(branches, merged);
		byLeaf.set(
			leaves[i],
			replayBranch(
				{
					file,
					sessionId: parsed.header?.id ?? null,
					leafId: branch.leafId,
					cwd: parsed.header?.cwd,
					path: branch.path,
					events,
					tools,
					branchDiagnostics,
					readerDiagnostics,
				},
				options,
				shared,
				keep[i],
			),
		);
	});
	// Reports come in file order of the leaves, as the user sees them in the session.
	const fileOrder: (string | undefined)[] = options.allLeaves ? listLeaves(entries).map((e) => e.id) : [undefined];
	if (fileOrder.length === 0) fileOrder.push(undefined);
	const sessions = fileOrder.map((leaf) => byLeaf.get(leaf)!);
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
