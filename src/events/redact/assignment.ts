/**
 * The generic rule: a value written beside a name that says it is a credential —
 * `API_TOKEN=…`, `"apiKey": "…"`, `password: …`, `--client-secret …`, `?access_token=…&`.
 * Only the value is replaced; the name, the quotes and the `=` stay, so the advisor still reads
 * which setting held a secret.
 *
 * Found by scanning for the keywords (cheap, case-insensitive), widening each hit to the whole
 * identifier around it, and judging name and value separately (docs/privacy.md lists the rules).
 */

import type { Found } from "./found.ts";
import { isSecretValue } from "./plausible.ts";

export const ASSIGNMENT_KIND = "secret-assignment";

/** Every credential name holds one of these (any case); they also gate the rule (redactor.ts). */
export const ASSIGNMENT_KEYWORDS: readonly string[] = ["key", "token", "secret", "pass", "pwd", "cred", "auth"];
const KEYWORD = /key|token|secret|pass|pwd|cred|auth/gi;

/** Words that make a name a credential's wherever they stand in it. */
const STRONG = new Set([
	// Not "tokens": in this domain `maxTokens`, `input_tokens` are counts.
	"token",
	"secret",
	"secrets",
	"password",
	"passwords",
	"passwd",
	"pwd",
	"pass",
	"passphrase",
	"credential",
	"credentials",
	"creds",
	"apikey",
	"authtoken",
	"accesstoken",
	"refreshtoken",
	"privatekey",
	"secretkey",
	"accesskey",
	"clientsecret",
	"auth",
	"authorization",
]);

/** Words run together still name a credential: `PGPASSWORD`, `csrftoken`, `clientsecret`, `xapikey`. */
const ENDINGS = ["token", "secret", "password", "passwd", "passphrase", "apikey", "credential", "credentials"];

/** `key` alone is a sort key, a cache key, a React key; these words before it make it a credential. */
const KEY_QUALIFIERS = new Set([
	"api",
	"secret",
	"access",
	"private",
	"signing",
	"sign",
	"encryption",
	"encrypt",
	"enc",
	"master",
	"client",
	"app",
	"admin",
	"service",
	"account",
	"webhook",
	"deploy",
	"ssh",
	"license",
	"licence",
	"consumer",
	"subscription",
	"auth",
	"storage",
	"shared",
	"hmac",
	"jwt",
	"session",
	"root",
]);

/**
 * A last word that makes the name describe a credential rather than hold one:
 * `API_KEY_ENV_NAME`, `token_type`, `SECRET_FILE`, `password_min_length`, `auth_url`.
 */
const META = new Set([
	"name",
	"names",
	"file",
	"files",
	"filename",
	"path",
	"paths",
	"dir",
	"env",
	"var",
	"vars",
	"variable",
	"type",
	"types",
	"kind",
	"id",
	"ids",
	"length",
	"len",
	"count",
	"size",
	"url",
	"uri",
	"endpoint",
	"host",
	"header",
	"headers",
	"field",
	"prefix",
	"suffix",
	"pattern",
	"regex",
	"format",
	"min",
	"max",
	"ttl",
	"expiry",
	"expires",
	"expiration",
	"at",
	"label",
	"hint",
	"policy",
	"mode",
	"enabled",
	"required",
	"provider",
	"source",
	"ref",
	"helper",
	"command",
	"cmd",
	"location",
	"method",
	"index",
	"limit",
	"timeout",
	"version",
	"schema",
	"description",
	"placeholder",
	"example",
	"usage",
	"budget",
	"rate",
	"scope",
	"scopes",
	"flow",
	"error",
	"message",
	"status",
]);

/** The words of a name: `NPM_AUTH_TOKEN`, `apiKey`, `APIKey`, `x-api-key`, `--client-secret`, `db.password`. */
export function nameWords(name: string): string[] {
	return name
		.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
		.replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter((w) => w !== "");
}

/** Names repeat (a file of code uses a few dozen): judged once each, up to a bound. */
const judged = new Map<string, boolean>();
const MAX_JUDGED = 4096;

/** Whether a name says that its value is a credential. */
export function isCredentialName(name: string): boolean {
	let verdict = judged.get(name);
	if (verdict === undefined) {
		verdict = judgeName(name);
		if (judged.size >= MAX_JUDGED) judged.clear();
		judged.set(name, verdict);
	}
	return verdict;
}

