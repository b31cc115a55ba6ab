/**
 * A deterministic long session for the benchmark, built with the tests' own session builder
 * (test/support/session-gen.ts): users, tool turns with parallel calls and sizeable results,
 * reasoning, visible and hidden extension messages, `!` runs and a completed consultation every
 * ~40 steps. A fixed-seed LCG picks everything, so every run benchmarks the same bytes.
 */

import { DEFAULT_COMPACTION_SETTINGS, findCutPoint, type SessionEntry } from "@mariozechner/pi-coding-agent";
import { buildSession, type CallPlan, filler, type Step, type ToolKind } from "../test/support/session-gen.ts";

function lcg(seed: number): () => number {
	let state = seed % 2147483647;
	if (state <= 0) state += 2147483646;
	return () => {
		state = (state * 48271) % 2147483647;
		return (state - 1) / 2147483646;
	};
}

const TOOLS: readonly ToolKind[] = [
	"read",
	"read",
	"read",
	"bash",
	"bash",
	"edit",
	"edit",
	"grep",
	"find",
	"ls",
	"write",
];

/**
 * The long compacted session of the bench, the replay tests and the goldens: 30,000 entries, Pi
 * compacting every 3,000, texts at a tenth of their usual length (so a compaction comes where a
 * context window of a real model would fill, about every 115k tokens).
 */
export const COMPACTED = Object.freeze({ entries: 30_000, compactEvery: 3_000, textScale: 0.1 });

export function generateCompacted(): GeneratedSession {
	return generateSession(COMPACTED.entries, 20260101, {
		compactEvery: COMPACTED.compactEvery,
		textScale: COMPACTED.textScale,
	});
}

/** How many distinct call arguments (paths, commands) a compacted session's calls draw from. */
const ARGUMENT_POOL = 150;

export interface GeneratedSession {
	jsonl: string;
	entries: number;
}

/** How a generated session differs from the default one (the 10k bench row and the goldens use the default). */
export interface GenerateOptions {
	/** A completed consultation every ~40 steps (default true); without them a replay simulates its points. */
	consultations?: boolean;
	/** Every text's length times this (default 1): a small one makes a long session of small entries. */
	textScale?: number;
	/**
	 * A compaction every this many entries (default none), cut where Pi's own `findCutPoint` cuts with
	 * its default `keepRecentTokens`: the executor forgets, the ledger must not. Such a session's call
	 * arguments come from a pool of ARGUMENT_POOL, as a project's files and commands do.
	 */
	compactEvery?: number;
	/**
	 * A user message every this many steps (default 25): 6 is a user message and five rounds, the
	 * shape of a chatty session (the memory bench's second chain, bench/memory.ts).
	 */
	userEvery?: number;
	/**
	 * Every tool round one `read` of a file no round read before (default false): the branch's
	 * distinct paths grow with it, the fact audit's hardest shape (the memory bench's new-file chain,
	 * bench/memory.ts).
	 */
	newFiles?: boolean;
}

export function generateSession(
	targetEntries: number,
	seed = 20260101,
	options: GenerateOptions = {},
): GeneratedSession {
	const consultations = options.consultations ?? true;
	const scale = options.textScale ?? 1;
	const userEvery = options.userEvery ?? 25;
	const random = lcg(seed);
	const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
	const text = (min: number, max: number) => {
		const length = int(min, max);
		return filler(scale === 1 ? length : Math.max(1, Math.round(length * scale)), int(0, 9000));
	};
	// A compacted session stands for a long real one, where the same files and commands come back:
	// its arguments are drawn from a project-sized pool (without it every path would be new).
	const pool = options.compactEvery === undefined ? [] : Array.from({ length: ARGUMENT_POOL }, () => text(8, 60));
	let files = 0;
	// A new file: spread over 64 folders (`src/m7/…`), as a project's are, its name made unique by its
	// number (whole within the 30 characters the session builder keeps of an argument).
	const newFile = () => `m${files % 64}/${filler(int(3, 14), int(0, 9000))} ${files++}`;
	const call = (): CallPlan => ({
		tool: options.newFiles === true ? "read" : TOOLS[int(0, TOOLS.length - 1)]!,
		arg: options.newFiles === true ? newFile() : pool.length > 0 ? pool[int(0, pool.length - 1)]! : text(8, 60),
		text: random() < 0.05 ? text(9000, 20000) : text(80, 3500),
		outcome: random() < 0.08 ? "error" : "ok",
		image: false,
	});
	const plan: Step[] = [];
	// Roughly 2.9 entries per step (1.8 with one call a round and a user every six steps); a margin,
	// then the file is cut at exactly targetEntries.
	const steps = Math.ceil(targetEntries / (options.newFiles === true ? 1.5 : 2.4));
	for (let i = 0; i < steps; i++) {
		if (consultations && i % 40 === 39) {
			plan.push({
				t: "consult",
				prose: `Before I go on: ${text(60, 400)}`,
				thinking: text(100, 1200),
				outcome: "ok",
				advice: `Severity: nit\n${text(200, 1500)}`,
				sibling: null,
			});
		} else if (i % userEvery === 0) {
			plan.push({ t: "user", text: text(40, 1500), long: false, images: 0 });
		} else if (i % 97 === 50) {
			plan.push({ t: "custom", display: random() < 0.5, text: text(40, 800) });
		} else if (i % 131 === 70) {
			plan.push({ t: "bash", excluded: random() < 0.3, command: "npm test", output: text(100, 3000) });
		} else {
			const calls = Array.from({ length: options.newFiles === true ? 1 : int(1, 3) }, call);
			plan.push({
				t: "turn",
				prose: random() < 0.4 ? text(20, 500) : "",
				thinking: random() < 0.7 ? text(50, 1500) : "",
				calls,
				order: calls.map((_, k) => k),
			});
		}
	}
	const built = buildSession(plan);
	let kept = built.entries.slice(0, targetEntries);
	if (options.compactEvery !== undefined)
		kept = withCompactions(kept as unknown as SessionEntry[], options.compactEvery) as unknown as typeof kept;
	const jsonl = [built.header, ...kept].map((e) => JSON.stringify(e)).join("\n") + "\n";
	return { jsonl, entries: kept.length };
}

