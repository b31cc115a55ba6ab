/**
 * Cache warming, wired. The pure half decides (policy/warming/decision.ts `warmingDecision`, the
 * chain as a state machine in policy/warming/state.ts, the payload guard in
 * policy/warming/payload-hash.ts); this file carries out the machine's actions with a real timer, a real
 * request and `pi.appendEntry`:
 *
 *   advisor() consultation starts ──────────────▶ cancel("consultation")   (awaited)
 *   it ends with advice and a payload hash ─────▶ consulted(warmingDecision(…))
 *       warm → one timer at 90% of the TTL after the consultation's last request (unref'd)
 *   timer fires ───▶ tick ───▶ refresh: the consultation's FIRST request again (the exact
 *       LedgerRequest context that was sent, same model, auth, effort, sessionId and cache marks —
 *       cut after its stable portion where marks cache, `refreshRequest`, so it reads and keeps
 *       alive the very entry the next consultation reads, and writes none), maxTokens 16, no retry
 *       (pi-ai maxRetries 0, no retry hook), no tool loop, `budget.timeoutSec` deadline; its
 *       onPayload hashes the payload as it would leave, in its warming form, and throws (pi-ai then
 *       ends the request before any network I/O) unless `refreshGuard` says send
 *   refresh settles ─▶ `advisor-usage` record (kind "warming") whenever the request left, whatever
 *       the outcome ─▶ refreshDone(hit → next decision from the refresh's own send time and the
 *       spend including it; miss / error / aborted → the chain ends)
 *   agent_end, model_select, thinking_level_select, /advisor, session_before_compact|tree|switch|
 *   fork, session_shutdown ─▶ cancel(reason): the timer is cleared, an in-flight refresh aborted and
 *       awaited, so its usage is recorded before the hook returns (before the session changes).
 *
 * Never a dialog, never a thrown error into Pi. A consultation is warmed only when it completed with
 * advice (a failed or skipped one leaves the chain idle), its first request carries a payload hash
 * (providers that never build a payload — pi-ai's faux provider — cannot be guarded, so they are not
 * warmed), and the host can record usage (`pi.appendEntry`).
 */

import type { AssistantMessage, Usage } from "@mariozechner/pi-ai";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { assertNever, CUSTOM_TYPES } from "../../../events/index.ts";
import {
	idleWarming,
	type RefreshGuard,
	type RefreshOutcome,
	refreshGuard,
	refreshOutcome,
	refreshRequest,
	requestRecord,
	resolveCacheRetention,
	WARMING_OUTPUT_TOKENS,
	type WarmingCancelReason,
	type WarmingDecision,
	type WarmingEnd,
	type WarmingEvent,
	type WarmingSkipReason,
	type WarmingState,
	type WarmingTarget,
	warmingDecision,
	warmingReducer,
	warmingUsageRecord,
} from "../../../policy/index.ts";
import { buildContext, zeroUsage } from "../../../render/index.ts";
import type { AdvisorDispatch, AdvisorRun } from "../consult/advisor-tool.ts";
import { billedUsdOf, spendAfter } from "../consult/cost-control.ts";
import { createDeadline } from "../consult/deadline.ts";
import type { AdvisorEnvelope } from "../consult/envelope.ts";
import { cacheMarksHook, warmingForm } from "../consult/payload-cache-marks.ts";
import { errorText } from "../pi/error-text.ts";
import { formatColonKey, modelKeyOf } from "../pi/model-key.ts";

