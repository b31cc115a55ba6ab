/**
 * The credential shapes redaction recognises, in the order they are applied.
 *
 * Most rows are ported from secretlint's recommended preset — @secretlint/secretlint-rule-preset-recommend
 * 13.1.0, MIT licence, Copyright (c) 2020 azu, https://github.com/secretlint/secretlint — whose rules
 * are asynchronous file scanners. Their regular expressions (facts) are copied here with the rule
 * name they come from; the code around them is ours. Where a row widens or narrows a secretlint
 * pattern, its comment says how and why. Rows whose `source` is "pi-advisor-ledger" are shapes
 * secretlint's preset does not cover (JWTs, Google API keys, Authorization headers, generic
 * assignments, …). docs/privacy.md lists them for users.
 *
 * Not ported: secretlint-rule-gcp (checks .p12 files and service-account JSON files by name and
 * content; the key inside such a JSON is a private-key block, caught below), the AWS account-id
 * scan (an account id is not a credential; secretlint leaves it off by default too) and
 * secretlint-rule-filter-comments (`secretlint-disable` comments: a comment in a file the
 * executor read must not decide what leaves the machine; `privacy.allow` is the user's tool).
 * secretlint's built-in allowance for the AWS documentation's example keys is not ported either:
 * a session cannot tell an example from a real key of the same shape, and a mark costs nothing.
 */

import { ASSIGNMENT_KEYWORDS, ASSIGNMENT_KIND, findAssignments } from "./assignment.ts";
import { type Finder, patternFinder } from "./found.ts";
import { isPlaceholder, isReference } from "./plausible.ts";
import { findPrivateKeys } from "./private-key.ts";

export interface RedactionRule {
	/** Unique; names the row in tests and docs. */
	readonly name: string;
	/** The secretlint rule the pattern comes from, or "pi-advisor-ledger". */
	readonly source: string;
	/** The kind shown in the mark, `[redacted: <kind>]` (a row may choose a finer one per match). */
	readonly kind: string;
	/** A literal prefilter: the rule runs only on a text that contains one of these. */
	readonly literals: readonly string[];
	/** Whether the literals match in any case (the rule's own pattern ignores case too). */
	readonly foldCase: boolean;
	readonly find: Finder;
	/** "generic" rules run after the user's own patterns, so a specific kind wins a shared value. */
	readonly phase: "specific" | "generic";
}

const SECRETLINT = (rule: string) => `secretlint-rule-${rule}`;
const OURS = "pi-advisor-ledger";

const hasDigit = (s: string) => /\d/.test(s);
const hasLetter = (s: string) => /[A-Za-z]/.test(s);
/** A random token has digits and both cases; an identifier such as `ghs_installation_token` does not. */
const looksRandom = (s: string) => hasDigit(s) && /[A-Z]/.test(s) && /[a-z]/.test(s);
const notPlaceholder = (s: string) => !isPlaceholder(s) && !isReference(s);

/**
 * The rows' left boundaries ("not after a letter", "not after a word character") would fail on
 * JSON text, where a token often follows the `n` of a `\n` escape. This rewrites each of them, and
 * a leading `\b`, so that a letter right after a backslash does not count. The rows stay written
 * as secretlint wrote them.
 */
function escapeAware(pattern: RegExp): RegExp {
	const source = pattern.source
		.replace(/^\\b/, "(?<!(?<!\\\\)\\w)")
		.replace(/\(\?<!(\\p\{L\}|\[[^\]]*\])\)/g, "(?<!(?<!\\\\)$1)");
	return new RegExp(source, pattern.flags);
}

function row(
	name: string,
	source: string,
	kind: string,
	literals: readonly string[],
	pattern: RegExp,
	accept?: (secret: string, groups: Readonly<Record<string, string | undefined>>) => boolean,
	kindOf?: (secret: string, groups: Readonly<Record<string, string | undefined>>) => string,
): RedactionRule {
	return {
		name,
		source,
		kind,
		literals,
		foldCase: pattern.flags.includes("i"),
		find: patternFinder({ pattern: escapeAware(pattern), kind: kindOf ?? kind, ...(accept && { accept }) }),
		phase: "specific",
	};
}

