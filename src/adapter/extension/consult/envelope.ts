/**
 * The advisor() result envelope (docs/request-format.md). Every outcome — advice, skip or failure — is a normal
 * tool result: the executor reads `content`, the ledger reads `details` (a result with an
 * `errorMessage`, `skipped` or an error/aborted stop reason never becomes replayed advice), and the
 * renderer reads both.
 */

import type { TextContent, ThinkingLevel, Usage } from "@mariozechner/pi-ai";
import type { AdvisorDetails } from "../../../events/index.ts";
import { assertNever } from "../../../events/index.ts";
import { parseSeverity } from "../../../policy/index.ts";
import { FAILURE } from "../../../render/index.ts";
import { formatColonKey, type ModelRef, modelKeyOf } from "../pi/model-key.ts";

export interface AdvisorEnvelope {
	content: TextContent[];
	usage?: Usage;
	details: AdvisorDetails;
}

/** What every envelope of one consultation shares, gathered as the call goes on. */
export type EnvelopeBase = Pick<
	AdvisorDetails,
	| "advisorModel"
	| "effort"
	| "usage"
	| "attempts"
	| "estimate"
	| "request"
	| "context"
	| "stopReason"
	| "toolCalls"
	| "redactions"
>;

/** One way a consultation can end without advice (the failure table in docs/request-format.md). */
export type Failure =
	| { kind: "no-model" }
	| { kind: "misconfigured"; label: string; error: string }
	| { kind: "no-key"; label: string; provider: string }
	| { kind: "cancelled"; message: string | undefined }
	| { kind: "failed"; message: string | undefined }
	| { kind: "empty" }
	| { kind: "threw"; message: string }
	| { kind: "timeout"; seconds: number }
	| { kind: "skipped"; reason: string };

function envelope(text: string, details: AdvisorDetails): AdvisorEnvelope {
	const out: AdvisorEnvelope = { content: [{ type: "text", text }], details };
	if (details.usage !== undefined) out.usage = details.usage;
	return out;
}

/** Drops absent keys so the stored JSON carries only what happened. */
function compact(details: AdvisorDetails): AdvisorDetails {
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(details)) if (value !== undefined) out[key] = value;
	return out as AdvisorDetails;
}

export function adviceEnvelope(text: string, base: EnvelopeBase): AdvisorEnvelope {
	return envelope(text, compact({ ...base, severity: parseSeverity(text) }));
}

function failureText(failure: Failure): { text: string; errorMessage: string; skipped?: true } {
	switch (failure.kind) {
		case "no-model":
			return { text: FAILURE.noModel, errorMessage: FAILURE.noModelDetail };
		case "misconfigured":
			return { text: FAILURE.misconfigured(failure.label, failure.error), errorMessage: failure.error };
		case "no-key":
			return { text: FAILURE.noKey(failure.label), errorMessage: FAILURE.noKeyDetail(failure.provider) };
		case "cancelled":
			return { text: FAILURE.cancelled, errorMessage: nonEmpty(failure.message) ?? FAILURE.cancelledDetail };
		case "failed": {
			const message = nonEmpty(failure.message) ?? FAILURE.unknownError;
			return { text: FAILURE.failed(message), errorMessage: message };
		}
		case "empty":
			return { text: FAILURE.empty, errorMessage: FAILURE.emptyDetail };
		case "threw":
			return { text: FAILURE.threw(failure.message), errorMessage: failure.message };
		case "timeout":
			return { text: FAILURE.timeout(failure.seconds), errorMessage: FAILURE.timeoutDetail };
		case "skipped":
			return { text: FAILURE.skipped(failure.reason), errorMessage: failure.reason, skipped: true };
		default:
			return assertNever(failure, "failure");
	}
}

export function failureEnvelope(failure: Failure, base: EnvelopeBase = {}): AdvisorEnvelope {
	const { text, errorMessage, skipped } = failureText(failure);
	return envelope(text, compact({ ...base, skipped, errorMessage }));
}

function nonEmpty(text: string | undefined): string | undefined {
	return text !== undefined && text.trim().length > 0 ? text : undefined;
}

/** The identity part of every envelope once the advisor model is known. */
export function identityBase(model: ModelRef, effort: ThinkingLevel | undefined): EnvelopeBase {
	const base: EnvelopeBase = { advisorModel: formatColonKey(modelKeyOf(model)) };
	if (effort !== undefined) base.effort = effort;
	return base;
}
