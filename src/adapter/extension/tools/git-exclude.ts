/**
 * `tools.denyPatterns` as the advisor's tools apply it. The list and its matcher live in the core
 * (events/redact/deny.ts), where the same list also withholds an executor's read of a denied path;
 * here only what git needs: the list as exclude pathspecs.
 */

import { normalisePattern } from "../../../events/index.ts";

export { createDenyMatcher, DEFAULT_DENY_PATTERNS, type DenyMatcher } from "../../../events/index.ts";

/**
 * The same list as git exclude pathspecs (relative to git's working directory, which is the
 * workspace). `glob` gives `*`/`**` the meaning above and `icase` matches our case folding.
 */
export function gitExcludePathspecs(patterns: readonly string[]): string[] {
	const specs: string[] = [];
	for (const raw of patterns) {
		const p = normalisePattern(raw);
		if (p === "") continue;
		const base = p.includes("/") || p.startsWith("**") ? p : `**/${p}`;
		specs.push(`:(exclude,glob,icase)${base}`, `:(exclude,glob,icase)${base}/**`);
	}
	return specs;
}
