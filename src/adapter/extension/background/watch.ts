/**
 * The watch, wired (docs/configuration.md#the-watch): a standing reviewer the branch's facts wake.
 * The pure half decides (policy/watch/decision.ts `watchDecision`, signals.ts `findingHolds`,
 * delivery.ts `watchDelivery` and `watchUsageRecord`; render/watch-note.ts `watchMessage`); this
 * file prices, runs the review and talks to Pi:
 *
 *   turn_end ─ watch.enabled? host records usage? advisor active?
 *     └ watchDecision(branch.watch, the executor's spend, 0 expected): nothing fires → nothing,
 *       no model call, no record. A finding that would be reviewed is priced
 *       (consult/run-estimate.ts: the request the review would send, the gate's estimate) and
 *       decided again, for `maxShare`.
 *     ├ skipped for cooldown, prompt-cap or over-share → a usage record (outcome "skipped",
 *     │ delivery "not-reviewed", errorMessage the reason), so the finding is not tried again
 *     └ review → runAdvisor in mode "watch" with the finding (the consultation pipeline: ledger,
 *       investigation tools, the budget gate with `interactive: false`, retry, `budget.timeoutSec`,
 *       the same branch budget), in the slot it shares with the completion review
 *       (review-slot.ts), NOT awaited: the executor is never held up.
 *   the review settles
 *     1. watchDelivery(advice, { holds: findingHolds(finding, the branch now), runActive,
 *        wokeThisPrompt }) — then the usage record (watchUsageRecord), always, before anything is
 *        shown;
 *     2. steered → `advisor-watch` message steered into the running executor, before its next
 *        model call; queued → for the next prompt; turn → one executor turn (at most one per user
 *        prompt, shared with the completion review); kept, none, stale → recorded only.
 *
 * Decisions where the brief is silent:
 * - A finding while another review is in flight (the completion review's or the watch's own) is
 *   not recorded: it is judged again at the next turn's end (a failure streak fires at the turn
 *   that completes it; the other signals keep firing until reviewed).
 * - The entry a finding fired at (`atEntryId`) is the branch's leaf at turn_end: the turn's last
 *   tool result, so the completion review counts the watch as having seen that turn.
 * - The executor's spend is what its messages recorded; a branch that recorded $0 (a subscription,
 *   a model without prices in the message) is priced from its token counts at the executor
 *   model's registry prices.
 * - Without a UI a note is sent as the completion review's are (review-slot.ts `sendHeadless`);
 *   a review that did not answer (failed, timed out, cancelled) delivers nothing; a budget skip
 *   inside the pipeline is recorded "not-reviewed".
 */

import type { Usage } from "@mariozechner/pi-ai";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { assertNever, CUSTOM_TYPES, type Severity, type WatchDelivery } from "../../../events/index.ts";
import {
	findingHolds,
	reviewSeverity,
	type WatchDecision,
	type WatchSkipReason,
	watchDecision,
	watchDelivery,
	watchUsageRecord,
	wokeSinceLastUserMessage,
} from "../../../policy/index.ts";
import type { WatchFacts, WatchFinding } from "../../../reducers/index.ts";
import { watchMessage, zeroUsage } from "../../../render/index.ts";
import { lookupAdvisorModel } from "../config/activation.ts";
import type { AdvisorConfig } from "../config/load.ts";
import { type AdvisorToolDeps, runAdvisor } from "../consult/advisor-tool.ts";
import type { AdvisorEnvelope } from "../consult/envelope.ts";
import { expectedRunUsd } from "../consult/run-estimate.ts";
import { formatColonKey, modelKeyOf } from "../pi/model-key.ts";
import type { ReviewOutcome } from "./review-outcome.ts";
import { outcomeOf } from "./review-outcome.ts";
import { type Flight, headless, type ReviewSlot } from "./review-slot.ts";

