/**
 * The stats as plain lines: what `/advisor stats` prints without a UI (`pi -p`), shows in its TUI
 * panel, and `advisor-ledger stats` prints per file. User-facing, never model-facing.
 */

import { formatUsd } from "../../../policy/index.ts";
import { costLine, formatCacheReadShare } from "../pi/notices.ts";
import type { ScopeStats, SessionStats } from "./session-stats.ts";
import { UNUSABLE_STREAK, type Unusable, type WatchStats } from "./watch-stats.ts";

const count = (n: number) => Math.round(n).toLocaleString("en-US");
const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

function consultationsLine(s: ScopeStats): string {
	const c = s.consultations;
	const outcomes = [
		c.ok > 0 ? `${count(c.ok)} with advice` : "",
		c.failed > 0 ? `${count(c.failed)} failed` : "",
		c.skipped > 0 ? `${count(c.skipped)} skipped` : "",
	].filter((part) => part !== "");
	const first = `${plural(c.total, "consultation")}${c.total > 0 && outcomes.length > 1 ? ` (${outcomes.join(", ")})` : ""}`;
	return `${first}, ${plural(s.reviews, "review")}, ${plural(s.warming, "warming refresh", "warming refreshes")}`;
}

function fullContextLine(s: ScopeStats): string | undefined {
	const f = s.fullContext;
	if (f.points === 0) return undefined;
	if (f.priced === 0)
		return `full context: no prices for the advisor model of the ${plural(f.points, "consultation")}`;
	const unpriced = f.priced < f.points ? ` (${count(f.points - f.priced)} without prices left out)` : "";
	return (
		`full context: the first requests at the same ${plural(f.priced, "consultation")} would have cost ` +
		`${formatUsd(f.baselineUsd)} (${count(f.baselineTokens)} prompt tokens); the ledger's were billed ` +
		`${formatUsd(f.ledgerUsd)} (${count(f.ledgerTokens)})${unpriced}`
	);
}

/** `failure-streak 2, long-run 1`: the counts that are not zero, in their order. */
function counted(counts: Readonly<Record<string, number>>, names: Readonly<Record<string, string>> = {}): string {
	return Object.entries(counts)
		.filter(([, n]) => n > 0)
		.map(([key, n]) => `${names[key] ?? key} ${count(n)}`)
		.join(", ");
}

/** What the watch cost as a share of the executor's spend, as the user reads it: `4%`. */
const formatSpendShare = (share: number) => `${Math.round(100 * share)}%`;

/** The watch's lines (docs/configuration.md#the-watch); none when it never woke. */
function watchLines(w: WatchStats): string[] {
	const skipped = counted(w.skipped);
	if (w.reviews === 0 && skipped === "") return [];
	const signals = counted(w.bySignal);
	const share =
		w.executorUsd > 0
			? `, ${formatSpendShare(w.usd / w.executorUsd)} of the executor's ${formatUsd(w.executorUsd)}`
			: " (the executor's turns recorded no cost)";
	const lines = [
		`  watch: ${plural(w.reviews, "review")}${signals === "" ? "" : ` (${signals})`}, ${formatUsd(w.usd)}${share}`,
	];
	const severities = counted(w.bySeverity);
	if (severities !== "") lines.push(`    answers: ${severities} — ${counted(w.byDelivery)}`);
	const unanswered = counted(
		{ failed: w.failed, timeout: w.timeout, cancelled: w.cancelled },
		{ timeout: "timed out" },
	);
	if (unanswered !== "") lines.push(`    no answer: ${unanswered}`);
	if (skipped !== "") lines.push(`    skipped: ${skipped}`);
	return lines;
}

/** Said when the newest background reviews answered nothing usable, several in a row; never a word of health. */
function unusableLine(u: Unusable | null): string[] {
	if (u === null || u.count < UNUSABLE_STREAK) return [];
	const why = counted({ failed: u.failed, timeout: u.timeout, empty: u.empty }, { timeout: "timed out" });
	return [
		`  the advisor answered nothing usable in its last ${count(u.count)} background reviews (${why}): check its model, its key and budget.timeoutSec`,
	];
}

export function scopeLines(title: string, s: ScopeStats): string[] {
	const lines = [title, `  ${consultationsLine(s)}`];
	const background = [...watchLines(s.watch), ...unusableLine(s.unusable)];
	if (s.requests === 0 && s.usd === 0) return [...lines, "  nothing billed", ...background];
	const t = s.tokens;
	lines.push(
		`  ${plural(s.requests, "request")}: ${count(t.fresh)} fresh + ${count(t.cacheRead)} cache read + ${count(t.cacheWrite)} cache write prompt tokens, ${count(t.output)} output`,
		`  ${formatUsd(s.usd)}${s.cacheShare === null ? "" : `, ${formatCacheReadShare(s.cacheShare)} of prompt tokens from cache`}`,
	);
	const full = fullContextLine(s);
	if (full !== undefined) lines.push(`  ${full}`);
	lines.push(...background);
	if (s.biggest.length > 0) {
		lines.push("  costliest:");
		for (const b of s.biggest) {
			const where = b.ordinal ?? `entry ${b.entryId} (another branch)`;
			lines.push(
				`    ${costLine(b.usd, b.requests, b.cacheShare)} — ${b.kind === "watch" ? "watch review" : b.kind} at ${where}`,
			);
		}
	}
	return lines;
}

export function statsLines(stats: SessionStats): string[] {
	const lines = scopeLines("Advisor on this branch", stats.branch);
	if (stats.session === null) lines.push("The whole session is this branch.");
	else lines.push(...scopeLines("Advisor in the whole session (every branch)", stats.session));
	return lines;
}
