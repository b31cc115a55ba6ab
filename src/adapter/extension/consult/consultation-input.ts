/**
 * What a consultation's request loop takes (request-loop.ts `runConsultation`): the model and its
 * credentials, the first request, the advisor's investigation tools, the gate asked before every
 * request and the retry hook asked after every failure — and the usage sum it keeps.
 */

import type {
	Api,
	AssistantMessage,
	Context,
	ImageContent,
	Model,
	TextContent,
	ThinkingLevel,
	Tool,
	ToolCall,
	Usage,
} from "@mariozechner/pi-ai";
import type { LedgerRequest } from "../../../render/index.ts";
import type { CompleteSimple } from "../pi/compat.ts";
import type { EnvelopeBase } from "./envelope.ts";
import type { MarkTarget } from "./payload-cache-marks.ts";

/** One executed investigation call, as it goes back to the advisor. */
export interface InvestigationResult {
	content: (TextContent | ImageContent)[];
	isError: boolean;
	/** One line for the executor's stream, e.g. `read src/app.ts`; used when `describe` is absent. */
	summary?: string;
}

/** The advisor's read-only tools (docs/request-format.md). Their declarations must already be in the request. */
export interface InvestigationTools {
	declarations: readonly Tool[];
	/** Never expected to throw; a throw still comes back to the advisor as an error result. */
	execute(call: ToolCall, signal: AbortSignal | undefined): Promise<InvestigationResult>;
	/**
	 * The stream line for a call, shown as the tool is opened (before it runs), e.g.
	 * `read src/app.ts`. Absent: the result's `summary`, once the call has run.
	 */
	describe?(call: ToolCall): string;
	/** Tool calls executed per consultation (`tools.maxRounds`); calls beyond it are refused in-band. */
	maxCalls: number;
}

/** A request of this consultation that came back with a reply (billed or not). */
export interface SentRequest {
	context: Context;
	usage: Usage;
	/** Epoch ms (the consultation's clock) when it was sent. */
	sentMs: number;
}

/** What the gate sees before each request is sent. */
export interface NextRequest {
	context: Context;
	/** 0 for the first request; +1 per investigation round. */
	round: number;
	/** 0 for the first try of a round; +1 per retry. */
	attempt: number;
	/** Usage of every request of this consultation so far. */
	billedUsage: Usage;
	/** Tool calls the advisor may still run after this request: 0 without tools, or once told to answer. */
	callsLeft: number;
	/** The newest request of this consultation that got a reply; undefined before the first. */
	previous: SentRequest | undefined;
	/** Runs `work` (a dialog) with the consultation's deadline stopped. */
	paused<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * `answerNow`: send it with the in-band notice to answer with what it has (TOOL_BUDGET_SPENT), as
 * when the tool allowance is spent; no later request may call tools.
 */
export type Approval = { send: true; answerNow?: boolean } | { send: false; reason: string };

/** A request that did not produce an answer; the retry hook decides whether to send it again. */
export interface FailedAttempt {
	round: number;
	attempt: number;
	/** The provider's reply (stopReason error/aborted), absent when the call threw. */
	message: AssistantMessage | undefined;
	thrown: string | undefined;
	/** The consultation's own deadline fired. */
	timedOut: boolean;
	/** The reply came back fine but said nothing: no text (and no tool call to run). */
	empty: boolean;
	/** Since the consultation started, time spent in paused dialogs excluded. */
	elapsedMs: number;
}

export interface ConsultationAuth {
	apiKey?: string;
	headers?: Record<string, string>;
}

export interface ConsultationInput {
	complete: CompleteSimple;
	model: Model<Api>;
	auth: ConsultationAuth;
	/** Snapshotted when the tool was entered; undefined = no reasoning sent. */
	effort: ThinkingLevel | undefined;
	/** `advisor:<Pi session id>`, on every request. */
	sessionId: string;
	/** The first request, as rendered. */
	request: LedgerRequest;
	/** The executor's abort signal for this tool call. */
	signal: AbortSignal | undefined;
	/** Lines for the executor's stream while the call is in flight. */
	onProgress?: (line: string) => void;
	/** Absent: the advisor answers from the log in one request. */
	tools?: InvestigationTools;
	/** Called before every request; a refusal ends the consultation as a skip. */
	approve?: (next: NextRequest) => Promise<Approval>;
	/** Called after every failed request and every empty answer; true sends it again. */
	retry?: (failure: FailedAttempt) => boolean | Promise<boolean>;
	/** Deadline for the whole consultation, tool rounds included; paused while `approve` asks the user. */
	timeoutMs?: number;
	/** Clock, injectable for tests. */
	now?: () => number;
	/** Base details already known (estimate, trim) that the envelope carries as they are. */
	base?: Pick<EnvelopeBase, "estimate" | "context">;
	/** `advice.maxChars`: the advice is cut to this many characters, marker included; absent = no cap. */
	adviceMaxChars?: number;
	/** The output cap sent with every request; absent = pi-ai's default. */
	maxTokens?: number;
	/**
	 * The extension's cache marks, on every request of the consultation (`markTargets`: the bridge to
	 * the previous consultation's stable end when needed, then this one's); default the stable end.
	 */
	marks?: readonly MarkTarget[];
}

// ---------------------------------------------------------------------------------------------
// Usage
// ---------------------------------------------------------------------------------------------

export function addUsage(sum: Usage, more: Usage | undefined): Usage {
	if (more === undefined) return sum;
	const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
	return {
		input: sum.input + n(more.input),
		output: sum.output + n(more.output),
		cacheRead: sum.cacheRead + n(more.cacheRead),
		cacheWrite: sum.cacheWrite + n(more.cacheWrite),
		totalTokens: sum.totalTokens + n(more.totalTokens),
		cost: {
			input: sum.cost.input + n(more.cost?.input),
			output: sum.cost.output + n(more.cost?.output),
			cacheRead: sum.cost.cacheRead + n(more.cost?.cacheRead),
			cacheWrite: sum.cost.cacheWrite + n(more.cost?.cacheWrite),
			total: sum.cost.total + n(more.cost?.total),
		},
	};
}
