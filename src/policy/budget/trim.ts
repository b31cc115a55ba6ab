/**
 * Trimming a cold request to fit `budget.contextBudgetTokens`.
 *
 * `chooseTrim` moves the anchor forward from where it is (the sticky one, or the start): the
 * smallest cut that fits, dropping the oldest items first — cards and everything else of the
 * oldest stretch of the log, whole segments with their question and advice — while the user's
 * words of the dropped span are re-stated verbatim (render/trim-cut.ts). Only stable items can be
 * dropped: the verbatim tail, the question and the instruction always stay. When even the last
 * stable item gone is not enough, the tail caps shrink 4000 → 2000 → 1000 → 500; past that the
 * request is "too big" and the consultation is skipped with SKIP_REASONS.contextBudget.
 *
 * A request measured here is a new prefix, so it is measured cold: chars/4 with 20% headroom.
 * The chosen trim is persisted (`trimAnchorRecord`) before dispatch and re-applied on every later
 * call (`activeTrim`), which is what makes the warm follow-up reproduce the trimmed prefix.
 */

import type { ContextTrim } from "../../events/index.ts";
import type { LedgerState, RenderTrim } from "../../reducers/index.ts";
import {
	createRenderMemo,
	type LedgerRequest,
	ledgerItems,
	locateCut,
	type RenderMemo,
	type RenderOptions,
	renderRequest,
	SKIP_REASONS,
	stableOpenBlocks,
} from "../../render/index.ts";
import { coldPromptTokens } from "./request-estimate.ts";

/** The tail caps tried, in order, once nothing more can be dropped. */
export const TAIL_CAPS: readonly number[] = Object.freeze([4000, 2000, 1000, 500]);

export interface TrimSettings {
	/** budget.contextBudgetTokens (> 0). */
	budgetTokens: number;
	/**
	 * Default: a memo of its own, dropped after the call — every candidate has a different stand-in
	 * part, and a long-lived memo would keep each one's text as a hash key.
	 */
	memo?: RenderMemo;
	/** How a candidate request is measured; default chars/4 + 20% (it is a new, cold prefix). */
	promptTokens?: (request: LedgerRequest) => number;
}

export type TrimChoice =
	| {
			kind: "fits";
			/** What to render with (and persist, when `changed`); undefined = no trim. */
			trim: RenderTrim | undefined;
			request: LedgerRequest;
			promptTokens: number;
			/** false: the request already fit with the trim it had. */
			changed: boolean;
	  }
	| {
			kind: "too-big";
			/** The most that could be trimmed, still over budget. */
			trim: RenderTrim | undefined;
			request: LedgerRequest;
			promptTokens: number;
			/** SKIP_REASONS.contextBudget. */
			reason: string;
	  };

/**
 * Anchors that may be chosen, oldest first: every ledger item but the verbatim tail, each id at
 * its first occurrence only (a repeated id would cut at its first occurrence anyway).
 */
export function trimCandidates(state: LedgerState, options: Pick<RenderOptions, "config">): string[] {
	const stableOpen = stableOpenBlocks(state, options.config);
	const seen = new Set<string>();
	const out: string[] = [];
	for (const item of ledgerItems(state)) {
		if (item.segment === state.closed.length && item.block >= stableOpen) break;
		if (seen.has(item.id)) continue;
		seen.add(item.id);
		out.push(item.id);
	}
	return out;
}

function withCaps(anchorEntryId: string | undefined, tailCaps: number | undefined): RenderTrim {
	const trim: RenderTrim = {};
	if (anchorEntryId !== undefined) trim.anchorEntryId = anchorEntryId;
	if (tailCaps !== undefined) trim.tailCaps = tailCaps;
	return trim;
}

export function chooseTrim(state: LedgerState, options: RenderOptions, settings: TrimSettings): TrimChoice {
	const measureTokens = settings.promptTokens ?? coldPromptTokens;
	const memo = settings.memo ?? createRenderMemo();
	const measure = (trim: RenderTrim | undefined) => {
		const request = renderRequest(state, { ...options, trim }, memo);
		return { trim, request, promptTokens: measureTokens(request) };
	};
	const fits = (m: { promptTokens: number }) => m.promptTokens <= settings.budgetTokens;

	const current = options.trim;
	const currentAnchor =
		current?.anchorEntryId !== undefined && locateCut(state, current.anchorEntryId) !== undefined
			? current.anchorEntryId
			: undefined;
	const base = measure(current);
	if (fits(base)) return { kind: "fits", ...base, changed: false };

	// Anchors strictly after the current one: the boundary only ever moves forward.
	const all = trimCandidates(state, options);
	const from = currentAnchor === undefined ? 0 : all.indexOf(currentAnchor) + 1;
	const candidates = from > 0 || currentAnchor === undefined ? all.slice(from) : [];

	let last = base;
	if (candidates.length > 0) {
		const at = (i: number) => measure(withCaps(candidates[i], undefined));
		last = at(candidates.length - 1);
		if (fits(last)) {
			// Size shrinks (almost) monotonically as the cut moves forward: bisect, then step past
			// any rounding jitter.
			let lo = 0;
			let hi = candidates.length - 1;
			let best = last;
			while (lo < hi) {
				const mid = Math.floor((lo + hi) / 2);
				const m = at(mid);
				if (fits(m)) {
					hi = mid;
					best = m;
				} else lo = mid + 1;
			}
			if (best.trim?.anchorEntryId !== candidates[lo]) best = at(lo);
			for (let i = lo; !fits(best) && i < candidates.length - 1; ) best = at(++i);
			return { kind: "fits", ...best, changed: true };
		}
	}

	const anchor = candidates.length > 0 ? candidates[candidates.length - 1] : currentAnchor;
	const effectiveCap = Math.min(options.config.tailMaxChars, current?.tailCaps ?? Number.POSITIVE_INFINITY);
	for (const cap of TAIL_CAPS) {
		if (cap >= effectiveCap) continue;
		last = measure(withCaps(anchor, cap));
		if (fits(last)) return { kind: "fits", ...last, changed: true };
	}
	return {
		kind: "too-big",
		trim: last.trim,
		request: last.request,
		promptTokens: last.promptTokens,
		reason: SKIP_REASONS.contextBudget(last.promptTokens, settings.budgetTokens),
	};
}

/** `details.context` of the envelope (docs/request-format.md). `originalPromptTokens`: the estimate before trimming. */
export function contextDetails(trim: RenderTrim | undefined, originalPromptTokens: number): ContextTrim {
	const trimmed = trim !== undefined && (trim.anchorEntryId !== undefined || trim.tailCaps !== undefined);
	const out: ContextTrim = {
		trimmed,
		originalPromptTokens,
	};
	if (trim?.anchorEntryId !== undefined) out.anchorEntryId = trim.anchorEntryId;
	return out;
}
