/**
 * The executor-facing advisor() tool: zero parameters; executing it reads the live branch, folds
 * what is new, renders the request and runs the consultation. Whatever happens comes back as a
 * normal tool result (docs/request-format.md) — execute never throws.
 *
 * Order matters: the same-model and disabled-for checks come before any credential lookup, and
 * the effort is read once, at entry, so a change made while the call is in flight does not
 * make the envelope lie about what was sent.
 *
 * The pipeline itself (`runAdvisor`: model, auth, ledger, investigation tools, the budget hooks,
 * runConsultation) is shared with the completion review (src/adapter/extension/background/completion-review.ts), which
 * runs it in review mode, in the background, without dialogs.
 */

import type { Api, Model, ThinkingLevel } from "@mariozechner/pi-ai";
import * as piAi from "@mariozechner/pi-ai";
import type { AgentToolResult, ExtensionAPI, ExtensionContext, ToolDefinition } from "@mariozechner/pi-coding-agent";
import { Type } from "@sinclair/typebox";
import { ADVISOR_TOOL_NAME, type AdvisorDetails } from "../../../events/index.ts";
import {
	type Instruction,
	instructionsFromPromptText,
	type LedgerState,
	previousRequest,
	type SpendState,
	type TrimAnchorState,
} from "../../../reducers/index.ts";
import type { AdvisorToolsMode, RequestMode } from "../../../render/index.ts";
import {
	ADVISOR_TOOL_DESCRIPTION,
	ADVISOR_TOOL_LABEL,
	type LedgerRequest,
	type RenderMemo,
	type RenderOptions,
	renderRequest,
	SKIP_REASONS,
} from "../../../render/index.ts";
import { isDisabledFor, lookupAdvisorModel } from "../config/activation.ts";
import { resolveGuidance } from "../config/guidance.ts";
import type { AdvisorConfig } from "../config/load.ts";
import type { CompleteSimple } from "../pi/compat.ts";
import { errorText } from "../pi/error-text.ts";
import { formatColonKey, modelDisplayName, modelKeyOf } from "../pi/model-key.ts";
import { type FindModel, renderAdvisorResult } from "../pi/result-renderer.ts";
import type { ConsultationAuth, ConsultationInput, InvestigationTools } from "./consultation-input.ts";
import { type AdvisorEnvelope, type EnvelopeBase, failureEnvelope, identityBase } from "./envelope.ts";
import { type MarkTarget, markTargets } from "./payload-cache-marks.ts";
import { runConsultation } from "./request-loop.ts";
import type { SessionLedger } from "./session-ledger.ts";

export const ADVISOR_PARAMETERS = Type.Object({});

/** What a consultation about to be rendered knows; the optional hooks below read it. */
export interface ConsultationSetup {
	ctx: ExtensionContext;
	config: AdvisorConfig;
	model: Model<Api>;
	effort: ThinkingLevel | undefined;
	/** The folded ledger (advisor_expand's source). */
	state: LedgerState;
	signal: AbortSignal | undefined;
	/** "consult" for the advisor() tool, "review" for a completion review. */
	mode: RequestMode;
	/**
	 * Whether the budget gate may ask the user (`ctx.hasUI` for the tool; never for a review, which
	 * nobody is waiting for: over the soft limit it is skipped).
	 */
	interactive: boolean;
}

/**
 * The advisor's own tools for one consultation: the system prompt's mode and the tools
 * whose declarations the request carries. Without tools (or with none declared) the request is
 * rendered in mode "none" and the advisor answers in one request.
 */
export interface InvestigationPlan {
	toolsMode: AdvisorToolsMode;
	tools?: InvestigationTools;
}

export interface AdvisorToolDeps {
	pi: Pick<ExtensionAPI, "getAllTools" | "getThinkingLevel">;
	/**
	 * advisor.json as last loaded: read at every call, because session start and /advisor reload it
	 * (the host keeps it: host/activation-state.ts).
	 */
	config: () => AdvisorConfig;
	/** The session's folded ledger, shared with the completion review and the footer status. */
	ledger: SessionLedger;
	/** Pi's model registry as of the last activation check, so the card spells a recorded model by name. */
	findModel?: () => FindModel | undefined;
	loadCompleteSimple: () => Promise<CompleteSimple>;
	now?: () => number;
	investigation?: (setup: ConsultationSetup) => InvestigationPlan;
	/** Budget gate, trimming, retry and timeout; the extension's default is `costControl`. */
	consultationHooks?: (setup: PlanningSetup) => ConsultationHooks | undefined | Promise<ConsultationHooks | undefined>;
	/** Told when an advisor() consultation starts and ends (cache warming). */
	observer?: ConsultationObserver;
}

