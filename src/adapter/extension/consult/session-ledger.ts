/**
 * The folded ledger of the live session, kept between consultations so each one folds only the
 * entries appended since the last (docs/architecture.md). The branch is compared with the folded
 * path by the id at its end: a tree path is determined by its last entry, so when the entry at
 * that position is the same one, everything before it is too. Anything else — tree navigation,
 * a fork, another session — refolds from scratch.
 *
 * Next to the ledger, from the same events: the branch's advisor spend, its sticky trim anchor
 * and what the watch knows of it (docs/configuration.md#the-watch). They are folds of their own (a compaction rebuilds the blocks, never the
 * bill), folded incrementally with the ledger and refolded from scratch with it.
 *
 * Events carry redacted text (docs/privacy.md), so they depend on the privacy settings and the deny
 * list: when either changes (advisor.json re-read), the branch is refolded from scratch. The render
 * memo needs nothing of its own: it keys blocks by identity and parts by text, and a refold makes
 * new blocks from new events.
 */

import type { LedgerEvent, PrivacyOptions } from "../../../events/index.ts";
import { DEFAULT_DENY_PATTERNS, DEFAULT_PRIVACY, eventsFromBranch, privacyKey } from "../../../events/index.ts";
import {
	type BranchState,
	branchOf,
	foldBranch,
	type LedgerState,
	type SpendState,
	type TrimAnchorState,
	type WatchFacts,
} from "../../../reducers/index.ts";
import { createRenderMemo, type RenderMemo } from "../../../render/index.ts";

export interface LedgerSnapshot {
	state: LedgerState;
	/** Per-session memo of rendered blocks; reused while the folded path only grows. */
	memo: RenderMemo;
	/** The branch's advisor spend (consultations, reviews, warming). */
	spend: SpendState;
	/** The branch's sticky trim anchor. */
	anchor: TrimAnchorState;
	/** The watch's facts of the branch. */
	watch: WatchFacts;
	/** How the snapshot was reached, for tests and diagnostics. */
	folded: { from: "cache" | "scratch"; newEvents: number };
}

export interface SessionLedger {
	/**
	 * Brings the ledger up to `branch` (root → leaf, as ctx.sessionManager.getBranch() returns it).
	 * `cwd` is the session's working directory (ctx.sessionManager.getCwd()): cards show paths relative to it.
	 */
	update(sessionId: string, branch: readonly unknown[], allEntries: readonly unknown[], cwd?: string): LedgerSnapshot;
	reset(): void;
}

interface Folded {
	sessionId: string;
	cwd: string | undefined;
	/** privacyKey of the settings the events were normalised with. */
	privacy: string;
	/** Branch entries folded so far, and the id of the last of them. */
	entryCount: number;
	lastEntryId: string | undefined;
	branch: BranchState;
	memo: RenderMemo;
}

function entryId(entry: unknown): string | undefined {
	if (typeof entry !== "object" || entry === null) return undefined;
	const id = (entry as { id?: unknown }).id;
	return typeof id === "string" ? id : undefined;
}

function extendsFolded(folded: Folded, sessionId: string, branch: readonly unknown[]): boolean {
	if (folded.sessionId !== sessionId || branch.length < folded.entryCount) return false;
	if (folded.entryCount === 0) return true;
	const id = entryId(branch[folded.entryCount - 1]);
	return id !== undefined && id === folded.lastEntryId;
}

function snapshot(folded: Folded, from: "cache" | "scratch", newEvents: number): LedgerSnapshot {
	return {
		state: folded.branch.ledger,
		memo: folded.memo,
		spend: folded.branch.spend,
		anchor: folded.branch.anchor,
		watch: folded.branch.watch,
		folded: { from, newEvents },
	};
}

/**
 * @param privacy the current redaction settings and deny list (read on every update, because
 *   advisor.json is re-read at session start and by /advisor); default: the built-in ones.
 */
export function createSessionLedger(privacy: () => PrivacyOptions = () => ({})): SessionLedger {
	let folded: Folded | undefined;

	const fromScratch = (
		sessionId: string,
		cwd: string | undefined,
		key: string,
		branch: readonly unknown[],
		events: readonly LedgerEvent[],
	) => {
		folded = {
			sessionId,
			cwd,
			privacy: key,
			entryCount: branch.length,
			lastEntryId: entryId(branch[branch.length - 1]),
			branch: branchOf(events, cwd),
			// Blocks are memoised by identity and part hashes by text, so the memo stays valid across a refold.
			memo: folded?.memo ?? createRenderMemo(),
		};
		return snapshot(folded, "scratch", events.length);
	};

	return {
		update(sessionId, branch, allEntries, cwd) {
			const options = privacy();
			const key = privacyKey(options.privacy ?? DEFAULT_PRIVACY, options.denyPatterns ?? DEFAULT_DENY_PATTERNS);
			const normalize = { ...options, ...(cwd !== undefined ? { cwd } : {}) };
			if (
				folded === undefined ||
				folded.cwd !== cwd ||
				folded.privacy !== key ||
				!extendsFolded(folded, sessionId, branch)
			) {
				return fromScratch(sessionId, cwd, key, branch, eventsFromBranch(branch, allEntries, normalize).events);
			}
			// Only the entries past the folded ones are normalised and folded.
			const { events } = eventsFromBranch(branch, allEntries, { ...normalize, from: folded.entryCount });
			folded.branch = foldBranch(folded.branch, events);
			folded.entryCount = branch.length;
			folded.lastEntryId = entryId(branch[branch.length - 1]);
			return snapshot(folded, "cache", events.length);
		},
		reset() {
			folded = undefined;
		},
	};
}
