// Feature detectors for the recorded Pi session samples (samples/*.jsonl).
// Pure functions over plain JSON.parse output: used by scripts/record-samples.ts to verify what it
// recorded and by test/adapter/lab/samples.test.ts to check the committed files. Deliberately independent of the
// project's own session reader.

export interface SampleFile {
	header: any;
	entries: any[];
}

/** Parses a Pi v3 session JSONL text: line 1 = header, every other line = one entry. Throws on bad lines. */
export function parseSampleJsonl(text: string, name = "sample"): SampleFile {
	const lines = text.split("\n").filter((l) => l.length > 0);
	const parsed = lines.map((line, i) => {
		try {
			return JSON.parse(line);
		} catch (err) {
			throw new Error(`${name}:${i + 1}: invalid JSON (${(err as Error).message})`);
		}
	});
	const [header, ...entries] = parsed;
	if (header?.type !== "session") throw new Error(`${name}: first line is not a session header`);
	return { header, entries };
}

/** `message:<role>` for message entries, else the entry type. */
export function entryKind(e: any): string {
	return e.type === "message" ? `message:${e.message?.role}` : String(e.type);
}

export function countKinds(entries: any[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const e of entries) counts[entryKind(e)] = (counts[entryKind(e)] ?? 0) + 1;
	return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

const messages = (entries: any[], role: string) =>
	entries.filter((e) => e.type === "message" && e.message?.role === role).map((e) => e.message);

const toolCalls = (entries: any[]) =>
	messages(entries, "assistant").flatMap((m) => (m.content ?? []).filter((b: any) => b.type === "toolCall"));

const toolResults = (entries: any[], toolName: string) =>
	messages(entries, "toolResult").filter((m) => m.toolName === toolName);

/** The tool result answering a given tool call id. */
const resultFor = (entries: any[], callId: string) =>
	messages(entries, "toolResult").find((m) => m.toolCallId === callId);

const userText = (m: any): string =>
	typeof m.content === "string"
		? m.content
		: (m.content ?? [])
				.filter((b: any) => b.type === "text")
				.map((b: any) => b.text)
				.join("");

const ok = (m: any) => m && m.isError === false;
const completedAdvisor = (m: any) =>
	m.details?.errorMessage === undefined && m.details?.skipped !== true && typeof m.details?.severity === "string";
const firstMessageIndex = (entries: any[]) => entries.findIndex((e) => e.type === "message");
const afterFirstMessage = (entries: any[], type: string) => {
	const first = firstMessageIndex(entries);
	return first >= 0 && entries.some((e, i) => i > first && e.type === type);
};

/**
 * Every feature a sample can exhibit. Keys are stable: they are listed in samples/README.md,
 * in the scenario definitions and in test/adapter/lab/samples.test.ts.
 */
export const FEATURES = {
	/** read tool succeeded on a text file */
	read: (es) => toolResults(es, "read").some((m) => ok(m) && !m.content.some((c: any) => c.type === "image")),
	/** bash tool call that failed (non-zero exit -> isError) */
	"bash-fail": (es) => toolResults(es, "bash").some((m) => m.isError === true),
	/** bash tool call that succeeded */
	"bash-pass": (es) => toolResults(es, "bash").some(ok),
	/** edit in the legacy single form: top-level oldText/newText in the stored tool call */
	"edit-single": (es) =>
		toolCalls(es).some(
			(c) => c.name === "edit" && typeof c.arguments?.oldText === "string" && ok(resultFor(es, c.id)),
		),
	/** edit in the edits[] form with at least two replacements */
	"edit-multi": (es) =>
		toolCalls(es).some(
			(c) =>
				c.name === "edit" &&
				Array.isArray(c.arguments?.edits) &&
				c.arguments.edits.length >= 2 &&
				ok(resultFor(es, c.id)),
		),
	/** a tool call rejected by the tool itself (not bash), e.g. edit whose oldText is not in the file */
	"tool-error": (es) => messages(es, "toolResult").some((m) => m.isError === true && m.toolName !== "bash"),
	write: (es) => toolResults(es, "write").some(ok),
	grep: (es) => toolResults(es, "grep").some(ok),
	find: (es) => toolResults(es, "find").some(ok),
	ls: (es) => toolResults(es, "ls").some(ok),
	/** one assistant message carrying several tool calls */
	"parallel-calls": (es) =>
		messages(es, "assistant").some((m) => (m.content ?? []).filter((b: any) => b.type === "toolCall").length >= 2),
	/** a tool result carrying an image block ({type:"image", data, mimeType}) */
	"image-result": (es) =>
		messages(es, "toolResult").some((m) =>
			(m.content ?? []).some((c: any) => c.type === "image" && typeof c.data === "string" && c.mimeType),
		),
	/** assistant thinking blocks */
	thinking: (es) => messages(es, "assistant").some((m) => (m.content ?? []).some((b: any) => b.type === "thinking")),
	/** compaction entry whose firstKeptEntryId points at an entry of the file */
	compaction: (es) =>
		es.some(
			(e) => e.type === "compaction" && typeof e.summary === "string" && es.some((x) => x.id === e.firstKeptEntryId),
		),
	/** two compactions on one branch (the second carries the first as previous summary) */
	"compaction-twice": (es) => es.filter((e) => e.type === "compaction").length >= 2,
	/** a compaction whose first kept entry is not a user message (Pi cut inside a turn) */
	"compaction-split-turn": (es) =>
		es.some((e) => {
			if (e.type !== "compaction") return false;
			const kept = es.find((x) => x.id === e.firstKeptEntryId);
			return kept && !(kept.type === "message" && kept.message.role === "user");
		}),
	/** branch_summary entry whose fromId points at an entry of the file, and a real fork in the tree */
	"branch-summary": (es) =>
		es.some(
			(e) => e.type === "branch_summary" && typeof e.summary === "string" && es.some((x) => x.id === e.fromId),
		) && hasFork(es),
	/** custom_message with display:false (hidden from the user, still in the executor's context) */
	"custom-hidden": (es) => es.some((e) => e.type === "custom_message" && e.display === false),
	/** custom_message with display:true */
	"custom-visible": (es) => es.some((e) => e.type === "custom_message" && e.display === true),
	/** extension state entry (pi.appendEntry) */
	"custom-entry": (es) => es.some((e) => e.type === "custom"),
	/** `!cmd` user shell run */
	"user-bash": (es) => messages(es, "bashExecution").some((m) => !m.excludeFromContext),
	/** `!!cmd` user shell run (excluded from the executor's context) */
	"user-bash-excluded": (es) => messages(es, "bashExecution").some((m) => m.excludeFromContext === true),
	/** a user message longer than 20 000 characters */
	"long-user": (es) => messages(es, "user").some((m) => userText(m).length > 20_000),
	/** a user message that tries to close/forge the ledger framing */
	"hostile-user": (es) => messages(es, "user").some((m) => userText(m).includes("</executor_log>")),
	/** a user message with non-ASCII text (emoji, RTL, CJK, combining marks) */
	"unicode-user": (es) => messages(es, "user").some((m) => /[^\u0000-\u007f]/.test(userText(m))),
	/** a tool result whose text tries to close the ledger framing */
	"hostile-tool-output": (es) =>
		messages(es, "toolResult").some((m) =>
			(m.content ?? []).some((c: any) => c.type === "text" && c.text.includes("</executor_log>")),
		),
	/** model_change after the conversation started */
	"model-change": (es) => afterFirstMessage(es, "model_change"),
	/** thinking_level_change after the conversation started */
	"thinking-change": (es) => afterFirstMessage(es, "thinking_level_change"),
	label: (es) => es.some((e) => e.type === "label"),
	"session-name": (es) => es.some((e) => e.type === "session_info" && typeof e.name === "string"),
	/** advisor() tool calls answered by the real extension (src/adapter/extension/pi-advisor-ledger.ts) */
	advisor: (es) => toolResults(es, "advisor").length > 0,
	/** a completed consultation: advice with a severity, no error, not skipped */
	"advisor-ok": (es) => toolResults(es, "advisor").some((m) => ok(m) && completedAdvisor(m)),
	/** a consultation the provider failed (details.stopReason "error" with an errorMessage) */
	"advisor-failed": (es) =>
		toolResults(es, "advisor").some(
			(m) => m.details?.stopReason === "error" && typeof m.details?.errorMessage === "string",
		),
	/** a consultation skipped before any request (details.skipped) */
	"advisor-skipped": (es) => toolResults(es, "advisor").some((m) => m.details?.skipped === true),
	/**
	 * a delivered completion review: an `advisor-review` custom_message naming an assistant answer of the
	 * file, preceded by the `advisor-usage` record (kind "review") naming the same answer
	 */
	"advisor-review": (es) =>
		es.some((e, i) => {
			if (e.type !== "custom_message" || e.customType !== "advisor-review") return false;
			const answer = e.details?.answerEntryId;
			const named = es.some((x) => x.id === answer && x.type === "message" && x.message?.role === "assistant");
			const recorded = es
				.slice(0, i)
				.some(
					(x) =>
						x.type === "custom" &&
						x.customType === "advisor-usage" &&
						x.data?.kind === "review" &&
						x.data?.answerEntryId === answer,
				);
			return named && recorded && typeof e.details?.advice === "string";
		}),
	/**
	 * a long working session: at least 300 entries and 150 tool results, at least 20 of them of 4 KB or
	 * more (what makes the raw context grow the way it does in real use)
	 */
	"long-session": (es) => {
		const results = messages(es, "toolResult");
		const large = results.filter(
			(m) => (m.content ?? []).reduce((n: number, c: any) => n + (c.type === "text" ? c.text.length : 0), 0) >= 4096,
		);
		return es.length >= 300 && results.length >= 150 && large.length >= 20;
	},
	/** at least three completed consultations: later requests carry the earlier advice */
	"advisor-many": (es) => toolResults(es, "advisor").filter((m) => ok(m) && completedAdvisor(m)).length >= 3,
	/** a completed consultation in which the advisor ran its investigation tools (details.toolCalls) */
	"advisor-tools": (es) =>
		toolResults(es, "advisor").some((m) => completedAdvisor(m) && (m.details?.toolCalls?.count ?? 0) > 0),
} satisfies Record<string, (entries: any[]) => boolean>;

export type FeatureName = keyof typeof FEATURES;

export function hasFork(entries: any[]): boolean {
	const children = new Map<string | null, number>();
	for (const e of entries) children.set(e.parentId, (children.get(e.parentId) ?? 0) + 1);
	return [...children.values()].some((n) => n >= 2);
}

/** Structural problems of a parsed sample (empty array = fine). */
export function structuralProblems(file: SampleFile): string[] {
	const problems: string[] = [];
	const { header, entries } = file;
	if (header.version !== 3) problems.push(`header version ${header.version} != 3`);
	if (typeof header.id !== "string" || typeof header.cwd !== "string") problems.push("header lacks id/cwd");
	const ids = new Set<string>();
	entries.forEach((e, i) => {
		if (typeof e.id !== "string" || !/^[0-9a-f]{8}$/.test(e.id)) problems.push(`entry ${i}: bad id ${e.id}`);
		if (ids.has(e.id)) problems.push(`entry ${i}: duplicate id ${e.id}`);
		if (e.parentId !== null && !ids.has(e.parentId)) problems.push(`entry ${i}: parent ${e.parentId} not earlier`);
		if (typeof e.timestamp !== "string") problems.push(`entry ${i}: no timestamp`);
		ids.add(e.id);
	});
	const callIds = new Set(toolCalls(entries).map((c) => c.id));
	for (const r of messages(entries, "toolResult")) {
		if (!callIds.has(r.toolCallId)) problems.push(`toolResult ${r.toolCallId} has no matching toolCall`);
	}
	return problems;
}

export function missingFeatures(entries: any[], wanted: readonly FeatureName[]): FeatureName[] {
	return wanted.filter((f) => !FEATURES[f](entries));
}

export function presentFeatures(entries: any[]): FeatureName[] {
	return (Object.keys(FEATURES) as FeatureName[]).filter((f) => FEATURES[f](entries));
}
