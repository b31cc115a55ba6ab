/**
 * A depth cap on the JSON a session entry carries.
 *
 * JSON.parse reads nesting of any depth, but much of what later walks a value recurses: immer's
 * freeze, JSON.stringify, schema checks, the payload hash. A tool call's arguments 2,500 levels
 * deep were enough to overflow the stack. Entries are clipped once, where they are read, so
 * nothing downstream ever sees more than MAX_ENTRY_DEPTH levels; the clipped subtree is replaced
 * by a marker string, visible wherever the value is shown. Both walks here use an explicit stack.
 */

/** Levels of objects and arrays kept in one entry, the entry itself being level 1. */
export const MAX_ENTRY_DEPTH = 100;

/**
 * Stands in for a clipped object or array. Part of the request the advisor reads (inside a tool
 * call's arguments), so it says plainly what happened.
 */
export const NESTING_CLIPPED_MARKER = `[nested deeper than ${MAX_ENTRY_DEPTH} levels: clipped]`;

type Container = Record<string, unknown> | unknown[];

/** Arrays and plain objects: what JSON.parse makes. Anything else (a Buffer a live host kept) is a leaf. */
function isContainer(value: unknown): value is Container {
	if (typeof value !== "object" || value === null) return false;
	if (Array.isArray(value)) return true;
	const proto = Object.getPrototypeOf(value);
	return proto === Object.prototype || proto === null;
}

/** Depth of the deepest container, at most `limit + 1` (the walk stops there). */
export function nestingDepth(value: unknown, limit: number = Number.MAX_SAFE_INTEGER): number {
	if (!isContainer(value)) return 0;
	let deepest = 0;
	const stack: [Container, number][] = [[value, 1]];
	while (stack.length > 0) {
		const [node, depth] = stack.pop()!;
		if (depth > deepest) deepest = depth;
		if (deepest > limit) return deepest;
		const children = Array.isArray(node) ? node : Object.values(node);
		for (const child of children) if (isContainer(child)) stack.push([child, depth + 1]);
	}
	return deepest;
}

function define(target: Container, key: string | number, value: unknown): void {
	// defineProperty, not assignment: a JSON key "__proto__" must stay an own key, not a prototype.
	Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * The value with every container deeper than `maxDepth` replaced by `marker`; the very same value
 * (no copy) when nothing is that deep.
 */
export function clipDepth(
	value: unknown,
	maxDepth: number = MAX_ENTRY_DEPTH,
	marker: string = NESTING_CLIPPED_MARKER,
): { value: unknown; clipped: boolean } {
	if (nestingDepth(value, maxDepth) <= maxDepth) return { value, clipped: false };
	const copy = (node: Container): Container => (Array.isArray(node) ? new Array(node.length) : {});
	const root = copy(value as Container);
	const stack: [Container, Container, number][] = [[value as Container, root, 1]];
	while (stack.length > 0) {
		const [source, target, depth] = stack.pop()!;
		const entries: [string | number, unknown][] = Array.isArray(source)
			? source.map((item, index) => [index, item])
			: Object.entries(source);
		for (const [key, child] of entries) {
			if (!isContainer(child)) define(target, key, child);
			else if (depth + 1 > maxDepth) define(target, key, marker);
			else {
				const childCopy = copy(child);
				define(target, key, childCopy);
				stack.push([child, childCopy, depth + 1]);
			}
		}
	}
	return { value: root, clipped: true };
}