/** What the watch did at a turn's end and after, for tests and diagnostics (never shown to the user). */
export type WatchTrace =
	| { type: "decided"; decision: WatchDecision; atEntryId: string }
	| { type: "busy"; finding: WatchFinding }
	| { type: "started"; finding: WatchFinding; atEntryId: string }
	| {
			type: "settled";
			finding: WatchFinding;
			outcome: ReviewOutcome;
			severity?: Severity;
			delivery: WatchDelivery;
			cancelledBy?: string;
	  };

export interface WatchDeps {
	pi: Pick<ExtensionAPI, "sendMessage"> & Partial<Pick<ExtensionAPI, "appendEntry">>;
	/** The advisor tool's pipeline deps: the same config, ledger, model and budget. */
	pipeline: AdvisorToolDeps;
	/** Whether advisor() is in the executor's active set (the host's last activation decision). */
	advisorActive: () => boolean;
	/** The background slot shared with the completion review. */
	slot: ReviewSlot;
	now?: () => number;
	onTrace?: (trace: WatchTrace) => void;
}

export interface Watch {
	/** turn_end: decides and, maybe, starts a review in the background (returns at once). */
	turnEnded(ctx: ExtensionContext): void;
}

/** The skips that leave a record: the finding was real, and is not tried again. */
const RECORDED_SKIPS: ReadonlySet<WatchSkipReason> = new Set(["cooldown", "prompt-cap", "over-share"]);

export function createWatch(deps: WatchDeps): Watch {
	return { turnEnded: (ctx) => turnEnded(deps, ctx) };
}

function trace(deps: WatchDeps, t: WatchTrace): void {
	try {
		deps.onTrace?.(t);
	} catch {
		// A trace listener never breaks the watch.
	}
}

function snapshot(deps: WatchDeps, ctx: ExtensionContext) {
	const sm = ctx.sessionManager;
	return deps.pipeline.ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries(), sm.getCwd());
}

function record(deps: WatchDeps, data: unknown): void {
	const append = deps.pi.appendEntry;
	if (typeof append !== "function") return;
	try {
		append.call(deps.pi, CUSTOM_TYPES.usage, data);
	} catch {
		// The session is gone; reviews are cancelled (and recorded) before that, normally.
	}
}

type Pricing = Pick<Usage["cost"], "input" | "output" | "cacheRead" | "cacheWrite">;

/** What the executor's turns cost: as recorded, or at `prices` (per million tokens) when the branch recorded $0. */
export function executorSpendUsd(facts: Pick<WatchFacts, "executor">, prices: Pricing | undefined): number {
	const spent = facts.executor;
	if (spent.usd > 0 || prices === undefined) return spent.usd;
	return (
		(spent.input * prices.input +
			spent.output * prices.output +
			spent.cacheRead * prices.cacheRead +
			spent.cacheWrite * prices.cacheWrite) /
		1e6
	);
}

// ---------------------------------------------------------------------------------------------
// turn_end: decide, then start in the background
// ---------------------------------------------------------------------------------------------

function turnEnded(deps: WatchDeps, ctx: ExtensionContext): void {
	const config = deps.pipeline.config();
	// Off costs nothing: not even a fold.
	if (!config.watch.enabled || typeof deps.pi.appendEntry !== "function" || !deps.advisorActive()) return;
	let decided: { decision: WatchDecision; atEntryId: string } | undefined;
	try {
		decided = decide(deps, ctx, config);
	} catch {
		// An unreadable branch or a host that went away: nothing to watch this turn.
		return;
	}
	if (decided === undefined) return;
	const { decision, atEntryId } = decided;
	trace(deps, { type: "decided", decision, atEntryId });
	if (!decision.review) {
		if (decision.finding !== undefined && RECORDED_SKIPS.has(decision.reason))
			record(deps, skipRecord(deps, ctx, config, { finding: decision.finding, atEntryId }, decision.reason));
		return;
	}
	start(deps, ctx, decision.finding, atEntryId);
}

