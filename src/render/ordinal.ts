/**
 * The ids the request shows: an entry's 1-based position on the branch path, in base 36 (`#1`, `#a`,
 * `#2s`). Four chars or fewer up to 1.6M entries, where a Pi entry id takes eight; and stable, since
 * the fold counts positions from the root (ids: docs/request-format.md#blocks).
 */

/** The shown id of the entry at path position `pos` (1-based). */
export function ordinalId(pos: number): string {
	return pos.toString(36);
}

/**
 * The path position a shown id names, or undefined when the text is not one: only the canonical
 * form counts (lower case, no leading zero), so an entry id such as `0a1b2c3d` is never read as one.
 */
export function ordinalPosition(text: string): number | undefined {
	if (!/^[1-9a-z][0-9a-z]{0,9}$/.test(text)) return undefined;
	return Number.parseInt(text, 36);
}

/**
 * The id a renderer shows: a path ordinal (ordinalId) for everything on the branch.
 * Entry ids come from the file, so anything but a plain token is replaced and an id cannot break a header.
 */
export function displayId(id: string): string {
	const safe = id.replace(/[^A-Za-z0-9_.:-]/g, "_");
	return safe.length > 64 ? safe.slice(0, 64) : safe;
}
