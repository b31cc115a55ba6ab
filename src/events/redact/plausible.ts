/**
 * Judgements about a candidate value: is it a credential, or something an advisor needs to see
 * (a variable reference, a placeholder from documentation, a path, a name)? docs/privacy.md lists
 * the rules in prose; the look-alike tests pin them.
 */

/** `$VAR`, `${VAR}`, `$(cmd)`, `${{ secrets.X }}`, `%VAR%`, `{{var}}`, `{var}`, `<your-token>`, env lookups. */
export function isReference(value: string): boolean {
	const c = value[0];
	if (c === "$" || c === "{" || c === "<") return true;
	if (c === "%" && value.endsWith("%")) return true;
	return /^(?:process\.env|import\.meta\.env|os\.environ|os\.getenv|System\.getenv|ENV\[|env\.|secrets\.|vars\.)/.test(
		value,
	);
}

const PLACEHOLDER_WORDS = new Set([
	"changeme",
	"change_me",
	"change-me",
	"placeholder",
	"example",
	"redacted",
	"password",
	"passwd",
	"pass",
	"secret",
	"token",
	"apikey",
	"api_key",
	"undefined",
	"null",
	"none",
	"todo",
	"tbd",
	"fixme",
	"dummy",
	"sample",
	"username",
	"user",
]);

/** Documentation stand-ins: `changeme`, `your_api_key_here`, `xxxxxxxx`, `********`, `<token>`, `...`. */
export function isPlaceholder(value: string): boolean {
	const lower = value.toLowerCase();
	if (PLACEHOLDER_WORDS.has(lower)) return true;
	// One character repeated: `xxxxxxxx`, `********`, `00000000`.
	if (/^(.)\1*$/.test(value)) return true;
	if (hasXRun(value)) return true;
	// `your` as a word of its own (`your-api-key`, `YOUR_TOKEN`), not inside random letters (`zYouR`).
	return /(?:^|[^a-z0-9])your(?:[-_ ]|$)|<[^>]*>|\*{3,}|\.{3}|…|change[-_]?me|placeholder|replace[-_]?me|example/.test(
		lower,
	);
}

/**
 * A run of x's standing for the characters of a credential (`sk-xxxxxxxx`, `AKIAXXXXXXXXXXXXXXXX`):
 * one case, at least 4 long and at least a quarter of the value. A random password holds `GXxxxK` or
 * `xxxx` in 20 characters now and then, and is still a password.
 */
function hasXRun(value: string): boolean {
	const least = Math.max(4, Math.ceil(value.length / 4));
	for (const run of value.match(/x+|X+/g) ?? []) if (run.length >= least) return true;
	return false;
}

/** An absolute or relative path, or a file name with a directory: `./x`, `/etc/x`, `src/secrets/index.ts`. */
export function isPath(value: string): boolean {
	return /^(?:~|\.{1,2})?\//.test(value) || (value.includes("/") && /\.[A-Za-z0-9]{1,8}$/.test(value));
}

/** An environment variable's name in UPPER_SNAKE_CASE, such as `OPENAI_API_KEY`: a name, not a secret. */
export function isEnvName(value: string): boolean {
	return /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value);
}

/**
 * A word, identifier or member path without digits: `nextToken`, `config.apiKey`, `opts?.apiKey`,
 * `access-token-type`, `options!.secret`.
 */
export function isIdentifierLike(value: string): boolean {
	return /^[A-Za-z_$][A-Za-z_$-]*(?:[?!]?\.[A-Za-z_$][A-Za-z_$-]*)*!?$/.test(value);
}

const NUMBER = /^[+-]?[\d_.,]+(?:[eE][+-]?\d+)?$/;
/** A version or a range of them, as package manifests write: `^3.972.94`, `>=1.2.0-beta.1`, `v20.6.0`. */
const VERSION = /^(?:[\^~]|[<>]=?|=)?v?\d+(?:\.\d+)+(?:[-+][\w.-]+)?$/;
const WORDS = new Set(["true", "false", "yes", "no", "on", "off", "nil"]);

/**
 * Where a value stands decides how sure a name has to be: in an env file (`NAME=value`, the name in
 * UPPER_SNAKE_CASE) a value is a credential even when it is letters only; in code, JSON or YAML
 * a letters-only value is far more often an identifier (`token: nextToken`) than a password.
 */
export type ValueContext = "env" | "code";

/** The minimum length of a value named as a secret; shorter ones are flags, types and examples. */
export const MIN_SECRET_LENGTH = 8;

/** Whether a value written beside a credential-like name is itself a credential. */
export function isSecretValue(value: string, context: ValueContext): boolean {
	if (value.length < MIN_SECRET_LENGTH) return false;
	// Every test below only exempts, so their order is free: the commonest case in code first.
	if (context === "code" && isIdentifierLike(value)) return false;
	if (value.startsWith("[redacted:")) return false;
	if (/\s/.test(value)) return false;
	if (NUMBER.test(value) || VERSION.test(value) || WORDS.has(value.toLowerCase())) return false;
	if (isReference(value) || isPlaceholder(value) || isPath(value) || isEnvName(value)) return false;
	if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)) return false;
	return true;
}
