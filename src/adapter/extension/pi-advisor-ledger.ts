/**
 * pi-advisor-ledger's Pi entry point: the file package.json's `pi.extensions` manifest names, which Pi
 * loads for a package installed from its checkout, or that `pi -e` is given for one run (how to install:
 * README.md). Named after the package because Pi's startup banner lists an extension by its entry
 * file's name (`[Extensions] pi-advisor-ledger.ts`). Wiring only: the tool, the /advisor command and
 * the lifecycle hooks, sharing one runtime per loaded copy of the extension, plus the background
 * workers: cache warming (background/cache-warming.ts), and the completion review
 * (background/completion-review.ts) and the watch (background/watch.ts), which share one slot for
 * their reviews (background/review-slot.ts).
 */

import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { isRecord } from "../../events/index.ts";
import { expandSource } from "../../render/index.ts";
import { createCacheWarming, type WarmingTimers, type WarmingTrace } from "./background/cache-warming.ts";
import { createCompletionReview, type ReviewTrace } from "./background/completion-review.ts";
import { createReviewSlot } from "./background/review-slot.ts";
import { createWatch, type WatchTrace } from "./background/watch.ts";
import type { ConfigLocation } from "./config/file.ts";
import {
	type AdvisorToolDeps,
	type ConsultationSetup,
	createAdvisorTool,
	type InvestigationPlan,
} from "./consult/advisor-tool.ts";
import { costControl } from "./consult/cost-control.ts";
import { createAdvisorRuntime, currentConfig } from "./host/activation-state.ts";
import { ADVISOR_COMMAND, createAdvisorCommand } from "./host/advisor-command.ts";
import { composeHooks, type LifecycleHooks, registerLifecycle, syncToolGuidance } from "./host/lifecycle.ts";
import { type CompleteSimple, loadCompleteSimple } from "./pi/compat.ts";
import { advisorToolsMode, createAdvisorTools } from "./tools/index.ts";
import { summarizeCall } from "./tools/summary.ts";

export interface AdvisorExtensionOptions {
	/** Where advisor.json is looked up; default the real environment and home directory. */
	location?: ConfigLocation;
	/** The host's completeSimple (docs/decisions.md); default the /compat-first loader. */
	loadCompleteSimple?: () => Promise<CompleteSimple>;
	now?: () => number;
	/** The advisor's investigation tools; default `defaultInvestigation` (advisor.json `tools`). */
	investigation?: AdvisorToolDeps["investigation"];
	/** Budget gate, trimming, retry, timeout and status; default `costControl` (advisor.json `budget`). */
	consultationHooks?: AdvisorToolDeps["consultationHooks"];
	/** Extra lifecycle hooks, run after the built-in ones (warming, review). */
	lifecycle?: LifecycleHooks;
	/** Cache warming's clock and timer (default `now` and the global timers), and a trace of what it did. */
	warming?: {
		timers?: Partial<WarmingTimers>;
		/** `PI_CACHE_RETENTION` as pi-ai reads it; default the real environment. */
		env?: () => string | undefined;
		onTrace?: (trace: WarmingTrace) => void;
	};
	/** A trace of what the completion review did. */
	review?: { onTrace?: (trace: ReviewTrace) => void };
	/** A trace of what the watch did. */
	watch?: { onTrace?: (trace: WatchTrace) => void };
}

