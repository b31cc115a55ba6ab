/**
 * A tiny Pi 1.x extension standing in for a context pruner, loaded with `pi -e` beside ours: at the
 * end of each turn it returns `context_edit` drafts from `turn_end`, the way extensions change what
 * the executor's context holds (Pi 1.6 `ContextEditEntryDraft`). A read of `config.txt` has its
 * result replaced by PRUNED_CONFIG; a read of `notes.txt` is taken out whole — the assistant
 * message and its result both omitted, as Pi itself omits a failed turn.
 *
 * Typed by hand: Pi 1.x's types are not a dependency of this package.
 */

export const PRUNED_CONFIG = "[pruned by context-editor: config.txt, 3 lines]";

interface ToolCallPart {
	type: string;
	id?: string;
	arguments?: { path?: unknown };
}

interface TurnEnd {
	message: { role: string; content?: unknown };
	messageEntryId: string;
	toolResults: { toolCallId: string; toolName: string }[];
	toolResultEntryIds: string[];
}

type Draft = { type: "context_edit"; targetId: string; replacement: { content: string } | null };

interface Pi {
	on(event: "turn_end", handler: (event: TurnEnd) => { entries: Draft[] } | undefined): void;
}

function pathRead(message: TurnEnd["message"], callId: string): string | undefined {
	if (!Array.isArray(message.content)) return undefined;
	const call = (message.content as ToolCallPart[]).find((p) => p.type === "toolCall" && p.id === callId);
	return typeof call?.arguments?.path === "string" ? call.arguments.path : undefined;
}

export default function contextEditor(pi: Pi): void {
	pi.on("turn_end", (event) => {
		const entries: Draft[] = [];
		event.toolResults.forEach((result, i) => {
			const targetId = event.toolResultEntryIds[i];
			if (result.toolName !== "read" || targetId === undefined) return;
			const path = pathRead(event.message, result.toolCallId);
			if (path === "config.txt")
				entries.push({ type: "context_edit", targetId, replacement: { content: PRUNED_CONFIG } });
			if (path === "notes.txt") {
				entries.push({ type: "context_edit", targetId: event.messageEntryId, replacement: null });
				entries.push({ type: "context_edit", targetId, replacement: null });
			}
		});
		return entries.length > 0 ? { entries } : undefined;
	});
}
