/**
 * `tools.denyPatterns`: credential-shaped paths the advisor may neither name nor see in a
 * listing. One list drives three enforcers — the path policy (named paths), the listing
 * filters of grep/find/ls, and git pathspecs — so they cannot drift apart.
 */

import { compileGlob, normalisePattern, splitSegments } from "./glob.ts";

/** The list when advisor.json names none: what a workspace commonly holds of credentials. */
export const DEFAULT_DENY_PATTERNS: readonly string[] = Object.freeze([
	".env",
	".env.*",
	"*.pem",
	"*.key",
	"id_rsa*",
	"*.p12",
	"*.pfx",
	// git's own folder holds remote URLs with tokens; git_diff covers the repository's content.
	".git",
	".npmrc",
	".netrc",
	".pypirc",
	".aws",
	"**/.docker/config.json",
	".ssh",
	"*.kdbx",
]);

/** The pattern that denies a workspace-relative path (posix separators), or undefined. */
export type DenyMatcher = (relativePath: string) => string | undefined;

/**
 * A pattern without `/` is tested against every segment, so it catches the basename, a
 * denied folder anywhere (`secrets/.env/x`) and `id_rsa` in any subfolder. A pattern with `/`
 * is tested against the relative path and each of its leading prefixes, so denying a folder
 * denies what is inside it.
 */
export function createDenyMatcher(patterns: readonly string[]): DenyMatcher {
	const compiled = patterns
		.map((raw) => ({ raw, normalised: normalisePattern(raw) }))
		.filter((p) => p.normalised !== "")
		.map((p) => ({ raw: p.raw, anchored: p.normalised.includes("/"), test: compileGlob(p.normalised) }));
	return (relativePath) => {
		const segments = splitSegments(relativePath);
		for (const p of compiled) {
			if (p.anchored) {
				for (let n = 1; n <= segments.length; n++) {
					if (p.test(segments.slice(0, n).join("/"))) return p.raw;
				}
			} else if (segments.some((s) => p.test(s))) {
				return p.raw;
			}
		}
		return undefined;
	};
}

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
