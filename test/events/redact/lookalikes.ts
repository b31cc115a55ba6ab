/**
 * What an advisor needs and a careless rule would eat: hashes, ids, config values, paths, names,
 * references, placeholders, prose, marks already written. Redaction must hand each back unchanged.
 */

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell and template references, kept verbatim on purpose.

import { ALNUM, randomText } from "./credentials.ts";

const HEX = "0123456789abcdef";
const sha1 = randomText(1, 40, HEX);
const sha256 = randomText(2, 64, HEX);
const sha512 = randomText(3, 128, HEX);
const b64 = randomText(4, 86, `${ALNUM}+/`);

export const LOOKALIKES: readonly string[] = [
	// Hashes and ids
	`commit ${sha1}`,
	`git show ${sha1.slice(0, 7)} && git revert ${sha1.slice(0, 12)}`,
	`HEAD is now at ${sha1.slice(0, 9)} fix: tokens`,
	"uuid 123e4567-e89b-12d3-a456-426614174000",
	`sha256 ${sha256}`,
	`sha512:${sha512}`,
	`image@sha256:${sha256}`,
	`"integrity": "sha512-${b64}==",`,
	`"resolved": "https://registry.npmjs.org/@scope/pkg/-/pkg-1.2.3.tgz",`,
	`https://github.com/acme/widgets/commit/${sha1}`,
	`"id": "toolu_01${randomText(5, 22, ALNUM)}"`,
	`"session": "${randomText(6, 40, HEX)}"`,
	// Config values that are not secrets
	"PORT=3000",
	"NODE_ENV=production",
	"DEBUG=true",
	"LOG_LEVEL=debug\nTZ=UTC",
	"max_tokens: 4096",
	'"input_tokens": 123456, "cache_read_tokens": 7890123',
	"maxTokens: options.maxTokens ?? MODEL.maxTokens,",
	"keepRecentTokens: scenario.settings?.keepRecentTokens ?? 20_000,",
	'"@aws-sdk/credential-provider-node": "^3.972.94",',
	"TOKEN_TTL=3600",
	"AUTH_MODE=oauth",
	"password_min_length: 12",
	'token_type: "Bearer"',
	'"tokenizer": "cl100k_base"',
	// Paths and file names
	"src/secrets/index.ts",
	"edit src/auth/token-store.ts and tokenizer.ts",
	"SECRET_FILE=/run/secrets/db_password",
	"GOOGLE_APPLICATION_CREDENTIALS=./keys/service-account.json",
	"ssh -i ~/.ssh/id_ed25519 host",
	// Names, code, types
	"const apiKey = getApiKey();",
	'const API_KEY_ENV_NAME = "OPENAI_API_KEY";',
	"API_KEY_ENV=OPENAI_API_KEY",
	"password: string;",
	"apiKey?: string | undefined",
	"secret?: string",
	"function verifyPassword(password: string, hash: string): boolean {",
	"return { token: nextToken, secret: config.secret, password: hashedPassword };",
	"apiKey: opts?.apiKey,",
	"options!.secret",
	"const key = process.env.API_KEY;",
	'apiKey: process.env.OPENAI_API_KEY ?? "",',
	'const token = await fetchToken("https://auth.example.com");',
	"password = bcrypt.hashSync(input, 10)",
	"authToken = this.tokens[0]",
	"api_key = os.environ['API_KEY']",
	'key: "user:1234:profile"',
	"sortKey: createdAt",
	"tokenCount: number",
	"class TokenBucket { passThrough = true }",
	// References and placeholders
	"API_KEY=${API_KEY}",
	"TOKEN=$GITHUB_TOKEN",
	"export GITHUB_TOKEN=$(gh auth token)",
	'password: "{{ vault_db_password }}"',
	"token: ${{ secrets.GITHUB_TOKEN }}",
	"//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
	'curl -H "Authorization: Bearer $TOKEN" https://api.example.com',
	'curl -H "Authorization: Bearer ${TOKEN}" https://api.example.com',
	"headers: { Authorization: `Bearer ${token}` }",
	"API_KEY=your-api-key-here",
	"OPENAI_API_KEY=<your key>",
	"SECRET_KEY=changeme",
	'password: "********"',
	"token=<token>",
	"Authorization: Bearer <token>",
	"-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
	"paste it between -----BEGIN PRIVATE KEY----- and -----END PRIVATE KEY----- lines",
	"https://user:password@example.com",
	"postgres://postgres:postgres@localhost:5432/app",
	"mysql://root:${DB_PASSWORD}@db/app",
	"docker run -u 1000:1000 node",
	"git push -u origin main",
	// URLs without credentials
	"http://localhost:3000/@vite/client",
	"git@github.com:acme/widgets.git",
	"ssh://git@github.com:22/acme/widgets.git",
	"https://cdn.jsdelivr.net/npm/pkg@1.0.0/dist/index.js",
	"https://registry.npmjs.org:443/@scope%2fpkg",
	// Prose and near misses
	"The token and key are rotated monthly; keep secrets out of git.",
	"Password reset emails use a one-time token.",
	"Bearer authentication sends a token in the Authorization header.",
	"Authorization: Basic",
	"Classic tokens start with ghp_ and fine-grained ones with github_pat_.",
	"JWTs start with eyJ, Stripe keys with sk_live_.",
	"use an sk_test_ key in CI",
	"task-sk-1234567890abcdefghij",
	"disk-usage-report-2024-final-version",
	'<div class="sk-spinner sk-fading-circle">',
	"AKIAB is not a key",
	"the secret: it was in the config all along",
	"Token: 7 of 10 used",
	"auth: github",
	// Marks already written
	"API_KEY=[redacted: secret-assignment] and [redacted: github-token]",
	'{"apiKey": "[redacted: secret-assignment]"}',
	"postgres://app:[redacted: url-password]@db/app",
];
