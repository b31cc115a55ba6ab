/**
 * One pinned example per row of the rule table: a sample in the row's shape, found by the row
 * itself, becomes exactly the marked text below. A new row without an example fails here.
 */

import { describe, expect, it } from "vitest";
import { DEFAULT_PRIVACY, REDACTION_RULES, redactText, redactWithCount } from "../../../src/events/redact/index.ts";
import { ALNUM, ASSIGNMENT_FORMS, PLANTS, privateKeyVariants, randomText } from "./credentials.ts";

const redact = (text: string) => redactText(text, DEFAULT_PRIVACY);

/** What each row's sample (credentials.ts, seed 7) becomes. */
const EXPECTED: Readonly<Record<string, string>> = {
	"private-key": "[redacted: private-key]",
	"github-app-installation": "[redacted: github-token]",
	"github-classic": "[redacted: github-token]",
	"github-fine-grained": "[redacted: github-token]",
	"github-any-length": "[redacted: github-token]",
	"gitlab-personal-access-token": "[redacted: gitlab-token]",
	"gitlab-other-tokens": "[redacted: gitlab-token]",
	"slack-token": "[redacted: slack-token]",
	"slack-incoming-webhook": "https://hooks.slack.com/services/[redacted: slack-webhook]",
	"stripe-key": "[redacted: stripe-key]",
	"stripe-webhook-secret": "[redacted: stripe-key]",
	"npm-access-token": "[redacted: npm-token]",
	"npmrc-auth-token": "//registry.npmjs.org/:_authToken=[redacted: npm-token]",
	"github-x-oauth-basic": "https://[redacted: github-token]:x-oauth-basic@github.com/acme/widgets.git",
	"anthropic-api-key": "[redacted: anthropic-api-key]",
	"anthropic-any": "[redacted: anthropic-api-key]",
	"openai-api-key": "[redacted: openai-api-key]",
	"openai-prefixed": "[redacted: openai-api-key]",
	"sk-api-key": "[redacted: api-key]",
	"groq-api-key": "[redacted: groq-api-key]",
	"huggingface-token": "[redacted: huggingface-token]",
	"linear-api-key": "[redacted: linear-api-key]",
	"notion-token": "[redacted: notion-token]",
	"sendgrid-api-key": "[redacted: sendgrid-api-key]",
	"shopify-token": "[redacted: shopify-token]",
	"grafana-cloud-token": "[redacted: grafana-token]",
	"grafana-service-account-token": "[redacted: grafana-token]",
	"1password-service-account-token": "[redacted: 1password-token]",
	"hashicorp-vault-token": "[redacted: vault-token]",
	"vercel-token": "[redacted: vercel-token]",
	"databricks-token": "[redacted: databricks-token]",
	"docker-personal-access-token": "[redacted: docker-token]",
	"figma-token": "[redacted: figma-token]",
	"cloudflare-token": "[redacted: cloudflare-token]",
	"tailscale-key": "[redacted: tailscale-key]",
	"google-api-key": "[redacted: google-api-key]",
	"aws-access-key-id": "[redacted: aws-access-key-id]",
	"aws-secret-access-key": "aws_secret_access_key = [redacted: aws-secret-access-key]",
	jwt: "[redacted: jwt]",
	"url-password": "postgres://app:[redacted: url-password]@db.internal:5432/app",
	"authorization-header": "Authorization: Bearer [redacted: bearer-token]",
	"bearer-token": '{"auth": "Bearer [redacted: bearer-token]"}',
	"user-password-flag": "curl -u deploy:[redacted: password] https://api.internal",
	"netrc-password": "machine api.internal login deploy password [redacted: password]",
	"secret-assignment": "DB_PASSWORD=[redacted: secret-assignment]",
};

describe("the rule table", () => {
	it("names each row once, and every row has a pinned example", () => {
		const names = REDACTION_RULES.map((r) => r.name);
		expect(new Set(names).size).toBe(names.length);
		expect(Object.keys(EXPECTED).sort()).toEqual([...names].sort());
		expect(Object.keys(PLANTS).sort()).toEqual([...names].sort());
	});

	it("credits secretlint for every ported row and marks our own", () => {
		for (const rule of REDACTION_RULES)
			expect(rule.source).toMatch(/^(secretlint-rule-[a-z0-9-]+(, |$))+|^pi-advisor-ledger$/);
		const ported = new Set(
			REDACTION_RULES.flatMap((r) => r.source.split(", ")).filter((s) => s !== "pi-advisor-ledger"),
		);
		// The preset's 28 rules less gcp (file checks) and filter-comments (not a detector): rules.ts says why.
		expect([...ported].sort()).toEqual(
			[
				"1password",
				"anthropic",
				"aws",
				"basicauth",
				"cloudflare",
				"database-connection-string",
				"databricks",
				"docker",
				"figma",
				"github",
				"gitlab",
				"grafana",
				"groq",
				"hashicorp-vault",
				"huggingface",
				"linear",
				"notion",
				"npm",
				"openai",
				"privatekey",
				"sendgrid",
				"shopify",
				"slack",
				"stripe",
				"tailscale",
				"vercel",
			].map((name) => `secretlint-rule-${name}`),
		);
	});

	it.each(REDACTION_RULES.map((r) => [r.name, r] as const))("%s", (name, rule) => {
		const plant = PLANTS[name]!(7);
		// The row itself finds it (not only some later row).
		expect(rule.find(plant.text).length).toBe(1);
		expect(redact(plant.text)).toBe(EXPECTED[name]);
		// In the middle of other words, the words stay as they were.
		expect(redact(`Here it is: ${plant.text} (from the .env)`)).toBe(`Here it is: ${EXPECTED[name]} (from the .env)`);
		expect(redactWithCount(plant.text, DEFAULT_PRIVACY).count).toBe(1);
		expect(EXPECTED[name]).toContain(`[redacted: ${plant.kind}]`);
	});
});