/** The decision at this turn's end; undefined when a review would run but another is in flight. */
function decide(
	deps: WatchDeps,
	ctx: ExtensionContext,
	config: AdvisorConfig,
): { decision: WatchDecision; atEntryId: string } | undefined {
	const facts = snapshot(deps, ctx).watch;
	const atEntryId = ctx.sessionManager.getLeafId() ?? facts.turn?.id ?? "";
	const input = { facts, settings: config.watch, executorUsd: executorSpendUsd(facts, ctx.model?.cost) };
	// Priced only when a review would run: the guards before the share do not depend on the price,
	// and a share already spent is over with any price.
	const free = watchDecision({ ...input, expectedUsd: 0 });
	if (!free.review) return { decision: free, atEntryId };
	if (deps.slot.current() !== undefined) {
		trace(deps, { type: "busy", finding: free.finding });
		return undefined;
	}
	const expectedUsd = expectedRunUsd(deps.pipeline, { ctx, mode: "watch", watch: free.finding, signal: undefined });
	return { decision: watchDecision({ ...input, expectedUsd }), atEntryId };
}

/** The advisor as records name it (`provider:modelId`), or as advisor.json does when Pi does not know it. */
function advisorKey(ctx: ExtensionContext, config: AdvisorConfig): string {
	const model = lookupAdvisorModel(config.modelKey, (provider, id) => ctx.modelRegistry.find(provider, id));
	return model !== undefined ? formatColonKey(modelKeyOf(model)) : (config.modelKey ?? "unknown");
}

/** `advisorKey`, or advisor.json's when the context is gone. */
function advisorKeyOr(ctx: ExtensionContext, config: AdvisorConfig): string {
	try {
		return advisorKey(ctx, config);
	} catch {
		return config.modelKey ?? "unknown";
	}
}

function skipRecord(
	deps: WatchDeps,
	ctx: ExtensionContext,
	config: AdvisorConfig,
	{ finding, atEntryId }: Reviewed,
	reason: WatchSkipReason,
) {
	return watchUsageRecord({
		model: advisorKeyOr(ctx, config),
		...(config.effort !== undefined ? { effort: config.effort } : {}),
		usage: zeroUsage(),
		finding,
		atEntryId,
		outcome: "skipped",
		delivery: "not-reviewed",
		errorMessage: reason,
		timestampMs: (deps.now ?? Date.now)(),
	});
}

function start(deps: WatchDeps, ctx: ExtensionContext, finding: WatchFinding, atEntryId: string): void {
	const started = deps.slot.start("watch", headless(ctx), async (flight) => {
		const run = await runAdvisor(deps.pipeline, {
			ctx,
			mode: "watch",
			watch: finding,
			signal: flight.controller.signal,
			interactive: false,
		});
		settle(deps, ctx, flight, { finding, atEntryId }, run.envelope);
	});
	if (started !== undefined) trace(deps, { type: "started", finding, atEntryId });
}

// ---------------------------------------------------------------------------------------------
// The review settles: what it becomes, the bill, then the note
// ---------------------------------------------------------------------------------------------

interface Reviewed {
	finding: WatchFinding;
	atEntryId: string;
}

/** What the answer becomes on the branch as it is now; a review that did not answer delivers nothing. */
function delivery(
	deps: WatchDeps,
	ctx: ExtensionContext,
	flight: Flight,
	finding: WatchFinding,
	outcome: ReviewOutcome,
	advice: string | undefined,
): { delivery: WatchDelivery; severity?: Severity } {
	// A cancelled review has no advice (outcomeOf): nothing is shown in a session that changed.
	if (advice === undefined) return { delivery: outcome === "skipped" ? "not-reviewed" : "none" };
	try {
		const now = snapshot(deps, ctx);
		return watchDelivery(advice, {
			holds: findingHolds(finding, now.watch),
			// Headless, the host is not idle while it holds the run open (Pi 1.x): only the run counts.
			runActive: flight.headless ? deps.slot.running() : deps.slot.runActive(ctx),
			wokeThisPrompt: wokeSinceLastUserMessage(now.state),
		});
	} catch {
		// A stale context (the session was replaced without telling us): nothing to show it in.
		return { delivery: "none", severity: reviewSeverity(advice) };
	}
}

