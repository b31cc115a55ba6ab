/**
 * pi-advisor-ledger's Pi entry point (`pi -e ./src/adapter/extension.ts`, or the `pi` manifest
 * after `pi install npm:pi-advisor-ledger`). Wiring only: the tool, the /advisor command and
 * the lifecycle hooks, sharing one runtime per loaded copy of the extension.
 */

import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { createAdvisorRuntime } from "./activation-state.ts";
import { ADVISOR_COMMAND, createAdvisorCommand } from "./advisor-command.ts";
import { type AdvisorToolDeps, createAdvisorTool } from "./advisor-tool.ts";
import { type CompleteSimple, loadCompleteSimple } from "./compat.ts";
import type { ConfigLocation } from "./config.ts";
import { type LifecycleHooks, registerLifecycle } from "./lifecycle.ts";

export interface AdvisorExtensionOptions {
	/** Where advisor.json is looked up; default the real environment and home directory. */
	location?: ConfigLocation;
	/** The host's completeSimple (SPEC §8); default the /compat-first loader. */
	loadCompleteSimple?: () => Promise<CompleteSimple>;
	now?: () => number;
	investigation?: AdvisorToolDeps["investigation"];
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
		};
		if (options.now !== undefined) toolDeps.now = options.now;
		if (options.investigation !== undefined) toolDeps.investigation = options.investigation;
		if (options.consultationHooks !== undefined) toolDeps.consultationHooks = options.consultationHooks;
		const tool = () => createAdvisorTool(toolDeps);

		pi.registerTool(tool());
		pi.registerCommand(ADVISOR_COMMAND, createAdvisorCommand({ pi, runtime }));
		const lifecycle: Parameters<typeof registerLifecycle>[0] = { pi, runtime, tool };
		if (options.lifecycle !== undefined) lifecycle.hooks = options.lifecycle;
		registerLifecycle(lifecycle);
	};
}

export default createAdvisorExtension();
