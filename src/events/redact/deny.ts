/**
 * The deny list (`tools.denyPatterns`, docs/privacy.md): credential-shaped paths. One list drives
 * four enforcers that cannot drift apart — the advisor's path policy (named paths), the listing
 * filters of its grep/find/ls and git pathspecs (adapter/tools), and here in the core, the
 * withholding of an executor's read of such a path (normalize.ts). Pure: paths in, verdicts out.
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
	const judge = (relativePath: string): string | undefined => {
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
	// A session reads the same few paths over and over: each is judged once (up to a bound).
	const verdicts = new Map<string, string | undefined>();
	return (relativePath) => {
		if (verdicts.has(relativePath)) return verdicts.get(relativePath);
		const verdict = judge(relativePath);
		if (verdicts.size >= VERDICTS_KEPT) verdicts.clear();
		verdicts.set(relativePath, verdict);
		return verdict;
	};
}

/** Paths whose verdict a matcher keeps. */
const VERDICTS_KEPT = 4096;
