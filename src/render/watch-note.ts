/**
 * The watch in words (docs/configuration.md#the-watch): why it woke, as the request and the
 * executor's note both say it, and the visible message a delivered note becomes.
 */

import { assertNever, CUSTOM_TYPES, type Severity, type WatchMessageDetails } from "../events/index.ts";
import type { WatchFinding } from "../reducers/index.ts";
import { WATCH_MESSAGE, WATCH_REASON } from "./model-text.ts";
import { neutralise } from "./neutralise.ts";
import { ordinalId } from "./ordinal.ts";
import { oneLine } from "./text-shape.ts";

/** How much of a changed file's path, a run's label or an error line the reason quotes. */
const QUOTED_CHARS = 160;

function quoted(text: string): string {
	return oneLine(neutralise(text)).slice(0, QUOTED_CHARS);
}

/** Why the watch woke, in one line, naming the facts by the ids the request shows. */
export function watchReason(finding: WatchFinding): string {
	switch (finding.signal) {
		case "failure-streak": {
			const ids = finding.rounds.map((r) => ordinalId(r.pos));
			if (finding.by === "error") return WATCH_REASON.errorStreak(quoted(finding.label), finding.count, ids);
			const error = finding.error === undefined ? undefined : quoted(finding.error);
			return WATCH_REASON.failureStreak(quoted(finding.label), finding.count, ids, error);
		}
		case "untested-edits": {
			const files = finding.files.map(quoted);
			return WATCH_REASON.untestedEdits(files, Math.max(0, finding.fileCount - files.length), finding.editRounds);
		}
		case "long-run":
			return WATCH_REASON.longRun(finding.rounds, finding.editRounds, finding.sinceStart);
		default:
			return assertNever(finding, "watch finding");
	}
}

export interface WatchMessage {
	customType: string;
	content: string;
	display: true;
	details: WatchMessageDetails;
}

export interface WatchMessageInput {
	advice: string;
	severity: Severity;
	finding: WatchFinding;
	atEntryId: string;
	triggerTurn: boolean;
	usage?: unknown;
	advisorModel?: string;
	effort?: string;
}

/** The visible `advisor-watch` custom message a delivered note becomes (content = WATCH_MESSAGE). */
export function watchMessage(input: WatchMessageInput): WatchMessage {
	const reason = watchReason(input.finding);
	const details: WatchMessageDetails = {
		advice: input.advice,
		severity: input.severity,
		signal: input.finding.signal,
		watchKey: input.finding.key,
		atEntryId: input.atEntryId,
		reason,
		triggerTurn: input.triggerTurn,
	};
	if (input.usage !== undefined) details.usage = input.usage;
	if (input.advisorModel !== undefined) details.advisorModel = input.advisorModel;
	if (input.effort !== undefined) details.effort = input.effort;
	return { customType: CUSTOM_TYPES.watch, content: WATCH_MESSAGE(reason, input.advice), display: true, details };
}
