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
		const parentId: string | null = current.parentId;
		if (parentId === null) break;
		if (visited.has(parentId)) {
			diagnostics.push({
				reason: "cycle",
				...at(current),
				entryId: current.id,
				message: `parent ${parentId} of ${current.id} is already on the path; the walk stops here`,
			});
			break;
		}
		const child: T = current;
		current = byId.get(parentId);
		if (current === undefined) {
			diagnostics.push({
				reason: "missing-parent",
				...at(child),
				entryId: child.id,
				message: `parent ${parentId} is not in the session; the path starts here`,
			});
		}
	}
	return { path: reversed.reverse(), leafId: leaf.id, diagnostics };
}

/** Entries no other entry names as parent, in file order: one per branch to replay. */
export function listLeaves<T extends Linked>(entries: readonly T[]): T[] {
	const parents = new Set<string>();
	for (const entry of entries) if (entry.parentId !== null && entry.parentId !== entry.id) parents.add(entry.parentId);
	return entries.filter((entry) => !parents.has(entry.id));
}
