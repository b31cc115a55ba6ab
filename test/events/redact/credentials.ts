/**
 * Fake credentials of every shape the redaction rules know, built at run time from a seed, so no
 * token-shaped string sits in the repository and every property run plants new ones.
 *
 * A plant is the text that carries the credential (`AWS_SECRET_ACCESS_KEY=…`, a URL, a whole PEM
 * block) and the secrets inside it that must never survive redaction.
 */

import fc from "fast-check";

export interface Plant {
	/** The text carrying the credential. */
	text: string;
	/** What must not appear in any output. */
	secrets: string[];
	/** The mark it must become. */
	kind: string;
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
export const ALNUM = UPPER + LOWER + DIGITS;
const B64URL = `${ALNUM}_-`;
const B64 = `${ALNUM}+/`;
const HEX = "0123456789abcdef";
const LETTERS = UPPER + LOWER;
/**
 * Password characters that a URL, a shell word and a JSON string all carry unquoted. Not `.`, `*`
 * or `%`: a run of them (`...`, `***`, `%X%`) is a placeholder by design.
 */
const PASSWORD = `${ALNUM}!+-_~^`;

/** A small deterministic generator (mulberry32): the same seed gives the same credential. */
function prng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/**
 * `length` random characters of `alphabet`, with a digit, an upper- and a lowercase letter at
 * fixed places when the alphabet has them: what a generated token has, and what tells it from a
 * placeholder such as `xxxxxxxx`.
 */
export function randomText(seed: number, length: number, alphabet: string): string {
	const next = prng(seed);
	const chars = Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]!);
	const force = [DIGITS, UPPER, LOWER].filter((set) => [...set].every((c) => alphabet.includes(c)));
	force.forEach((set, i) => {
		if (length > i + 2) chars[i + 1] = set[Math.floor(next() * set.length)]!;
	});
	return chars.join("");
}

const r = randomText;

function pemBody(seed: number, lines: number, first: string): string[] {
	return Array.from(
		{ length: lines },
		(_, i) => (i === 0 ? first : "") + r(seed + i, i === 0 ? 64 - first.length : 64, B64),
	);
}

