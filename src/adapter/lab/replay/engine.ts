/**
 * The replay engine: one session file → one report per replayed branch.
 *
 * The file's branches (file-branches.ts: one, or with `--all-leaves` every leaf, depth first) are
 * replayed one after another by the point loop (branch-replay.ts), each resuming from the last
 * point it shares with the branch before it (point-resume.ts): the trunk is replayed once. At a
 * sample of points the same request is also built from scratch (timing-samples.ts): the timing
 * report compares the two, and the bytes must agree. What each point measures is put in the
 * report's shape by branch-report.ts. With `watch` settings (`replay --watch`), each branch's
 * watch is also replayed, beside its points (watch-replay.ts).
 */

import { type ParsedSession, parseSessionText } from "../../../events/index.ts";
import type { WatchSettings } from "../../../policy/index.ts";
import { emptyDiagnostics, mergeDiagnostics } from "../report/diagnostics.ts";
import type { FileDiagnostics, SessionReport } from "../report/replay-report.ts";
import { createReplayShared, type ReplayOptions, replayBranch } from "./branch-replay.ts";
import { fileBranches } from "./file-branches.ts";
import { defaultCostSetup } from "./point-estimate.ts";
import { replayWatch } from "./watch-replay.ts";

export { DEFAULT_EVERY } from "../cli/help.ts";
export type { ReplayOptions } from "./branch-replay.ts";

/** The replay's options, and the watch's settings when `replay --watch` replays it too. */
export interface FileReplayOptions extends ReplayOptions {
	watch?: WatchSettings;
}

export interface FileReplay {
	sessions: SessionReport[];
	diagnostics: FileDiagnostics;
}

/** Replays one session file's text. Never throws on content. */
export function replayText(file: string, text: string, options: FileReplayOptions): FileReplay {
	return replayParsed(file, parseSessionText(text), options);
}

/** Replays one parsed session file. Never throws on content. */
export function replayParsed(file: string, parsed: ParsedSession, options: FileReplayOptions): FileReplay {
	const plan = fileBranches(file, parsed, options);
	const branches = emptyDiagnostics();
	const shared = createReplayShared(options.scratchSamples, options.warmUp);
	const byLeaf = new Map<string | undefined, SessionReport>();
	for (const { leaf, input, keep } of plan.branches) {
		Object.assign(branches, mergeDiagnostics(branches, input.branchDiagnostics));
		const report = replayBranch(input, options, shared, keep);
		if (options.watch !== undefined) {
			const cost = options.cost ?? defaultCostSetup();
			report.watch = replayWatch(input, {
				settings: options.watch,
				config: options.config,
				cost,
				memo: shared.memo,
			});
		}
		byLeaf.set(leaf, report);
	}
	// Reports come in file order of the leaves, as the user sees them in the session.
	const sessions = plan.fileOrder.map((leaf) => byLeaf.get(leaf)!);
	return {
		sessions,
		diagnostics: {
			file,
			reader: plan.readerDiagnostics,
			branches,
			hasPoints: sessions.some((s) => s.points.length > 0),
		},
	};
}
