/**
 * pi-advisor-ledger's Pi entry point (`pi -e ./src/adapter/extension.ts`, or the `pi` manifest
 * after `pi install npm:pi-advisor-ledger`). Wiring only: the tool, the /advisor command and
 * the lifecycle hooks, sharing one runtime per loaded copy of the extension.
 */

import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { expandSource } from "../render/expand.ts";
import { createAdvisorRuntime } from "./activation-state.ts";
import { ADVISOR_COMMAND, createAdvisorCommand } from "./advisor-command.ts";
import {
	type AdvisorToolDeps,
	type ConsultationSetup,
	createAdvisorTool,
	type InvestigationPlan,
} from "./advisor-tool.ts";
import { type CompleteSimple, loadCompleteSimple } from "./compat.ts";
import type { ConfigLocation } from "./config.ts";
import { costControl } from "./cost-control.ts";
import { type LifecycleHooks, registerLifecycle } from "./lifecycle.ts";
import { advisorToolsMode, createAdvisorTools } from "./tools/index.ts";
import { summarizeCall } from "./tools/summary.ts";

export interface AdvisorExtensionOptions {
	/** Where advisor.json is looked up; default the real environment and home directory. */
	location?: ConfigLocation;
	/** The host's completeSimple (SPEC §8); default the /compat-first loader. */
	loadCompleteSimple?: () => Promise<CompleteSimple>;
	now?: () => number;
	/** The advisor's investigation tools; default `defaultInvestigation` (advisor.json `tools`). */
	investigation?: AdvisorToolDeps["investigation"];
	/** Budget gate, trimming, retry, timeout and status (issue 6); default `costControl` (advisor.json `budget`). */
	consultationHooks?: AdvisorToolDeps["consultationHooks"];
	lifecycle?: LifecycleHooks;
}

export function createAdvisorExtension(options: AdvisorExtensionOptions = {}): (pi: ExtensionAPI) => void {
	return (pi) => {
		const runtime = createAdvisorRuntime(options.location);
		const toolDeps: AdvisorToolDeps = {
			pi,
			runtime,
			loadCompleteSimple: options.loadCompleteSimple ?? loadCompleteSimple,
			investigation: options.investigation ?? defaultInvestigation,
			consultationHooks: options.consultationHooks ?? costControl({ pi }),
		};
		if (options.now !== undefined) toolDeps.now = options.now;
		const tool = () => createAdvisorTool(toolDeps);

		pi.registerTool(tool());
		pi.registerCommand(ADVISOR_COMMAND, createAdvisorCommand({ pi, runtime }));
		const lifecycle: Parameters<typeof registerLifecycle>[0] = { pi, runtime, tool };
		if (options.lifecycle !== undefined) lifecycle.hooks = options.lifecycle;
		registerLifecycle(lifecycle);
	};
}

/**
 * The advisor's read-only tools for one consultation, from the `tools` config loaded at session
 * start (SPEC §3): fenced to the session cwd, images only for an advisor model that takes them,
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

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

export default createAdvisorExtension();