/** One maker per redaction rule, by the rule's name: seed → plant. */
export const PLANTS: Readonly<Record<string, (seed: number) => Plant>> = {
	"private-key": (s) => {
		const body = pemBody(s, 8, "MIIEow");
		return {
			text: `-----BEGIN RSA PRIVATE KEY-----\n${body.join("\n")}\n-----END RSA PRIVATE KEY-----`,
			secrets: body,
			kind: "private-key",
		};
	},
	"github-app-installation": (s) => {
		const t = `ghs_${1000 + (s % 9000)}_eyJ${r(s, 30, B64URL)}.${r(s + 1, 60, B64URL)}.${r(s + 2, 43, B64URL)}`;
		return { text: t, secrets: [t], kind: "github-token" };
	},
	"github-classic": (s) => {
		const t = `ghp_${r(s, 36, ALNUM)}`;
		return { text: t, secrets: [t], kind: "github-token" };
	},
	"github-fine-grained": (s) => {
		const t = `github_pat_${r(s, 22, ALNUM)}_${r(s + 1, 59, ALNUM)}`;
		return { text: t, secrets: [t], kind: "github-token" };
	},
	"github-any-length": (s) => {
		const t = `gho_${r(s, 28, ALNUM)}`;
		return { text: t, secrets: [t], kind: "github-token" };
	},
	"gitlab-personal-access-token": (s) => {
		const t = `glpat-${r(s, 20, B64URL)}`;
		return { text: t, secrets: [t], kind: "gitlab-token" };
	},
	"gitlab-other-tokens": (s) => {
		const t = `glptt-${r(s, 40, HEX)}`;
		return { text: t, secrets: [t], kind: "gitlab-token" };
	},
	"slack-token": (s) => {
		const t = `xoxb-${r(s, 12, DIGITS)}-${r(s + 1, 13, DIGITS)}-${r(s + 2, 24, ALNUM)}`;
		return { text: t, secrets: [t], kind: "slack-token" };
	},
	"slack-incoming-webhook": (s) => {
		const secret = `T${r(s, 8, UPPER + DIGITS)}/B${r(s + 1, 10, UPPER + DIGITS)}/${r(s + 2, 24, ALNUM)}`;
		return { text: `https://hooks.slack.com/services/${secret}`, secrets: [secret], kind: "slack-webhook" };
	},
	"stripe-key": (s) => {
		const t = `sk_live_${r(s, 24, ALNUM)}`;
		return { text: t, secrets: [t], kind: "stripe-key" };
	},
	"stripe-webhook-secret": (s) => {
		const t = `whsec_${r(s, 32, ALNUM)}`;
		return { text: t, secrets: [t], kind: "stripe-key" };
	},
	"npm-access-token": (s) => {
		const t = `npm_${r(s, 36, ALNUM)}`;
		return { text: t, secrets: [t], kind: "npm-token" };
	},
	"npmrc-auth-token": (s) => {
		const t = r(s, 36, `${HEX}-`);
		return { text: `//registry.npmjs.org/:_authToken=${t}`, secrets: [t], kind: "npm-token" };
	},
	"github-x-oauth-basic": (s) => {
		const t = r(s, 40, HEX);
		return {
			text: `https://${t}:x-oauth-basic@github.com/acme/widgets.git`,
			secrets: [t],
			kind: "github-token",
		};
	},
	"anthropic-api-key": (s) => {
		const t = `sk-ant-api03-${r(s, 93, B64URL)}AA`;
		return { text: t, secrets: [t], kind: "anthropic-api-key" };
	},
	"anthropic-any": (s) => {
		const t = `sk-ant-admin01-${r(s, 40, B64URL)}`;
		return { text: t, secrets: [t], kind: "anthropic-api-key" };
	},
	// secretlint's pattern ends in \b, so a key ending in `-` or `_` is left to the next row: alphanumerics here.
	"openai-api-key": (s) => {
		const t = `sk-proj-${r(s, 74, B64URL)}T3BlbkFJ${r(s + 1, 74, ALNUM)}`;
		return { text: t, secrets: [t], kind: "openai-api-key" };
	},
	"openai-prefixed": (s) => {
		const t = `sk-proj-${r(s, 48, B64URL)}`;
		return { text: t, secrets: [t], kind: "openai-api-key" };
	},
	"sk-api-key": (s) => {
		const t = `sk-${r(s, 32, HEX)}`;
		return { text: t, secrets: [t], kind: "api-key" };
	},
	"groq-api-key": (s) => {
		const t = `gsk_${r(s, 52, ALNUM)}`;
		return { text: t, secrets: [t], kind: "groq-api-key" };
	},
	"huggingface-token": (s) => {
		const t = `hf_${r(s, 34, LETTERS)}`;
		return { text: t, secrets: [t], kind: "huggingface-token" };
	},
	"linear-api-key": (s) => {
		const t = `lin_api_${r(s, 40, ALNUM)}`;
		return { text: t, secrets: [t], kind: "linear-api-key" };
	},
	"notion-token": (s) => {
		const t = `ntn_${r(s, 11, DIGITS)}${r(s + 1, 35, ALNUM)}`;
		return { text: t, secrets: [t], kind: "notion-token" };
	},
	"sendgrid-api-key": (s) => {
		const t = `SG.${r(s, 22, ALNUM)}.${r(s + 1, 43, ALNUM)}`;
		return { text: t, secrets: [t], kind: "sendgrid-api-key" };
	},
	"shopify-token": (s) => {
		const t = `shpat_${r(s, 32, HEX)}`;
		return { text: t, secrets: [t], kind: "shopify-token" };
	},
	"grafana-cloud-token": (s) => {
		const t = `glc_${r(s, 60, B64)}==`;
		return { text: t, secrets: [t.slice(0, -2)], kind: "grafana-token" };
	},
	"grafana-service-account-token": (s) => {
		const t = `glsa_${r(s, 32, ALNUM)}_${r(s + 1, 8, HEX)}`;
		return { text: t, secrets: [t], kind: "grafana-token" };
	},
	"1password-service-account-token": (s) => {
		const t = `ops_ey${r(s, 120, B64)}fQ`;
		return { text: t, secrets: [t], kind: "1password-token" };
	},
	"hashicorp-vault-token": (s) => {
		const t = `hvs.${r(s, 95, B64URL)}`;
		return { text: t, secrets: [t], kind: "vault-token" };
	},
	"vercel-token": (s) => {
		const t = `vcp_${r(s, 24, ALNUM)}`;
		return { text: t, secrets: [t], kind: "vercel-token" };
	},
	"databricks-token": (s) => {
		const t = `dapi${r(s, 32, HEX)}`;
		return { text: t, secrets: [t], kind: "databricks-token" };
	},
	"docker-personal-access-token": (s) => {
		const t = `dckr_pat_${r(s, 27, B64URL)}`;
		return { text: t, secrets: [t], kind: "docker-token" };
	},
	"figma-token": (s) => {
		const t = `figd_${r(s, 40, B64URL)}`;
		return { text: t, secrets: [t], kind: "figma-token" };
	},
	"cloudflare-token": (s) => {
		const t = `cfut_${r(s, 40, ALNUM)}${r(s + 1, 8, HEX)}`;
		return { text: t, secrets: [t], kind: "cloudflare-token" };
	},
	"tailscale-key": (s) => {
		const t = `tskey-auth-${r(s, 12, ALNUM)}-${r(s + 1, 30, ALNUM)}`;
		return { text: t, secrets: [t], kind: "tailscale-key" };
	},
	"google-api-key": (s) => {
		const t = `AIza${r(s, 35, B64URL)}`;
		return { text: t, secrets: [t], kind: "google-api-key" };
	},
	"aws-access-key-id": (s) => {
		const t = `AKIA${r(s, 16, UPPER + DIGITS)}`;
		return { text: t, secrets: [t], kind: "aws-access-key-id" };
	},
	"aws-secret-access-key": (s) => {
		const t = r(s, 40, B64);
		return { text: `aws_secret_access_key = ${t}`, secrets: [t], kind: "aws-secret-access-key" };
	},
	jwt: (s) => {
		const t = `eyJ${r(s, 33, B64URL)}.eyJ${r(s + 1, 60, B64URL)}.${r(s + 2, 43, B64URL)}`;
		return { text: t, secrets: [t], kind: "jwt" };
	},
	"url-password": (s) => {
		const pw = r(s, 16, PASSWORD);
		return { text: `postgres://app:${pw}@db.internal:5432/app`, secrets: [pw], kind: "url-password" };
	},
	"authorization-header": (s) => {
		const t = r(s, 40, B64URL);
		return { text: `Authorization: Bearer ${t}`, secrets: [t], kind: "bearer-token" };
	},
	"bearer-token": (s) => {
		const t = r(s, 40, B64URL);
		return { text: `{"auth": "Bearer ${t}"}`, secrets: [t], kind: "bearer-token" };
	},
	"user-password-flag": (s) => {
		const pw = r(s, 14, PASSWORD);
		return { text: `curl -u deploy:${pw} https://api.internal`, secrets: [pw], kind: "password" };
	},
	"netrc-password": (s) => {
		const pw = r(s, 14, PASSWORD);
		return { text: `machine api.internal login deploy password ${pw}`, secrets: [pw], kind: "password" };
	},
	"secret-assignment": (s) => {
		const value = r(s, 24, PASSWORD);
		return { text: `DB_PASSWORD=${value}`, secrets: [value], kind: "secret-assignment" };
	},
};

