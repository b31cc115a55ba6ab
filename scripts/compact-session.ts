/**
 * A compacted variant of a recorded Pi session, made with Pi's own compaction code: where a model
 * with a smaller context window would have compacted, Pi's `prepareCompaction` picks the cut
 * (`findCutPoint` with `keepRecentTokens`) and Pi's `compact` writes the entry, its summary
 * requested from pi-ai's faux provider, whose scripted answer is the structured checkpoint Pi's
 * summarisation prompt asks a model for (samples/README.md says how each sample was made).
 *
 *   npx tsx scripts/compact-session.ts IN.jsonl OUT.jsonl [--window TOKENS] [--keep TOKENS]
 *
 * When Pi compacts: at the end of every run (the last assistant message before the next user
 * message), as `AgentSession._checkCompaction` does, when the context is over `window -
 * reserveTokens` (`shouldCompact`). The context is measured with Pi's own estimate of each message
 * (`estimateTokens`, characters / 4): the recorded usage is the uncompacted run's and would no
 * longer be true after the first compaction. Entry ids are made deterministic (a v1 file gets
 * random ones from Pi's migration), so the output is the same on every run.
 */

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { fauxAssistantMessage, registerFauxProvider } from "@mariozechner/pi-ai";
import {
	buildSessionContext,
	type CompactionEntry,
	compact,
	DEFAULT_COMPACTION_SETTINGS,
	estimateTokens,
	migrateSessionEntries,
	parseSessionEntries,
	type SessionEntry,
	shouldCompact,
} from "@mariozechner/pi-coding-agent";

type Preparation = Parameters<typeof compact>[0];
type AgentMessage = Preparation["messagesToSummarize"][number];

/** Pi 0.73 exports `compact` but not `prepareCompaction`: load it from Pi's module file. */
async function loadPrepareCompaction(): Promise<
	(entries: SessionEntry[], settings: typeof DEFAULT_COMPACTION_SETTINGS) => Preparation | undefined
> {
	const file = path.resolve(
		import.meta.dirname,
		"../node_modules/@mariozechner/pi-coding-agent/dist/core/compaction/compaction.js",
	);
	return (await import(pathToFileURL(file).href)).prepareCompaction;
}

function textOf(message: AgentMessage): string {
	const m = message as { content?: unknown; role: string };
	if (typeof m.content === "string") return m.content;
	if (!Array.isArray(m.content)) return "";
	return m.content
		.filter((p: { type: string }) => p.type === "text")
		.map((p: { text: string }) => p.text)
		.join("\n");
}

