/**
 * `replay --watch` on one branch (docs/cli.md, "replay --watch"): the watch's timeline
 * (policy/watch/timeline.ts) run over the branch entry by entry as if the watch had been on, each
 * review it asks for rendered as the extension would send it (mode "watch", the replay's renderer
 * options) and priced after the branch's previous advisor request (watch-cost.ts). The previous
 * request is a real consultation's (an `advisor` call on the branch, rendered as its point is) or
 * the previous review's: a simulated point is the replay's measuring device, not a request anyone
 * sent, so a review reads nothing from it. The timeline is fed these figures — the executor's spend
 * so far, what the review it would send now costs — so its share cap decides as it would live. The
 * consultation points' own figures are not touched: this is a fold of its own beside them.
 */

import { assertNever } from "../../../events/index.ts";
import {
	createWatchTimeline,
	reuseShares,
	type WatchPricing,
	type WatchSettings,
	type WatchSkipReason,
	watchDecision,
} from "../../../policy/index.ts";
import {
	emptyLedger,
	foldLedger,
	type LedgerState,
	type WatchFacts,
	type WatchFinding,
} from "../../../reducers/index.ts";
import {
	DEFAULT_LEDGER_CONFIG,
	type LedgerConfig,
	type LedgerRequest,
	ordinalId,
	type RenderMemo,
	type RenderOptions,
	renderRequest,
	watchReason,
} from "../../../render/index.ts";
import { round } from "../report/numbers.ts";
import {
	dearer,
	emptySkips,
	type SessionWatch,
	sessionWatch,
	type WatchReviewReport,
	type WatchSkips,
} from "../report/watch-report.ts";
import type { BranchInput } from "./file-branches.ts";
import type { CostSetup } from "./point-estimate.ts";
import { advisorPoints } from "./points.ts";
import { executorSpend, type ReviewCost, reviewCost, WATCH_OUTPUT_TOKENS } from "./watch-cost.ts";

export interface WatchReplayOptions {
	/** advisor.json's `watch` section; `enabled` is ignored (the flag turns the watch on). */
	settings: WatchSettings;
	/** advisor.json's `ledger` section, as the consultation points render with. */
	config?: LedgerConfig;
	cost: CostSetup;
	/** The file's render memo (the points' own): the bytes do not depend on it, only the work. */
	memo: RenderMemo;
	outputTokens?: number;
}

/** The review the watch would send at the newest turn end, rendered and priced. */
interface Candidate {
	pos: number;
	finding: WatchFinding;
	request: LedgerRequest;
	cost: ReviewCost;
}

/** The branch's ledger folded on demand, and its advisor requests in order: what a review is rendered and priced from. */
interface BranchRequests {
	/** The ledger folded to `pos` (never backwards). */
	stateAt(pos: number): LedgerState;
	/** The newest advisor request before `pos`: a consultation's (rendered now) or the newest review's. */
	previousAt(pos: number): LedgerRequest | undefined;
	reviewed(pos: number, request: LedgerRequest): void;
}

function branchRequests(input: BranchInput, render: RenderOptions, memo: RenderMemo): BranchRequests {
	const { events } = input;
	const consultations = advisorPoints(events);
	let state = emptyLedger(input.cwd);
	let folded = 0;
	let next = 0;
	let previous: { pos: number; request: LedgerRequest } | undefined;
	const stateAt = (pos: number) => {
		if (pos < folded) throw new Error(`watch replay: the ledger is folded to ${folded}, past ${pos}`);
		state = foldLedger(state, events.slice(folded, pos));
		folded = pos;
		return state;
	};
	return {
		stateAt,
		previousAt(pos) {
			let newest: (typeof consultations)[number] | undefined;
			while (next < consultations.length && consultations[next]!.upTo <= pos) newest = consultations[next++];
			// A consultation at or after the newest review is the newer request (rendered as its point is).
			if (newest !== undefined && (previous === undefined || newest.upTo >= previous.pos)) {
				const options: RenderOptions = { ...render, mode: "consult", inFlightCallId: newest.callId };
				previous = { pos: newest.upTo, request: renderRequest(stateAt(newest.upTo), options, memo) };
			}
			return previous?.request;
		},
		reviewed(pos, request) {
			previous = { pos, request };
		},
	};
}