function settle(
	deps: WatchDeps,
	ctx: ExtensionContext,
	flight: Flight,
	reviewed: Reviewed,
	envelope: AdvisorEnvelope,
): void {
	const { finding, atEntryId } = reviewed;
	const { details } = envelope;
	const { outcome, advice } = outcomeOf(envelope, flight.cancelledBy !== undefined);
	const decided = delivery(deps, ctx, flight, finding, outcome, advice);
	// 1. The bill, before anything is shown.
	record(
		deps,
		watchUsageRecord({
			model: details.advisorModel ?? advisorKeyOr(ctx, deps.pipeline.config()),
			...(details.effort !== undefined ? { effort: details.effort } : {}),
			usage: envelope.usage ?? details.usage ?? zeroUsage(),
			finding,
			atEntryId,
			outcome,
			delivery: decided.delivery,
			...(decided.severity !== undefined ? { severity: decided.severity } : {}),
			...(advice !== undefined ? { advice } : {}),
			...(details.errorMessage !== undefined ? { errorMessage: details.errorMessage } : {}),
			...(details.request !== undefined ? { request: details.request } : {}),
			...(details.attempts !== undefined ? { attempts: details.attempts } : {}),
			timestampMs: (deps.now ?? Date.now)(),
		}),
	);
	const settled: WatchTrace = { type: "settled", finding, outcome, delivery: decided.delivery };
	if (decided.severity !== undefined) settled.severity = decided.severity;
	if (flight.cancelledBy !== undefined) settled.cancelledBy = flight.cancelledBy;
	// 2. The note.
	if (advice !== undefined && decided.severity !== undefined) {
		try {
			send(deps, ctx, flight, { ...reviewed, advice, severity: decided.severity, envelope }, decided.delivery);
		} catch {
			// A stale context: nothing to show it in (the record is written).
		}
	}
	trace(deps, settled);
}

/** How a delivery reaches the executor; undefined: recorded only (a nit kept, nothing to say, stale). */
function route(delivered: WatchDelivery): "steer" | "queue" | "turn" | undefined {
	switch (delivered) {
		case "steered":
			return "steer";
		case "queued":
			return "queue";
		case "turn":
			return "turn";
		case "kept":
		case "stale":
		case "none":
		case "not-reviewed":
			return undefined;
		default:
			return assertNever(delivered, "watch delivery");
	}
}

function send(
	deps: WatchDeps,
	ctx: ExtensionContext,
	flight: Flight,
	note: Reviewed & { advice: string; severity: Severity; envelope: AdvisorEnvelope },
	delivered: WatchDelivery,
): void {
	const how = route(delivered);
	if (how === undefined) return;
	const { details } = note.envelope;
	const message = watchMessage({
		advice: note.advice,
		severity: note.severity,
		finding: note.finding,
		atEntryId: note.atEntryId,
		triggerTurn: how === "turn",
		...(note.envelope.usage !== undefined ? { usage: note.envelope.usage } : {}),
		...(details.advisorModel !== undefined ? { advisorModel: details.advisorModel } : {}),
		...(details.effort !== undefined ? { effort: details.effort } : {}),
	});
	// Into the running executor, before its next model call.
	if (how === "steer") deps.pi.sendMessage(message, { deliverAs: "steer" });
	else if (flight.headless) deps.slot.sendHeadless(deps.pi, ctx, message, how === "turn");
	else deps.pi.sendMessage(message, how === "turn" ? { triggerTurn: true } : { deliverAs: "nextTurn" });
}