function firstLine(text: string, max = 160): string {
	const line = text.trim().split("\n")[0] ?? "";
	return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The tool calls of the summarised span: which files were changed, which commands run. */
function work(messages: readonly AgentMessage[]): { edited: string[]; commands: string[] } {
	const edited = new Set<string>();
	const commands: string[] = [];
	for (const message of messages) {
		if (message.role !== "assistant") continue;
		for (const part of (
			message as { content: { type: string; name?: string; arguments?: Record<string, unknown> }[] }
		).content) {
			if (part.type !== "toolCall") continue;
			const args = part.arguments ?? {};
			if ((part.name === "edit" || part.name === "write") && typeof args.path === "string") edited.add(args.path);
			if (part.name === "bash" && typeof args.command === "string") commands.push(firstLine(args.command, 100));
		}
	}
	return { edited: [...edited], commands };
}

/**
 * What a model writes for Pi's summarisation prompt: the checkpoint's sections, filled from the
 * span the way a summary is — the goals in a line each, a few of the files changed, the last few
 * commands, the newest request as the next step. Most of what was run and printed is not in it,
 * as in a real summary.
 */
function historySummary(messages: readonly AgentMessage[], previous: string | undefined): string {
	const users = messages.filter((m) => m.role === "user").map((m) => firstLine(textOf(m)));
	const { edited, commands } = work(messages);
	const previousGoals = previous?.split("## Constraints")[0]?.replace("## Goal\n", "").trim();
	const goals = [previousGoals, ...users.slice(0, 3).map((u) => `- ${u}`)].filter((g) => g !== undefined && g !== "");
	const done = [
		...edited.slice(-6).map((file) => `- [x] Changed \`${file}\``),
		...commands.slice(-2).map((command) => `- [x] Ran \`${command}\``),
	];
	const next = users.at(-1);
	return [
		"## Goal",
		goals.length > 0 ? goals.join("\n") : "- Continue the work in progress",
		"",
		"## Constraints & Preferences",
		"- (none)",
		"",
		"## Progress",
		"### Done",
		...(done.length > 0 ? done : ["- [x] Explored the code base"]),
		"",
		"### In Progress",
		`- [ ] ${next ?? "Continue the current task"}`,
		"",
		"### Blocked",
		"- (none)",
		"",
		"## Key Decisions",
		"- **Keep the existing structure**: the changes stay local to the files above",
		"",
		"## Next Steps",
		`1. ${next ?? "Continue the current task"}`,
		"",
		"## Critical Context",
		`- ${users.length} user requests and ${commands.length} shell commands in this span`,
	].join("\n");
}

function turnPrefixSummary(messages: readonly AgentMessage[]): string {
	const request = messages.find((m) => m.role === "user");
	const { edited, commands } = work(messages);
	return [
		"## Original Request",
		request === undefined ? "(continued from the previous turn)" : firstLine(textOf(request)),
		"",
		"## Early Progress",
		...(edited.length > 0 ? edited.slice(-4).map((file) => `- Changed \`${file}\``) : ["- Read the relevant files"]),
		...commands.slice(-1).map((command) => `- Ran \`${command}\``),
		"",
		"## Context for Suffix",
		"- The kept messages continue this turn",
	].join("\n");
}

/** A deterministic 8-hex entry id. */
function idFor(seed: string, index: number): string {
	return createHash("sha256").update(`${seed}:${index}`).digest("hex").slice(0, 8);
}

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	const flag = (name: string, fallback: number) => {
		const at = args.indexOf(name);
		return at === -1 ? fallback : Number(args[at + 1]);
	};
	const [input, output] = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));
	if (input === undefined || output === undefined) throw new Error("usage: compact-session IN.jsonl OUT.jsonl");
	const window = flag("--window", 64_000);
	const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: flag("--keep", 20_000) };
	const prepareCompaction = await loadPrepareCompaction();

	const fileEntries = parseSessionEntries(readFileSync(input, "utf8"));
	migrateSessionEntries(fileEntries);
	const header = fileEntries.find((e) => e.type === "session") as unknown as Record<string, unknown>;
	const source = fileEntries.filter((e) => e.type !== "session") as SessionEntry[];
	// Deterministic ids for every entry, the parent chain re-pointed accordingly.
	const renamed = new Map<string, string>();
	for (const [i, e] of source.entries()) renamed.set(e.id, idFor(path.basename(input), i));
	const entries = source.map((e) => ({
		...e,
		id: renamed.get(e.id)!,
		parentId: e.parentId === null ? null : (renamed.get(e.parentId) ?? null),
	})) as SessionEntry[];

	const faux = registerFauxProvider({ provider: "faux", models: [{ id: "summariser", contextWindow: 200_000 }] });
	const model = faux.getModel();
	const out: SessionEntry[] = [];
	let compactions = 0;
	for (let i = 0; i < entries.length; i++) {
		const entry = entries[i]!;
		const previous = out.at(-1);
		const placed =
			previous !== undefined && entry.parentId !== previous.id ? { ...entry, parentId: previous.id } : entry;
		out.push(placed);
		const next = entries[i + 1];
		const runEnds =
			entry.type === "message" &&
			entry.message.role === "assistant" &&
			(next === undefined || (next.type === "message" && next.message.role === "user"));
		if (!runEnds || next === undefined) continue;
		const context = buildSessionContext(out).messages;
		const tokens = context.reduce((sum, m) => sum + estimateTokens(m), 0);
		if (!shouldCompact(tokens, window, settings)) continue;
		const preparation = prepareCompaction(out, settings);
		if (preparation === undefined) continue;
		faux.setResponses([
			fauxAssistantMessage(historySummary(preparation.messagesToSummarize, preparation.previousSummary)),
			fauxAssistantMessage(turnPrefixSummary(preparation.turnPrefixMessages)),
		]);
		const result = await compact(preparation, model, "faux-key");
		const compaction: CompactionEntry = {
			type: "compaction",
			id: idFor(`${path.basename(input)}:compaction`, compactions),
			parentId: placed.id,
			timestamp: placed.timestamp,
			summary: result.summary,
			firstKeptEntryId: result.firstKeptEntryId,
			tokensBefore: result.tokensBefore,
			details: result.details,
		};
		out.push(compaction);
		compactions++;
		console.log(
			`compaction ${compactions} after entry ${i + 1}: ${tokens} tokens > ${window} - ${settings.reserveTokens}; kept from ${result.firstKeptEntryId}${preparation.isSplitTurn ? " (split turn)" : ""}`,
		);
	}
	const lines = [{ ...header, version: 3 }, ...out].map((e) => JSON.stringify(e));
	writeFileSync(output, `${lines.join("\n")}\n`);
	console.log(`wrote ${output}: ${out.length} entries, ${compactions} compactions`);
}

await main();
