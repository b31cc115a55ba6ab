/**
 * The branches of one session file a replay replays, and what each is replayed from. With
 * `--all-leaves` the leaves are taken depth first, so consecutive branches share the longest trunk,
 * and a branch's events are the previous branch's event objects as far as their paths agree: the
 * replay recognises the shared trunk by identity and resumes there (point-resume.ts).
 */

import type {
	EntryRecord,
	LedgerEvent,
	NormalizeOptions,
	ParsedSession,
	PrivacyOptions,
} from "../../../events/index.ts";
import { listLeaves, migrateEntries, normalizeBranch, selectBranches } from "../../../events/index.ts";
import type { ToolsConfig } from "../../extension/tools/index.ts";
import { countDiagnostics } from "../report/diagnostics.ts";
import type { Diagnostics } from "../report/replay-report.ts";
import { resumeLengths } from "./point-resume.ts";
import { calledToolNames, type SessionTools, sessionTools } from "./tool-set.ts";

/** One branch, as the replay of its points reads it. */
export interface BranchInput {
	file: string;
	sessionId: string | null;
	leafId: string | undefined;
	/** The session header's cwd: cards show paths relative to it. */
	cwd: string | undefined;
	path: EntryRecord[];
	events: LedgerEvent[];
	tools: SessionTools;
	branchDiagnostics: Diagnostics;
	readerDiagnostics: Diagnostics;
}

/** A branch in the order the replay takes it. */
export interface PlannedBranch {
	/** The leaf asked for (undefined: the session's own leaf, without `--all-leaves`). */
	leaf: string | undefined;
	input: BranchInput;
	/** Lengths of its path that later branches resume at (resumeLengths). */
	keep: readonly number[];
}

export interface FileBranches {
	readerDiagnostics: Diagnostics;
	/** The leaves in file order, as the user sees them in the session: the order the reports come in. */
	fileOrder: (string | undefined)[];
	/**
	 * The branches in the order they are replayed, each made when it is reached: its events are
	 * normalised then, and the entries normalisation looks calls up in are let go with the last one.
	 */
	branches: Iterable<PlannedBranch>;
}

/** What of the replay's options the branches depend on. */
export interface BranchOptions {
	allLeaves: boolean;
	/** advisor.json's `privacy` and `tools.denyPatterns`: how the events are redacted. */
	privacy?: PrivacyOptions;
	/** advisor.json's `tools` section: the investigation tools the request declares. */
	tools?: ToolsConfig;
}

/**
 * Leaves in depth-first order of the entry tree (children in file order), so consecutive leaves
 * share the longest trunk. Leaves no walk from a root reaches (a cycle above them) come last.
 */
export function depthFirstLeaves(entries: readonly EntryRecord[], leaves: readonly string[]): string[] {
	const wanted = new Set(leaves);
	const first = new Map<string, EntryRecord>();
	for (const entry of entries) if (!first.has(entry.id)) first.set(entry.id, entry);
	const children = new Map<string, EntryRecord[]>();
	const roots: EntryRecord[] = [];
	for (const entry of first.values()) {
		const parent = entry.parentId;
		if (parent === null || parent === entry.id || !first.has(parent)) {
			roots.push(entry);
			continue;
		}
		const list = children.get(parent);
		if (list === undefined) children.set(parent, [entry]);
		else list.push(entry);
	}
	const out: string[] = [];
	const seen = new Set<string>();
	const stack: EntryRecord[] = [...roots].reverse();
	while (stack.length > 0) {
		const entry = stack.pop()!;
		if (seen.has(entry.id)) continue;
		seen.add(entry.id);
		if (wanted.has(entry.id)) out.push(entry.id);
		const list = children.get(entry.id);
		if (list !== undefined) for (let i = list.length - 1; i >= 0; i--) stack.push(list[i]!);
	}
	for (const id of leaves) if (!seen.has(id)) out.push(id);
	return out;
}