/**
 * A linear branch with a compaction after every `every` entries, as Pi writes one: `firstKeptEntryId`
 * from Pi's `findCutPoint` over the span since the previous compaction's kept entry, the next entry
 * re-parented onto the compaction. The summary is a short scripted checkpoint (what a model writes
 * keeps little of what ran); `tokensBefore` is a round figure, which nothing reads.
 */
function withCompactions(entries: readonly SessionEntry[], every: number): SessionEntry[] {
	const out: SessionEntry[] = [];
	let boundary = 0;
	let count = 0;
	for (const entry of entries) {
		const previous = out.at(-1);
		out.push(previous !== undefined && entry.parentId !== previous.id ? { ...entry, parentId: previous.id } : entry);
		if (out.length < (count + 1) * every + count || entry.type !== "message" || entry.message.role !== "assistant")
			continue;
		const cut = findCutPoint(out, boundary, out.length, DEFAULT_COMPACTION_SETTINGS.keepRecentTokens);
		const firstKept = out[cut.firstKeptEntryIndex];
		if (firstKept === undefined || cut.firstKeptEntryIndex <= boundary) continue;
		count++;
		out.push({
			type: "compaction",
			id: `compact${count}`,
			parentId: out.at(-1)!.id,
			timestamp: entry.timestamp,
			summary: `## Goal\n- Keep working through the generated tasks (checkpoint ${count})\n\n## Progress\n### Done\n- [x] ${firstKept.id} and what came before it\n\n## Next Steps\n1. Continue`,
			firstKeptEntryId: firstKept.id,
			tokensBefore: 100_000,
		});
		boundary = cut.firstKeptEntryIndex;
	}
	return out;
}

/**
 * `leaves` one-message branches off a generated `trunkEntries` trunk, spread evenly along it: what
 * `replay --all-leaves` meets after many `/tree` navigations. The trunk's own leaf stays last in
 * file order, so it is still the default branch.
 */
export function generateTree(trunkEntries: number, leaves: number, seed = 20260101): GeneratedSession {
	const { jsonl } = generateSession(trunkEntries, seed);
	const lines = jsonl.trimEnd().split("\n");
	const ids = lines.slice(1).map((line) => (JSON.parse(line) as { id: string }).id);
	const branches = Array.from({ length: leaves }, (_, k) =>
		JSON.stringify({
			type: "message",
			id: `leaf${k}`,
			parentId: ids[Math.floor(((k + 1) * ids.length) / (leaves + 1))],
			timestamp: "2026-01-01T00:00:00.000Z",
			message: { role: "user", content: `branch ${k}: try another way`, timestamp: 1 },
		}),
	);
	const body = [lines[0]!, ...lines.slice(1, -1), ...branches, lines.at(-1)!];
	return { jsonl: `${body.join("\n")}\n`, entries: ids.length + leaves };
}

/**
 * A short session whose one user message is `chars` characters long (a pasted log, a dump): a user
 * asks, then a few tool rounds. What a replay and a render hold per character of one message, not
 * per entry (bench/memory.ts).
 */
export function generateLongMessage(chars: number): GeneratedSession {
	const plan: Step[] = [
		{ t: "user", text: `Here is the whole log:\n${filler(chars, 7)}`, long: false, images: 0 },
		...Array.from({ length: 4 }, (_, k): Step => {
			const calls: CallPlan[] = [
				{ tool: "read", arg: `m${k}/log part ${k}`, text: filler(2000, k), outcome: "ok", image: false },
			];
			return { t: "turn", prose: `Reading part ${k}.`, thinking: "", calls, order: [0] };
		}),
	];
	const built = buildSession(plan);
	return { jsonl: built.jsonl, entries: built.entries.length };
}
