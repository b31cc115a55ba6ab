/**
 * The lifecycle hooks (docs/architecture.md). Each one re-runs `reconcile` where the answer may have changed;
 * the work that later issues add (branch cost status, cache warming, completion review, the watch) plugs in
 * through `LifecycleHooks` without touching the wiring (`composeHooks` runs several sets in order).
 */

import type { AgentEndEvent, ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { InterruptReason } from "../background/interrupt.ts";
import { type AdvisorTool, guidanceKey } from "../consult/advisor-tool.ts";
import { refreshBranchStatus } from "../consult/cost-control.ts";
import { say } from "../pi/say.ts";
import { type AdvisorRuntime, currentConfig, reconcile, reloadConfig } from "./activation-state.ts";

export interface LifecycleHooks {
	/** before_agent_start, after the built-in refresh of the branch cost / cache status. */
	beforeAgentStart?(ctx: ExtensionContext): void | Promise<void>;
	/**
	 * agent_start: the completion review notes that a run is going (a review that settles
	 * now is queued for the next prompt, never injected). Warming is armed after each consultation,
	 * not here: agent_end ends every chain, so a run starts with none.
	 */
	agentStart?(ctx: ExtensionContext): void | Promise<void>;
	/**
	 * turn_end: an executor turn (its message and every tool result) is on the branch; the watch
	 * decides there (docs/configuration.md#the-watch). Not awaited by Pi 0.73's run; awaited by Pi
	 * 1.x's, so it must return at once.
	 */
	turnEnd?(ctx: ExtensionContext): void | Promise<void>;
	/** agent_end: cancel warming, run the completion review. */
	agentEnd?(event: AgentEndEvent, ctx: ExtensionContext): void | Promise<void>;
	/**
	 * agent_before_settle, on hosts that have it (Pi 1.x): the run is over but not yet settled, and
	 * what is sent now may continue it (a headless completion review is delivered here).
	 */
	beforeSettle?(ctx: ExtensionContext): void | Promise<void>;
	/** thinking_level_select: cancel warming. */
	thinkingLevelChanged?(ctx: ExtensionContext): void | Promise<void>;
	/** model_select (not "restore"): cancel warming. */
	modelChanged?(ctx: ExtensionContext): void | Promise<void>;
	/**
	 * Abort warming/review and record their usage before the session changes under them.
	 * `shutdownReason` is session_shutdown's own reason ("quit", "new", …).
	 */
	interrupt?(reason: InterruptReason, ctx: ExtensionContext, shutdownReason?: string): void | Promise<void>;
}

export interface LifecycleDeps {
	pi: ExtensionAPI;
	runtime: AdvisorRuntime;
	/** Builds the advisor tool for the current config (its guidance comes from advisor.json). */
	tool: () => AdvisorTool;
	hooks?: LifecycleHooks;
	/** Runs `work` once the host is done with the current event (default: a zero-delay timer). */
	defer?: (work: () => void) => void;
}

/**
 * session_start reasons after which Pi's interactive mode (0.73) clears and re-renders its chat,
 * wiping a notification shown during the event itself: /new, a session switch, a fork.
 */
const CHAT_REBUILT_AFTER: ReadonlySet<string> = new Set(["new", "resume", "fork"]);

const afterCurrentEvent = (work: () => void): void => {
	setTimeout(work, 0);
};

/**
 * The warnings of one read of advisor.json, each shown once. At startup and on /reload they are
 * shown at once; after /new, a switch or a fork, once the host has rebuilt its chat (the rebuild
 * runs without yielding to timers after session_start), so the user sees them whenever the file is
 * re-read. Headless, they go to stderr at once.
 */
export function showConfigWarnings(
	ctx: Pick<ExtensionContext, "hasUI" | "ui">,
	warnings: readonly string[],
	reason: string,
	defer: (work: () => void) => void = afterCurrentEvent,
): void {
	if (warnings.length === 0) return;
	const show = () => {
		for (const warning of warnings) say(ctx, warning, "warning");
	};
	if (!ctx.hasUI || !CHAT_REBUILT_AFTER.has(reason)) {
		show();
		return;
	}
	defer(() => {
		try {
			show();
		} catch {
			// The session was replaced again before the timer fired: its successor read the file itself.
		}
	});
}

/**
 * advisor() registered again when its guidance changed since it was last registered (advisor.json
 * re-read, `/advisor watch`): the executor's system prompt says the new wording from its next request.
 */
export function syncToolGuidance(
	pi: Pick<ExtensionAPI, "registerTool">,
	runtime: AdvisorRuntime,
	tool: () => AdvisorTool,
): void {
	const guidance = guidanceKey(currentConfig(runtime));
	if (guidance === runtime.registeredGuidance) return;
	pi.registerTool(tool());
	runtime.registeredGuidance = guidance;
}

export function registerLifecycle(deps: LifecycleDeps): void {
	const { pi, runtime } = deps;
	const hooks = deps.hooks ?? {};
	// The tool was registered with the config the extension loaded with.
	runtime.registeredGuidance ??= guidanceKey(currentConfig(runtime));

	pi.on("session_start", async (event, ctx) => {
		showConfigWarnings(ctx, reloadConfig(runtime), event.reason, deps.defer);
		runtime.ledger.reset();
		// Hand edits to the guidance since the extension loaded: the system prompt should say them.
		syncToolGuidance(pi, runtime, deps.tool);
		// Said once per session start, where the config warnings are: an unusable saved modelKey.
		runtime.unusableNotice = undefined;
		const unusable: string[] = [];
		reconcile(pi, ctx, runtime, { announceRestore: true, warn: (message) => unusable.push(message) });
		showConfigWarnings(ctx, unusable, event.reason, deps.defer);
		// A resumed session shows its branch's advisor spend right away.
		refreshBranchStatus(runtime.ledger, ctx);
	});

	pi.on("before_agent_start", async (_event, ctx) => {
		// `Advisor $<branch spend> · cache <pct>%`, or cleared on a branch without spend.
		refreshBranchStatus(runtime.ledger, ctx);
		await hooks.beforeAgentStart?.(ctx);
		reconcile(pi, ctx, runtime);
	});

	pi.on("model_select", async (event, ctx) => {
		// A restored model is the one the session already had; session_start reconciled for it.
		if (event.source === "restore") return;
		reconcile(pi, ctx, runtime);
		await hooks.modelChanged?.(ctx);
	});

	// Pi does not await this event; deciding first keeps the tool set right as soon as it is emitted.
	pi.on("thinking_level_select", async (_event, ctx) => {
		reconcile(pi, ctx, runtime);
		await hooks.thinkingLevelChanged?.(ctx);
	});

	pi.on("agent_start", async (_event, ctx) => {
		await hooks.agentStart?.(ctx);
	});

	pi.on("turn_end", async (_event, ctx) => {
		await hooks.turnEnd?.(ctx);
	});

	pi.on("agent_end", async (event, ctx) => {
		await hooks.agentEnd?.(event, ctx);
	});

	// Pi 1.x only (0.73 never emits it, and its typings do not name it).
	const on = pi.on.bind(pi) as unknown as (
		event: string,
		handler: (event: unknown, ctx: ExtensionContext) => Promise<void>,
	) => void;
	on("agent_before_settle", async (_event, ctx) => {
		await hooks.beforeSettle?.(ctx);
	});

	const interrupt = (reason: InterruptReason) => async (_event: unknown, ctx: ExtensionContext) => {
		await hooks.interrupt?.(reason, ctx);
	};
	pi.on("session_before_compact", interrupt("session_before_compact"));
	pi.on("session_before_tree", interrupt("session_before_tree"));
	pi.on("session_before_switch", interrupt("session_before_switch"));
	pi.on("session_before_fork", interrupt("session_before_fork"));
	pi.on("session_shutdown", async (event, ctx) => {
		await hooks.interrupt?.("session_shutdown", ctx, event.reason);
	});
}

/** Runs each set of hooks in turn (awaiting each), for every slot any of them fills. */
export function composeHooks(...sets: (LifecycleHooks | undefined)[]): LifecycleHooks {
	const all = sets.filter((h): h is LifecycleHooks => h !== undefined);
	return {
		async beforeAgentStart(ctx) {
			for (const h of all) await h.beforeAgentStart?.(ctx);
		},
		async agentStart(ctx) {
			for (const h of all) await h.agentStart?.(ctx);
		},
		async turnEnd(ctx) {
			for (const h of all) await h.turnEnd?.(ctx);
		},
		async agentEnd(event, ctx) {
			for (const h of all) await h.agentEnd?.(event, ctx);
		},
		async beforeSettle(ctx) {
			for (const h of all) await h.beforeSettle?.(ctx);
		},
		async thinkingLevelChanged(ctx) {
			for (const h of all) await h.thinkingLevelChanged?.(ctx);
		},
		async modelChanged(ctx) {
			for (const h of all) await h.modelChanged?.(ctx);
		},
		async interrupt(reason, ctx, shutdownReason) {
			for (const h of all) await h.interrupt?.(reason, ctx, shutdownReason);
		},
	};
}
