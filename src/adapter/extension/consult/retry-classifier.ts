/**
 * Whether a failed advisor attempt is worth its one retry (docs/configuration.md). pi-ai has no public
 * retryable classifier, only isContextOverflow, so the transient pattern is Pi's own: the same
 * failures Pi retries for the executor are the ones retried here.
 */

import { type AssistantMessage, isContextOverflow, type StopReason, type Usage } from "@mariozechner/pi-ai";
import { zeroUsage } from "../../../render/index.ts";

export { isContextOverflow };

/**
 * transient = may succeed if sent again; deterministic = the same request fails the same way;
 * aborted = the caller's signal fired (the caller knows whether that was its own timeout,
 * which docs/configuration.md counts as transient).
 */
export type FailureClass = "transient" | "deterministic" | "aborted";

export interface FailureLike {
	stopReason: StopReason;
	errorMessage?: string;
	/** Needed only to spot silent overflows (usage beyond the context window). */
	usage?: Usage;
}

/**
 * Copied verbatim from AgentSession._isRetryableError, @mariozechner/pi-coding-agent 0.73.1
 * (dist/core/agent-session.js, "Auto-Retry"). Kept byte-identical so the advisor retries exactly
 * what Pi retries; note the bare status codes also match digits inside longer numbers.
 */
export const TRANSIENT_ERROR_PATTERN =
	/overloaded|provider.?returned.?error|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|internal.?error|network.?error|connection.?error|connection.?refused|connection.?lost|websocket.?closed|websocket.?error|other side closed|fetch failed|upstream.?connect|reset before headers|socket hang up|ended without|http2 request did not get a response|timed? out|timeout|terminated|retry delay/i;

/**
 * Credentials that are missing, wrong or lacking permission stay that way on a retry. Checked
 * before the transient pattern, whose bare `500` would otherwise claim e.g. "401 … req_5001".
 */
export const AUTH_ERROR_PATTERN =
	/\b40[13]\b|invalid.?(?:x-)?api.?key|incorrect api key|api key not valid|unauthori[sz]ed|authentication.?(?:error|failed)|permission.?denied|forbidden/i;

/** isContextOverflow wants a whole AssistantMessage but reads only these fields. */
function overflowProbe(message: FailureLike): AssistantMessage {
	return {
		role: "assistant",
		content: [],
		api: "",
		provider: "",
		model: "",
		usage: message.usage ?? zeroUsage(),
		stopReason: message.stopReason,
		errorMessage: message.errorMessage,
		timestamp: 0,
	};
}

/**
 * Anything that is neither an error nor an abort (a `length` stop, a reply with no text) is
 * deterministic: nothing about sending it again would change it.
 */
export function classifyFailure(message: FailureLike, contextWindow?: number): FailureClass {
	switch (message.stopReason) {
		case "aborted":
			return "aborted";
		case "stop":
		case "length":
		case "toolUse":
			return "deterministic";
		case "error": {
			// A request too large for the model is too large every time.
			if (isContextOverflow(overflowProbe(message), contextWindow)) return "deterministic";
			const text = message.errorMessage ?? "";
			if (AUTH_ERROR_PATTERN.test(text)) return "deterministic";
			return TRANSIENT_ERROR_PATTERN.test(text) ? "transient" : "deterministic";
		}
		default:
			return unknownStopReason(message.stopReason);
	}
}

// A stop reason from a newer pi-ai is not known to be retryable, and classifying must not throw.
function unknownStopReason(_reason: never): FailureClass {
	return "deterministic";
}
