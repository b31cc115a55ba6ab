/**
 * The replay's timing comparison (docs/cli.md): at a few points the request is also built from
 * scratch — `ledgerOf` of the whole prefix and a fresh render memo — so the report can set the
 * incremental fold + render beside it, and the bytes both ways must agree. And the warm-up: the
 * first fold + render of a process runs cold (JIT), so it is done once, untimed, before anything is
 * measured.
 */

import type { LedgerEvent } from "../../../events/index.ts";
import { foldLedger, ledgerOf } from "../../../reducers/index.ts";
import { createRenderMemo, type RenderOptions, renderRequest } from "../../../render/index.ts";
import type { BranchInput } from "./file-branches.ts";
import type { ConsultationPoint } from "./points.ts";

/** Few: each sample refolds its whole prefix, the one cost of a replay that is not linear. */
export const DEFAULT_SCRATCH_SAMPLES = 3;

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

/**
 * Sampled among the points this branch replays itself (from `reused` on), from the file's
 * allowance, which it spends (a sample refolds its whole prefix: once per file, not once per
 * leaf). A branch's first point folds everything either way, so it is not a comparison: sampled
 * from the second on.
 */
export function sampledPoints(points: number, reused: number, allowance: { scratchLeft: number }): Set<number> {
	const firstSampled = Math.max(1, reused);
	const sampled = new Set(
		[...scratchIndices(Math.max(0, points - firstSampled), allowance.scratchLeft)].map((i) => i + firstSampled),
	);
	allowance.scratchLeft -= sampled.size;
	return sampled;
}

/** A point built from scratch: how long it took, and the request's hash. */
export interface ScratchBuild {
	ms: number;
	hash: string;
}

/**
 * The sampled points built from scratch, before the incremental replay starts: each folds its
 * whole prefix, and done first its garbage goes with the events' before the replay's own state
 * grows (docs/decisions.md, "A replay's memory follows the branch"). The incremental request of
 * the same point is compared with the hash kept here.
 */
export function scratchBuilds(
	input: Pick<BranchInput, "events" | "cwd">,
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

/**
 * Whether the cold first fold + render is behind us. One per process in the CLI and the bench
 * (shared by every file they replay); a replay given none warms up once itself.
 */
export interface WarmUp {
	done: boolean;
}

export function createWarmUp(): WarmUp {
	return { done: false };
}

/** Folds and renders `events` untimed, unless `warm` is done already (or there is nothing to fold). */
export function warmUp(warm: WarmUp, events: readonly LedgerEvent[], options: RenderOptions): void {
	if (warm.done || events.length === 0) return;
	warm.done = true;
	const state = ledgerOf(events);
	renderRequest(
		foldLedger(ledgerOf(events.slice(0, events.length >> 1)), events.slice(events.length >> 1)),
		options,
		createRenderMemo(),
	);
	renderRequest(state, options, createRenderMemo());
}
