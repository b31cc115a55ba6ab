/**
 * `render`'s text output (docs/cli.md, "render"): the request as the advisor gets it, part by part,
 * with what is stable and what is not, the cache marks, and what the request carries of the
 * branch's facts. Written a line at a time, so a long request is never held as one text beside itself.
 */

import { LOOKBACK_BLOCKS } from "../../../policy/index.ts";
import { buildContext } from "../../../render/index.ts";
import { visible, visibleLine } from "../cli/escape.ts";
import { formatTokens, type Style } from "../report/text-report.ts";
import { isAppendix, type Rendered, type RenderSummary } from "./render-at.ts";

/** The text output's line on entry names. */
const ENTRY_NAMING =
	"The request names entries #N: their position on the branch in base 36 (#1 … #9, #a … #z, #10 …); --at takes that or the entry id.";

/** What the request carries of the branch's facts, of what the executor lost, and what the log leaves out. */
function factLines(summary: RenderSummary): string[] {
	const lines: string[] = [];
	const { facts } = summary;
	if (facts === null) lines.push("The fact audit was not run (--facts runs it).");
	else {
		lines.push(`Facts the request carries (the fact audit): ${facts.carried} of ${facts.total}.`);
		const lost = summary.lostFacts;
		lines.push(
			lost === null
				? "No compaction on this branch: the executor still has every entry."
				: `The executor's horizon is ${lost.horizon} (Pi compacted its context): of the ${lost.total} facts it lost there, the request carries ${lost.carried}.`,
		);
	}
	if (summary.leftOut > 0)
		lines.push(`The log's ${summary.leftOut} oldest entries are left out behind a stand-in that keeps their facts.`);
	return lines;
}

/** How many credentials the request carries as marks instead (docs/privacy.md). */
function redactionsSaid(count: number): string {
	return `${count} credential${count === 1 ? "" : "s"} redacted`;
}

export function renderReadable(rendered: Rendered, style: Style): string {
	const out: string[] = [];
	readableLines(rendered, style, (line) => out.push(line));
	return out.join("\n");
}

/**
 * `renderReadable`, a line at a time: `render` writes them as they come, so a long request is never
 * held as one text beside itself.
 */
function readableLines(rendered: Rendered, style: Style, line: (text: string) => void): void {
	const { request, summary, marks } = rendered;
	const { stable } = request;
	const context = buildContext(request);
	const out = { push: line };
	const rule = (title: string) => style.bold(`═══ ${title} ═══`);
	out.push(
		style.bold(
			`Advisor request for ${visibleLine(summary.file)}, dispatched after entry ${visibleLine(summary.atEntryId)} (${summary.atOrdinal})`,
		),
	);
	out.push(style.dim(ENTRY_NAMING));
	out.push(
		summary.inFlightCallId === null
			? "No advisor call in flight at this entry: the request carries the default question."
			: `In-flight advisor call: ${visibleLine(summary.inFlightCallId)}`,
	);
	out.push(
		`~${formatTokens(request.tokens)} tokens (estimate) · ${request.messageCount} messages · ${redactionsSaid(summary.redactions)} · hash ${request.hash} · stable portion ~${formatTokens(stable.tokens)} tokens, hash ${stable.hash}`,
	);
	for (const said of factLines(summary)) out.push(said);
	out.push(
		marks.bridge === null
			? "Cache marks of the extension (Anthropic-style routes): the stable end."
			: `Cache marks of the extension (Anthropic-style routes): the stable end, and a bridge at part ${marks.bridge.partCount} of message ${marks.bridge.messageIndex + 1}, where the consultation after entry ${visibleLine(marks.bridge.previousAtEntryId)} ended its stable portion (more than ${LOOKBACK_BLOCKS} blocks back).`,
	);
	out.push("");
	const system = context.systemPrompt ?? "";
	out.push(rule(`system prompt (${system.length} chars) · stable`));
	out.push(visible(system));
	out.push("");
	const tools = context.tools ?? [];
	out.push(rule(`tools (${tools.length}) · stable`));
	for (const tool of tools) {
		out.push(`${style.bold(tool.name)} — ${visible(tool.description)}`);
		out.push(style.dim(`  parameters: ${JSON.stringify(tool.parameters)}`));
	}
	out.push("");
	context.messages.forEach((message, m) => {
		const parts =
			typeof message.content === "string"
				? [{ type: "text" as const, text: message.content }]
				: (message.content as readonly { type: string; text?: string }[]);
		out.push(
			rule(
				`message ${m + 1}/${context.messages.length} · ${message.role} · ${parts.length} part${parts.length === 1 ? "" : "s"}`,
			),
		);
		parts.forEach((part, p) => {
			const isStable = m < stable.messageIndex || (m === stable.messageIndex && p < stable.partCount);
			if (m === stable.messageIndex && p === stable.partCount && isAppendix(part))
				out.push(style.bold("▼ the appendix starts here: the cached prefix ends above"));
			out.push(style.dim(`── part ${p + 1} · ${part.type} · ${isStable ? "stable" : "volatile"} ──`));
			out.push(visible(part.type === "text" ? (part.text ?? "") : JSON.stringify(part)));
			if (marks.bridge !== null && m === marks.bridge.messageIndex && p === marks.bridge.partCount - 1)
				out.push(style.bold("▲ cache mark (bridge): the previous consultation's cached prefix ends here"));
		});
		out.push("");
	});
}

/** Lines written in pieces of about this many characters. */
const WRITE_CHARS = 1 << 16;

export function writeReadable(rendered: Rendered, style: Style, write: (text: string) => void): void {
	let pending: string[] = [];
	let size = 0;
	readableLines(rendered, style, (text) => {
		pending.push(text);
		size += text.length + 1;
		if (size < WRITE_CHARS) return;
		write(`${pending.join("\n")}\n`);
		pending = [];
		size = 0;
	});
	if (pending.length > 0) write(`${pending.join("\n")}\n`);
}