/** The clock and the one timer. Defaults look the globals up at call time, so fake timers drive them. */
export interface WarmingTimers {
	now(): number;
	setTimeout(fn: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

/** Why a consultation did not arm a chain, beyond the decision's own reasons. */
export type NotArmedReason =
	| WarmingSkipReason
	/** The consultation failed, was skipped or cancelled: nothing worth keeping warm. */
	| "no-advice"
	/** The provider never showed us its payload (faux), so a refresh could not be guarded. */
	| "no-payload-hash"
	| "host-cannot-record-usage";

/** What the warming did, for tests and diagnostics (never shown to the user). */
export type WarmingTrace =
	| { type: "armed"; consultationId: string; atMs: number; decision: Extract<WarmingDecision, { warm: true }> }
	| { type: "not-armed"; consultationId: string; reason: NotArmedReason; decision?: WarmingDecision }
	| { type: "refresh-sent"; refreshId: number; consultationId: string; sentMs: number }
	| { type: "refresh-refused"; refreshId: number; reason: Extract<RefreshGuard, { send: false }>["reason"] }
	| { type: "refresh-settled"; refreshId: number; outcome: RefreshOutcome; usage: Usage; recorded: boolean }
	| { type: "rearmed"; refreshId: number; atMs: number }
	| { type: "ended"; end: WarmingEnd };

export interface WarmingDeps {
	pi: Partial<Pick<ExtensionAPI, "appendEntry">>;
	timers?: Partial<WarmingTimers>;
	/** `PI_CACHE_RETENTION` as pi-ai reads it (no retention is forced; docs/request-format.md). Default the real env. */
	env?: () => string | undefined;
	onTrace?: (trace: WarmingTrace) => void;
}

export interface CacheWarming {
	/** After an advisor() consultation (the tool's observer). */
	consulted(run: AdvisorRun, consultationId: string): void;
	/** Ends the chain; resolves once an in-flight refresh has settled and its usage is recorded. */
	cancel(reason: WarmingCancelReason): Promise<void>;
	/** The machine's state (tests, diagnostics). */
	state(): WarmingState;
	/** Resolves when no refresh is in flight. */
	idle(): Promise<void>;
}

/** What a chain keeps of its consultation: everything its refresh replays. */
interface Kept {
	target: WarmingTarget;
	dispatch: AdvisorDispatch;
	/** Epoch ms of the consultation's last request: `maxDurationSec` counts from here. */
	consultationMs: number;
	promptTokens: number | undefined;
	/** The branch's advisor spend, this consultation and the chain's refreshes included. */
	spentUsd: number;
}

interface InFlight {
	refreshId: number;
	controller: AbortController;
	promise: Promise<void>;
}

/** The error the refresh's onPayload throws to stop pi-ai before it sends anything. */
export const REFRESH_REFUSED = "advisor warming: refresh refused by the payload guard";

function defaultTimers(): WarmingTimers {
	return {
		now: () => Date.now(),
		setTimeout: (fn, ms) => setTimeout(fn, ms),
		clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
	};
}

function completedAdvice(envelope: AdvisorEnvelope): boolean {
	const { details } = envelope;
	if (details.skipped === true || details.errorMessage !== undefined) return false;
	if (details.stopReason === "error" || details.stopReason === "aborted") return false;
	return envelope.content.some((part) => part.text.trim().length > 0);
}

/** What one warming chain keeps between timers and consultations (one per loaded copy of the extension). */
interface WarmingChain {
	readonly deps: WarmingDeps;
	readonly timers: WarmingTimers;
	/** `PI_CACHE_RETENTION` as pi-ai reads it. */
	readonly env: () => string | undefined;
	state: WarmingState;
	timer: unknown;
	/** The consultation the chain keeps warm; empty while idle. */
	kept: Kept | undefined;
	inflight: InFlight | undefined;
}

export function createCacheWarming(deps: WarmingDeps): CacheWarming {
	const chain: WarmingChain = {
		deps,
		timers: { ...defaultTimers(), ...deps.timers },
		env: deps.env ?? (() => process.env.PI_CACHE_RETENTION),
		state: idleWarming(),
		timer: undefined,
		kept: undefined,
		inflight: undefined,
	};
	return {
		consulted: (run, consultationId) => consulted(chain, run, consultationId),
		cancel: (reason) => step(chain, { type: "cancel", reason }),
		state: () => chain.state,
		idle: () => chain.inflight?.promise ?? Promise.resolve(),
	};
}

function trace(chain: WarmingChain, t: WarmingTrace): void {
	try {
		chain.deps.onTrace?.(t);
	} catch {
		// A trace listener never breaks the warming.
	}
}

function clearTimer(chain: WarmingChain): void {
	if (chain.timer !== undefined) chain.timers.clearTimeout(chain.timer);
	chain.timer = undefined;
}

function decide(chain: WarmingChain, k: Kept, lastTouchMs: number): WarmingDecision {
	const d = k.dispatch;
	return warmingDecision({
		config: d.config.warming,
		model: d.model,
		cacheRetention: resolveCacheRetention(undefined, chain.env()),
		first: d.request,
		promptTokens: k.promptTokens,
		spentUsd: k.spentUsd,
		budget: { perCallHardUsd: d.config.budget.perCallHardUsd, sessionUsd: d.config.budget.sessionUsd },
		consultationMs: k.consultationMs,
		lastTouchMs,
		nowMs: chain.timers.now(),
	});
}

// ---------------------------------------------------------------------------------------------
// The machine's actions, carried out
// ---------------------------------------------------------------------------------------------

/** Feeds the pure machine one event and carries out its actions; resolves once aborted refreshes settled. */
function step(chain: WarmingChain, event: WarmingEvent): Promise<void> {
	const next = warmingReducer(chain.state, event);
	chain.state = next.state;
	if (next.ended !== undefined) trace(chain, { type: "ended", end: next.ended });
	if (chain.state.phase === "idle") chain.kept = undefined;
	const waits: Promise<void>[] = [];
	for (const action of next.actions) {
		switch (action.type) {
			case "schedule":
				schedule(chain, action.delayMs);
				break;
			case "clearTimer":
				clearTimer(chain);
				break;
			case "refresh":
				refresh(chain, action.refreshId);
				break;
			case "abort":
				if (chain.inflight !== undefined && chain.inflight.refreshId === action.refreshId) {
					chain.inflight.controller.abort(new Error(`aborted: ${action.reason}`));
					waits.push(chain.inflight.promise);
				}
				break;
			default:
				return assertNever(action, "warming action");
		}
	}
	return Promise.all(waits).then(() => undefined);
}

function schedule(chain: WarmingChain, delayMs: number): void {
	clearTimer(chain);
	const handle = chain.timers.setTimeout(() => {
		if (chain.timer !== handle) return;
		chain.timer = undefined;
		void step(chain, { type: "tick", nowMs: chain.timers.now() });
	}, delayMs);
	(handle as { unref?: () => void } | undefined)?.unref?.();
	chain.timer = handle;
}

function record(chain: WarmingChain, k: Kept, usage: Usage, sentMs: number): boolean {
	const pi = chain.deps.pi;
	const append = pi.appendEntry;
	if (typeof append !== "function") return false;
	const d = k.dispatch;
	const data = warmingUsageRecord({
		model: formatColonKey(modelKeyOf(d.model)),
		...(d.effort !== undefined ? { effort: d.effort } : {}),
		usage,
		request: requestRecord(refreshRequest(d.request, d.model), {
			routingKey: d.routingKey,
			timestampMs: sentMs,
			payloadHash: k.target.payloadHash,
		}),
		timestampMs: chain.timers.now(),
	});
	try {
		append.call(pi, CUSTOM_TYPES.usage, data);
		return true;
	} catch {
		// The session went away under us (it is cancelled before that happens, normally).
		return false;
	}
}

// ---------------------------------------------------------------------------------------------
// A refresh: send the first request again, guarded, then tell the machine
// ---------------------------------------------------------------------------------------------

/** What came back from one refresh request. */
interface Sent {
	message: AssistantMessage | undefined;
	thrown: string | undefined;
	/** Set when the payload guard stopped the request before it left. */
	refusal: Extract<RefreshGuard, { send: false }> | undefined;
	/** When the request left (the guard let it through). */
	sentMs: number | undefined;
	/** The refresh's own deadline (`budget.timeoutSec`) ran out. */
	expired: boolean;
}

function refresh(chain: WarmingChain, refreshId: number): void {
	const k = chain.kept;
	const controller = new AbortController();
	const promise = (async () => {
		if (k === undefined) {
			await step(chain, { type: "refreshDone", refreshId, outcome: "error", nowMs: chain.timers.now() });
			return;
		}
		const sent = await sendRefresh(chain, k, refreshId, controller.signal);
		await refreshSettled(chain, k, refreshId, controller.signal, sent);
	})()
		.catch(() => undefined)
		.finally(() => {
			if (chain.inflight?.refreshId === refreshId) chain.inflight = undefined;
		});
	chain.inflight = { refreshId, controller, promise };
}

/** The consultation's first request again; its onPayload throws (pi-ai then sends nothing) unless the guard says send. */
async function sendRefresh(chain: WarmingChain, k: Kept, refreshId: number, aborted: AbortSignal): Promise<Sent> {
	const { timers } = chain;
	const d = k.dispatch;
	const request = refreshRequest(d.request, d.model);
	const context = buildContext(request);
	const marks = cacheMarksHook(d.model, context, d.marks);
	const sent: Sent = { message: undefined, thrown: undefined, refusal: undefined, sentMs: undefined, expired: false };
	const onPayload = (payload: unknown, model: { api?: string } | undefined): unknown => {
		const replaced = marks?.(payload);
		// A payload that does not line up has no warming form: an empty object never hashes equal.
		const form = warmingForm(replaced ?? payload, d.model, context, request.stable) ?? {};
		const guard = refreshGuard({
			originalHash: k.target.payloadHash,
			payload: form,
			api: model?.api ?? d.model.api,
		});
		if (!guard.send) {
			sent.refusal = guard;
			throw new Error(REFRESH_REFUSED);
		}
		sent.sentMs = timers.now();
		trace(chain, { type: "refresh-sent", refreshId, consultationId: k.target.consultationId, sentMs: sent.sentMs });
		return replaced;
	};
	const deadline = createDeadline(d.config.budget.timeoutSec * 1000, timers.now);
	try {
		sent.message = await d.complete(d.model, context, {
			...(d.effort !== undefined ? { reasoning: d.effort } : {}),
			sessionId: d.routingKey,
			signal: AbortSignal.any([aborted, deadline.signal]),
			...(d.auth.apiKey !== undefined ? { apiKey: d.auth.apiKey } : {}),
			...(d.auth.headers !== undefined ? { headers: d.auth.headers } : {}),
			maxTokens: WARMING_OUTPUT_TOKENS,
			maxRetries: 0,
			onPayload,
		});
	} catch (err) {
		sent.thrown = errorText(err);
	} finally {
		deadline.dispose();
	}
	sent.expired = deadline.expired();
	return sent;
}

/** The bill of a refresh that left, then the machine's next step: a hit re-decides, anything else ends the chain. */
async function refreshSettled(
	chain: WarmingChain,
	k: Kept,
	refreshId: number,
	aborted: AbortSignal,
	sent: Sent,
): Promise<void> {
	const { timers } = chain;
	if (sent.refusal !== undefined) {
		// Nothing left: nothing billed, nothing recorded; the chain ends.
		trace(chain, { type: "refresh-refused", refreshId, reason: sent.refusal.reason });
		await step(chain, { type: "refreshDone", refreshId, outcome: "error", nowMs: timers.now() });
		return;
	}
	const { message, thrown, sentMs } = sent;
	const usage = message?.usage ?? zeroUsage();
	const stop = aborted.aborted
		? "aborted"
		: thrown !== undefined
			? "error"
			: message?.stopReason === "aborted" && sent.expired
				? "error"
				: message?.stopReason;
	const outcome = refreshOutcome(usage, stop);
	// The request left (or may have): its bill belongs to the branch, whatever came back.
	const recorded =
		sentMs !== undefined || message !== undefined ? record(chain, k, usage, sentMs ?? timers.now()) : false;
	trace(chain, { type: "refresh-settled", refreshId, outcome, usage, recorded });
	if (outcome !== "hit") {
		await step(chain, { type: "refreshDone", refreshId, outcome, nowMs: timers.now() });
		return;
	}
	k.spentUsd += billedUsdOf(usage);
	const next = decide(chain, k, sentMs ?? timers.now());
	await step(chain, { type: "refreshDone", refreshId, outcome: "hit", next, nowMs: timers.now() });
	if (next.warm && chain.state.phase === "armed") trace(chain, { type: "rearmed", refreshId, atMs: next.atMs });
}

// ---------------------------------------------------------------------------------------------
// A consultation ended: arm a chain, or say why not
// ---------------------------------------------------------------------------------------------

function consulted(chain: WarmingChain, run: AdvisorRun, consultationId: string) {
	const notArmed = (reason: NotArmedReason, decision?: WarmingDecision) =>
		trace(chain, {
			type: "not-armed",
			consultationId,
			reason,
			...(decision !== undefined ? { decision } : {}),
		});
	const d = run.dispatch;
	if (d === undefined || !completedAdvice(run.envelope)) return notArmed("no-advice");
	const request = run.envelope.details.request;
	if (request === undefined) return notArmed("no-advice");
	const consultationMs = Math.max(request.timestamp, request.lastSentMs ?? request.timestamp);
	const k: Kept = {
		target: { consultationId, payloadHash: request.payloadHash ?? "" },
		dispatch: d,
		consultationMs,
		promptTokens: request.promptTokens,
		spentUsd: spendAfter(d.spend, run.envelope).totalUsd,
	};
	const decision = decide(chain, k, consultationMs);
	if (decision.warm) {
		if (request.payloadHash === undefined) return notArmed("no-payload-hash", decision);
		if (typeof chain.deps.pi.appendEntry !== "function") return notArmed("host-cannot-record-usage", decision);
	}
	// The refresh replays what `kept` holds; a cold decision leaves the machine idle (and `kept` empty).
	chain.kept = k;
	void step(chain, { type: "consulted", target: k.target, decision, nowMs: chain.timers.now() });
	if (decision.warm) trace(chain, { type: "armed", consultationId, atMs: decision.atMs, decision });
	else notArmed(decision.reason, decision);
}