function skipKey(reason: WatchSkipReason): keyof WatchSkips | undefined {
	switch (reason) {
		case "cooldown":
			return "cooldown";
		case "prompt-cap":
			return "promptCap";
		case "over-share":
			return "overShare";
		case "disabled":
		case "no-new-round":
		case "own-note":
		case "quiet":
			return undefined;
		default:
			return assertNever(reason, "watch skip reason");
	}
}

/** The watch over one branch, as if it had been on: each review it asks for, priced; what it held back. */
export function replayWatch(input: BranchInput, options: WatchReplayOptions): SessionWatch {
	const settings: WatchSettings = { ...options.settings, enabled: true };
	const { price } = options.cost;
	const outputTokens = options.outputTokens ?? WATCH_OUTPUT_TOKENS;
	const render: RenderOptions = {
		config: options.config ?? DEFAULT_LEDGER_CONFIG,
		catalogue: input.tools.catalogue,
		tools: input.tools.declarations,
		toolsMode: input.tools.mode,
		mode: "watch",
	};
	const requests = branchRequests(input, render, options.memo);
	let candidate: Candidate | undefined;
	const executorUsd = (facts: WatchFacts) => executorSpend(facts.executor, price).usd;
	// No review costs less than its answer: what the decision is first asked with.
	const floor = (outputTokens * price.cost.output) / 1e6;
	const pricing: WatchPricing = {
		executorUsd,
		// The review it would send now, rendered and priced only when the decision could ask for it: a
		// review at the floor that would not be asked for is not asked for at any dearer price (the
		// decision's only use of the figure is the share cap), so the floor answers then.
		expectedUsd: (facts) => {
			const probe = watchDecision({ facts, settings, executorUsd: executorUsd(facts), expectedUsd: floor });
			if (!probe.review) return floor;
			const pos = facts.position;
			const previous = requests.previousAt(pos);
			const request = renderRequest(requests.stateAt(pos), { ...render, watch: probe.finding }, options.memo);
			candidate = { pos, finding: probe.finding, request, cost: reviewCost(previous, request, price, outputTokens) };
			return dearer(candidate.cost.usd);
		},
	};
	const timeline = createWatchTimeline(settings, pricing, input.cwd);
	const reviewed: WatchReviewReport[] = [];
	const skipped = emptySkips();
	let lastReview: LedgerRequest | undefined;
	for (const event of input.events) {
		const moment = timeline.push(event);
		if (moment === undefined) continue;
		const { decision } = moment;
		if (!decision.review) {
			const key = skipKey(decision.reason);
			if (key !== undefined) skipped[key]++;
			continue;
		}
		const c = candidate;
		if (c === undefined || c.pos !== moment.pos || c.finding.key !== decision.finding.key)
			throw new Error(`watch replay: the review at ${moment.atEntryId} was not the one priced`);
		const report: WatchReviewReport = {
			atEntryId: moment.atEntryId,
			card: ordinalId(moment.pos),
			signal: c.finding.signal,
			reason: watchReason(c.finding),
			tokens: c.cost.tokens,
			usd: c.cost.usd,
		};
		if (c.cost.shares !== undefined) report.cacheShare = roundShares(c.cost.shares);
		if (lastReview !== undefined) report.reuse = round(reuseShares(lastReview, c.request).tokenPrefix);
		reviewed.push(report);
		lastReview = c.request;
		requests.reviewed(moment.pos, c.request);
		timeline.reviewed(moment, dearer(c.cost.usd), true);
	}
	return sessionWatch(reviewed, skipped, executorSpend(timeline.facts().executor, price));
}

function roundShares(shares: ReviewCost["shares"] & object): NonNullable<WatchReviewReport["cacheShare"]> {
	return {
		tokenPrefix: round(shares.tokenPrefix),
		breakpoint: round(shares.breakpoint),
		breakpointNoBridges: round(shares.breakpointNoBridges),
	};
}
