/**
 * The baseline a replay compares the ledger with: what rpiv-advisor 2.11 sends for the same
 * consultation. That is Pi's own resolved context for the branch (`buildSessionContext` then
 * `convertToLlm`, the executor's LLM view) with the in-flight advisor call stripped, plus one
 * tool inventory message carrying every tool's full JSON schema.
 *
 * No system prompt is counted on this side (its text is not known), so the baseline is a lower
 * bound of what 2.11 sent and ledger/baseline ratios are upper bounds.
 */

import type { AssistantMessage, Message, Tool, UserMessage } from "@mariozechner/pi-ai";
import { buildSessionContext, convertToLlm, type SessionEntry } from "@mariozechner/pi-coding-agent";
import type { EntryRecord } from "../../../events/index.ts";

export const INVENTORY_HEADER =
	"Tools available to the executor (name, description and JSON schema of the parameters):";

export function inventoryMessage(tools: readonly Tool[]): UserMessage {
	const sections = tools.map(
		(tool) => `### ${tool.name}\n${tool.description}\nParameters: ${JSON.stringify(tool.parameters ?? {})}`,
	);
	return {
		role: "user",
		content: [{ type: "text", text: `${INVENTORY_HEADER}\n\n${sections.join("\n\n")}` }],
		timestamp: 0,
	};
}

/** One branch, ready for Pi's builder at any of its points. */
export interface BaselineBranch {
	/** Root → leaf, Pi's entry shape; the first entry's parent cut so Pi's walk always ends. */
	entries: SessionEntry[];
	byId: Map<string, SessionEntry>;
	inventory: UserMessage;
}

function sessionEntry(record: EntryRecord, parentId: string | null): SessionEntry {
	if (record.kind === "opaque") {
		return {
			type: "custom",
			customType: "advisor-ledger:opaque",
			id: record.id,
			parentId,
			timestamp: "",
		} as SessionEntry;
	}
	const entry = record.entry as unknown as SessionEntry;
	return entry.parentId === parentId ? entry : ({ ...entry, parentId } as SessionEntry);
}

/**
 * @param path root → leaf, as selected by the events layer (cycle-safe). Entries the reader could
 *   not interpret become inert `custom` entries: they keep the tree links and Pi ignores them,
 *   where the raw value could crash its builder.
 */
export function prepareBaseline(path: readonly EntryRecord[], inventory: readonly Tool[]): BaselineBranch {
	const entries = path.map(
		(record, index): SessionEntry => sessionEntry(record, index === 0 ? null : record.parentId),
	);
	const byId = new Map(entries.map((e) => [e.id, e]));
	return { entries, byId, inventory: inventoryMessage(inventory) };
}

/** The advisor call leaves its message; a message left with nothing in it leaves the context. */
function stripCall(messages: readonly Message[], callId: string): Message[] {
	const out: Message[] = [];
	for (const message of messages) {
		if (message.role !== "assistant" || !message.content.some((p) => p.type === "toolCall" && p.id === callId)) {
			out.push(message);
			continue;
		}
		const content = message.content.filter((p) => !(p.type === "toolCall" && p.id === callId));
		if (content.length > 0) out.push({ ...message, content } as AssistantMessage);
	}
	return out;
}

/**
 * Pi 1.x keeps its system prompt as a `system` message in the session and in its context; the
 * baseline counts no system prompt, so it is left out on every host alike.
 */
export function llmMessages(messages: readonly { role: string }[]): Message[] {
	return messages.filter((m): m is Message => m.role === "user" || m.role === "assistant" || m.role === "toolResult");
}

/** The baseline payload at a point: the inventory, then Pi's LLM view of events[0..upTo). */
export function baselineMessages(branch: BaselineBranch, upTo: number, inFlightCallId?: string): Message[] {
	if (upTo <= 0) return [branch.inventory];
	const leaf = branch.entries[upTo - 1]!;
	const context = buildSessionContext(branch.entries, leaf.id, branch.byId);
	let messages = llmMessages(convertToLlm(context.messages));
	if (inFlightCallId !== undefined) messages = stripCall(messages, inFlightCallId);
	return [branch.inventory, ...messages];
}