/** What the tool tells the rest of the extension about each advisor() consultation. */
export interface ConsultationObserver {
	/** Before anything else (awaited): a new consultation ends the cache-warming chain. */
	starting?(): void | Promise<void>;
	/** After it ended, whatever the outcome (never for one that threw). */
	finished?(run: AdvisorRun, consultationId: string): void;
}

/** How one run of the pipeline is asked for. */
export interface AdvisorRunRequest {
	ctx: ExtensionContext;
	mode: RequestMode;
	/** The advisor() call being answered (mode "consult"). */
	inFlightCallId?: string;
	signal: AbortSignal | undefined;
	/** Stream lines (`Consulting advisor …`, one per investigation tool), with the identity details. */
	onProgress?: (line: string, details: AdvisorDetails) => void;
	/** Default `ctx.hasUI`. */
	interactive?: boolean;
}

/** What a run of the pipeline sent, kept by the cache warming to replay its first request. */
export interface AdvisorDispatch {
	config: AdvisorConfig;
	model: Model<Api>;
	effort: ThinkingLevel | undefined;
	auth: ConsultationAuth;
	/** `advisor:<Pi session id>`. */
	routingKey: string;
	/** The first request, as planned (trimmed when the budget trimmed it) and handed to the provider. */
	request: LedgerRequest;
	/** The extension's cache marks on it (a refresh sets the same ones). */
	marks: readonly MarkTarget[];
	/** The branch's advisor spend before this run. */
	spend: SpendState;
	complete: CompleteSimple;
}

export interface AdvisorRun {
	envelope: AdvisorEnvelope;
	/** Present once the pipeline reached runConsultation (whether or not a request was then sent). */
	dispatch?: AdvisorDispatch;
}

/** What the cost-control hook sees: the rendered request, and a way to render it again differently. */
export interface PlanningSetup extends ConsultationSetup {
	/** The branch rendered with `renderOptions` (no trim); rendered on first read. */
	readonly request: LedgerRequest;
	/** Renders the same branch with other options (e.g. a trim anchor), sharing the session's memo. */
	render(overrides?: Partial<RenderOptions>): LedgerRequest;
	/** What `request` is rendered with (never a trim: the sticky anchor is the planner's to apply). */
	renderOptions: RenderOptions;
	/** The session's render memo. */
	memo: RenderMemo;
	/** The branch's advisor spend before this consultation. */
	spend: SpendState;
	/** The branch's sticky trim anchor. */
	anchor: TrimAnchorState;
	/** The `sessionId` every request is sent with: `advisor:<Pi session id>`. */
	routingKey: string;
	/** The consultation's clock (epoch ms). */
	now: () => number;
}

/** The hook's answer: the request to send instead (trimmed), and the loop's optional hooks. */
export interface ConsultationHooks
	extends Pick<ConsultationInput, "approve" | "retry" | "timeoutMs" | "base" | "maxTokens"> {
	request?: LedgerRequest;
	/** Called with the envelope once the consultation has ended (any way but a throw). */
	settle?: (envelope: AdvisorEnvelope) => void;
}

type EnvGetter = (provider: string) => string | undefined;

/** pi-ai's env-key lookup, when the host's pi-ai has it (read through the namespace: it may not). */
function envApiKey(provider: string): string | undefined {
	const get = (piAi as unknown as { getEnvApiKey?: EnvGetter }).getEnvApiKey;
	return typeof get === "function" ? get(provider) : undefined;
}

type AuthOutcome = { ok: true; auth: ConsultationAuth } | { ok: false; envelope: AdvisorEnvelope };

async function resolveAuth(ctx: ExtensionContext, model: Model<Api>, base: EnvelopeBase): Promise<AuthOutcome> {
	const label = modelDisplayName(model);
	const result = await ctx.modelRegistry.getApiKeyAndHeaders(model);
	if (!result.ok) {
		if (result.error.startsWith("No API key found")) {
			return { ok: false, envelope: failureEnvelope({ kind: "no-key", label, provider: model.provider }, base) };
		}
		return { ok: false, envelope: failureEnvelope({ kind: "misconfigured", label, error: result.error }, base) };
	}
	// pi-ai falls back to the provider's environment variables itself; without either, the call cannot work.
	if (!result.apiKey && envApiKey(model.provider) === undefined) {
		return { ok: false, envelope: failureEnvelope({ kind: "no-key", label, provider: model.provider }, base) };
	}
	const auth: ConsultationAuth = {};
	if (result.apiKey) auth.apiKey = result.apiKey;
	if (result.headers) auth.headers = result.headers;
	return { ok: true, auth };
}