/**
 * A branch's events, normalised once per entry for the whole file: an event depends on its entry
 * alone, except a branch summary's (it names the user words its branch hid, which depends on the
 * path before it), which is normalised with its path.
 */
function branchEvents(
	path: readonly EntryRecord[],
	entries: readonly EntryRecord[],
	cache: WeakMap<EntryRecord, LedgerEvent> | undefined,
	previous: { path: readonly EntryRecord[]; events: readonly LedgerEvent[] },
	normalize: NormalizeOptions,
): LedgerEvent[] {
	const events: LedgerEvent[] = [];
	let sharing = true;
	for (let i = 0; i < path.length; i++) {
		const record = path[i]!;
		// The same entries up to here as the previous branch: the same path before, the same event.
		sharing &&= previous.path[i] === record && i < previous.events.length;
		if (sharing) {
			events.push(previous.events[i]!);
			continue;
		}
		if (record.kind !== "opaque" && record.entry.type === "branch_summary") {
			events.push(normalizeBranch(path.slice(0, i + 1), entries, normalize).at(-1)!);
			continue;
		}
		let event = cache?.get(record);
		if (event === undefined) {
			// A result's event also depends on its call, above it on every branch that holds it.
			event = normalizeBranch([record], entries, normalize)[0]!;
			cache?.set(record, event);
		}
		events.push(event);
	}
	return events;
}

/** The leaves of one parsed file, in the order they are replayed and in file order, and each branch's input. */
export function fileBranches(file: string, parsed: ParsedSession, options: BranchOptions): FileBranches {
	const entries = migrateEntries(parsed);
	const readerDiagnostics = countDiagnostics(file, parsed.diagnostics, parsed);
	const cwd = parsed.header?.cwd ?? process.cwd();
	const tools = sessionTools(cwd, calledToolNames(entries), options.tools);
	const normalize: NormalizeOptions = {
		...options.privacy,
		...(parsed.header?.cwd !== undefined ? { cwd: parsed.header.cwd } : {}),
	};
	const leaves: (string | undefined)[] = options.allLeaves
		? depthFirstLeaves(
				entries,
				listLeaves(entries).map((e) => e.id),
			)
		: [undefined];
	if (leaves.length === 0) leaves.push(undefined);
	const fileOrder: (string | undefined)[] = options.allLeaves ? listLeaves(entries).map((e) => e.id) : [undefined];
	if (fileOrder.length === 0) fileOrder.push(undefined);
	const selected = selectBranches(entries, leaves);
	const keep = resumeLengths(selected.map((branch) => branch.path));

	function* branches(): Generator<PlannedBranch> {
		// Events by entry, for the branches after the first; and the entries normalisation looks calls
		// and abandoned branches up in: a copy, so the index normalisation keeps of it goes once every
		// branch is normalised, not at the end of the replay.
		const eventCache = selected.length > 1 ? new WeakMap<EntryRecord, LedgerEvent>() : undefined;
		let lookup: readonly EntryRecord[] | undefined = entries.slice();
		let previous: { path: readonly EntryRecord[]; events: readonly LedgerEvent[] } = { path: [], events: [] };
		for (let i = 0; i < selected.length; i++) {
			const branch = selected[i]!;
			const events = branchEvents(branch.path, lookup!, eventCache, previous, normalize);
			if (i === selected.length - 1) lookup = undefined;
			previous = { path: branch.path, events };
			const input: BranchInput = {
				file,
				sessionId: parsed.header?.id ?? null,
				leafId: branch.leafId,
				cwd: parsed.header?.cwd,
				path: branch.path,
				events,
				tools,
				branchDiagnostics: countDiagnostics(file, branch.diagnostics),
				readerDiagnostics,
			};
			yield { leaf: leaves[i], input, keep: keep[i]! };
		}
	}
	return { readerDiagnostics, fileOrder, branches: branches() };
}
