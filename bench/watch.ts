/**
 * The watch's rows of the bench: `advisor-ledger replay --watch` over the bench inputs — the reviews
 * it would have asked for, by signal, their cost as a share of the executor's own spend at the same
 * prices, and how much of one review's request the next one repeats — at advisor.json's defaults
 * (DEFAULT_WATCH_CONFIG). The same runner serves scripts/watch-sweep.ts, which measured the defaults
 * (docs/decisions.md, "The watch's defaults, measured").
 */

import { DEFAULT_WATCH_CONFIG } from "../src/adapter/extension/config/watch.ts";
import { fileBranches } from "../src/adapter/lab/replay/file-branches.ts";
import { defaultCostSetup } from "../src/adapter/lab/replay/point-estimate.ts";
import { replayWatch } from "../src/adapter/lab/replay/watch-replay.ts";
import type { SessionWatch } from "../src/adapter/lab/report/watch-report.ts";
import { parseSessionText } from "../src/events/index.ts";
import type { WatchSettings } from "../src/policy/index.ts";
import { createRenderMemo } from "../src/render/index.ts";

export interface WatchInput {
	name: string;
	text: string;
}

/** The targets: the watch's cost at most this share of the executor's; consecutive reviews repeat at least this much. */
export const WATCH_TARGETS = { share: 0.1, reuse: 0.9 };

/** The watch over an input's leaf path, as `replay --watch` runs it (the default price model and config). */
export function watchOf(input: WatchInput, settings: WatchSettings = DEFAULT_WATCH_CONFIG): SessionWatch {
	const plan = fileBranches(input.name, parseSessionText(input.text), { allLeaves: false });
	const [branch] = [...plan.branches];
	return replayWatch(branch!.input, { settings, cost: defaultCostSetup(), memo: createRenderMemo() });
}

const fmt = (n: number | null, digits = 3) => (n === null ? "—" : n.toFixed(digits));
const verdict = (ok: boolean) => (ok ? "met" : "**missed**");

export function watchRow(name: string, w: SessionWatch, seconds: number): string {
	const s = w.bySignal;
	return `| ${name} | ${w.reviews} | ${s["failure-streak"]} / ${s["untested-edits"]} / ${s["long-run"]} | ${w.skipped.cooldown + w.skipped.promptCap + w.skipped.overShare} | $${w.usd.toFixed(3)} | $${w.executor.usd.toFixed(2)} | ${fmt(w.share, 4)} | ${fmt(w.reuse.p50)} (${fmt(w.reuse.min)}) | ${seconds.toFixed(2)} s |`;
}

/** The section BENCHMARKS.md carries: one row per input, and a verdict per real session against WATCH_TARGETS. */
export function watchSection(inputs: readonly WatchInput[]): string[] {
	const rows: string[] = [];
	const verdicts: string[] = [];
	for (const input of inputs) {
		const t0 = performance.now();
		const w = watchOf(input);
		const seconds = (performance.now() - t0) / 1000;
		rows.push(watchRow(input.name, w, seconds));
		// The targets are the real sessions': a generated one has no executor worth the name to share.
		if (!input.name.startsWith("samples/")) {
			verdicts.push(
				`- the watch, ${input.name}: share ${fmt(w.share, 4)}, reuse p50 ${fmt(w.reuse.p50)} (generated: no target)`,
			);
			continue;
		}
		const share = w.share === null ? "— (the executor recorded no tokens)" : fmt(w.share, 4);
		const shareOk = w.share === null ? w.reviews === 0 : w.share <= WATCH_TARGETS.share;
		const reuse = w.reuse.p50;
		verdicts.push(
			`- the watch, ${input.name}: share ${share} — ${verdict(shareOk)} (target ≤ ${WATCH_TARGETS.share}); consecutive reviews' reuse p50 ${fmt(reuse)}${reuse === null ? " (fewer than two reviews: no target)" : ` — ${verdict(reuse >= WATCH_TARGETS.reuse)} (target ≥ ${WATCH_TARGETS.reuse})`}`,
		);
	}
	const d = DEFAULT_WATCH_CONFIG;
	return [
		"## The watch",
		"",
		`\`advisor-ledger replay --watch\` at advisor.json's defaults (failure streak ${d.failureStreak}, untested files ${d.untestedFiles}, long run ${d.longRunRounds} rounds, cooldown ${d.cooldownRounds}, share cap ${d.maxShare}): the reviews the watch would have asked for on the leaf path (failure streak / untested edits / long run), findings it held back (cooldown, prompt cap, share cap), what the reviews cost (each after the branch's previous advisor request, the dearer cache model, plus the output allowance) against the executor's own recorded tokens at the same prices (anthropic/claude-sonnet-4-5), and the token-prefix share of one review's request the next repeats, median (min). Time: reading the file and replaying its watch. Why these defaults: docs/decisions.md, "The watch's defaults, measured".`,
		"",
		"| input | reviews | streak / untested / long | held back | watch | executor | share | reuse p50 (min) | time |",
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
		...rows,
		`| **target** | | | | | | ≤ ${WATCH_TARGETS.share} | ≥ ${WATCH_TARGETS.reuse} | |`,
		"",
		...verdicts,
	];
}