function judgeName(name: string): boolean {
	const words = nameWords(name);
	const last = words.at(-1);
	if (last === undefined) return false;
	let named = false;
	words.forEach((word, i) => {
		if (STRONG.has(word) || ENDINGS.some((e) => word.endsWith(e))) named = true;
		else if ((word === "key" || word === "keys") && i > 0 && KEY_QUALIFIERS.has(words[i - 1]!)) named = true;
	});
	return named && !META.has(last);
}

const isNameChar = (c: number) =>
	(c >= 48 && c <= 57) ||
	(c >= 65 && c <= 90) ||
	(c >= 97 && c <= 122) ||
	c === 95 ||
	c === 46 ||
	c === 45 ||
	c === 36;

/** After the name: an optional closing quote (maybe escaped), then `=`, `:=`, `=>` or `:` (not `://`). */
const SEPARATOR = /(\\?["'])?[ \t]*(=>|:=|=|:(?!\/\/))[ \t]*/y;
/** A flag's value may also follow after spaces: `--password hunter2`. */
const FLAG_SEPARATOR = /[ \t]+|=/y;
/**
 * The value: double-quoted (the quotes maybe escaped, as in JSON inside a string), single-quoted,
 * backquoted without interpolation, or bare up to a delimiter.
 */
const VALUE = /\\?"([^"\\\n]*)\\?"|'([^'\n]*)'|`([^`$\n]*)`|([^\s"'`,;&|(){}[\]<>\\]+)/y;

export function findAssignments(text: string): Found[] {
	const found: Found[] = [];
	KEYWORD.lastIndex = 0;
	for (let hit = KEYWORD.exec(text); hit !== null; hit = KEYWORD.exec(text)) {
		let start = hit.index;
		while (start > 0 && isNameChar(text.charCodeAt(start - 1)) && !isEscapeLetter(text, start - 1)) start--;
		let end = KEYWORD.lastIndex;
		while (end < text.length && isNameChar(text.charCodeAt(end))) end++;
		KEYWORD.lastIndex = end;
		if (!MAY_FOLLOW[text.charCodeAt(end)]) continue;
		// Most names in code are not followed by a value: look at what follows before judging the name.
		const value = valueAfter(text, end, text.charCodeAt(start) === 45);
		if (value === undefined) continue;
		const name = text.slice(start, end);
		if (!isCredentialName(name) || !isSecretValue(value.text, value.env && ENV_NAME.test(name) ? "env" : "code")) {
			continue;
		}
		KEYWORD.lastIndex = Math.max(end, value.end);
		found.push({ start: value.start, end: value.end, kind: ASSIGNMENT_KIND });
	}
	return found;
}

const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;

/** The `n` of a `\n` escape (JSON text): where a name starts, not part of it. */
const isEscapeLetter = (text: string, i: number) => "nrt".includes(text[i]!) && text[i - 1] === "\\";

/** What may follow a name that has a value: a quote, a backslash (escaped quote), a space or tab, `=`, `:`. */
const MAY_FOLLOW: readonly boolean[] = Array.from({ length: 128 }, (_, c) =>
	`"'\\ \t=:`.includes(String.fromCharCode(c)),
);

interface ValueSpan {
	start: number;
	end: number;
	text: string;
	/** Written `NAME=value`, nothing around the `=`: an env file, if the name is UPPER_SNAKE_CASE too. */
	env: boolean;
}

function valueAfter(text: string, nameEnd: number, isFlag: boolean): ValueSpan | undefined {
	SEPARATOR.lastIndex = nameEnd;
	let sep = SEPARATOR.exec(text);
	let valueStart: number;
	if (sep !== null) valueStart = SEPARATOR.lastIndex;
	else if (isFlag) {
		FLAG_SEPARATOR.lastIndex = nameEnd;
		sep = FLAG_SEPARATOR.exec(text);
		if (sep === null) return undefined;
		valueStart = FLAG_SEPARATOR.lastIndex;
	} else return undefined;
	VALUE.lastIndex = valueStart;
	const m = VALUE.exec(text);
	if (m === null) return undefined;
	const quoted = m[1] ?? m[2] ?? m[3];
	if (quoted === undefined) {
		// `getApiKey()`, `tokens[0]`: a call or an index, so code, not a value.
		const next = text[VALUE.lastIndex];
		if (next === "(" || next === "[") return undefined;
	}
	const value = quoted ?? m[4]!;
	const start = m.index + (quoted === undefined ? 0 : m[0].indexOf(quoted));
	return { start, end: start + value.length, text: value, env: sep[0] === "=" };
}
