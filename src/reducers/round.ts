/**
 * A tool round: one tool call and its result. Its own module because both the ledger
 * (ledger-state.ts, whose blocks hold rounds) and the context edits (context-edits.ts, which show a
 * round as the executor's context holds it now) speak of it, and the ledger holds the edits.
 */

import type { ContentPart, ToolCallInfo } from "../events/index.ts";

export type RoundStatus = "ok" | "error" | "no-result";

/** One tool call and its result (if one was recorded). */
export interface Round {
	/** Entry id of the assistant message that made the call. */
	callEntryId: string;
	/** That message's position on the branch path (ledger-state.ts `Positioned`): the id its reasoning is shown by. */
	callPos: number;
	call: ToolCallInfo;
	/** Entry id of the toolResult, absent for a call that never got one. */
	resultId: string | undefined;
	resultParts: ContentPart[];
	status: RoundStatus;
	/** Set when the deny list withheld the result's content (ToolResultEvent.withheld): the size it had. */
	withheld?: { chars: number };
	/** The calling message's private reasoning; rendered only while the round is in the verbatim tail. */
	reasoning: string;
	/**
	 * The session's working directory, which the call's relative paths resolve against: cards show
	 * paths relative to it. A fact known when the call is folded, so a card never changes later.
	 */
	cwd?: string;
}
