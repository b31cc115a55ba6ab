/**
 * The executor's context a consultation stands in for, as Pi measures it: the request is held within
 * it (docs/request-format.md, "Never larger than the executor's context"). Pi's own estimate of the
 * context (`getContextUsage`) and, of that, the head: the executor's system prompt and the
 * declarations of every tool configured (more than the active ones at most, so the head is never
 * under-counted and the request never given room the executor's head does not make).
 */

import type { Tool } from "@mariozechner/pi-ai";
import { estimateToolsTokens, type Payload, tokensForChars } from "../../../render/index.ts";

interface PayloadHost {
	getContextUsage?: () => { tokens: number | null } | undefined;
	getSystemPrompt?: () => string;
}

/** Undefined when Pi does not know its context's size (a host without the call, or none measured yet). */
export function executorPayload(
	ctx: PayloadHost,
	tools: readonly Pick<Tool, "name" | "description" | "parameters">[],
): Payload | undefined {
	try {
		const tokens = ctx.getContextUsage?.()?.tokens;
		if (typeof tokens !== "number" || !Number.isFinite(tokens) || tokens <= 0) return undefined;
		const head = tokensForChars((ctx.getSystemPrompt?.() ?? "").length) + estimateToolsTokens(tools as Tool[]);
		return { tokens, headTokens: Math.min(head, tokens) };
	} catch {
		return undefined;
	}
}
