/** Terse builders of LedgerEvents for example tests. */
import type { ContentPart, LedgerEvent, ToolCallInfo } from "../../src/events/types.ts";

let parent: string | null = null;
export function resetParents(): void {
	parent = null;
}
function base(id: string) {
	const b = { id, parentId: parent };
	parent = id;
	return b;
}
const text = (t: string): ContentPart[] => [{ type: "text", text: t }];

export const user = (id: string, t: string, images: string[] = []): LedgerEvent => ({
	...base(id),
	kind: "user",
	parts: [...text(t), ...images.map((mimeType) => ({ type: "image" as const, mimeType }))],
});

export const call = (id: string, name: string, args: Record<string, unknown> = {}): ToolCallInfo => ({
	id,
	name,
	arguments: args,
});

export const assistant = (
	id: string,
	opts: { text?: string; thinking?: string; calls?: ToolCallInfo[] } = {},
): LedgerEvent => ({
	...base(id),
	kind: "assistant",
	text: opts.text ?? "",
	thinking: opts.thinking ?? "",
	calls: opts.calls ?? [],
	stopReason: opts.calls?.length ? "toolUse" : "stop",
	errorMessage: undefined,
	provider: "anthropic",
	model: "claude",
});

export const result = (
	id: string,
	callId: string,
	toolName: string,
	t: string,
	opts: { isError?: boolean; details?: unknown; images?: string[] } = {},
): LedgerEvent => ({
	...base(id),
	kind: "toolResult",
	callId,
	toolName,
	parts: [...text(t), ...(opts.images ?? []).map((mimeType) => ({ type: "image" as const, mimeType }))],
	isError: opts.isError ?? false,
	details: opts.details,
});

export const advice = (id: string, callId: string, t: string): LedgerEvent =>
	result(id, callId, "advisor", t, { details: { advisorModel: "anthropic:opus", stopReason: "stop" } });

export const failedAdvice = (id: string, callId: string): LedgerEvent =>
	result(id, callId, "advisor", "Advisor call failed: overloaded", {
		details: { errorMessage: "overloaded", stopReason: "error" },
	});

export const skippedAdvice = (id: string, callId: string): LedgerEvent =>
	result(id, callId, "advisor", "Advisor skipped: over budget", {
		details: { skipped: true, errorMessage: "over budget" },
	});

export const custom = (
	id: string,
	customType: string,
	t: string,
	display: boolean,
	details?: unknown,
): LedgerEvent => ({
	...base(id),
	kind: "customMessage",
	customType,
	parts: text(t),
	display,
	details,
});

export const bash = (id: string, command: string, output: string, excluded = false): LedgerEvent => ({
	...base(id),
	kind: "bashRun",
	command,
	output,
	exitCode: 0,
	cancelled: false,
	truncated: false,
	excluded,
});

export const compaction = (id: string, summary: string, firstKeptEntryId: string | null): LedgerEvent => ({
	...base(id),
	kind: "compaction",
	summary,
	firstKeptEntryId,
	tokensBefore: 1000,
	resets: true,
});

export const branchSummary = (id: string, summary: string, words: { id: string; text: string }[]): LedgerEvent => ({
	...base(id),
	kind: "branchSummary",
	summary,
	fromId: "old-leaf",
	hiddenUserWords: words.map((w) => ({ id: w.id, parts: text(w.text) })),
});

/** A Pi 1.x context edit: `replacement` text replaces the target's content, null omits the target. */
export const contextEdit = (
	id: string,
	targetId: string,
	replacement: string | null | { text?: string; thinking?: string; calls?: ToolCallInfo[] },
): LedgerEvent => ({
	...base(id),
	kind: "contextEdit",
	targetId,
	replacement:
		replacement === null
			? null
			: typeof replacement === "string"
				? { parts: text(replacement), thinking: "", calls: [] }
				: {
						parts: replacement.text === undefined ? [] : text(replacement.text),
						thinking: replacement.thinking ?? "",
						calls: replacement.calls ?? [],
					},
});

/** A Pi 1.x usage entry (Pi's own cache warming). */
export const usageEntry = (id: string, usage: unknown): LedgerEvent => ({
	...base(id),
	kind: "usage",
	usageKind: "cache_warm",
	provider: "anthropic",
	model: "claude",
	usage,
});
