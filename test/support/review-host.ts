/**
 * Shared pieces of the completion-review end-to-end tests (test/adapter/extension/background/review-*.e2e.test.ts and others): the
 * config, executor scripts, an advisor that waits to be aborted, and readers for what the session
 * holds (usage records, review messages, the executor's context per request).
 */

import {
	type AssistantMessage,
	type Context,
	completeSimple,
	type FauxResponseStep,
	fauxAssistantMessage,
	fauxText,
	fauxToolCall,
	type Message,
} from "@mariozechner/pi-ai";
import { type AdvisorExtensionOptions, createAdvisorExtension } from "../../src/adapter/extension/pi-advisor-ledger.ts";
import { CUSTOM_TYPES } from "../../src/events/index.ts";
import { ADVISOR_MODEL, ADVISOR_PROVIDER, type Host, waitFor } from "./pi-host.ts";

/**
 * The extension as an inline factory with test options (traces, clocks). Loaded by vitest rather
 * than Pi's jiti, where the /compat-first loader's resolution error carries no code: hand it
 * pi-ai's completeSimple directly.
 */
export function testExtension(options: AdvisorExtensionOptions = {}) {
	return createAdvisorExtension({ loadCompleteSimple: async () => completeSimple, ...options });
}

export const REVIEW_CONFIG = {
	modelKey: `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`,
	review: { enabled: true, minToolCalls: 1 },
	// Reviews in these tests answer from the log: no investigation rounds to script.
	tools: { enabled: false },
};

/** One executor tool call (a real `read` of the test repo's README). */
export function readStep(id: string, text = "Looking."): FauxResponseStep {
	return fauxAssistantMessage([fauxText(text), fauxToolCall("read", { path: "README.md" }, { id })], {
		stopReason: "toolUse",
	});
}

export function answer(text: string): FauxResponseStep {
	return fauxAssistantMessage(text);
}

/** The executor steps of a reviewable run: one tool call, then a text answer. */
export function reviewableRun(id: string, final = "Done: the README is fine."): FauxResponseStep[] {
	return [readStep(id), answer(final)];
}

/** An executor step that records the context it was asked with, then answers `text`. */
export function recording(seen: Context[], text: string): FauxResponseStep {
	return (context) => {
		seen.push(structuredClone({ systemPrompt: context.systemPrompt, messages: context.messages }) as Context);
		return fauxAssistantMessage(text);
	};
}

/** An advisor reply that only comes when the request is aborted (a review left in flight). */
export function untilAborted(onStart?: () => void): FauxResponseStep {
	return (_context, options) =>
		new Promise<AssistantMessage>((resolve) => {
			onStart?.();
			const signal = options?.signal;
			const done = () => resolve(fauxAssistantMessage("Severity: blocker\ntoo late") as AssistantMessage);
			if (signal?.aborted) done();
			else signal?.addEventListener("abort", done, { once: true });
		});
}

/** `advisor-usage` records of kind "review" on the session (in file order). */
export function reviewRecords(host: Host): any[] {
	return host
		.entries()
		.filter((e: any) => e.type === "custom" && e.customType === CUSTOM_TYPES.usage && e.data?.kind === "review")
		.map((e: any) => e.data);
}

/** Delivered `advisor-review` messages (custom_message entries). */
export function reviewMessages(host: Host): any[] {
	return host.entries().filter((e: any) => e.type === "custom_message" && e.customType === CUSTOM_TYPES.review);
}

export function waitForReviewRecords(host: Host, count = 1): Promise<any[]> {
	return waitFor(() => {
		const records = reviewRecords(host);
		return records.length >= count ? records : undefined;
	}, `${count} review usage record(s)`);
}

/** The id of the last executor text answer on the branch. */
export function lastAnswerId(host: Host): string {
	const branch = host.runtime.session.sessionManager.getBranch() as any[];
	for (let i = branch.length - 1; i >= 0; i--) {
		const e = branch[i];
		if (e.type === "message" && e.message.role === "assistant") return e.id;
	}
	throw new Error("no assistant message on the branch");
}

export function textOf(message: Message): string {
	if (typeof message.content === "string") return message.content;
	return message.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("");
}

/** Lets queued background work (a settled review's delivery) run. */
export async function settle(ms = 30): Promise<void> {
	await new Promise((resolve) => setTimeout(resolve, ms));
}
