/**
 * Token estimate: characters / 4 per message (rounded up), 1200 per image — the rule Pi's own
 * compaction uses (`estimateTokens` in pi-coding-agent), so the ledger and the baseline it is
 * compared with are measured by the same yardstick. The system prompt and the tool declarations
 * are counted the same way.
 */

import type { Message, Tool } from "@mariozechner/pi-ai";
import { jsonText } from "./text-shape.ts";

export const IMAGE_TOKENS = 1200;

export function tokensForChars(chars: number): number {
	return Math.ceil(chars / 4);
}

/** A message in pi-ai shape, or one of Pi's own roles (bashExecution, custom, summaries) as they appear in a session. */
export interface EstimableMessage {
	role: string;
	content?: unknown;
	[key: string]: unknown;
}

function partChars(part: unknown): { chars: number; images: number } {
	if (typeof part !== "object" || part === null) return { chars: 0, images: 0 };
	const p = part as Record<string, unknown>;
	switch (p.type) {
		case "text":
			return { chars: typeof p.text === "string" ? p.text.length : 0, images: 0 };
		case "thinking":
			return { chars: typeof p.thinking === "string" ? p.thinking.length : 0, images: 0 };
		case "toolCall":
			return {
				chars: (typeof p.name === "string" ? p.name.length : 0) + jsonText(p.arguments ?? {}).length,
				images: 0,
			};
		case "image":
			return { chars: 0, images: 1 };
		default:
			return { chars: 0, images: 0 };
	}
}

export function estimateMessageTokens(message: EstimableMessage | Message): number {
	const m = message as EstimableMessage;
	let chars = 0;
	let images = 0;
	if (typeof m.content === "string") chars += m.content.length;
	else if (Array.isArray(m.content)) {
		for (const part of m.content) {
			const counted = partChars(part);
			chars += counted.chars;
			images += counted.images;
		}
	}
	// Pi's own roles that carry text outside `content`.
	if (m.role === "bashExecution") {
		chars +=
			(typeof m.command === "string" ? m.command.length : 0) + (typeof m.output === "string" ? m.output.length : 0);
	}
	if (m.role === "branchSummary" || m.role === "compactionSummary") {
		chars += typeof m.summary === "string" ? m.summary.length : 0;
	}
	return tokensForChars(chars) + images * IMAGE_TOKENS;
}

export function estimateToolsTokens(tools: readonly Tool[]): number {
	return tools.length === 0 ? 0 : tokensForChars(JSON.stringify(tools).length);
}

export function estimateContextTokens(context: {
	systemPrompt?: string;
	messages: readonly (EstimableMessage | Message)[];
	tools?: readonly Tool[];
}): number {
	let tokens = tokensForChars(context.systemPrompt?.length ?? 0) + estimateToolsTokens(context.tools ?? []);
	for (const message of context.messages) tokens += estimateMessageTokens(message);
	return tokens;
}
