/**
 * The point loop: one branch's points replayed in branch order from one folded state, one render
 * memo and one running baseline, so each point folds, renders and measures only what the events
 * since the previous point added (what the extension does live); a replay is linear in the branch
 * length (docs/cli.md). A branch after the first in a file resumes from the last point it shares
 * with the one before (point-resume.ts).
 */

import type { UserMessage } from "@mariozechner/pi-ai";
import type { EntryRecord, LedgerEvent, PrivacyOptions } from "../../../events/index.ts";
import { minCachedTokens } from "../../../policy/index.ts";
import { emptyLedger, emptyList, emptySpend, foldLedger, foldSpend } from "../../../reducers/index.ts";
import {
	createRenderMemo,
	DEFAULT_LEDGER_CONFIG,
	type LedgerConfig,
	type LedgerRequest,
	logCut,
	type RenderMemo,
	type RenderOptions,
	renderRequest,
} from "../../../render/index.ts";
import { inventoryMessage } from "../../extension/baseline/messages.ts";
import { advanceBaseline, emptyBaseline, pointRequest } from "../../extension/baseline/track.ts";
import type { MessageView } from "../../extension/baseline/view.ts";
import type { ToolsConfig } from "../../extension/tools/index.ts";
import { baselineAuditUnits } from "../audit/audit-units.ts";
import {
	type AuditMemo,
	auditBranch,
	createAuditMemo,
	emptyFacts,
	factsSinceHorizon,
	foldFacts,
	requestUnits,
} from "../audit/index.ts";
import type { PointFacts, SessionReport } from "../report/replay-report.ts";
import { branchReport, pointReport } from "./branch-report.ts";
import type { BranchInput } from "./file-branches.ts";
import { maskedPointRequest } from "./masked.ts";
import { billedAt } from "./point-bill.ts";
import { type CostSetup, defaultCostSetup, estimateAt } from "./point-estimate.ts";
import {
	type PointFolds,
	type PointRequests,
	type PointStep,
	releaseResume,
	resumedPoints,
	reusedPoints,
} from "./point-resume.ts";
import { type ConsultationPoint, type PointScan, pointsOfScan, scanPoints } from "./points.ts";
import {
	createWarmUp,
	DEFAULT_SCRATCH_SAMPLES,
	type ScratchBuild,
	sampledPoints,
	scratchBuilds,
	type WarmUp,
	warmUp,
} from "./timing-samples.ts";
import type { SessionTools } from "./tool-set.ts";
import {
	type BranchUsers,
	branchUsers,
	checkUsers,
	createUserWatch,
	type UserCheck,
	type UserWatch,
	usersBefore,
} from "./user-checks.ts";

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
	/** The process's warm-up, shared by the files of a run (timing-samples.ts); default: one per file. */
	warmUp?: WarmUp;
	/** What the consultations are estimated and priced with; default the built-in config and the default price model. */
	cost?: CostSetup;
}

/** The branch replayed last in a file: where the next one looks for what it shares. */
export interface LastBranch {
	path: readonly EntryRecord[];
	/** Its points' figures, and the state of those a later branch resumes from. */
	trail: PointStep[];
	scan: PointScan | undefined;
	/** Event indices of its user messages. */
	userIndex: readonly number[];
}

/** What one file's branches share. */
export interface ReplayShared {
	memo: RenderMemo;
	/** Points still to be built from scratch for the timing comparison, for the whole file. */
	scratchLeft: number;
	warmUp: WarmUp;
	last: LastBranch;
	userChecks: WeakMap<LedgerEvent, UserCheck>;
	/** One inventory message per tool set: its parts are measured once, not once per branch. */
	inventories: WeakMap<SessionTools, UserMessage>;
	/**
	 * The fact audit's memos, one per side, for the whole file: a fact found in a unit is found while
	 * the unit (by its key) is there, on whichever branch (adapter/lab/audit/fact-audit.ts).
	 */
	audit: { ledger: AuditMemo; baseline: AuditMemo };
}

export function createReplayShared(scratchSamples = DEFAULT_SCRATCH_SAMPLES, warm = createWarmUp()): ReplayShared {
	return {
		memo: createRenderMemo(),
		scratchLeft: scratchSamples,
		warmUp: warm,
		last: { path: [], trail: [], scan: undefined, userIndex: [] },
		userChecks: new WeakMap(),
		inventories: new WeakMap(),
		audit: { ledger: createAuditMemo(), baseline: createAuditMemo() },
	};
}

function inventoryOf(shared: ReplayShared, tools: SessionTools): UserMessage {
	let message = shared.inventories.get(tools);
	if (message === undefined) {
		message = inventoryMessage(tools.inventory);
		shared.inventories.set(tools, message);
	}
	return message;
}

/** What a branch's points read and never change. */
interface BranchSetup {
	readonly input: BranchInput;
	readonly render: RenderOptions;
	readonly inventory: UserMessage;
	readonly shared: ReplayShared;
	readonly cost: CostSetup;
	readonly now: () => number;
	/** The points also built from scratch (the timing comparison and the bytes check), by index. */
	readonly scratch: ReadonlyMap<number, ScratchBuild>;
	readonly users: BranchUsers;
}