describe("finer kinds and more shapes", () => {
	it("an Authorization header with Basic is basic-auth; Token and Bot are bearer tokens", () => {
		const b64 = Buffer.from("deploy:Sup3r-Secret-99").toString("base64");
		expect(redact(`Authorization: Basic ${b64}`)).toBe("Authorization: Basic [redacted: basic-auth]");
		expect(redact(`-H "authorization: token ${randomText(3, 40, ALNUM)}"`)).toBe(
			'-H "authorization: token [redacted: bearer-token]"',
		);
		expect(redact(`{"Authorization":"Bot ${randomText(4, 59, ALNUM)}"}`)).toBe(
			'{"Authorization":"Bot [redacted: bearer-token]"}',
		);
	});

	it("a JWT in an Authorization header keeps its own kind", () => {
		const jwt = PLANTS.jwt!(9).text;
		expect(redact(`curl -H 'Authorization: Bearer ${jwt}' https://x`)).toBe(
			"curl -H 'Authorization: Bearer [redacted: jwt]' https://x",
		);
	});

	it("OpenAI's legacy 48-character sk- key is named as OpenAI's", () => {
		expect(redact(`OPENAI_API_KEY=sk-${randomText(5, 48, ALNUM)}`)).toBe("OPENAI_API_KEY=[redacted: openai-api-key]");
	});

	it("an x-oauth-basic URL is redacted on any host, with or without a path (a clipped remote)", () => {
		const token = randomText(12, 40, "0123456789abcdef");
		expect(redact(`https://${token}:x-oauth-basic@github.com`)).toBe(
			"https://[redacted: github-token]:x-oauth-basic@github.com",
		);
		expect(redact(`git remote add origin https://${token}:x-oauth-basic@git.example.corp/acme/w.git`)).toBe(
			"git remote add origin https://[redacted: github-token]:x-oauth-basic@git.example.corp/acme/w.git",
		);
		expect(redact(`…\nhttps://${token}:x-oauth-basic`)).toBe("…\nhttps://[redacted: github-token]:x-oauth-basic");
	});

	it("a named specific token gets the specific kind, not secret-assignment", () => {
		expect(redact(`GITHUB_TOKEN=${PLANTS["github-classic"]!(1).text}`)).toBe("GITHUB_TOKEN=[redacted: github-token]");
		expect(redact(`"stripeKey": "${PLANTS["stripe-key"]!(1).text}"`)).toBe('"stripeKey": "[redacted: stripe-key]"');
	});

	it.each(ASSIGNMENT_FORMS.map((form) => [form("…"), form] as const))("%s", (_, form) => {
		const value = randomText(11, 20, `${ALNUM}!+-_~^`);
		expect(redact(form(value))).toBe(form("[redacted: secret-assignment]"));
	});

	it("private keys: OpenSSH, inside JSON, PGP armour, and a read cut before END", () => {
		const [ssh, json, pgp, cut] = privateKeyVariants(21);
		expect(redact(ssh!.text)).toBe("[redacted: private-key]\n");
		expect(redact(json!.text)).toBe('{"type":"service_account","private_key":"[redacted: private-key]\\n"}');
		expect(redact(pgp!.text)).toBe("[redacted: private-key]");
		expect(redact(cut!.text)).toBe("[redacted: private-key]\n\n[Showing lines 1-6 of 28. Use offset=7 to continue.]");
	});

	it("a key inside a JSON string cut before END, even inside an escape (a capped write or read)", () => {
		const json = privateKeyVariants(22)[1]!.text;
		const at = json.indexOf("\\n", json.indexOf("PRIVATE KEY-----") + 80);
		// Cut on the backslash of a `\n` escape (the mark takes the stray backslash too), and after it.
		expect(redact(json.slice(0, at + 1))).toBe('{"type":"service_account","private_key":"[redacted: private-key]');
		expect(redact(json.slice(0, at + 2))).toBe('{"type":"service_account","private_key":"[redacted: private-key]\\n');
	});

	it("a URL password may hold a raw @; scheme, user and host stay", () => {
		expect(redact("mongodb+srv://svc:p@ss-W0rd-77@cluster0.example.net/app")).toBe(
			"mongodb+srv://svc:[redacted: url-password]@cluster0.example.net/app",
		);
		expect(redact("redis://:Xk29-aa7Q1@cache:6379")).toBe("redis://:[redacted: url-password]@cache:6379");
	});

	it("an env file: letters-only values count there, and each line keeps its name", () => {
		expect(redact("DB_PASSWORD=correcthorsebattery\nPORT=3000\nSESSION_SECRET=q8Jd93kLm2\n")).toBe(
			"DB_PASSWORD=[redacted: secret-assignment]\nPORT=3000\nSESSION_SECRET=[redacted: secret-assignment]\n",
		);
	});
});