export function createAdvisorExtension(options: AdvisorExtensionOptions = {}): (pi: ExtensionAPI) => void {
	return (pi) => {
		const runtime = createAdvisorRuntime(options.location);
		const toolDeps: AdvisorToolDeps = {
			pi,
			config: () => currentConfig(runtime),
			ledger: runtime.ledger,
			findModel: () => runtime.findModel,
			loadCompleteSimple: options.loadCompleteSimple ?? loadCompleteSimple,
			investigation: options.investigation ?? defaultInvestigation,
			consultationHooks: options.consultationHooks ?? costControl({ pi }),
		};
		if (options.now !== undefined) toolDeps.now = options.now;

		const warming = createCacheWarming({
			pi,
			timers: { ...(options.now !== undefined ? { now: options.now } : {}), ...options.warming?.timers },
			...(options.warming?.env !== undefined ? { env: options.warming.env } : {}),
			...(options.warming?.onTrace !== undefined ? { onTrace: options.warming.onTrace } : {}),
		});
		// Every advisor() call ends the chain it finds (awaited: an in-flight refresh is recorded
		// first) and, when it completes with advice, may start its own.
		toolDeps.observer = {
			starting: () => warming.cancel("consultation"),
			finished: (run, consultationId) => warming.consulted(run, consultationId),
		};
		// One background review at a time, the completion review's or the watch's.
		const slot = createReviewSlot(() => currentConfig(runtime).budget.timeoutSec * 1000);
		const advisorActive = () => runtime.activation?.active === true;
		const now = options.now !== undefined ? { now: options.now } : {};
		const review = createCompletionReview({
			pi,
			pipeline: toolDeps,
			advisorActive,
			slot,
			...now,
			...(options.review?.onTrace !== undefined ? { onTrace: options.review.onTrace } : {}),
		});
		const watch = createWatch({
			pi,
			pipeline: toolDeps,
			advisorActive,
			slot,
			...now,
			...(options.watch?.onTrace !== undefined ? { onTrace: options.watch.onTrace } : {}),
		});
		const tool = () => createAdvisorTool(toolDeps);

		pi.registerTool(tool());
		pi.registerCommand(
			ADVISOR_COMMAND,
			createAdvisorCommand({
				pi,
				runtime,
				refreshTool: () => syncToolGuidance(pi, runtime, tool),
				onInvoke: () => warming.cancel("advisor_command"),
			}),
		);
		const builtIn: LifecycleHooks = {
			agentStart: () => review.runStarted(),
			// Not awaited inside: a watch review runs in the background.
			turnEnd: (ctx) => watch.turnEnded(ctx),
			agentEnd: async (_event, ctx) => {
				await warming.cancel("agent_end");
				// Not awaited inside: the review runs in the background.
				review.runEnded(ctx);
			},
			// Without a UI (print and JSON mode) the run waits for the review (background/completion-review.ts).
			beforeSettle: () => review.beforeSettle(),
			modelChanged: () => warming.cancel("model_select"),
			thinkingLevelChanged: () => warming.cancel("thinking_level_select"),
			// Both stop (and record their usage) before the session changes under them; a headless
			// run that is quitting lets its held review finish first.
			interrupt: async (reason, ctx, shutdownReason) => {
				await Promise.all([warming.cancel(reason), review.interrupted(reason, ctx, shutdownReason)]);
			},
		};
		registerLifecycle({ pi, runtime, tool, hooks: composeHooks(builtIn, options.lifecycle) });
	};
}

/**
 * The advisor's read-only tools for one consultation, from the `tools` config loaded at session
 * start (docs/request-format.md): fenced to the session cwd, images only for an advisor model that takes them,
 * advisor_expand answering from the very ledger state the request was rendered from.
 * `enabled: false` or `maxRounds: 0` → no tools (one request); `repo: false` → advisor_expand only.
 */
export function defaultInvestigation(setup: ConsultationSetup): InvestigationPlan {
	const config = setup.config.tools;
	const toolsMode = advisorToolsMode(config);
	if (toolsMode === "none") return { toolsMode };
	const tools = createAdvisorTools({
		cwd: setup.ctx.cwd || setup.ctx.sessionManager.getCwd(),
		config,
		modelAcceptsImages: setup.model.input.includes("image"),
		expand: expandSource(setup.state),
		...(setup.signal !== undefined ? { signal: setup.signal } : {}),
		privacy: setup.config.privacy,
	});
	return {
		toolsMode,
		tools: {
			declarations: tools.declarations,
			execute: (call, signal) => tools.execute(call, signal),
			describe: (call) => summarizeCall(call.name, isRecord(call.arguments) ? call.arguments : {}),
			maxCalls: Math.floor(config.maxRounds),
		},
	};
}

export default createAdvisorExtension();
