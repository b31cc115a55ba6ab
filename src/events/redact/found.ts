/** One credential found in a text: the characters [start, end) become `[redacted: kind]`. */
export interface Found {
	readonly start: number;
	readonly end: number;
	readonly kind: string;
}

/** How a rule looks for credentials: every match, left to right, never overlapping. */
export type Finder = (text: string) => Found[];

type Groups = Readonly<Record<string, string | undefined>>;

export interface PatternSpec {
	/**
	 * Global. A named group `secret` is the part replaced; a group `pre`, when present, must start
	 * the match and end where `secret` starts (what it holds is kept: a name, a scheme, a header).
	 * Without `secret` the whole match is replaced.
	 */
	readonly pattern: RegExp;
	readonly kind: string | ((secret: string, groups: Groups) => string);
	/** A match this rejects stays as written (a placeholder, a reference, a look-alike). */
	readonly accept?: (secret: string, groups: Groups) => boolean;
}

export function patternFinder(spec: PatternSpec): Finder {
	const { pattern, kind, accept } = spec;
	return (text) => {
		const found: Found[] = [];
		pattern.lastIndex = 0;
		for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
			if (m[0] === "") {
				pattern.lastIndex++;
				continue;
			}
			const groups: Groups = m.groups ?? {};
			const secret = groups.secret ?? m[0];
			if (secret === "" || (accept !== undefined && !accept(secret, groups))) continue;
			const start = m.index + (groups.secret === undefined ? 0 : (groups.pre?.length ?? 0));
			found.push({
				start,
				end: start + secret.length,
				kind: typeof kind === "string" ? kind : kind(secret, groups),
			});
		}
		return found;
	};
}