/** More places a named value sits, all judged by the generic rule. */
export const ASSIGNMENT_FORMS: readonly ((value: string) => string)[] = [
	(v) => `API_TOKEN=${v}`,
	(v) => `export SERVICE_API_KEY="${v}"`,
	(v) => `"client_secret": "${v}"`,
	(v) => `{"apiKey":"${v}"}`,
	(v) => `password: ${v}`,
	(v) => `  db_password: '${v}'`,
	(v) => `const authToken = "${v}";`,
	(v) => `mysql --password ${v} -h db`,
	(v) => `tool --api-key=${v}`,
	(v) => `https://api.internal/v1/items?access_token=${v}&page=2`,
	(v) => `X-Api-Key: ${v}`,
	(v) => `Server=db;User Id=app;Password=${v};`,
	(v) => `set PGPASSWORD=${v}`,
];

/** A private key as OpenSSH writes it, as a JSON string holds it, and as `read` shows it when cut. */
export function privateKeyVariants(seed: number): Plant[] {
	const ssh = pemBody(seed, 6, "b3BlbnNzaC1rZXktdjE");
	const pkcs8 = pemBody(seed + 10, 6, "MIIEvQ");
	const pgp = pemBody(seed + 20, 6, "lQOYBF");
	const cut = pemBody(seed + 30, 5, "MIIEpA");
	return [
		{
			text: `-----BEGIN OPENSSH PRIVATE KEY-----\n${ssh.join("\n")}\n-----END OPENSSH PRIVATE KEY-----\n`,
			secrets: ssh,
			kind: "private-key",
		},
		{
			text: JSON.stringify({
				type: "service_account",
				private_key: `-----BEGIN PRIVATE KEY-----\n${pkcs8.join("\n")}\n-----END PRIVATE KEY-----\n`,
			}),
			secrets: pkcs8,
			kind: "private-key",
		},
		{
			text: `-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n${pgp.join("\n")}\n=${r(seed, 4, B64)}\n-----END PGP PRIVATE KEY BLOCK-----`,
			secrets: pgp,
			kind: "private-key",
		},
		{
			text: `-----BEGIN RSA PRIVATE KEY-----\n${cut.map((l, i) => `${String(i + 2).padStart(6)}\t${l}`).join("\n")}\n\n[Showing lines 1-6 of 28. Use offset=7 to continue.]`,
			secrets: cut,
			kind: "private-key",
		},
	];
}

/**
 * Seeds for planted credentials. Seeds under 1000 are kept for the fixed look-alikes
 * (lookalikes.ts) and the example tests: a plant drawn from the same seed as `commit <sha1>`
 * would be that very string, and the property would report a look-alike kept as written as a leak.
 */
export const seedArb = fc.integer({ min: 1000, max: 2 ** 31 - 1 });

/** Any plant: a rule's own shape, a generic assignment form, or a private-key variant. */
export const plantArb: fc.Arbitrary<Plant> = fc.oneof(
	fc.tuple(fc.constantFrom(...Object.keys(PLANTS)), seedArb).map(([rule, seed]) => PLANTS[rule]!(seed)),
	fc.tuple(fc.constantFrom(...ASSIGNMENT_FORMS), seedArb).map(([form, seed]) => {
		const value = randomText(seed, 20, PASSWORD);
		return { text: form(value), secrets: [value], kind: "secret-assignment" };
	}),
	fc.tuple(fc.nat(3), seedArb).map(([i, seed]) => privateKeyVariants(seed)[i]!),
);