export const REDACTION_RULES: readonly RedactionRule[] = Object.freeze([
	// Whole blocks first: nothing inside a key should be matched as something else.
	{
		name: "private-key",
		source: SECRETLINT("privatekey"),
		kind: "private-key",
		literals: ["-----BEGIN"],
		foldCase: false,
		find: findPrivateKeys,
		phase: "specific",
	},

	// Prefixed provider tokens. GitHub's app-installation token (ghs_<id>_<JWT>) before the classic
	// ghs_ form, whose 36 characters could be its first part.
	row(
		"github-app-installation",
		SECRETLINT("github"),
		"github-token",
		["ghs_"],
		/(?<!\p{L})ghs_[0-9]{1,20}_[A-Za-z0-9_-]{1,1000}\.[A-Za-z0-9_-]{1,10000}\.[A-Za-z0-9_-]{1,1000}(?![A-Za-z0-9_-])/gu,
	),
	row(
		"github-classic",
		SECRETLINT("github"),
		"github-token",
		["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
		/(?<!\p{L})(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}(?![A-Za-z0-9_])/gu,
	),
	row(
		"github-fine-grained",
		SECRETLINT("github"),
		"github-token",
		["github_pat_"],
		/(?<!\p{L})github_pat_[A-Za-z0-9_]{82}(?![A-Za-z0-9_])/gu,
	),
	// Ours: the same prefixes at other lengths (fixtures, older formats), when the body looks random.
	row(
		"github-any-length",
		OURS,
		"github-token",
		["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
		/(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9_]{20,255}|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])/g,
		looksRandom,
	),
	row(
		"gitlab-personal-access-token",
		SECRETLINT("gitlab"),
		"gitlab-token",
		["glpat-"],
		/(?<!\p{L})glpat-[A-Za-z0-9_-]{20,128}(?![A-Za-z0-9_-])/gu,
	),
	// Ours: GitLab's other documented token prefixes and the runner registration token.
	row(
		"gitlab-other-tokens",
		OURS,
		"gitlab-token",
		["gldt-", "glptt-", "glrt-", "glsoat-", "glcbt-", "glffct-", "glimt-", "glft-", "glagent-", "GR1348941"],
		/(?<![A-Za-z0-9_-])(?:(?:gldt|glptt|glrt|glsoat|glcbt|glffct|glimt|glft|glagent)-[A-Za-z0-9_-]{20,128}|GR1348941[A-Za-z0-9_-]{20,64})(?![A-Za-z0-9_-])/g,
	),
	// secretlint's prefixes plus xoxs (legacy workspace) and xoxe (token rotation).
	row(
		"slack-token",
		SECRETLINT("slack"),
		"slack-token",
		["xox", "xapp-"],
		/\b(?:xoxb|xoxp|xapp|xoxa|xoxo|xoxr|xoxs|xoxe)-(?:\d-)?(?:[a-zA-Z0-9]{1,40}-)+[a-zA-Z0-9]{1,40}\b/g,
	),
	// The workspace and channel ids stay; the path's last part is the secret, so redact from T… on.
	row(
		"slack-incoming-webhook",
		SECRETLINT("slack"),
		"slack-webhook",
		["hooks.slack.com"],
		/(?<pre>https:\/\/hooks\.slack\.com\/services\/)(?<secret>T[a-zA-Z0-9]{1,40}\/B[a-zA-Z0-9]{1,40}\/[a-zA-Z0-9]{1,40})/gi,
	),
	row(
		"stripe-key",
		SECRETLINT("stripe"),
		"stripe-key",
		["sk_live_", "sk_test_", "rk_live_", "rk_test_"],
		/(?<!\p{L})(?:sk_live|sk_test|rk_live|rk_test)_[a-zA-Z0-9]{24,99}(?![a-zA-Z0-9])/gu,
	),
	// Ours: Stripe's webhook signing secret.
	row(
		"stripe-webhook-secret",
		OURS,
		"stripe-key",
		["whsec_"],
		/(?<![A-Za-z0-9_])whsec_[A-Za-z0-9]{24,99}(?![A-Za-z0-9])/g,
	),
	row(
		"npm-access-token",
		SECRETLINT("npm"),
		"npm-token",
		["npm_"],
		/(?<!\p{L})npm_[A-Za-z0-9_]{36}(?![A-Za-z0-9_])/gu,
	),
	// secretlint reads this in .npmrc files only and to the end of the line; here any text, and the
	// token is what a token is made of (npm_…, a UUID, base64), so `${NPM_TOKEN}` stays and a
	// neighbour on the same line is not swallowed.
	row(
		"npmrc-auth-token",
		SECRETLINT("npm"),
		"npm-token",
		["_authToken"],
		/(?<pre>_authToken\s*=\s*["']?)(?<secret>[A-Za-z0-9._~+/=-]+)/g,
		notPlaceholder,
	),
	// The token is the URL's user part here: https://<token>:x-oauth-basic@github.com/… — on any host
	// (GitHub Enterprise too), with or without a path, and cut right after `x-oauth-basic` (a file
	// written or shown cut short still carries the token whole).
	row(
		"github-x-oauth-basic",
		SECRETLINT("npm"),
		"github-token",
		["x-oauth-basic"],
		/(?<pre>https?:\/\/)(?<secret>[^\s:@/]{1,256})(?=:x-oauth-basic)/g,
	),
	row(
		"anthropic-api-key",
		SECRETLINT("anthropic"),
		"anthropic-api-key",
		["sk-ant-api0"],
		/(?<!\p{L})sk-ant-api0\d-[A-Za-z0-9_-]{90,128}AA(?![A-Za-z0-9_-])/gu,
	),
	// Ours: any sk-ant- key (admin, OAuth, future formats, shortened fixtures).
	row(
		"anthropic-any",
		OURS,
		"anthropic-api-key",
		["sk-ant-"],
		/(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g,
		hasDigit,
	),
	row(
		"openai-api-key",
		SECRETLINT("openai"),
		"openai-api-key",
		["T3BlbkFJ"],
		/sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20}/g,
	),
	// Ours: OpenAI's project, service-account and admin keys without the T3BlbkFJ marker.
	row(
		"openai-prefixed",
		OURS,
		"openai-api-key",
		["sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-"],
		/(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}/g,
		hasDigit,
	),
	// Ours: any other sk- key (OpenAI's legacy 48 characters, DeepSeek, OpenRouter, …). Not after a
	// letter, digit, `_` or `-` (`task-sk-…`, `disk-…`), and only with digits and letters, so a
	// kebab-case name is left alone.
	row(
		"sk-api-key",
		OURS,
		"api-key",
		["sk-"],
		/(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g,
		(s) => hasDigit(s) && hasLetter(s.slice(3)) && !isPlaceholder(s),
		(s) => (/^sk-[A-Za-z0-9]{48}$/.test(s) ? "openai-api-key" : "api-key"),
	),
	row("groq-api-key", SECRETLINT("groq"), "groq-api-key", ["gsk_"], /(?<!\p{L})gsk_[a-zA-Z0-9]{52}(?![a-zA-Z0-9])/gu),
	row(
		"huggingface-token",
		SECRETLINT("huggingface"),
		"huggingface-token",
		["hf_"],
		/(?<!\p{L})hf_[a-zA-Z]{34}(?![a-zA-Z])/gu,
	),
	row(
		"linear-api-key",
		SECRETLINT("linear"),
		"linear-api-key",
		["lin_api_"],
		/(?<!\p{L})lin_api_[a-zA-Z0-9_]{32,128}(?![a-zA-Z0-9_])/gu,
	),
	row(
		"notion-token",
		SECRETLINT("notion"),
		"notion-token",
		["ntn_"],
		/(?<!\p{L})ntn_[0-9]{11}[A-Za-z0-9]{35}(?![A-Za-z0-9])/gu,
	),
	// secretlint matches \w runs and then checks the length is 69; the same, with the length in the accept.
	row(
		"sendgrid-api-key",
		SECRETLINT("sendgrid"),
		"sendgrid-api-key",
		["SG."],
		/(?<!\p{L})SG\.[\w-]{1,128}\.[\w-]{1,128}(?![\w-])/gu,
		(s) => s.length === 69,
	),
	row(
		"shopify-token",
		SECRETLINT("shopify"),
		"shopify-token",
		["shppa_", "shpca_", "shpat_", "shpss_"],
		/(?<!\p{L})(?:shppa|shpca|shpat|shpss)_[a-zA-Z0-9]{32,64}(?![a-zA-Z0-9])/gu,
	),
	row(
		"grafana-cloud-token",
		SECRETLINT("grafana"),
		"grafana-token",
		["glc_"],
		/(?<!\p{L})glc_[A-Za-z0-9+/]{32,400}={0,2}(?![A-Za-z0-9+/=])/gu,
	),
	row(
		"grafana-service-account-token",
		SECRETLINT("grafana"),
		"grafana-token",
		["glsa_"],
		/(?<!\p{L})glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}(?![A-Fa-f0-9])/gu,
	),
	row(
		"1password-service-account-token",
		SECRETLINT("1password"),
		"1password-token",
		["ops_ey"],
		/(?<!\p{L})ops_ey[A-Za-z0-9+/=]{100,1280}fQ={0,2}(?![A-Za-z0-9+/=])/gu,
	),
	row(
		"hashicorp-vault-token",
		SECRETLINT("hashicorp-vault"),
		"vault-token",
		["hvs.", "hvb.", "hvr."],
		/(?<!\p{L})(?:hvs\.[A-Za-z0-9_-]{90,120}|hvb\.[A-Za-z0-9_-]{138,300}|hvr\.[A-Za-z0-9_-]{90,120})(?![A-Za-z0-9_-])/gu,
	),
	row(
		"vercel-token",
		SECRETLINT("vercel"),
		"vercel-token",
		["vcp_", "vci_", "vca_", "vcr_", "vck_"],
		/(?<!\p{L})(?:vcp|vci|vca|vcr|vck)_[A-Za-z0-9]{20,60}(?![A-Za-z0-9])/gu,
	),
	row(
		"databricks-token",
		SECRETLINT("databricks"),
		"databricks-token",
		["dapi"],
		/(?<!\p{L})dapi[A-Fa-f0-9]{32}(?:-[0-9])?(?![A-Fa-f0-9])/gu,
	),
	row(
		"docker-personal-access-token",
		SECRETLINT("docker"),
		"docker-token",
		["dckr_pat_"],
		/(?<!\p{L})dckr_pat_[a-zA-Z0-9_-]{27}(?![a-zA-Z0-9_-])/gu,
	),
	row(
		"figma-token",
		SECRETLINT("figma"),
		"figma-token",
		["figd_"],
		/(?<!\p{L})figd_[A-Za-z0-9_-]{40,200}(?![A-Za-z0-9_-])/gu,
	),
	row(
		"cloudflare-token",
		SECRETLINT("cloudflare"),
		"cloudflare-token",
		["cfk_", "cfut_", "cfat_"],
		/(?<!\p{L})(?:cfk|cfut|cfat)_[A-Za-z0-9]{40}[0-9a-f]{8}(?![A-Za-z0-9])/gu,
	),
	row(
		"tailscale-key",
		SECRETLINT("tailscale"),
		"tailscale-key",
		["tskey-"],
		/(?<!\p{L})tskey-[a-z]{2,20}-[0-9A-Za-z_]{8,40}-[0-9A-Za-z_]{16,60}(?![0-9A-Za-z_])/gu,
	),
	// Ours: Google API keys (Maps, Gemini, Firebase …), AIza + 35.
	row("google-api-key", OURS, "google-api-key", ["AIza"], /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g),
	// secretlint leaves the access-key-id scan off by default (enableIDScanRule); on here: an id
	// with its secret beside it is the pair an attacker needs.
	row(
		"aws-access-key-id",
		SECRETLINT("aws"),
		"aws-access-key-id",
		["A3T", "AKIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "ASIA"],
		/\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}\b/g,
	),
	// A 40-character secret looks like a git SHA, so only with its name beside it.
	row(
		"aws-secret-access-key",
		SECRETLINT("aws"),
		"aws-secret-access-key",
		["SECRET", "secret", "Secret"],
		/(?<pre>["']?(?:AWS|aws|Aws)?_?(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)["']?\s*(?::|=>|=)\s*["']?)(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/g,
	),
	// Ours: JSON Web Tokens, header.payload.signature (the signature may be empty: alg "none").
	row("jwt", OURS, "jwt", ["eyJ"], /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g),
	// secretlint-rule-basicauth (http, https, ftp, ftps) and secretlint-rule-database-connection-string
	// (mongodb, mysql, postgres) as one row for any scheme: scheme, user and host stay. The password
	// may hold a raw `@`; the last `@` before the host ends it. Their placeholder checks are kept.
	// The scheme is looked for behind `://` (a lookbehind after the literal), so the scan moves from
	// colon to colon, not letter to letter.
	row(
		"url-password",
		`${SECRETLINT("basicauth")}, ${SECRETLINT("database-connection-string")}`,
		"url-password",
		["://"],
		/(?<pre>:\/\/(?<=(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}:\/\/)(?<user>[^\s:@/?#"'<>[\]]{0,256}):)(?<secret>[^\s/?#"'<>]{1,256})@(?=[A-Za-z0-9[])/g,
		(secret, groups) => secret !== groups.user && secret.length >= 4 && notPlaceholder(secret),
	),
	// Ours: the Authorization header's value; the header and its scheme stay. Anchored on `uthorization`
	// (what comes before it is checked behind), so the scan does not stop at every `a`.
	row(
		"authorization-header",
		OURS,
		"bearer-token",
		["uthorization", "UTHORIZATION"],
		/(?<pre>(?:uthorization|UTHORIZATION)(?<=(?<![A-Za-z0-9-])(?:[Pp]roxy-|PROXY-)?[Aa](?:uthorization|UTHORIZATION))["']?\s*[:=]\s*["']?(?<scheme>[Bb]earer|BEARER|[Bb]asic|BASIC|[Tt]oken|Bot|OAuth|JWT)\s+)(?<secret>[A-Za-z0-9._~+/=-]{8,})/g,
		notPlaceholder,
		(_, groups) => (groups.scheme?.toLowerCase() === "basic" ? "basic-auth" : "bearer-token"),
	),
	// Ours: a bearer token outside a header (`"Bearer abc…"` in code or JSON), when it looks random.
	row(
		"bearer-token",
		OURS,
		"bearer-token",
		["Bearer"],
		/(?<pre>(?<![A-Za-z0-9_-])Bearer\s+)(?<secret>[A-Za-z0-9._~+/-]{16,}=*)/g,
		(s) => hasDigit(s) && hasLetter(s) && notPlaceholder(s),
	),
	// Ours: `curl -u user:password`, `--user user:password` (a uid:gid pair stays); the password ends
	// where a shell word would, or at a backslash (`\n` in JSON text).
	row(
		"user-password-flag",
		OURS,
		"password",
		["-u ", "-u=", "--user"],
		/(?<pre>(?<![A-Za-z0-9_-])(?:-u|--user)(?:[ \t]+|=)["']?(?<user>[^\s:"'@]{1,256}):)(?<secret>[^\s"';|&)}\]\\]{1,256})/g,
		(secret, groups) => secret !== groups.user && !/^\d+$/.test(secret) && notPlaceholder(secret),
	),
	// Ours: .netrc's `machine host login user password secret`. The password ends at a quote, a
	// backslash (`\n` in JSON text), a bracket, `;` or `,`, so it cannot swallow what follows.
	row(
		"netrc-password",
		OURS,
		"password",
		["password"],
		/(?<pre>(?<![A-Za-z0-9_])(?:machine[ \t]+\S+|default)(?:\s+(?:login|account)[ \t]+\S+)*\s+password[ \t]+)(?<secret>[^\s"'`\\;,(){}[\]<>]+)/g,
		notPlaceholder,
	),

	// Last: any value beside a name that says it is a credential.
	{
		name: "secret-assignment",
		source: OURS,
		kind: ASSIGNMENT_KIND,
		literals: ASSIGNMENT_KEYWORDS,
		foldCase: true,
		find: findAssignments,
		phase: "generic",
	},
]);
