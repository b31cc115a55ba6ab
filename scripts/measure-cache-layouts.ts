/**
 * Measures the two ways to keep Anthropic's 20-block lookback from losing the previous
 * consultation's cache entry (docs/decisions.md, "Bridges, not merged blocks"): bridge marks on the
 * request as it is (one content part per block), or fewer, larger content parts — every block of a
 * segment merged into one part — without bridges, or with them.
 *
 * For each input the replay's consultation points are rendered as the replay renders them, and each
 * consecutive pair is cached under the breakpoint rule (policy/budget/cache-reuse.ts); the merged layout is
 * the same requests with each segment's blocks joined into one unit (same bytes, fewer block
 * boundaries). Prints the ledger's effective prompt tokens (uncached + written + 0.1 × read, a
 * prefix under 1,024 tokens neither read nor written), summed over the points:
 *
 *   npx tsx scripts/measure-cache-layouts.ts [--every N]
 */

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generateSession } from "../bench/generate.ts";
import { cachedPrefix, effectiveTokens, splitPrompt } from "../src/adapter/extension/baseline/cache-split.ts";
import { pointsOfScan, scanPoints } from "../src/adapter/lab/replay/points.ts";
import { calledToolNames, sessionTools } from "../src/adapter/lab/replay/tool-set.ts";
import { migrateEntries, normalizeBranch, parseSessionText, selectBranch } from "../src/events/index.ts";
import { DEFAULT_MIN_CACHED_TOKENS } from "../src/policy/budget/cache-minimum.ts";
import { breakpointChars, tokenPrefixChars, totalChars } from "../src/policy/budget/cache-reuse.ts";
import { emptyLedger, foldLedger } from "../src/reducers/index.ts";
import {
	buildContext,
	createRenderMemo,
	DEFAULT_LEDGER_CONFIG,
	type LedgerRequest,
	renderRequest,
	requestFromContext,
	unitAt,
} from "../src/render/index.ts";
import type { RequestUnit } from "../src/render/request-units.ts";

const root = new URL("..", import.meta.url).pathname;
const every = Number(process.argv[process.argv.indexOf("--every") + 1]) || 10;

/** The requests of the replay's points, folded and rendered incrementally. */
function pointRequests(text: string): LedgerRequest[] {
	const parsed = parseSessionText(text);
	const entries = migrateEntries(parsed);
	const events = normalizeBranch(selectBranch(entries, undefined).path, entries);
	const cwd = parsed.header?.cwd;
	const tools = sessionTools(cwd ?? root, calledToolNames(entries));
	const memo = createRenderMemo();
	let state = emptyLedger(cwd);
	let folded = 0;
	const out: LedgerRequest[] = [];
	for (const point of pointsOfScan(scanPoints(events), every)) {
		state = foldLedger(state, events.slice(folded, point.upTo));
		folded = point.upTo;
		const options = {
			config: DEFAULT_LEDGER_CONFIG,
			catalogue: tools.catalogue,
			tools: tools.declarations,
			toolsMode: "repo" as const,
			mode: "consult" as const,
			inFlightCallId: point.callId,
		};
		out.push(renderRequest(state, options, memo));
	}
	return out;
}

/**
 * The same request with every segment's blocks in one part: the log messages (all user messages
 * but the catalogue) keep their opening part and their closing parts, and what lies between — the
 * blocks — becomes one unit. Same bytes; the prefix hashes are recomputed over the new units.
 */
function merged(request: LedgerRequest): LedgerRequest {
	const texts: string[] = [unitAt(request, 0)!.text, unitAt(request, 1)!.text];
	let unit = 2;
	let stableUnits = 0;
	const context = buildContext(request);
	const last = context.messages.length - 1;
	context.messages.forEach((message, m) => {
		const n = typeof message.content === "string" ? 1 : message.content.length;
		const parts = Array.from({ length: n }, (_, p) => unitAt(request, unit + p)!.text);
		unit += n;
		const log = message.role === "user" && m > 0;
		// Blocks: after the opening part, up to the stable end (open segment) or the closing part.
		const end = m === last ? request.stable.partCount : n - 1;
		const before = texts.length;
		if (!log || end <= 1) texts.push(...parts);
		else texts.push(parts[0]!, parts.slice(1, end).join(""), ...parts.slice(end));
		if (m === last) stableUnits = before + (log && end > 1 ? 2 : request.stable.partCount);
	});
	const units: RequestUnit[] = [];
	let hash = "";
	let chars = 0;
	for (const text of texts) {
		hash = createHash("sha256").update(hash).update(text).digest("hex");
		chars += text.length;
		units.push({ prefixHash: hash, prefixChars: chars, text });
	}
	const stable = { ...request.stable, unitCount: stableUnits, hash: units[stableUnits - 1]!.prefixHash };
	return requestFromContext(context, units, stable, { hash, tokens: request.tokens });
}