/**
 * The consultation pipeline, for the advisor() tool and the completion review alike: model and
 * activation checks, credentials, the ledger folded up to the branch, the investigation tools,
 * the budget hooks (planning, gate, trim anchor, retry, timeout) and the request loop. Never throws.
 */
export async function runAdvisor(deps: AdvisorToolDeps, req: AdvisorRunRequest): Promise<AdvisorRun> {
	// The one place a throw becomes the "threw" row (the request loop has its own, inside
	// runConsultation): whatever the host, a hook or the loader throws, with the identity once known.
	const known: { base?: EnvelopeBase } = {};
	try {
		return await pipeline(deps, req, known);
	} catch (err) {
		return { envelope: failureEnvelope({ kind: "threw", message: errorText(err) }, known.base) };
	}
}

async function pipeline(
	deps: AdvisorToolDeps,
	req: AdvisorRunRequest,
	known: { base?: EnvelopeBase },
): Promise<AdvisorRun> {
	const chosen = chooseModel(deps, req, known);
	if (!chosen.ok) return { envelope: chosen.envelope };
	const { config, model, effort, base } = chosen;
	const auth = await resolveAuth(req.ctx, model, base);
	if (!auth.ok) return { envelope: auth.envelope };
	const { planning, tools } = planConsultationSetup(deps, req, chosen);
	const { request: planned, settle, ...hooks } = (await deps.consultationHooks?.(planning)) ?? {};
	const request = planned ?? planning.request;
	const complete = await deps.loadCompleteSimple();
	// The bridge: the newest request of this model on the branch wrote a cache entry at its stable end.
	const marks = markTargets(request, previousRequest(planning.spend, formatColonKey(modelKeyOf(model))));

	const input: ConsultationInput = {
		...hooks,
		complete,
		model,
		auth: auth.auth,
		effort,
		sessionId: planning.routingKey,
		request,
		signal: req.signal,
		adviceMaxChars: config.advice.maxChars,
		marks,
	};
	const onProgress = req.onProgress;
	if (onProgress !== undefined) input.onProgress = (line) => onProgress(line, base);
	if (tools !== undefined) input.tools = tools;
	if (deps.now !== undefined) input.now = deps.now;
	const envelope = await runConsultation(input);
	try {
		settle?.(envelope);
	} catch {
		// The footer is cosmetic: it never costs the executor its advice.
	}
	return {
		envelope,
		dispatch: {
			config,
			model,
			effort,
			auth: auth.auth,
			routingKey: planning.routingKey,
			request,
			marks,
			spend: planning.spend,
			complete,
		},
	};
}

/** The model a run asks, once the checks that come before any credential lookup passed. */
type Chosen =
	| { ok: true; config: AdvisorConfig; model: Model<Api>; effort: ThinkingLevel | undefined; base: EnvelopeBase }
	| { ok: false; envelope: AdvisorEnvelope };

/**
 * The advisor model (no model → the no-model row), the effort read once, and the skips: the
 * executor's own model, or an executor in `disabledForModels`.
 */
function chooseModel(deps: AdvisorToolDeps, req: AdvisorRunRequest, known: { base?: EnvelopeBase }): Chosen {
	const { ctx } = req;
	const config = deps.config();
	const model = lookupAdvisorModel(config.modelKey, (provider, id) => ctx.modelRegistry.find(provider, id));
	if (model === undefined) return { ok: false, envelope: failureEnvelope({ kind: "no-model" }) };
	const effort = model.reasoning ? config.effort : undefined;
	const base = identityBase(model, effort);
	known.base = base;

	const executor = ctx.model;
	if (executor !== undefined && executor.id === model.id) {
		const reason = SKIP_REASONS.sameModel(modelDisplayName(model));
		return { ok: false, envelope: failureEnvelope({ kind: "skipped", reason }, base) };
	}
	if (executor !== undefined && isDisabledFor(executor, deps.pi.getThinkingLevel(), config.disabledForModels)) {
		const reason = SKIP_REASONS.disabledForModel(modelDisplayName(executor));
		return { ok: false, envelope: failureEnvelope({ kind: "skipped", reason }, base) };
	}
	return { ok: true, config, model, effort, base };
}

/**
 * The user's standing instructions as the host loaded them into the executor's system prompt: what
 * a Pi 0.73 session does not record (a Pi 1.x branch records its own, which the renderer prefers).
 * A host without the call, or one that throws, gives none: the consultation goes on without them.
 */
