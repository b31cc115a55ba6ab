/**
 * Leaf-path selection over the parentId tree, as Pi's getBranch does it, but safe on
 * files Pi never wrote: a cycle or a dangling parent ends the walk with a diagnostic
 * instead of hanging or throwing.
 */

import type { Diagnostic } from "./types.ts";

export interface Linked {
	id: string;
	parentId: string | null;
	/** The entry's file line, when it came from a file: branch diagnostics point there too. */
	line?: number | undefined;
}

function at(entry: Linked): { line?: number } {
	return entry.line === undefined ? {} : { line: entry.line };
}

export interface BranchSelection<T extends Linked> {
	/** Root → leaf. */
	path: T[];
	leafId: string | undefined;
	diagnostics: Diagnostic[];
}

/**
 * @param leafId undefined → the last entry in file order (Pi's leaf after loading, whatever
 *   its type); null → before the first entry, an empty path (Pi's `resetLeaf`).
 */
export function selectBranch<T extends Linked>(entries: readonly T[], leafId?: string | null): BranchSelection<T> {
	const diagnostics: Diagnostic[] = [];
	if (leafId === null) return { path: [], leafId: undefined, diagnostics };
	const byId = new Map<string, T>();
	for (const entry of entries) if (!byId.has(entry.id)) byId.set(entry.id, entry);

	const leaf = leafId === undefined ? entries.at(-1) : byId.get(leafId);
	if (leaf === undefined) {
		if (leafId !== undefined) {
			diagnostics.push({ reason: "unknown-leaf", entryId: leafId, message: `no entry has id ${leafId}` });
		}
		return { path: [], leafId: undefined, diagnostics };
	}

	const reversed: T[] = [];
	const visited = new Set<string>();
	let current: T | undefined = leaf;
	while (current !== undefined) {
		reversed.push(current);
		visited.add(current.id);
		current = stepUp(current, visited, byId, diagnostics).parent;
	}
	return { path: reversed.reverse(), leafId: leaf.id, diagnostics };
}

/** Where a step up the parent links lands; `cycle` when it stopped at an entry already on the path. */
interface Step<T> {
	parent: T | undefined;
	cycle: boolean;
}

/**
 * One step of a walk from the leaf: the entry's parent, or undefined where the walk ends — at a
 * root, at a parent already on the path (a cycle, reported: the walk stops at `entry`) or at a
 * parent the session does not hold (reported: the path starts at `entry`).
 */
function stepUp<T extends Linked>(
	entry: T,
	visited: ReadonlySet<string>,
	byId: ReadonlyMap<string, T>,
	diagnostics: Diagnostic[],
): Step<T> {
	const parentId = entry.parentId;
	if (parentId === null) return { parent: undefined, cycle: false };
	if (visited.has(parentId)) {
		diagnostics.push({
			reason: "cycle",
			...at(entry),
			entryId: entry.id,
			message: `parent ${parentId} of ${entry.id} is already on the path; the walk stops here`,
		});
		return { parent: undefined, cycle: true };
	}
	const parent = byId.get(parentId);
	if (parent === undefined) {
		diagnostics.push({
			reason: "missing-parent",
			...at(entry),
			entryId: entry.id,
			message: `parent ${parentId} is not in the session; the path starts here`,
		});
	}
	return { parent, cycle: false };
}

/** Entries no other entry names as parent, in file order: one per branch to replay. */
export function listLeaves<T extends Linked>(entries: readonly T[]): T[] {
	const parents = new Set<string>();
	for (const entry of entries) if (entry.parentId !== null && entry.parentId !== entry.id) parents.add(entry.parentId);
	return entries.filter((entry) => !parents.has(entry.id));
}

/**
 * A run of entries one walk added to the paths known so far: `entries[0]` sits at path index
 * `start`, right after `parent`'s entries up to that index. Each entry is stored once, however
 * many paths go through it.
 */
interface Segment<T> {
	entries: T[];
	start: number;
	parent: Segment<T> | undefined;
	/** The walk's diagnostics (a missing parent at its root, if any): every path through it has them. */
	diagnostics: Diagnostic[];
}

/** Root → entry, from the segments: one copy per segment crossed. */
function pathTo<T>(segment: Segment<T>, index: number): T[] {
	const pieces: T[][] = [];
	let end = index + 1;
	// A parent segment may run past the fork: only its entries before the child's start are on this path.
	for (let s: Segment<T> | undefined = segment; s !== undefined; s = s.parent) {
		pieces.push(s.entries.slice(0, end - s.start));
		end = s.start;
	}
	const path: T[] = [];
	for (let i = pieces.length - 1; i >= 0; i--) for (const entry of pieces[i]!) path.push(entry);
	return path;
}

/**
 * selectBranch for many leaves of one file: the same paths and diagnostics, but a walk stops at
 * the first entry an earlier walk already placed on a path that ended at a root, and takes that
 * path's head from there. Replaying every leaf of a long trunk then costs each branch its new
 * entries in map lookups, not its whole length. A walk cut by a cycle is never reused: where it
 * starts decides where it stops.
 */
export function selectBranches<T extends Linked>(
	entries: readonly T[],
	leafIds: readonly (string | undefined)[],
): BranchSelection<T>[] {
	const byId = new Map<string, T>();
	for (const entry of entries) if (!byId.has(entry.id)) byId.set(entry.id, entry);
	const known = new Map<T, { segment: Segment<T>; index: number }>();
	return leafIds.map((leafId) => {
		const leaf = leafId === undefined ? entries.at(-1) : byId.get(leafId);
		if (leaf === undefined) return selectBranch(entries, leafId);
		const diagnostics: Diagnostic[] = [];
		const reversed: T[] = [];
		const visited = new Set<string>();
		let base: { segment: Segment<T>; index: number } | undefined;
		let rooted = true;
		let current: T | undefined = leaf;
		while (current !== undefined) {
			base = known.get(current);
			if (base !== undefined) break;
			reversed.push(current);
			visited.add(current.id);
			const step: Step<T> = stepUp(current, visited, byId, diagnostics);
			if (step.cycle) rooted = false;
			current = step.parent;
		}
		const added = reversed.reverse();
		const head = base === undefined ? [] : pathTo(base.segment, base.index);
		const all = base === undefined ? diagnostics : base.segment.diagnostics;
		if (rooted && added.length > 0) {
			const segment: Segment<T> = { entries: added, start: head.length, parent: base?.segment, diagnostics: all };
			for (let i = 0; i < added.length; i++) known.set(added[i]!, { segment, index: head.length + i });
		}
		return { path: head.concat(added), leafId: leaf.id, diagnostics: [...all] };
	});
}