type Layout = "tokenPrefix" | "bridges" | "noBridges" | "merged" | "mergedBridges";
const LAYOUTS: readonly Layout[] = ["tokenPrefix", "bridges", "noBridges", "merged", "mergedBridges"];

function shareOf(layout: Layout, p: LedgerRequest, n: LedgerRequest, mp: LedgerRequest, mn: LedgerRequest): number {
	switch (layout) {
		case "tokenPrefix":
			return tokenPrefixChars(p, n) / totalChars(p);
		case "bridges":
			return breakpointChars(p, n, true) / totalChars(p);
		case "noBridges":
			return breakpointChars(p, n, false) / totalChars(p);
		case "merged":
			return breakpointChars(mp, mn, false) / totalChars(mp);
		case "mergedBridges":
			return breakpointChars(mp, mn, true) / totalChars(mp);
	}
}

function measure(requests: readonly LedgerRequest[]): Record<Layout, number> {
	const out = { tokenPrefix: 0, bridges: 0, noBridges: 0, merged: 0, mergedBridges: 0 };
	const mergedRequests = requests.map(merged);
	requests.forEach((n, i) => {
		const p = requests[i - 1];
		for (const layout of LAYOUTS) {
			const share = p === undefined ? undefined : shareOf(layout, p, n, mergedRequests[i - 1]!, mergedRequests[i]!);
			const cached = cachedPrefix(p?.tokens, share, n.tokens);
			out[layout] += effectiveTokens(
				splitPrompt(
					layout === "tokenPrefix" ? "token-prefix" : "breakpoint",
					n.tokens,
					cached,
					DEFAULT_MIN_CACHED_TOKENS,
				),
			);
		}
	});
	return out;
}

/** The generated session with every other completed consultation turned into a failed one (no segment closes). */
function withFailures(jsonl: string): string {
	let k = 0;
	return jsonl
		.trimEnd()
		.split("\n")
		.map((line) => {
			const entry = JSON.parse(line);
			if (entry.type !== "message" || entry.message.toolName !== "advisor" || k++ % 2 === 0) return line;
			entry.message.content = [{ type: "text", text: "Advisor call failed: overloaded" }];
			entry.message.details = { errorMessage: "overloaded", stopReason: "error" };
			return JSON.stringify(entry);
		})
		.join("\n");
}

const generated = generateSession(10_000).jsonl;
const inputs: [string, () => string][] = [
	...["samples/branching.jsonl", "samples/compaction.jsonl", "samples/tools.jsonl"].map(
		(f): [string, () => string] => [f, () => readFileSync(join(root, f), "utf8")],
	),
	...["gjc-inline-agent-design.jsonl", "pi-mono-large-session.jsonl", "taskq.jsonl"].map(
		(f): [string, () => string] => [`samples/long/${f}`, () => readFileSync(join(root, "samples/long", f), "utf8")],
	),
	["generated:10000", () => generated],
	["generated:10000, every other consultation failed", () => withFailures(generated)],
];

const fmt = (n: number) => Math.round(n).toLocaleString("en-US").padStart(11);
console.log(
	`effective prompt tokens of the ledger (uncached + written + 0.1 × read), simulated points every ${every} tool rounds`,
);
console.log(
	`${"input".padEnd(50)} points ${["token prefix", "bridges", "no bridges", "merged", "merged+bridges"].map((h) => h.padStart(11)).join(" ")}`,
);
for (const [name, text] of inputs) {
	const requests = pointRequests(text());
	const m = measure(requests);
	console.log(`${name.padEnd(50)} ${String(requests.length).padStart(6)} ${LAYOUTS.map((l) => fmt(m[l])).join(" ")}`);
}