function hostInstructions(ctx: { getSystemPrompt?: () => string }): Instruction[] {
	try {
		return instructionsFromPromptText(ctx.getSystemPrompt?.() ?? "");
	} catch {
		return [];
	}
}

/**
 * The ledger folded up to the branch, the investigation tools, and what the budget hooks read: the
 * request rendered on first read, and a way to render it again with other options.
 */
function planConsultationSetup(
	deps: AdvisorToolDeps,
	req: AdvisorRunRequest,
	chosen: Extract<Chosen, { ok: true }>,
): { planning: PlanningSetup; tools: InvestigationTools | undefined } {
	const { ctx } = req;
	const sm = ctx.sessionManager;
	const sessionId = sm.getSessionId();
	const ledger = deps.ledger.update(sessionId, sm.getBranch(), sm.getEntries(), sm.getCwd());
	const setup: ConsultationSetup = {
		ctx,
		config: chosen.config,
		model: chosen.model,
		effort: chosen.effort,
		state: ledger.state,
		signal: req.signal,
		mode: req.mode,
		interactive: req.interactive ?? ctx.hasUI,
	};
	const plan = deps.investigation?.(setup) ?? { toolsMode: "none" };
	// The system prompt's tool paragraph and the declarations come from the same plan: a mode
	// without tools to back it would promise the advisor tools it does not have.
	const tools = plan.tools !== undefined && plan.tools.declarations.length > 0 ? plan.tools : undefined;
	const renderOptions: RenderOptions = {
		config: chosen.config.ledger,
		catalogue: deps.pi.getAllTools().map(({ name, description }) => ({ name, description })),
		tools: tools?.declarations ?? [],
		toolsMode: tools === undefined ? "none" : plan.toolsMode,
		mode: req.mode,
		...(req.inFlightCallId !== undefined ? { inFlightCallId: req.inFlightCallId } : {}),
		instructions: hostInstructions(ctx),
	};
	const render = (overrides: Partial<RenderOptions> = {}) =>
		renderRequest(ledger.state, { ...renderOptions, ...overrides }, ledger.memo);
	let rendered: LedgerRequest | undefined;
	const planning: PlanningSetup = {
		...setup,
		get request() {
			rendered ??= render();
			return rendered;
		},
		render,
		renderOptions,
		memo: ledger.memo,
		spend: ledger.spend,
		anchor: ledger.anchor,
		routingKey: `advisor:${sessionId}`,
		now: deps.now ?? Date.now,
	};
	return { planning, tools };
}

async function consult(
	deps: AdvisorToolDeps,
	toolCallId: string,
	signal: AbortSignal | undefined,
	onUpdate: ((partial: AgentToolResult<AdvisorDetails>) => void) | undefined,
	ctx: ExtensionContext,
): Promise<AdvisorEnvelope> {
	try {
		await deps.observer?.starting?.();
	} catch {
		// Background work failing to stop is no reason to refuse the executor its advice.
	}
	const lines: string[] = [];
	const run = await runAdvisor(deps, {
		ctx,
		mode: "consult",
		inFlightCallId: toolCallId,
		signal,
		onProgress: (line, details) => {
			lines.push(line);
			onUpdate?.({ content: [{ type: "text", text: lines.join("\n") }], details });
		},
	});
	try {
		deps.observer?.finished?.(run, toolCallId);
	} catch {
		// Idem: warming is an optimisation.
	}
	return run.envelope;
}

export type AdvisorTool = ToolDefinition<typeof ADVISOR_PARAMETERS, AdvisorDetails>;

export function createAdvisorTool(deps: AdvisorToolDeps): AdvisorTool {
	const guidance = resolveGuidance(deps.config());
	return {
		name: ADVISOR_TOOL_NAME,
		label: ADVISOR_TOOL_LABEL,
		description: ADVISOR_TOOL_DESCRIPTION,
		promptSnippet: guidance.promptSnippet,
		promptGuidelines: [...guidance.promptGuidelines],
		parameters: ADVISOR_PARAMETERS,
		// Never throws: runAdvisor turns every throw into the "threw" envelope, the observers are guarded.
		execute: (toolCallId, _params, signal, onUpdate, ctx) => consult(deps, toolCallId, signal, onUpdate, ctx),
		renderResult: (result, options, theme, context) =>
			renderAdvisorResult(result, options, theme, { ...context, findModel: deps.findModel?.() }),
	};
}

/** The guidance the tool was registered with, to tell when a config change needs a re-register. */
export function guidanceKey(config: AdvisorConfig): string {
	return JSON.stringify(resolveGuidance(config));
}
