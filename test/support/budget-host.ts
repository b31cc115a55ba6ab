/**
 * Shared pieces of the cost-control end-to-end tests (test/adapter/extension/consult/cost-control-*.e2e.test.ts): a priced
 * advisor model, executor scripts, and reading what the session file holds.
 */

import { readFileSync } from "node:fs";
import { type FauxResponseStep, fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { CUSTOM_TYPES } from "../../src/events/index.ts";
import { ADVISOR_MODEL, ADVISOR_NAME, ADVISOR_PROVIDER, type Host, type ProviderSpec } from "./pi-host.ts";

export const ADVISOR_KEY = `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`;

/** Claude Sonnet-like prices, USD per million tokens. */
export const PRICES = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

/** The advisor with realistic prices (billed by pi-host's `priceAdvisor`). */
export const PRICED_ADVISOR: ProviderSpec = {
	provider: ADVISOR_PROVIDER,
	models: [{ id: ADVISOR_MODEL, name: ADVISOR_NAME, reasoning: true, cost: PRICES, contextWindow: 200_000 }],
};

/** `n` executor steps, each `prose` chars of reasoning and a cheap bash call. */
export function steps(n: number, prose: number, prefix = "s"): FauxResponseStep[] {
	const out: FauxResponseStep[] = [];
	for (let k = 1; k <= n; k++) {
		out.push(
			fauxAssistantMessage(
				[
					fauxText(`Step ${prefix}${k}: `.padEnd(prose, "reasoning about the build ")),
					fauxToolCall("bash", { command: "true" }, { id: `${prefix}${k}` }),
				],
				{ stopReason: "toolUse" },
			),
		);
	}
	return out;
}

/** The executor asks the advisor, with `question` as its prose beside the call. */
export function ask(id: string, question = "Is my plan right?"): FauxResponseStep {
	return fauxAssistantMessage([fauxText(question), fauxToolCall("advisor", {}, { id })], { stopReason: "toolUse" });
}

/** The entries of the session FILE (what a restart would read), header excluded. */
export function fileEntries(host: Host): any[] {
	const file = host.runtime.session.sessionFile;
	if (file === undefined) throw new Error("session has no file");
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line))
		.filter((e) => e.type !== "session");
}

export function anchorEntries(host: Host): any[] {
	return fileEntries(host).filter((e) => e.type === "custom" && e.customType === CUSTOM_TYPES.trimAnchor);
}

export { flattenParts, texts } from "./requests.ts";

/** The billed prompt of a pi-ai usage: input + cacheRead + cacheWrite. */
export function billedPrompt(usage: { input: number; cacheRead: number; cacheWrite: number }): number {
	return usage.input + usage.cacheRead + usage.cacheWrite;
}