/** A branch being replayed: its setup, and what each point advances for the next. */
interface BranchRun {
	readonly setup: BranchSetup;
	folds: PointFolds;
	previous: PointRequests | undefined;
	/** Events folded so far. */
	folded: number;
	/** Users before the current point. */
	usersSoFar: number;
	/** Which users a point checks again. */
	watch: UserWatch;
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
	const scan = scanPoints(input.events, shared.last.scan);
	const points: ConsultationPoint[] = pointsOfScan(scan, options.every);
	const render: RenderOptions = {
		config,
		catalogue: input.tools.catalogue,
		tools: input.tools.declarations,
		toolsMode: input.tools.mode,
		mode: "consult",
	};
	const { common, reused, trail } = reusedPoints(input, points, shared.last, config);
	const sampled = sampledPoints(points.length, reused, shared);
	if (points.length > reused) warmUp(shared.warmUp, input.events.slice(0, points[reused]!.upTo), render);
	const users = branchUsers(input.events, shared.last.userIndex, common, config, shared.userChecks);
	const resume = trail.at(-1)?.resume;
	const now = options.now ?? (() => performance.now());
	const run: BranchRun = {
		setup: {
			input,
			render,
			inventory: inventoryOf(shared, input.tools),
			shared,
			cost: options.cost ?? defaultCostSetup(),
			now,
			scratch: scratchBuilds(input, points, sampled, render, now),
			users,
		},
		folds: resume?.folds ?? {
			state: emptyLedger(input.cwd),
			facts: emptyFacts(input.cwd),
			since: undefined,
			spend: emptySpend(),
			baseline: emptyBaseline,
			found: emptyList(),
		},
		previous: resume?.requests,
		folded: reused === 0 ? 0 : trail[reused - 1]!.point.upTo,
		usersSoFar: 0,
		watch: createUserWatch(),
	};
	// A point's state stays only while a later branch will resume from it; its figures always stay.
	const resumed = resumedPoints(points, keep);
	for (let index = 0; index < reused; index++) if (!resumed(index)) releaseResume(trail[index]!);
	for (let index = reused; index < points.length; index++) {
		const step = replayPoint(run, points[index]!, index, config);
		trail.push(step);
		if (!resumed(index)) releaseResume(step);
	}
	shared.last = { path: input.path, trail, scan, userIndex: users.index };
	return branchReport(input, points, trail, users.index, minCachedTokens(run.setup.cost.price));
}

/** One point: fold what is new, render, measure, and compare with the baseline and the previous point. */
function replayPoint(run: BranchRun, point: ConsultationPoint, index: number, config: LedgerConfig): PointStep {
	const { setup } = run;
	const { input, now } = setup;
	const { events } = input;
	const render: RenderOptions = { ...setup.render, inFlightCallId: point.callId };
	const t0 = now();
	const state = foldLedger(run.folds.state, events.slice(run.folded, point.upTo));
	const request = renderRequest(state, render, setup.shared.memo);
	const incrementalMs = now() - t0;

	const scratch = setup.scratch.get(index);
	// Incremental ≡ batch fold is an invariant; a difference is a bug worth seeing, not a crash.
	const mismatch = scratch !== undefined && scratch.hash !== request.hash;

	const facts = foldFacts(run.folds.facts, events.slice(run.folded, point.upTo));
	const since = factsSinceHorizon(run.folds.since, state.horizon, events, run.folded, point.upTo, input.cwd);
	const spend = foldSpend(run.folds.spend, events.slice(run.folded, point.upTo));
	const baseline = advanceBaseline(run.folds.baseline, input.path, run.folded, point.upTo);
	run.folded = point.upTo;
	run.usersSoFar = usersBefore(setup.users, point.upTo, run.usersSoFar);
	const checked = checkUsers(request, setup.users.checks, run.usersSoFar, run.folds.found, run.watch);
	const folds: PointFolds = { state, facts, since, spend, baseline, found: checked.found };

	const baselineNow = pointRequest(baseline, setup.inventory, point.callId);
	const requests: PointRequests = {
		ledger: request,
		baseline: baselineNow,
		masked: maskedPointRequest(baseline, baselineNow),
	};
	const report = pointReport({
		point,
		atEntryId: events[point.upTo - 1]!.id,
		requests,
		previous: run.previous,
		billed: billedAt(point.result, setup.cost.price),
		estimate: estimateAt(
			request,
			spend,
			{ result: point.result, sessionId: input.sessionId, render: setup.render },
			setup.cost,
		),
		facts: auditPoint(setup.shared.audit, folds, request, baselineNow.view),
		leftOut: logCut(state, render, setup.shared.memo)?.droppedItems ?? 0,
		incrementalMs,
		scratchMs: scratch?.ms,
	});
	run.folds = folds;
	run.previous = requests;
	return {
		point,
		tools: input.tools,
		config,
		report,
		missing: checked.missing,
		mismatch,
		resume: { folds, requests },
	};
}

/**
 * The fact audit at a point: the branch's facts against the ledger request and against Pi's context,
 * each side counting on from the previous point (adapter/lab/audit/branch-audit.ts).
 */
function auditPoint(
	memos: ReplayShared["audit"],
	folds: PointFolds,
	request: LedgerRequest,
	baseline: MessageView,
): PointFacts {
	const { facts, since } = folds;
	const ledger = auditBranch(requestUnits(request), request.stable.unitCount, facts, since, memos.ledger, "ledger");
	const pi = auditBranch(baselineAuditUnits(baseline), baseline.length, facts, since, memos.baseline, "written");
	const out: PointFacts = { ledger: ledger.counts, baseline: pi.counts };
	if (ledger.lost !== undefined && pi.lost !== undefined) out.lost = { ledger: ledger.lost, baseline: pi.lost };
	return out;
}
