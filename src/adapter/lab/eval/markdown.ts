/**
 * One point of an eval as Markdown, for a person to read (docs/eval.md): where the point is, the
 * user's request and the question, a table with the arms side by side, each answer whole, and
 * what the judge said with the labels it saw.
 */

import { promptTokensOf } from "../../../reducers/index.ts";
import { formatTokens } from "../report/text-report.ts";
import { ARMS, type ArmName } from "./arms.ts";
import type { ArmOutcome, JudgeOutcome, PointRecord } from "./record.ts";

/** `> ` before every line: the text is shown, never read as Markdown structure. */
function quoted(text: string): string {
	const body = text.trim().length > 0 ? text.trim() : "(none)";
	return body
		.split("\n")
		.map((line) => `> ${line}`)
		.join("\n");
}

/** The text inside a fence longer than any backtick run in it. */
function fenced(text: string): string {
	const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
	const fence = "`".repeat(longest + 1);
	return `${fence}text\n${text}\n${fence}`;
}

export function usd(amount: number): string {
	return `$${amount.toFixed(amount < 1 ? 4 : 2)}`;
}

function cell(text: string): string {
	return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function table(arms: [ArmName, ArmOutcome][]): string[] {
	const row = (label: string, value: (o: ArmOutcome) => string) =>
		`| ${label} | ${arms.map(([, o]) => cell(value(o))).join(" | ")} |`;
	return [
		`| | ${arms.map(([arm]) => arm).join(" | ")} |`,
		`|---|${arms.map(() => "---").join("|")}|`,
		row("outcome", (o) => (o.status === "answered" ? "answered" : `failed: ${o.error ?? ""}`)),
		row("severity", (o) => o.severity ?? "—"),
		row("prompt tokens, estimated", (o) => formatTokens(o.estimatedTokens)),
		row("prompt tokens, billed", (o) => formatTokens(promptTokensOf(o.billed))),
		row("output tokens", (o) => formatTokens(o.billed.output)),
		row("requests", (o) => String(o.billed.requests)),
		row("advisor_expand calls", (o) => (o.toolCalls === undefined ? "—" : String(o.toolCalls))),
		row("cost", (o) => usd(o.billed.usd)),
	];
}

function judgeLines(judge: JudgeOutcome, judgeKey: string): string[] {
	const out = [`## The judge (${judgeKey})`, ""];
	out.push(`Labels it saw: ${judge.order.map((arm, i) => `${"ABC"[i]} = ${arm}`).join(", ")}.`, "");
	if (judge.verdict === undefined) {
		out.push(`**Unjudged**: ${judge.error ?? judge.problems.join("; then ")}`, "");
		for (const reply of judge.replies) out.push(fenced(reply), "");
		return out;
	}
	const v = judge.verdict;
	out.push(
		`- severities as the judge read them: ${Object.entries(v.severities)
			.map(([a, s]) => `${a} ${s}`)
			.join(", ")}`,
	);
	for (const pair of v.sameVerdict)
		out.push(`- ${pair.arms.join(" and ")}: ${pair.agree ? "same verdict" : "different verdicts"}`);
	out.push(`- more useful: ${v.moreUseful}`, "");
	if (v.points.length === 0) out.push("No material point one answer makes that another lacks.");
	else {
		out.push("Material points one answer makes that another lacks:", "");
		for (const p of v.points) out.push(`- **${p.arm}** (lacking in ${p.lackedBy.join(", ")}): ${p.point}`);
	}
	if (judge.problems.length > 0) out.push("", `(First reply refused: ${judge.problems.join("; ")}.)`);
	out.push("");
	return out;
}

export function pointMarkdown(record: PointRecord, advisorKey: string, judgeKey: string): string {
	const where =
		record.kind === "advisor"
			? `the advisor call ${record.callId ?? ""} after entry ${record.atEntryId}`
			: `a simulated consultation after entry ${record.atEntryId}`;
	const arms = ARMS.flatMap((arm): [ArmName, ArmOutcome][] => {
		const outcome = record.arms[arm];
		return outcome === undefined ? [] : [[arm, outcome]];
	});
	const out = [
		`# Point ${record.index}: ${record.file}`,
		"",
		`At ${where}. Advisor: ${advisorKey}. Status: ${record.status}.`,
		"",
		"## The user's newest request",
		"",
		quoted(record.userRequest),
		"",
		"## The executor's question",
		"",
		quoted(record.question.trim().length > 0 ? record.question : "(no question written: the default question)"),
		"",
	];
	if (arms.length > 0) out.push("## The answers side by side", "", ...table(arms), "");
	for (const [arm, outcome] of arms) out.push(`### ${arm}`, "", fenced(outcome.text), "");
	if (record.judge !== undefined) out.push(...judgeLines(record.judge, judgeKey));
	if (record.abandoned !== undefined) {
		out.push(
			`Paid for work --max-usd cut off: ${usd(record.abandoned.usd)} (${record.abandoned.requests} requests).`,
			"",
		);
	}
	return `${out.join("\n")}\n`;
}
