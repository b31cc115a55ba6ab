/**
 * What an eval keeps of each point (docs/eval.md): one JSON record per point in `--out`, rewritten
 * after every arm and after the judge, so a stopped run loses nothing it paid for and `--resume`
 * sends only what is missing.
 */

import type { Severity } from "../../../events/index.ts";
import type { ArmName } from "./arms.ts";
import type { BilledRequests } from "./billed-requests.ts";
import type { JudgedSeverity, Label, Unblinded } from "./judge.ts";

export const RECORD_VERSION = 1;

export interface ArmOutcome {
	status: "answered" | "failed";
	/** The advice, or what the failure said. */
	text: string;
	/** The first line's `Severity:`, null when it names none (or the arm failed). */
	severity: Severity | null;
	/** The provider's or the loop's error, for a failed arm. */
	error?: string;
	billed: BilledRequests;
	/** advisor_expand calls the ledger arm made. */
	toolCalls?: number;
	/** Estimated prompt tokens of the arm's first request. */
	estimatedTokens: number;
}

export interface JudgeOutcome {
	status: "judged" | "unjudged";
	/** Which arm each label stood for (A first). */
	order: ArmName[];
	verdict?: Unblinded;
	/** The judge's replies, as received (the second one after a retry). */
	replies: string[];
	/** Why a reply was refused, per refused reply. */
	problems: string[];
	/** A provider error that left the point unjudged. */
	error?: string;
	billed: BilledRequests;
}

/**
 * - judged: every arm answered and the judge's verdict parsed;
 * - unjudged: every arm answered, the judge's reply failed twice (or the judge's provider failed);
 * - failed: an arm's request failed (the judge is not asked);
 * - stopped: `--max-usd` stopped the run before this point was complete; `--resume` completes it.
 */
export type PointStatus = "judged" | "unjudged" | "failed" | "stopped";

export interface PointRecord {
	version: typeof RECORD_VERSION;
	/** 1-based position in the run. */
	index: number;
	key: string;
	file: string;
	sessionId: string | null;
	atEntryId: string;
	kind: "advisor" | "simulated";
	callId?: string;
	question: string;
	userRequest: string;
	status: PointStatus;
	arms: Partial<Record<ArmName, ArmOutcome>>;
	judge?: JudgeOutcome;
	/** Billed for work the cap cut off before it ended (an arm's later round, a judge retry): paid, nothing kept. */
	abandoned?: BilledRequests;
}

export type { JudgedSeverity, Label };
