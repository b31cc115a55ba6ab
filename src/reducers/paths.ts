/** Paths as the session sees them: relative to its working directory (cards: docs/request-format.md#blocks). */

/** A path relative to `cwd` when inside it, unchanged otherwise; `.` for the cwd itself. */
export function relativePath(path: string, cwd: string | undefined): string {
	if (cwd === undefined) return path;
	const base = cwd.replace(/[/\\]+$/, "");
	// The root as cwd would turn every absolute path into a relative-looking one.
	if (base.length === 0 || /^[A-Za-z]:$/.test(base)) return path;
	if (!path.startsWith(base)) return path;
	const rest = path.slice(base.length);
	if (rest.length === 0 || /^[/\\]+$/.test(rest)) return ".";
	if (rest[0] !== "/" && rest[0] !== "\\") return path;
	return rest.replace(/^[/\\]+/, "");
}
